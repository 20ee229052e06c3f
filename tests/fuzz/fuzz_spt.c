/*
 * fuzz_spt.c - libFuzzer target for the SPT reader (built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/spt/,
 * compact copies of the samples).
 *
 * Each input is read into a fresh model twice, once with its size known
 * (a file) and once as from a pipe (size unknown), then listed by `info`
 * into /dev/null. Besides the sanitizers, it checks that the two reads
 * agree on success and on the samples, and that info accepts whatever
 * read accepts (info does not add counts up, so it may accept more).
 * Whatever is read is also written back with the SPT writer and read
 * again: the second model must have the same samples and counts; and
 * written as speedscope and cpuprofile JSON (valid UTF-8 JSON text,
 * fuzz_write_json). An input of 4 MiB or more (`make fuzz` runs this
 * target with -max_len 5 MiB) is also read from a file with two threads,
 * the reader's two-halves path, and with one: both must agree
 * (fuzz_check_halves; fuzz_spt_halves.c reaches that path with every
 * input).
 */
#include "support/harness.h"
#include "support/halves.h"

extern const struct pc_reader pc_spt_reader;
extern const struct pc_writer pc_spt_writer;
extern const struct pc_writer pc_speedscope_writer;
extern const struct pc_writer pc_cpuprofile_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void model_totals(const struct pc_model *m, size_t *nsamples, uint64_t *total)
{
	*nsamples = pc_model_nsamples(m);
	*total = 0;
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		for (size_t c = 0; c < pc_model_ncolumns(m); c++)
			*total += pc_model_values(m, i)[c];
}

/* SPT -> SPT -> model keeps the samples and counts of m, or aborts. */
static void check_round_trip(const struct pc_model *m)
{
	struct pc_ctx ctx;
	struct pc_output out;
	struct pc_input in;
	struct pc_model *again;
	char *bytes = NULL;
	size_t size = 0, nsamples, again_samples;
	uint64_t total, again_total;

	pc_ctx_init(&ctx);
	if (pc_output_to_memory(&out, &bytes, &size, &ctx.err) ||
	    pc_spt_writer.write(&ctx, m, &out) || pc_output_commit(&out, &ctx.err))
		abort();
	again = pc_model_new();
	pc_input_from_memory(&in, "again->spt", bytes, size);
	if (pc_spt_reader.read(&ctx, &in, again))
		abort();
	pc_model_finalize(again);
	model_totals(m, &nsamples, &total);
	model_totals(again, &again_samples, &again_total);
	if (nsamples != again_samples || total != again_total)
		abort();
	pc_input_close(&in);
	pc_model_free(again);
	free(bytes);
}

/* Reads data; returns 0 or -1, and the finalized model's sample count. */
static int read_once(const uint8_t *data, size_t size, bool unknown_size,
		     size_t *nsamples, uint64_t *total)
{
	struct pc_ctx ctx;
	struct pc_model *m;
	int rc;

	pc_ctx_init(&ctx);
	m = pc_model_new();
	rc = fuzz_read(&ctx, &pc_spt_reader, "fuzz.spt", data, size, unknown_size, m);
	*nsamples = 0;
	*total = 0;
	if (!rc) {
		model_totals(m, nsamples, total);
		if (!unknown_size) {
			check_round_trip(m);
			fuzz_write_json(&ctx, &pc_speedscope_writer, m);
			fuzz_write_json(&ctx, &pc_cpuprofile_writer, m);
		}
	}
	pc_model_free(m);
	return rc;
}

static int info_once(const uint8_t *data, size_t size)
{
	struct pc_ctx ctx;
	struct pc_input in;
	int rc;

	pc_ctx_init(&ctx);
	pc_input_from_memory(&in, "fuzz.spt", data, size);
	rc = pc_spt_reader.info(&ctx, &in, fuzz_null_output(), PC_INFO_ALL);
	pc_input_close(&in);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t known_samples, pipe_samples;
	uint64_t known_total, pipe_total;
	int known, piped, info;

	pc_spt_reader.probe(data, size);
	known = read_once(data, size, false, &known_samples, &known_total);
	piped = read_once(data, size, true, &pipe_samples, &pipe_total);
	info = info_once(data, size);
	if (known != piped || known_samples != pipe_samples || known_total != pipe_total)
		abort();
	if (!known && info)
		abort();
	if (size >= FUZZ_HALVES_MIN_BYTES)
		fuzz_check_halves(&pc_spt_reader, data, size);
	return 0;
}
