/*
 * fuzz_perf_data.c - libFuzzer target for the perf.data reader (built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/perf_data/,
 * small files made from scratch by tests/fuzz/seeds/perf_data_seeds.py: file and pipe
 * modes, both byte orders, zstd, DWARF call graphs, most sample fields).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown), and listed by
 * `info` (every view) into /dev/null. Besides the sanitizers, it checks
 * that a failure says why and where (a byte offset within the input, in
 * the perf-data format's name, on one line); that a pipe-mode input reads
 * the same both ways (result, error, samples and counts), while a
 * file-mode one (a 104-byte header) is refused from a pipe, where its
 * sections cannot be reached; and that info accepts whatever read accepts
 * (info decodes no sample fields, so it may accept more). Whatever reads
 * is written by the folded, dump and report writers.
 */
#include "support/harness.h"

extern const struct pc_reader pc_perf_data_reader;
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

/* A failure is located: a byte offset within the input, the format named, one line. */
static void check_located(const struct pc_error *err, size_t size)
{
	if (err->where != PC_WHERE_OFFSET || err->offset > size)
		abort();
	if (!err->format || strcmp(err->format, "perf-data"))
		abort();
	if (strchr(err->message, '\n'))
		abort();
}

static struct outcome read_once(const uint8_t *data, size_t size, bool unknown_size)
{
	struct outcome o = { 0 };
	struct pc_ctx ctx;
	struct pc_model *m;

	pc_ctx_init(&ctx);
	m = pc_model_new();
	o.rc = fuzz_read(&ctx, &pc_perf_data_reader, "fuzz.data", data, size, unknown_size, m);
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

static int info_once(const uint8_t *data, size_t size)
{
	struct pc_ctx ctx;
	struct pc_input in;
	int rc;

	pc_ctx_init(&ctx);
	pc_input_from_memory(&in, "fuzz.data", data, size);
	rc = pc_perf_data_reader.info(&ctx, &in, fuzz_null_output(), PC_INFO_ALL);
	if (rc) {
		if (ctx.err.status == PC_STATUS_OK || !ctx.err.message[0])
			abort(); /* a failure must say why */
		check_located(&ctx.err, size);
	}
	pc_input_close(&in);
	return rc;
}

/* The header's size field says 104: a file-mode file (either byte order). */
static bool file_mode(const uint8_t *data, size_t size)
{
	static const uint8_t le[16] = { 'P', 'E', 'R', 'F', 'I', 'L', 'E', '2', 104 };
	static const uint8_t be[16] = { '2', 'E', 'L', 'I', 'F', 'R', 'E', 'P',
					0, 0, 0, 0, 0, 0, 0, 104 };

	return size >= 104 && (!memcmp(data, le, 16) || !memcmp(data, be, 16));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome known, piped;
	int info;

	pc_perf_data_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	known = read_once(data, size, false);
	piped = read_once(data, size, true);
	info = info_once(data, size);
	if (file_mode(data, size)) {
		if (!piped.rc)
			abort(); /* its attrs and features need random access */
	} else if (known.rc != piped.rc || known.nsamples != piped.nsamples ||
		   known.total != piped.total ||
		   (known.rc && (known.offset != piped.offset ||
				 strcmp(known.message, piped.message)))) {
		abort();
	}
	if (!known.rc && info)
		abort();
	return 0;
}
