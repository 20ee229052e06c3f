/*
 * fuzz_folded.c - libFuzzer target for the folded stacks reader (built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/folded/).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown); the two
 * reads must agree. A failure must say why and where (line:column). When
 * the input reads, the model is written back as folded text (root first,
 * "name;...;name COUNT") and read again: that must give the same text
 * (the reader's output is a fixed point), and the report writer (top
 * table and tree) renders it into /dev/null, failing only on a total
 * past 2^64 - 1, and so does the flame graph SVG writer (plain, and as an
 * icicle 100 pixels wide with every node drawn), whose output must be
 * well-formed XML (libxml2 parses it). With --skip-bad, reading may only
 * fail on a stack whose counts pass INT64_MAX.
 */
#include "support/harness.h"

#include <libxml/parser.h>

extern const struct pc_reader pc_folded_reader;
extern const struct pc_writer pc_flamegraph_svg_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The finalized model as folded text, one line per sample, in model order. */
static void render(const struct pc_model *m, struct fuzz_text *t)
{
	fuzz_text_add(t, "\n", 1); /* no byte-order mark can start the text */
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
		char count[32];

		for (size_t k = n; k-- > 0;) {
			pc_str_id name = pc_model_frame(m, frames[k])->function;

			fuzz_text_add(t, pc_str(m, name), pc_str_len(m, name));
			if (k)
				fuzz_text_add(t, ";", 1);
		}
		snprintf(count, sizeof(count), " %llu\n",
			 (unsigned long long)pc_model_values(m, i)[0]);
		fuzz_text_add(t, count, strlen(count));
	}
}

static void check_report(const struct pc_model *m)
{
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	/* the one failure: a column total past 2^64 - 1 (three stacks of INT64_MAX) */
	if (fuzz_report(&ctx, m) &&
	    !strstr(ctx.err.message, "add up to more than"))
		abort();
}

/* The flame graph SVG: written (or a total past 2^64 - 1), and well-formed XML. */
static void check_svg(const struct pc_model *m, bool icicle)
{
	struct pc_ctx ctx;
	struct pc_output out;
	char *text = NULL;
	size_t size = 0;
	xmlDocPtr doc;

	pc_ctx_init(&ctx);
	if (icicle) {
		pc_ctx_set(&ctx, "inverted", NULL);
		pc_ctx_set(&ctx, "minwidth", "0");
		pc_ctx_set(&ctx, "width", "100");
	}
	if (pc_output_to_memory(&out, &text, &size, &ctx.err))
		abort();
	if (pc_flamegraph_svg_writer.write(&ctx, m, &out)) {
		pc_output_abort(&out);
		if (!strstr(ctx.err.message, "add up to more than"))
			abort();
		return;
	}
	if (pc_output_commit(&out, &ctx.err) || size > INT32_MAX)
		abort();
	doc = xmlReadMemory(text, (int)size, "fuzz.svg", NULL,
			    XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		abort(); /* not well-formed */
	xmlFreeDoc(doc);
	free(text);
}

/* Reads data into m (finalized on success); returns the reader's status. */
static int read_once(const uint8_t *data, size_t size, bool unknown_size,
		     bool skip_bad, struct pc_model *m)
{
	struct pc_ctx ctx;
	int rc;

	pc_ctx_init(&ctx);
	ctx.opt.skip_bad = skip_bad;
	rc = fuzz_read(&ctx, &pc_folded_reader, "fuzz.folded", data, size, unknown_size, m);
	if (!rc)
		return 0;
	if (ctx.err.where != PC_WHERE_LINE || !ctx.err.line || !ctx.err.column)
		abort(); /* a failure must say why and where */
	if (skip_bad && strncmp(ctx.err.message, "the counts of this stack", 24))
		abort(); /* --skip-bad skips everything else */
	return rc;
}

static void check_fixed_point(const struct pc_model *m)
{
	struct fuzz_text first = { 0 }, second = { 0 };
	struct pc_model *again;

	render(m, &first);
	again = pc_model_new();
	if (read_once((const uint8_t *)first.buf, first.len, false, false, again))
		abort();
	render(again, &second);
	if (first.len != second.len || memcmp(first.buf, second.buf, first.len))
		abort();
	pc_model_free(again);
	free(first.buf);
	free(second.buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_model *known, *piped, *skipping;
	int known_rc, piped_rc;

	pc_folded_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	known = pc_model_new();
	piped = pc_model_new();
	skipping = pc_model_new();
	known_rc = read_once(data, size, false, false, known);
	piped_rc = read_once(data, size, true, false, piped);
	/* succeed or fail alike; a failing read's model is thrown away */
	if (known_rc != piped_rc)
		abort();
	if (!known_rc && (pc_model_nsamples(known) != pc_model_nsamples(piped) || pc_model_nframes(known) != pc_model_nframes(piped)))
		abort();
	if (!known_rc) {
		check_fixed_point(known);
		check_report(known);
		check_svg(known, false);
		check_svg(known, true);
	}
	if (!read_once(data, size, false, true, skipping) && !known_rc &&
	    pc_model_nsamples(skipping) != pc_model_nsamples(known))
		abort();
	pc_model_free(known);
	pc_model_free(piped);
	pc_model_free(skipping);
	return 0;
}
