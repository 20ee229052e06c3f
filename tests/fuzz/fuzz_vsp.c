/*
 * fuzz_vsp.c - libFuzzer target for the VSP header reader (built by
 * `make fuzz-build`, run by `make fuzz`; seeds in tests/fuzz/corpus/vsp/,
 * made with tools/vspgen: the sample, a reversed magic with 8-bit counter
 * names and an invalid time, 20+ UTF-16 counter names with surrogate
 * pairs, and a truncated header).
 *
 * Each input is read twice into a model that already holds a sample (as
 * after a report), once with its size known (a file) and once as from a
 * pipe (size unknown), and listed by `info` into /dev/null. Besides the
 * sanitizers, it checks that a failure always says why, that the two
 * reads agree (result and number of facts), that info accepts exactly
 * what read accepts, and that a model without samples is always refused.
 */
#include "support/harness.h"

extern const struct pc_reader pc_vsp_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void seed_sample(struct pc_model *m)
{
	int column = pc_model_add_column(m, "samples", "count");
	struct pc_frame frame = { .function = pc_model_intern_cstr(m, "main") };
	uint32_t frame_id = pc_model_add_frame(m, &frame);
	struct pc_sample sample = { .stack = pc_model_add_stack(m, &frame_id, 1) };

	if (column < 0 || pc_model_add_sample(m, &sample, (size_t)column, 1))
		abort();
}

/* Reads data; returns 0 or -1 and the number of facts added. */
static int read_once(const uint8_t *data, size_t size, bool unknown_size, bool seeded,
		     size_t *nfacts)
{
	struct pc_ctx ctx;
	struct pc_model *m;
	int rc;

	pc_ctx_init(&ctx);
	m = pc_model_new();
	if (seeded)
		seed_sample(m);
	rc = fuzz_read(&ctx, &pc_vsp_reader, "fuzz.vsp", data, size, unknown_size, m);
	*nfacts = pc_model_nfacts(m);
	pc_model_free(m);
	return rc;
}

static int info_once(const uint8_t *data, size_t size)
{
	struct pc_ctx ctx;
	struct pc_input in;
	int rc;

	pc_ctx_init(&ctx);
	pc_input_from_memory(&in, "fuzz.vsp", data, size);
	rc = pc_vsp_reader.info(&ctx, &in, fuzz_null_output(), PC_INFO_ALL);
	if (rc && (ctx.err.status == PC_STATUS_OK || !ctx.err.message[0]))
		abort();
	pc_input_close(&in);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t known_facts, pipe_facts, unseeded_facts;
	int known, piped, info;

	pc_vsp_reader.probe(data, size);
	known = read_once(data, size, false, true, &known_facts);
	piped = read_once(data, size, true, true, &pipe_facts);
	info = info_once(data, size);
	if (known != piped || known_facts != pipe_facts || known != info)
		abort();
	if (!read_once(data, size, false, false, &unseeded_facts) || unseeded_facts)
		abort();
	return 0;
}
