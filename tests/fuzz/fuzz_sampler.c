/*
 * fuzz_sampler.c - libFuzzer target for the Apple Sampler reader (built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/sampler/).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown); both reads
 * must succeed or fail together with the same sample and frame counts. A
 * failure must say why and where (a byte offset). When the input reads,
 * the model is written back with the Sampler writer and read again: the
 * stacks (as names, leaf first) with the sampler_p0..p2 prefixes must
 * carry the same counts (samples without frames, which the writer drops,
 * left out), and the report writer renders it into /dev/null.
 */
#include "support/harness.h"

extern const struct pc_reader pc_sampler_reader;
extern const struct pc_writer pc_sampler_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct stack_text {
	char *text;
	size_t len;
	uint64_t count;
};

struct stack_texts {
	struct stack_text *items;
	size_t n, cap;
};

static void append(char **buf, size_t *len, size_t *cap, const void *bytes, size_t n)
{
	pc_grow(buf, cap, *len + n + 1, 1);
	memcpy(*buf + *len, bytes, n);
	*len += n;
}

/* A sample's stack as names separated by LF, then its unusual prefix. */
static void sample_text(const struct pc_model *m, size_t i, struct stack_text *out)
{
	size_t n, nlabels, cap = 0;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, i)->labels, &nlabels);

	out->text = NULL;
	out->len = 0;
	for (size_t k = 0; k < n; k++) {
		pc_str_id name = pc_model_frame(m, frames[k])->function;

		append(&out->text, &out->len, &cap, pc_str(m, name), pc_str_len(m, name));
		append(&out->text, &out->len, &cap, "\n", 1);
	}
	for (size_t k = 0; k < nlabels; k++) {
		const struct pc_label *label = pc_model_label(m, labels[k]);
		const char *key = pc_str(m, label->key);
		char text[64];

		if (strncmp(key, "sampler_p", 9))
			continue;
		snprintf(text, sizeof(text), "\t%s=%lld", key, (long long)label->num);
		append(&out->text, &out->len, &cap, text, strlen(text));
	}
	append(&out->text, &out->len, &cap, "", 0);
	out->count = pc_model_values(m, i)[0];
}

static int compare_texts(const void *a, const void *b)
{
	const struct stack_text *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->text, y->text, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Stacks with their summed counts, sorted. */
static void collect(const struct pc_model *m, struct stack_texts *out)
{
	size_t kept = 0;

	size_t n = 0;

	out->items = pc_xcalloc(pc_model_nsamples(m) + 1, sizeof(*out->items));
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		if (pc_model_sample(m, i)->stack) /* the writer drops samples without frames */
			sample_text(m, i, &out->items[n++]);
	qsort(out->items, n, sizeof(*out->items), compare_texts);
	for (size_t i = 0; i < n; i++) {
		if (kept && !compare_texts(&out->items[kept - 1], &out->items[i])) {
			out->items[kept - 1].count += out->items[i].count;
			free(out->items[i].text);
			continue;
		}
		out->items[kept++] = out->items[i];
	}
	out->n = kept;
}

static void release(struct stack_texts *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i].text);
	free(t->items);
}

static int read_once(const uint8_t *data, size_t size, bool unknown_size, struct pc_model *m)
{
	struct pc_ctx ctx;
	int rc;

	pc_ctx_init(&ctx);
	rc = fuzz_read(&ctx, &pc_sampler_reader, "fuzz.trace", data, size, unknown_size, m);
	if (!rc)
		return 0;
	if (ctx.err.where != PC_WHERE_OFFSET || ctx.err.offset > size)
		abort(); /* a failure must say why and where */
	return rc;
}

static void check_round_trip(const struct pc_model *m)
{
	struct pc_ctx ctx;
	struct pc_output out = { 0 };
	struct pc_model *again;
	struct stack_texts first, second;
	char *buf = NULL;
	size_t len = 0;

	pc_ctx_init(&ctx);
	if (pc_output_to_memory(&out, &buf, &len, &ctx.err))
		abort();
	if (pc_sampler_writer.write(&ctx, m, &out)) {
		/* the one refusal: more sample lines than the writer's limit */
		if (!strstr(ctx.err.message, "samples: Sampler writes one line"))
			abort();
		pc_output_abort(&out);
		free(buf);
		return;
	}
	if (pc_output_commit(&out, &ctx.err))
		abort();
	again = pc_model_new();
	if (read_once((const uint8_t *)buf, len, false, again))
		abort();
	collect(m, &first);
	collect(again, &second);
	if (first.n != second.n)
		abort();
	for (size_t i = 0; i < first.n; i++)
		if (compare_texts(&first.items[i], &second.items[i]) ||
		    first.items[i].count != second.items[i].count)
			abort();
	release(&first);
	release(&second);
	pc_model_free(again);
	free(buf);
}

static void check_report(const struct pc_model *m)
{
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	fuzz_report(&ctx, m); /* may refuse; must not crash */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_model *known, *piped;
	int known_rc, piped_rc;

	pc_sampler_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	known = pc_model_new();
	piped = pc_model_new();
	known_rc = read_once(data, size, false, known);
	piped_rc = read_once(data, size, true, piped);
	/*
	 * A file and a pipe must succeed or fail alike, and agree on what they
	 * read. A failing read's model is thrown away, and a file (whose size
	 * is known) may see a truncation before a pipe does, so only
	 * successful reads are compared.
	 */
	if (known_rc != piped_rc)
		abort();
	if (!known_rc && (pc_model_nsamples(known) != pc_model_nsamples(piped) || pc_model_nframes(known) != pc_model_nframes(piped)))
		abort();
	if (!known_rc) {
		check_round_trip(known);
		check_report(known);
	}
	pc_model_free(known);
	pc_model_free(piped);
	return 0;
}
