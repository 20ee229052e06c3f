/*
 * fuzz_etl.c - libFuzzer target for the ETW trace reader (-f etl; built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/etl/,
 * small traces made from scratch by tests/fuzz/seeds/etl_seeds.py: 64- and
 * 32-bit headers, plain and Xpress-compressed buffers, stack keys,
 * EVENT_HEADER events with extended items, a trace without samples).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown), and listed by
 * `info` (every view) into /dev/null. Besides the sanitizers, it checks
 * that a failure says why and where (a byte offset inside the input, in
 * the etl format's name, on one line); that both reads agree (the reader
 * streams buffer after buffer and never seeks: result, error offset and
 * message, samples and value totals); and that info, which walks the same
 * buffers and events, succeeds exactly when read does and fails with the
 * same offset and message. Whatever reads is written by the folded, dump
 * and report writers.
 */
#include "support/harness.h"

extern const struct pc_reader pc_etl_reader;
extern const struct pc_writer pc_folded_writer;
extern const struct pc_writer pc_dump_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int rc;
	size_t nsamples;
	uint64_t total; /* of every value */
	uint64_t offset; /* of the error */
	char message[sizeof(((struct pc_error *)0)->message)];
};

/*
 * A failure is located: a byte offset inside the input (a buffer's start: before
 * the end, but for the empty input's 0), the format named, one line.
 */
static void check_located(const struct pc_error *err, size_t size)
{
	if (err->where != PC_WHERE_OFFSET || (size ? err->offset >= size : err->offset != 0))
		abort();
	if (!err->format || strcmp(err->format, "etl"))
		abort();
	if (!err->message[0] || strchr(err->message, '\n'))
		abort();
}

static struct outcome read_once(const uint8_t *data, size_t size, bool unknown_size)
{
	struct outcome o = { 0 };
	struct pc_ctx ctx;
	struct pc_model *m;

	pc_ctx_init(&ctx);
	m = pc_model_new();
	o.rc = fuzz_read(&ctx, &pc_etl_reader, "fuzz.etl", data, size, unknown_size, m);
	if (!o.rc) {
		o.nsamples = pc_model_nsamples(m);
		for (size_t i = 0; i < pc_model_nsamples(m); i++)
			for (size_t c = 0; c < pc_model_ncolumns(m); c++)
				o.total += pc_model_values(m, i)[c];
		if (!unknown_size) {
			fuzz_write(&ctx, &pc_folded_writer, m);
			fuzz_write(&ctx, &pc_dump_writer, m);
			fuzz_report(&ctx, m);
		}
	} else {
		check_located(&ctx.err, size);
		o.offset = ctx.err.offset;
		memcpy(o.message, ctx.err.message, sizeof(o.message));
	}
	pc_model_free(m);
	return o;
}

static struct outcome info_once(const uint8_t *data, size_t size)
{
	struct outcome o = { 0 };
	struct pc_ctx ctx;
	struct pc_input in;

	pc_ctx_init(&ctx);
	pc_input_from_memory(&in, "fuzz.etl", data, size);
	o.rc = pc_etl_reader.info(&ctx, &in, fuzz_null_output(), PC_INFO_ALL);
	if (o.rc) {
		if (ctx.err.status == PC_STATUS_OK || !ctx.err.message[0])
			abort(); /* a failure must say why */
		check_located(&ctx.err, size);
		o.offset = ctx.err.offset;
		memcpy(o.message, ctx.err.message, sizeof(o.message));
	}
	pc_input_close(&in);
	return o;
}

static bool same_failure(const struct outcome *a, const struct outcome *b)
{
	return a->rc == b->rc && (!a->rc || (a->offset == b->offset &&
					      !strcmp(a->message, b->message)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome known, piped, info;

	pc_etl_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	known = read_once(data, size, false);
	piped = read_once(data, size, true);
	info = info_once(data, size);
	if (!same_failure(&known, &piped) || known.nsamples != piped.nsamples ||
	    known.total != piped.total)
		abort(); /* a stream reads the same from a file and from a pipe */
	if (!same_failure(&known, &info))
		abort(); /* info walks the same buffers and events */
	return 0;
}
