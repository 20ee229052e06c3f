/*
 * fuzz_vsperf_xml.c - libFuzzer target for the Visual Studio XML report
 * reader (built by `make fuzz-build`, run by `make fuzz`; seeds in
 * tests/fuzz/corpus/vsperf_xml/).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown); both reads
 * must succeed or fail together, with the same samples, frames and
 * values. A failure must say why and where (line:column, format
 * "vsperf-xml"; a byte offset for UTF-16 text of an odd number of bytes,
 * which has no line to point at). When a sampling call tree reads, the model is written
 * back as a call tree document (each sample's stack as a path of rows
 * under a process node, the value on the leaf) and read again: that must
 * succeed with the same total (see check_round_trip). The report writer
 * renders every model that reads into /dev/null.
 */
#include "support/harness.h"

#include <stdarg.h>

extern const struct pc_reader pc_vsperf_xml_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void text_adds(struct fuzz_text *t, const char *s)
{
	fuzz_text_add(t, s, strlen(s));
}

static void text_addf(struct fuzz_text *t, const char *fmt, ...) PC_PRINTF(2, 3);

static void text_addf(struct fuzz_text *t, const char *fmt, ...)
{
	char buf[160];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fuzz_text_add(t, buf, (size_t)n);
}

/* An attribute value: markup and the blanks attribute normalization would change escaped. */
static void text_add_escaped(struct fuzz_text *t, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		switch (s[i]) {
		case '&': text_adds(t, "&amp;"); break;
		case '<': text_adds(t, "&lt;"); break;
		case '"': text_adds(t, "&quot;"); break;
		case '\t': text_adds(t, "&#9;"); break;
		case '\n': text_adds(t, "&#10;"); break;
		case '\r': text_adds(t, "&#13;"); break;
		default: fuzz_text_add(t, s + i, 1); break;
		}
	}
}

static void add_string_attr(struct fuzz_text *t, const struct pc_model *m, const char *name,
			    pc_str_id id)
{
	text_addf(t, " %s=\"", name);
	text_add_escaped(t, pc_str(m, id), pc_str_len(m, id));
	text_adds(t, "\"");
}

/* comm and pid of a sample, as attributes. */
static void add_labels(struct fuzz_text *t, const struct pc_model *m, uint32_t labelset)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(m, labelset, &n);

	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(m, ids[i]);
		const char *key = pc_str(m, label->key);

		if (!strcmp(key, "comm") && label->str)
			add_string_attr(t, m, "ProcessName", label->str);
		else if (!strcmp(key, "pid") && !label->str)
			text_addf(t, " PID=\"%lld\"", (long long)label->num);
	}
}

/* The comm label of a label set, or 0. */
static pc_str_id comm_of(const struct pc_model *m, uint32_t labelset)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(m, labelset, &n);

	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(m, ids[i]);

		if (!strcmp(pc_str(m, label->key), "comm"))
			return label->str;
	}
	return 0;
}

static void add_frame_attrs(struct fuzz_text *t, const struct pc_model *m, uint32_t id)
{
	const struct pc_frame *frame = pc_model_frame(m, id);

	add_string_attr(t, m, "FunctionName", frame->function);
	if (frame->module)
		add_string_attr(t, m, "ModulePath", pc_model_module(m, frame->module)->name);
	if (frame->flags & PC_FRAME_HAS_ADDRESS)
		text_addf(t, " FunctionAddress=\"0x%llx\"", (unsigned long long)frame->address);
	if (frame->file)
		add_string_attr(t, m, "SourceFile", frame->file);
	if (frame->line)
		text_addf(t, " LineNumber=\"%u\"", frame->line);
}

/*
 * Sample i as rows: a process node (named as its comm, so that no earlier
 * process name carries over), then its path from the root with the value
 * on the leaf (on the process node for a sample without frames).
 */
static void render_sample(struct fuzz_text *t, const struct pc_model *m, size_t i)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	unsigned long long value = pc_model_values(m, i)[0];

	text_addf(t, "<CallTree InclSamples=\"%llu\" ExclSamples=\"%llu\" Level=\"0\"", value,
		  n ? 0 : value);
	add_string_attr(t, m, "FunctionName", comm_of(m, pc_model_sample(m, i)->labels));
	add_labels(t, m, pc_model_sample(m, i)->labels);
	text_adds(t, "/>\n");
	for (size_t depth = 1; depth <= n; depth++) {
		text_addf(t, "<CallTree InclSamples=\"%llu\" ExclSamples=\"%llu\" Level=\"%zu\"",
			  value, depth == n ? value : 0, depth);
		add_frame_attrs(t, m, frames[n - depth]);
		add_labels(t, m, pc_model_sample(m, i)->labels);
		text_adds(t, "/>\n");
	}
}

static void render(const struct pc_model *m, struct fuzz_text *t)
{
	text_adds(t, "<?xml version=\"1.0\"?>\n<PerformanceReport><CallTreeSummary>\n");
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		render_sample(t, m, i);
	text_adds(t, "</CallTreeSummary></PerformanceReport>\n");
}

static void check_report(const struct pc_model *m)
{
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	if (fuzz_report(&ctx, m) &&
	    !strstr(ctx.err.message, "add up to more than"))
		abort();
}

/* Reads data into m (finalized on success); returns the reader's status. */
static int read_once(const uint8_t *data, size_t size, bool unknown_size, struct pc_model *m)
{
	struct pc_ctx ctx;
	int rc;

	pc_ctx_init(&ctx);
	rc = fuzz_read(&ctx, &pc_vsperf_xml_reader, "fuzz.xml", data, size, unknown_size, m);
	if (!rc)
		return 0;
	if (!ctx.err.format || strcmp(ctx.err.format, "vsperf-xml"))
		abort(); /* a failure must say why */
	if ((ctx.err.where != PC_WHERE_LINE || !ctx.err.line || !ctx.err.column) &&
	    (ctx.err.where != PC_WHERE_OFFSET || !strstr(ctx.err.message, "odd number of bytes")))
		abort(); /* and where */
	return rc;
}

static void check_same(const struct pc_model *a, const struct pc_model *b)
{
	if (pc_model_nsamples(a) != pc_model_nsamples(b) || pc_model_ncolumns(a) != pc_model_ncolumns(b) ||
	    pc_model_nframes(a) != pc_model_nframes(b))
		abort();
	for (size_t i = 0; i < pc_model_nsamples(a); i++) {
		size_t na, nb;

		pc_model_stack(a, pc_model_sample(a, i)->stack, &na);
		pc_model_stack(b, pc_model_sample(b, i)->stack, &nb);
		if (na != nb)
			abort();
		for (size_t c = 0; c < pc_model_ncolumns(a); c++)
			if (pc_model_values(a, i)[c] != pc_model_values(b, i)[c])
				abort();
	}
}

static bool is_sampling_call_tree(const struct pc_model *m)
{
	bool tree = false, sampling = false;

	for (size_t i = 0; i < pc_model_nfacts(m); i++) {
		const char *key = pc_str(m, pc_model_fact(m, i)->key), *value = pc_str(m, pc_model_fact(m, i)->value);

		tree |= !strcmp(key, "vsperf.report") && !strcmp(value, "CallTree");
		sampling |= !strcmp(key, "vsperf.flavour") && !strcmp(value, "sampling");
	}
	return tree && sampling && pc_model_ncolumns(m) == 1;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The values of column 0, sorted; *total is their sum. */
static uint64_t *sorted_values(const struct pc_model *m, uint64_t *total)
{
	uint64_t *values = pc_xcalloc(pc_model_nsamples(m) + 1, sizeof(*values));

	*total = 0;
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		values[i] = pc_model_values(m, i)[0];
		*total += values[i];
	}
	qsort(values, pc_model_nsamples(m), sizeof(*values), compare_u64);
	return values;
}

/*
 * The rendered document must read, with the same total. Frames are
 * rendered with the pid of their sample, so the frames of one stack that
 * came from rows of other processes may merge with others: there may be
 * fewer samples; when there are as many, they hold the same values.
 */
static void check_round_trip(const struct pc_model *m)
{
	struct fuzz_text t = { 0 };
	struct pc_model *again;
	uint64_t total, total_again, *values, *values_again;

	render(m, &t);
	again = pc_model_new();
	if (read_once((const uint8_t *)t.buf, t.len, false, again))
		abort();
	values = sorted_values(m, &total);
	values_again = sorted_values(again, &total_again);
	if (total != total_again || pc_model_nsamples(again) > pc_model_nsamples(m) ||
	    (pc_model_nsamples(again) == pc_model_nsamples(m) &&
	     memcmp(values, values_again, pc_model_nsamples(m) * sizeof(*values))))
		abort();
	free(values);
	free(values_again);
	pc_model_free(again);
	free(t.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_model *known, *piped;
	int known_rc, piped_rc;

	pc_vsperf_xml_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	known = pc_model_new();
	piped = pc_model_new();
	known_rc = read_once(data, size, false, known);
	piped_rc = read_once(data, size, true, piped);
	if (known_rc != piped_rc)
		abort();
	if (!known_rc) {
		check_same(known, piped);
		if (is_sampling_call_tree(known))
			check_round_trip(known);
		check_report(known);
	}
	pc_model_free(known);
	pc_model_free(piped);
	return 0;
}
