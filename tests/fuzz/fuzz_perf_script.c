/*
 * fuzz_perf_script.c - libFuzzer target for the perf script reader and the
 * folded writer (built by `make fuzz-build`, run by `make fuzz`; seeds in
 * tests/fuzz/corpus/perf_script/, small hand-written texts of each form).
 *
 * Each input is probed, then read into a fresh model twice: once as it
 * is and once with --skip-bad. Besides the sanitizers, it checks that a
 * failure says why and where (a line and column for syntax errors), that
 * --skip-bad turns every syntax error into a warning (so it fails only
 * where plain reading fails for another reason: counts past 2^63-1, too
 * many events, a line over 16 MiB), that what reads cleanly reads the same
 * with --skip-bad, and that the folded and dump writers accept every model
 * the reader makes, and the speedscope and cpuprofile writers too, with
 * valid UTF-8 JSON text (fuzz_write_json).
 */
#include "model/format.h"
#include "support/harness.h"

extern const struct pc_reader pc_perf_script_reader;
extern const struct pc_writer pc_folded_writer;
extern const struct pc_writer pc_dump_writer;
extern const struct pc_writer pc_speedscope_writer;
extern const struct pc_writer pc_cpuprofile_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int rc;
	bool syntax;      /* the error is located at a line and column */
	size_t nsamples;
	uint64_t total;   /* of every value */
};

static struct outcome read_once(const uint8_t *data, size_t size, bool skip_bad)
{
	struct outcome o = { 0 };
	struct pc_ctx ctx;
	struct pc_model *m;
	struct pc_input in;

	pc_ctx_init(&ctx);
	ctx.opt.skip_bad = skip_bad;
	m = pc_model_new();
	pc_input_from_memory(&in, "fuzz.perf", data, size);
	o.rc = pc_perf_script_reader.read(&ctx, &in, m);
	if (!o.rc) {
		pc_model_finalize(m);
		o.nsamples = pc_model_nsamples(m);
		for (size_t i = 0; i < pc_model_nsamples(m); i++)
			for (size_t c = 0; c < pc_model_ncolumns(m); c++)
				o.total += pc_model_values(m, i)[c];
		fuzz_write(&ctx, &pc_folded_writer, m);
		pc_ctx_set(&ctx, "tid", NULL);
		pc_ctx_set(&ctx, "kernel", NULL);
		pc_ctx_set(&ctx, "jit", NULL);
		pc_ctx_set(&ctx, "addrs", NULL);
		fuzz_write(&ctx, &pc_folded_writer, m);
		fuzz_write(&ctx, &pc_dump_writer, m);
		fuzz_write_json(&ctx, &pc_speedscope_writer, m);
		fuzz_write_json(&ctx, &pc_cpuprofile_writer, m);
	} else if (ctx.err.status == PC_STATUS_OK || !ctx.err.message[0]) {
		abort(); /* a failure must say why */
	} else {
		o.syntax = ctx.err.where == PC_WHERE_LINE && ctx.err.line > 0 && ctx.err.column > 0;
	}
	pc_input_close(&in);
	pc_model_free(m);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome plain, skipping;

	pc_perf_script_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	plain = read_once(data, size, false);
	skipping = read_once(data, size, true);
	if (plain.rc && !plain.syntax)
		abort(); /* every error of this reader is located */
	if (!plain.rc && (skipping.rc || skipping.nsamples != plain.nsamples ||
			  skipping.total != plain.total))
		abort();
	return 0;
}
