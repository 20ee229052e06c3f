/*
 * fuzz_pprof.c - libFuzzer target for the pprof reader and the pprof
 * writer on what it reads (built by `make fuzz-build`, run by `make fuzz`;
 * seeds in tests/fuzz/corpus/pprof/: small raw and gzipped profiles, a Go
 * CPU and heap profile and profconv's own output among them).
 *
 * Each input is probed, then read into a fresh model as a file and as
 * from a pipe: both succeed or fail alike, and a failure must say why and
 * where (a byte offset). What reads is written back as pprof (that must
 * succeed), read again (that must succeed, with the same totals per
 * sample type and, unless the writer warned, the same number of samples),
 * and written again: the
 * second output must be the first byte for byte (profconv's own pprof is
 * a fixed point of reading and writing) unless the first write warned
 * (strings repaired as UTF-8 change how samples sort), and a third the
 * second always. The folded, dump and report writers render the model
 * too.
 */
#include "support/harness.h"

extern const struct pc_reader pc_pprof_reader;
extern const struct pc_writer pc_pprof_writer;
extern const struct pc_writer pc_folded_writer;
extern const struct pc_writer pc_dump_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	size_t nsamples, ncolumns;
	uint64_t totals[PC_MAX_COLUMNS];
};

static void summarize(const struct pc_model *m, struct outcome *o)
{
	*o = (struct outcome){
		.nsamples = pc_model_nsamples(m),
		.ncolumns = pc_model_ncolumns(m),
	};
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		for (size_t c = 0; c < pc_model_ncolumns(m); c++)
			o->totals[c] += pc_model_values(m, i)[c];
}

/* Reads data as pprof into a new model (NULL on failure, which must be located). */
static struct pc_model *read_pprof(const uint8_t *data, size_t size, bool pipe)
{
	struct pc_ctx ctx;
	struct pc_model *m = pc_model_new();

	pc_ctx_init(&ctx);
	if (fuzz_read(&ctx, &pc_pprof_reader, "fuzz.pb.gz", data, size, pipe, m)) {
		if (ctx.err.where != PC_WHERE_OFFSET)
			abort(); /* every error of this reader is located */
		pc_model_free(m);
		return NULL;
	}
	return m;
}

/* The pprof writer's output of m; it must succeed. *warned: whether it warned. */
static char *write_pprof(const struct pc_model *m, size_t *size, bool *warned)
{
	struct pc_ctx ctx;
	struct pc_output out;
	char *bytes = NULL;

	pc_ctx_init(&ctx);
	if (pc_output_to_memory(&out, &bytes, size, &ctx.err))
		abort();
	if (pc_pprof_writer.write(&ctx, m, &out))
		abort(); /* what the reader makes, the writer writes */
	if (pc_output_commit(&out, &ctx.err))
		abort();
	*warned = ctx.nwarnings > 0;
	return bytes;
}

/* data read and written; NULL when it does not read. */
static char *read_and_write(const uint8_t *data, size_t size, struct outcome *o, size_t *written,
			    bool *warned)
{
	struct pc_model *m = read_pprof(data, size, false);
	char *bytes;

	if (!m)
		return NULL;
	summarize(m, o);
	bytes = write_pprof(m, written, warned);
	pc_model_free(m);
	return bytes;
}

static void other_writers(const struct pc_model *m)
{
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	fuzz_write(&ctx, &pc_folded_writer, m);
	fuzz_write(&ctx, &pc_dump_writer, m);
	fuzz_report(&ctx, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pc_model *m, *piped;
	struct outcome first, second, third;
	char *written, *rewritten, *third_written;
	size_t written_size, rewritten_size, third_size;
	bool warned, rewarned;

	pc_pprof_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	m = read_pprof(data, size, false);
	piped = read_pprof(data, size, true);
	if (!m != !piped)
		abort(); /* a pipe reads as the file does */
	pc_model_free(piped);
	if (!m)
		return 0;
	summarize(m, &first);
	other_writers(m);
	written = write_pprof(m, &written_size, &warned);
	pc_model_free(m);
	rewritten = read_and_write((const uint8_t *)written, written_size, &second,
				   &rewritten_size, &rewarned);
	if (!rewritten)
		abort(); /* profconv reads what it writes */
	/* samples can only merge where repaired strings became equal */
	if ((!warned && first.nsamples != second.nsamples) || first.ncolumns != second.ncolumns ||
	    memcmp(first.totals, second.totals, sizeof(first.totals)))
		abort();
	if (!warned && (rewritten_size != written_size || memcmp(rewritten, written, written_size)))
		abort(); /* a fixed point, unless the writer repaired strings or dropped something */
	third_written = read_and_write((const uint8_t *)rewritten, rewritten_size, &third,
				       &third_size, &rewarned);
	if (!third_written || third_size != rewritten_size ||
	    memcmp(third_written, rewritten, rewritten_size))
		abort(); /* then a fixed point */
	free(written);
	free(rewritten);
	free(third_written);
	return 0;
}
