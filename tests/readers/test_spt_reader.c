/*
 * test_spt_reader.c - the SPT reader: exact model contents (modules, build
 * ids, columns, counts, REPEAT, LBR pairs, call stacks), warnings, every
 * error class at its exact offset, streaming, and `info` output.
 *
 * Files are built in memory with tests/support/spt_builder.c (compact
 * layout, so offsets are known) or read from samples/ (the tests run from
 * the top directory).
 */
#include "pipeline/registry.h"
#include "formats/spt.h"
#include "support/spt_builder.h"
#include "support/read_memory.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

extern const struct pc_reader pc_spt_reader;

#define GUID_DEMO "{6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4}"
#define GUID_OTHER "{1B4E28BA-2FA1-11D2-883F-B9A761BDE3FB}"
#define TWO_POW(n) ((uint64_t)1 << (n))

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	struct sptb b;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	sptb_init(&f->b);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	sptb_release(&f->b);
	free(f);
	return 0;
}

/* One program (demo.exe) and an open segment for it. */
static void demo_segment(struct fixture *f)
{
	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment(&f->b, 0);
}

static void ip(struct fixture *f, unsigned op, uint32_t rva)
{
	sptb_rvas(&f->b, op, 1, &rva);
}

static int read_bytes(struct fixture *f, const uint8_t *data, size_t size,
		      bool unknown_size)
{
	return pct_read_memory(&f->ctx, f->m, &pc_spt_reader, "test.spt", data, size,
			       unknown_size);
}

static int read_built(struct fixture *f)
{
	sptb_build(&f->b);
	return read_bytes(f, f->b.image, f->b.size, false);
}

/* Runs info over data; the printed text goes to *text (caller frees). */
static int info_bytes(struct pc_ctx *ctx, const uint8_t *data, size_t size,
		      unsigned views, char **text)
{
	struct pc_input in;
	size_t len;
	FILE *out = open_memstream(text, &len);
	int rc;

	assert_non_null(out);
	pc_input_from_memory(&in, "test.spt", data, size);
	rc = pc_spt_reader.info(ctx, &in, out, views);
	pc_input_close(&in);
	fclose(out);
	return rc;
}

static int column_of(const struct pc_model *m, const char *name)
{
	for (size_t i = 0; i < pc_model_ncolumns(m); i++)
		if (!strcmp(pc_str(m, pc_model_column(m, i)->type), name))
			return (int)i;
	return -1;
}

static const struct pc_frame *frame_of(const struct pc_model *m, uint32_t id)
{
	return pc_model_frame(m, id);
}

static bool frame_is(const struct pc_model *m, uint32_t id, uint32_t module,
		     uint64_t rva)
{
	const struct pc_frame *frame = frame_of(m, id);

	return frame->module == module && frame->address == rva &&
	       frame->flags == PC_FRAME_HAS_ADDRESS && !frame->function;
}

/* The count in column of the one-frame sample at (module, rva), or 0. */
static uint64_t ip_count(const struct pc_model *m, uint32_t module, uint32_t rva,
			 const char *column)
{
	int col = column_of(m, column);

	for (size_t i = 0; col >= 0 && i < pc_model_nsamples(m); i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

		if (!pc_model_sample(m, i)->branches && n == 1 && frame_is(m, frames[0], module, rva))
			return pc_model_values(m, i)[col];
	}
	return 0;
}

/* The sample with exactly this stack (leaf first), or -1. */
static long find_stack(const struct pc_model *m, uint32_t module, size_t n,
		       const uint32_t *rvas)
{
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t len;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &len);
		bool same = len == n && !pc_model_sample(m, i)->branches;

		for (size_t k = 0; same && k < n; k++)
			same = frame_is(m, frames[k], module, rvas[k]);
		if (same)
			return (long)i;
	}
	return -1;
}

static size_t count_samples_in(const struct pc_model *m, const char *column)
{
	int col = column_of(m, column);
	size_t n = 0;

	for (size_t i = 0; col >= 0 && i < pc_model_nsamples(m); i++)
		n += pc_model_values(m, i)[col] != 0;
	return n;
}

static void assert_message_has(const struct pc_error *err, const char *needle)
{
	if (!strstr(err->message, needle))
		fail_msg("message \"%s\" lacks \"%s\"", err->message, needle);
}

static void assert_error_at(const struct pc_error *err, uint64_t offset,
			    const char *needle)
{
	assert_int_equal(err->status, PC_STATUS_INPUT);
	assert_int_equal(err->where, PC_WHERE_OFFSET);
	assert_non_null(err->format);
	assert_string_equal(err->format, "spt");
	assert_string_equal(err->path, "test.spt");
	if (err->offset != offset)
		fail_msg("error at 0x%llx, expected 0x%llx: %s",
			 (unsigned long long)err->offset, (unsigned long long)offset,
			 err->message);
	assert_message_has(err, needle);
}

/* read fails at offset with needle; info fails identically. */
static void expect_error_bytes(struct fixture *f, const uint8_t *data, size_t size,
			       uint64_t offset, const char *needle)
{
	struct pc_ctx info_ctx;
	char *text = NULL;

	assert_int_equal(read_bytes(f, data, size, false), -1);
	assert_error_at(&f->ctx.err, offset, needle);
	pc_ctx_init(&info_ctx);
	assert_int_equal(info_bytes(&info_ctx, data, size, PC_INFO_ALL, &text), -1);
	free(text);
	assert_int_equal(info_ctx.err.offset, f->ctx.err.offset);
	assert_string_equal(info_ctx.err.message, f->ctx.err.message);
}

static void expect_error(struct fixture *f, uint64_t offset, const char *needle)
{
	sptb_build(&f->b);
	expect_error_bytes(f, f->b.image, f->b.size, offset, needle);
}

/* --- probe --- */

static void test_probe(void **state)
{
	uint8_t head[16] = { 0x3a, 0x54, 0x50, 0x53, 1, 0, 0, 0 };

	(void)state;
	assert_int_equal(pc_spt_reader.probe(head, sizeof(head)), PC_PROBE_CERTAIN);
	memcpy(head, "SPT:", 4);
	assert_int_equal(pc_spt_reader.probe(head, sizeof(head)), PC_PROBE_CERTAIN);
	head[4] = 2;
	assert_true(pc_spt_reader.probe(head, sizeof(head)) > PC_PROBE_WEAK);
	assert_true(pc_spt_reader.probe(head, sizeof(head)) < PC_PROBE_CERTAIN);
	assert_true(pc_spt_reader.probe(head, 4) < PC_PROBE_CERTAIN);
	assert_int_equal(pc_spt_reader.probe(head, 3), PC_PROBE_NO);
	memcpy(head, "SPT;", 4);
	assert_int_equal(pc_spt_reader.probe(head, sizeof(head)), PC_PROBE_NO);
	assert_int_equal(pc_spt_reader.probe((const uint8_t *)"", 0), PC_PROBE_NO);
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_string_equal(pc_spt_reader.name, "spt");
	assert_string_equal(pc_spt_reader.extensions[0], ".spt");
	assert_null(pc_spt_reader.extensions[1]);
	assert_int_equal(pc_spt_reader.provides,
			 PC_PART_ADDRESSES | PC_PART_STACKS | PC_PART_BRANCHES);
	assert_non_null(pc_spt_reader.info);
}

/* --- model contents --- */

static void test_modules_and_build_ids(void **state)
{
	struct fixture *f = *state;
	const struct pc_module *mod;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 10, "other.dll");
	sptb_program(&f->b, "{00000000-0000-0000-0000-000000000000}", 0, "");
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_nmodules(f->m), 3);
	mod = pc_model_module(f->m, 1);
	assert_string_equal(pc_str(f->m, mod->name), "demo.exe");
	assert_string_equal(pc_str(f->m, mod->build_id),
			    "6d2a9f130c4b4e8a9f213b7c55d1e0a41a");
	assert_false(mod->has_range);
	mod = pc_model_module(f->m, 2);
	assert_string_equal(pc_str(f->m, mod->name), "other.dll");
	assert_string_equal(pc_str(f->m, mod->build_id),
			    "1b4e28ba2fa111d2883fb9a761bde3fba");
	mod = pc_model_module(f->m, 3);
	assert_string_equal(pc_str(f->m, mod->name), "");
	assert_string_equal(pc_str(f->m, mod->build_id),
			    "000000000000000000000000000000000");
	/* no events: no samples, no columns */
	assert_int_equal(pc_model_nsamples(f->m), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 0);
}

static void test_metadata(void **state)
{
	struct fixture *f = *state;
	bool saw_version = false;

	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_nsources(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "spt");
	assert_int_equal(pc_model_ncomments(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 0)), "SPT v1, 1 program ids");
	for (size_t i = 0; i < pc_model_nfacts(f->m); i++)
		if (!strcmp(pc_str(f->m, pc_model_fact(f->m, i)->key), "spt.version")) {
			assert_string_equal(pc_str(f->m, pc_model_fact(f->m, i)->value), "1");
			saw_version = true;
		}
	assert_true(saw_version);
	assert_true(pc_model_nfacts(f->m) >= 10);
}

static void test_ip_counts_and_repeat(void **state)
{
	struct fixture *f = *state;
	const uint32_t two[] = { 0x10, 0x20 };

	demo_segment(f);
	sptb_repeat(&f->b, 4);
	sptb_rvas(&f->b, SPT_OP_UNHALT_CYCLE, 2, two); /* 5 each */
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);               /* repeat was reset: +1 */
	sptb_repeat(&f->b, 0);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x30);               /* repeat 0 = once */
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "unhalted_cycle");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->unit), "count");
	assert_int_equal(pc_model_default_column(f->m), 0);
	assert_int_equal(pc_model_nsamples(f->m), 3);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 6);
	assert_int_equal(ip_count(f->m, 1, 0x20, "unhalted_cycle"), 5);
	assert_int_equal(ip_count(f->m, 1, 0x30, "unhalted_cycle"), 1);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_same_rva_twice_in_one_record(void **state)
{
	struct fixture *f = *state;
	const uint32_t rvas[] = { 0x10, 0x10, 0x10 };

	demo_segment(f);
	sptb_repeat(&f->b, 1);
	sptb_rvas(&f->b, SPT_OP_RETIRE_INSTR, 3, rvas);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(ip_count(f->m, 1, 0x10, "retired_instr"), 6);
}

static void test_every_ip_kind_has_its_column(void **state)
{
	struct fixture *f = *state;
	static const struct {
		unsigned op;
		const char *column;
	} kinds[] = {
		{ SPT_OP_UNHALT_CYCLE, "unhalted_cycle" },
		{ SPT_OP_RETIRE_INSTR, "retired_instr" },
		{ SPT_OP_RETIRE_BR_INSTR, "retired_branch" },
		{ SPT_OP_L1_ICACHE_MISS, "l1i_miss" },
		{ SPT_OP_L1_DCACHE_MISS, "l1d_miss" },
		{ SPT_OP_ETW_INSTR, "timer" },
	};

	demo_segment(f);
	for (size_t i = 0; i < PC_ARRAY_SIZE(kinds); i++) {
		sptb_repeat(&f->b, i);
		ip(f, kinds[i].op, (uint32_t)(0x100 * (i + 1)));
	}
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), PC_ARRAY_SIZE(kinds));
	for (size_t i = 0; i < PC_ARRAY_SIZE(kinds); i++) {
		assert_int_equal(column_of(f->m, kinds[i].column), (int)i);
		assert_int_equal(ip_count(f->m, 1, (uint32_t)(0x100 * (i + 1)),
					  kinds[i].column), i + 1);
		assert_int_equal(count_samples_in(f->m, kinds[i].column), 1);
	}
}

/* Columns come in the fixed opcode order whatever the record order. */
static void test_column_order_is_fixed(void **state)
{
	struct fixture *f = *state;
	const uint32_t stack[] = { 0x1, 0x2 };
	const uint32_t pair[] = { 0x3, 0x4 };
	static const char *const order[] = {
		"unhalted_cycle", "retired_instr", "retired_branch", "l1i_miss",
		"l1d_miss", "timer", "lbr_branch", "callstack",
	};

	demo_segment(f);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 2, stack);
	sptb_lbr(&f->b, 1, pair);
	ip(f, SPT_OP_ETW_INSTR, 0x10);
	ip(f, SPT_OP_L1_DCACHE_MISS, 0x10);
	ip(f, SPT_OP_L1_ICACHE_MISS, 0x10);
	ip(f, SPT_OP_RETIRE_BR_INSTR, 0x10);
	ip(f, SPT_OP_RETIRE_INSTR, 0x10);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 8);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(pc_str(f->m, pc_model_column(f->m, i)->type), order[i]);
	assert_int_equal(pc_model_default_column(f->m), 0);
}

static void test_default_is_first_present_kind(void **state)
{
	struct fixture *f = *state;
	const uint32_t stack[] = { 0x1, 0x2 };

	demo_segment(f);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 2, stack);
	ip(f, SPT_OP_ETW_INSTR, 0x10);
	ip(f, SPT_OP_RETIRE_INSTR, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 3);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "retired_instr");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 1)->type), "timer");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 2)->type), "callstack");
	assert_int_equal(pc_model_default_column(f->m), 0);
}

/* LBR pairs are stored (to, from); the model gets {from, to} in record order. */
static void test_lbr_pairs(void **state)
{
	struct fixture *f = *state;
	const uint32_t pairs[] = { 0x10, 0x20, 0x30, 0x40 }; /* from, to, ... */
	const struct pc_sample *sample;
	const uint32_t *branches;
	size_t n, len;
	int col;

	demo_segment(f);
	sptb_repeat(&f->b, 6);
	sptb_lbr(&f->b, 2, pairs);
	sptb_lbr(&f->b, 2, pairs); /* identical: merged, +1 */
	assert_int_equal(read_built(f), 0);
	/* on disk: to first */
	assert_int_equal(pc_le32(f->b.image + sptb_events_offset(&f->b) + 8 + 10 + 2),
			 0x20);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	col = column_of(f->m, "lbr_branch");
	assert_int_equal(col, 0);
	assert_int_equal(pc_model_nsamples(f->m), 1);
	sample = pc_model_sample(f->m, 0);
	assert_int_equal(sample->stack, 0);
	pc_model_stack(f->m, sample->stack, &len);
	assert_int_equal(len, 0);
	branches = pc_model_branch_stack(f->m, sample->branches, &n);
	assert_int_equal(n, 2);
	assert_true(frame_is(f->m, branches[0], 1, 0x10)); /* from */
	assert_true(frame_is(f->m, branches[1], 1, 0x20)); /* to */
	assert_true(frame_is(f->m, branches[2], 1, 0x30));
	assert_true(frame_is(f->m, branches[3], 1, 0x40));
	assert_int_equal(pc_model_values(f->m, 0)[col], 8);
}

static void test_callstack_leaf_first(void **state)
{
	struct fixture *f = *state;
	const uint32_t stack[] = { 0x100, 0x200, 0x300 };
	const uint32_t reversed[] = { 0x300, 0x200, 0x100 };
	long at;

	demo_segment(f);
	sptb_repeat(&f->b, 2);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 3, stack);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 3, reversed);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_int_equal(column_of(f->m, "callstack"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	at = find_stack(f->m, 1, 3, stack);
	assert_true(at >= 0);
	assert_int_equal(pc_model_values(f->m, (size_t)at)[0], 3);
	at = find_stack(f->m, 1, 3, reversed);
	assert_true(at >= 0);
	assert_int_equal(pc_model_values(f->m, (size_t)at)[0], 1);
	assert_int_equal(pc_model_narcs(f->m), 0);
}

/* N = 0 records add nothing (no column either) but use up a REPEAT. */
static void test_zero_item_records(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_repeat(&f->b, 5);
	sptb_rvas(&f->b, SPT_OP_RETIRE_INSTR, 0, NULL);
	sptb_lbr(&f->b, 0, NULL);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 0, NULL);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 1);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_segments_and_programs(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 3, "other.dll");
	sptb_segment(&f->b, 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_segment(&f->b, 0);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_segment(&f->b, 0); /* empty segment */
	sptb_segment(&f->b, 1);
	sptb_repeat(&f->b, 9);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_nmodules(f->m), 2);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 1);
	assert_int_equal(ip_count(f->m, 2, 0x10, "unhalted_cycle"), 11);
}

/* Two program ids naming the same module are one module; counts add up. */
static void test_duplicate_program_ids(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment(&f->b, 0);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_segment(&f->b, 1);
	sptb_repeat(&f->b, 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(pc_model_nmodules(f->m), 1);
	assert_int_equal(pc_model_nsamples(f->m), 1);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 3);
}

static void test_text_signature(void **state)
{
	struct fixture *f = *state;

	f->b.text_signature = true;
	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_memory_equal(f->b.image, "SPT:", 4);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 1);
}

/* Roomy tables (unused capacity) and padding between them are skipped. */
static void test_spare_capacity(void **state)
{
	struct fixture *f = *state;

	f->b.strtab_capacity = 0x4000;
	f->b.progid_capacity = 0x100;
	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(sptb_events_offset(&f->b), 0x5820);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 1);
}

/* A record may straddle the reader's 64 KiB window, in files and pipes. */
static void test_streaming_large_input(void **state)
{
	struct fixture *f = *state;
	struct pc_model *from_file;
	struct pc_input in;
	char path[] = "/tmp/pc-test-spt.XXXXXX";
	uint32_t rvas[255];
	int fd;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 3, "other.dll");
	for (uint32_t i = 0; i < 5000; i++) {
		if (i % 100 == 0)
			sptb_segment(&f->b, (i / 100) % 2);
		for (uint32_t k = 0; k < 255; k++)
			rvas[k] = (i * 7 + k * 13) % 5000;
		if (i % 3 == 0)
			sptb_repeat(&f->b, i);
		sptb_rvas(&f->b, i % 2 ? SPT_OP_UNHALT_CYCLE : SPT_OP_ETW_CALLSTACK,
			  1 + i % 255, rvas);
	}
	assert_int_equal(read_built(f), 0);
	assert_true(f->b.size > (2u << 20));

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, f->b.image, f->b.size), (ssize_t)f->b.size);
	close(fd);
	for (int unknown_size = 0; unknown_size < 2; unknown_size++) {
		from_file = pc_model_new();
		assert_int_equal(pc_input_open(&in, path, &f->ctx.err), 0);
		if (unknown_size)
			in.size = PC_SIZE_UNKNOWN;
		assert_int_equal(pc_spt_reader.read(&f->ctx, &in, from_file), 0);
		pc_input_close(&in);
		pc_model_finalize(from_file);
		assert_int_equal(pc_model_nsamples(from_file), pc_model_nsamples(f->m));
		assert_int_equal(pc_model_nframes(from_file), pc_model_nframes(f->m));
		for (size_t i = 0; i < pc_model_nsamples(f->m); i++)
			assert_memory_equal(pc_model_values(from_file, i),
					    pc_model_values(f->m, i),
					    pc_model_ncolumns(f->m) * sizeof(uint64_t));
		pc_model_free(from_file);
	}
	unlink(path);
}

/* --- two threads ---
 *
 * A file of 4 MB or more is decoded in two halves at once. Each test
 * builds one with filler in the middle, writes it to a file, reads it with
 * --threads 1 and with --threads 2, and expects the same outcome: the same
 * dump, or the same error at the same offset, and the same warnings.
 */

#define FILLER_BYTES ((size_t)5 << 20) /* the split falls inside it */

/* Segments of 255-RVA IP records of program 0 until the file grows by bytes. */
static void filler(struct fixture *f, size_t bytes)
{
	uint64_t end = sptb_offset(&f->b) + bytes;
	uint32_t rvas[255];

	for (uint32_t i = 0; sptb_offset(&f->b) < end; i++) {
		if (i % 64 == 0)
			sptb_segment(&f->b, 0);
		for (uint32_t k = 0; k < 255; k++)
			rvas[k] = 0x1000 + (i * 31 + k * 17) % 3000;
		if (i % 5 == 0)
			sptb_repeat(&f->b, i % 7);
		sptb_rvas(&f->b, i % 3 ? SPT_OP_UNHALT_CYCLE : SPT_OP_RETIRE_INSTR, 255, rvas);
	}
}

/* Records whose counts merge across the halves, and two kinds of warnings. */
static void shared_records(struct fixture *f, uint32_t salt)
{
	const uint32_t pairs[] = { 0x30, 0x40, 0x50, 0x60 + salt };
	const uint32_t stack[] = { 0x100, 0x200, 0x300 + salt };
	const uint32_t rvas[] = { 0x10, 0x20, 0x1000 + salt };

	sptb_segment(&f->b, 1);
	sptb_repeat(&f->b, 9);
	sptb_rvas(&f->b, SPT_OP_ETW_INSTR, 3, rvas);
	sptb_lbr(&f->b, 1, pairs);
	sptb_lbr(&f->b, 2, pairs);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 2, stack);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 3, stack);
	sptb_repeat(&f->b, 1);
	sptb_repeat(&f->b, 2); /* replaces the one before: a warning */
	sptb_rvas(&f->b, SPT_OP_L1_DCACHE_MISS, 3, rvas);
	sptb_repeat(&f->b, 4); /* dangling at the segment's end: a warning */
}

struct outcome {
	struct pc_ctx ctx;
	int rc;
	char *dump; /* when rc is 0 */
};

static void read_with_threads(const char *path, unsigned threads, bool strict,
			      struct outcome *o)
{
	struct pc_model *m;
	struct pc_input in;
	size_t size;

	pc_ctx_init(&o->ctx);
	o->ctx.opt.threads = threads;
	o->ctx.opt.strict = strict;
	o->dump = NULL;
	m = pc_model_new();
	assert_int_equal(pc_input_open(&in, path, &o->ctx.err), 0);
	o->rc = pc_spt_reader.read(&o->ctx, &in, m);
	pc_input_close(&in);
	if (!o->rc)
		assert_int_equal(pct_write_model(&o->ctx, m, pc_writer_find("dump"),
						 &o->dump, &size), 0);
	pc_model_free(m);
}

static void assert_same_warnings(const struct pc_ctx *a, const struct pc_ctx *b)
{
	assert_int_equal(a->nwarnings, b->nwarnings);
	assert_int_equal(a->dropped_warnings, b->dropped_warnings);
	for (size_t i = 0; i < a->nwarnings; i++) {
		assert_string_equal(a->warnings[i].text, b->warnings[i].text);
		assert_int_equal(a->warnings[i].count, b->warnings[i].count);
	}
}

/*
 * Builds f's file, reads it with one thread and with two, checks that two
 * were used and that both give the same outcome, left in *two.
 */
static void expect_same_on_two_threads(struct fixture *f, bool strict, struct outcome *two)
{
	char path[] = "/tmp/pc-test-spt2.XXXXXX";
	struct outcome one;
	int fd;

	sptb_build(&f->b);
	assert_true(f->b.size >= FILLER_BYTES);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, f->b.image, f->b.size), (ssize_t)f->b.size);
	close(fd);
	read_with_threads(path, 1, strict, &one);
	read_with_threads(path, 2, strict, two);
	unlink(path);
	assert_true(one.ctx.threads_used <= 1);
	assert_int_equal(two->ctx.threads_used, 2);
	assert_int_equal(one.rc, two->rc);
	if (one.rc) {
		assert_int_equal(one.ctx.err.where, two->ctx.err.where);
		assert_int_equal(one.ctx.err.offset, two->ctx.err.offset);
		assert_string_equal(one.ctx.err.message, two->ctx.err.message);
	} else {
		assert_string_equal(one.dump, two->dump);
	}
	assert_same_warnings(&one.ctx, &two->ctx);
	free(one.dump);
}

static void two_programs(struct fixture *f)
{
	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 3, "other.dll");
}

static void test_two_threads_same_result(void **state)
{
	struct fixture *f = *state;
	struct outcome two;

	two_programs(f);
	shared_records(f, 0);
	filler(f, FILLER_BYTES);
	shared_records(f, 1);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, 0);
	assert_int_equal(two.ctx.nwarnings, 2);
	assert_int_equal(two.ctx.warnings[0].count, 2);
	assert_int_equal(two.ctx.warnings[1].count, 2);
	assert_non_null(strstr(two.dump, "lbr_branch"));
	free(two.dump);
}

/* An error in either half is the error; warnings after it are not kept. */
static void test_two_threads_error_in_second_half(void **state)
{
	struct fixture *f = *state;
	struct outcome two;
	uint64_t at;

	two_programs(f);
	shared_records(f, 0);
	filler(f, FILLER_BYTES);
	shared_records(f, 1);
	sptb_segment(&f->b, 0);
	at = sptb_offset(&f->b);
	sptb_raw(&f->b, "\x77\x00", 2);
	shared_records(f, 2);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, -1);
	assert_int_equal(two.ctx.err.offset, at);
	assert_message_has(&two.ctx.err, "unknown opcode 0x77");
	assert_int_equal(two.ctx.warnings[0].count, 2);
}

static void test_two_threads_error_in_first_half(void **state)
{
	struct fixture *f = *state;
	struct outcome two;
	uint64_t at;

	two_programs(f);
	shared_records(f, 0);
	sptb_segment(&f->b, 0);
	at = sptb_offset(&f->b);
	sptb_raw(&f->b, "\x77\x00", 2);
	filler(f, FILLER_BYTES);
	shared_records(f, 1);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, -1);
	assert_int_equal(two.ctx.err.offset, at);
	assert_int_equal(two.ctx.warnings[0].count, 1);
}

static void test_two_threads_strict(void **state)
{
	struct fixture *f = *state;
	struct outcome two;

	two_programs(f);
	filler(f, FILLER_BYTES);
	shared_records(f, 1);
	expect_same_on_two_threads(f, true, &two);
	assert_int_equal(two.rc, -1);
	assert_message_has(&two.ctx.err, "replaces it");
}

/* A record of 2^62 + 1 hits (an IP at 0x10, or the LBR pair 1->2); its offset. */
static uint64_t big_record(struct fixture *f, bool lbr)
{
	const uint32_t pair[] = { 1, 2 };
	uint64_t at;

	sptb_repeat(&f->b, TWO_POW(62));
	at = sptb_offset(&f->b);
	if (lbr)
		sptb_lbr(&f->b, 1, pair);
	else
		ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	return at;
}

/* A total that passes INT64_MAX only with both halves' counts. */
static void expect_overflow_across_halves(struct fixture *f, bool lbr)
{
	struct outcome two;
	uint64_t at;

	two_programs(f);
	sptb_segment(&f->b, 1);
	big_record(f, lbr);
	filler(f, FILLER_BYTES);
	sptb_segment(&f->b, 1);
	at = big_record(f, lbr);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, -1);
	assert_int_equal(two.ctx.err.offset, at);
	assert_message_has(&two.ctx.err, "count overflow");
}

static void test_two_threads_overflow_across_halves(void **state)
{
	expect_overflow_across_halves(*state, false);
}

static void test_two_threads_lbr_overflow_across_halves(void **state)
{
	expect_overflow_across_halves(*state, true);
}

/* The second half overflows on its own, before a later error there. */
static void test_two_threads_overflow_in_second_half(void **state)
{
	struct fixture *f = *state;
	struct outcome two;
	uint64_t at;

	two_programs(f);
	sptb_segment(&f->b, 1);
	sptb_repeat(&f->b, 5); /* the message counts these 6 hits too */
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	filler(f, FILLER_BYTES);
	sptb_segment(&f->b, 1);
	big_record(f, false);
	at = big_record(f, false);
	sptb_raw(&f->b, "\x77\x00", 2);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, -1);
	assert_int_equal(two.ctx.err.offset, at);
	assert_message_has(&two.ctx.err, "count overflow");
}

/* The half after the split starts with a record outside any segment. */
static void test_two_threads_record_after_split(void **state)
{
	struct fixture *f = *state;
	const uint32_t rvas[255] = { 0 };
	size_t records = FILLER_BYTES / (SPT_DATA_HEADER_SIZE + sizeof(rvas)) + 1;
	struct outcome two;
	uint64_t at;

	two_programs(f);
	sptb_segment_length(&f->b, 0,
			    (uint32_t)(4 + records * (SPT_DATA_HEADER_SIZE + sizeof(rvas))));
	for (size_t i = 0; i < records; i++)
		sptb_rvas(&f->b, SPT_OP_UNHALT_CYCLE, 255, rvas);
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	expect_same_on_two_threads(f, false, &two);
	assert_int_equal(two.rc, -1);
	assert_int_equal(two.ctx.err.offset, at);
	assert_message_has(&two.ctx.err, "after the segment that ended at");
}

/* --- warnings --- */

static void test_repeat_then_repeat_warns(void **state)
{
	struct fixture *f = *state;
	uint64_t second;

	demo_segment(f);
	sptb_repeat(&f->b, 3);
	second = sptb_offset(&f->b);
	sptb_repeat(&f->b, 7);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 8);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "spt: REPEAT at 0x"));
	assert_non_null(strstr(f->ctx.warnings[0].text, "replaces it"));
	(void)second;
}

static void test_dangling_repeat_warns(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_repeat(&f->b, 3); /* dangling: the segment ends */
	sptb_segment(&f->b, 0);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_repeat(&f->b, 5); /* dangling at the end of the file */
	assert_int_equal(read_built(f), 0);
	assert_int_equal(ip_count(f->m, 1, 0x10, "unhalted_cycle"), 2);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_non_null(strstr(f->ctx.warnings[0].text, "dangling"));
}

static void test_strict_makes_warnings_errors(void **state)
{
	struct fixture *f = *state;
	uint64_t repeat_at;

	f->ctx.opt.strict = true;
	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	repeat_at = sptb_offset(&f->b);
	sptb_repeat(&f->b, 3);
	assert_int_equal(read_built(f), -1);
	assert_error_at(&f->ctx.err, repeat_at, "dangling");
}

/* --- errors: header and tables --- */

static void test_truncated_header(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	expect_error_bytes(f, f->b.image, 20, 0,
			   "truncated header: expected 32 bytes, found 20");
}

static void test_empty_input(void **state)
{
	struct fixture *f = *state;

	expect_error_bytes(f, (const uint8_t *)"", 0, 0, "truncated header");
}

static void test_bad_signature(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	memcpy(f->b.image, "SPT!", 4);
	expect_error_bytes(f, f->b.image, f->b.size, 0,
			   "bad signature 53 50 54 21 (expected the bytes 3a 54 50 53");
}

static void test_bad_version(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke32(f->b.image + SPT_OFF_VERSION, 2);
	expect_error_bytes(f, f->b.image, f->b.size, 4,
			   "unsupported version 2 (expected 1)");
}

static void test_strtab_overlaps_header(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke32(f->b.image + SPT_OFF_STRTAB_OFFSET, 0x10);
	expect_error_bytes(f, f->b.image, f->b.size, 0x10, "overlaps the header");
}

static void test_strtab_offset_past_end(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke32(f->b.image + SPT_OFF_STRTAB_OFFSET, 0xfffffff0);
	expect_error_bytes(f, f->b.image, f->b.size, 0x10,
			   "string table offset 0xfffffff0 is past the end of the file");
}

static void test_strtab_capacity_past_end(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke16(f->b.image + SPT_OFF_STRTAB_CAPACITY, 0xffff);
	expect_error_bytes(f, f->b.image, f->b.size, 0x1a,
			   "string table capacity 0xffff at 0x20 ends at 0x1001f, past the end");
}

static void test_strtab_used_over_capacity(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke16(f->b.image + SPT_OFF_STRTAB_USED, 10); /* capacity 9 */
	expect_error_bytes(f, f->b.image, f->b.size, 0x18,
			   "string table used size 0xa exceeds its capacity 0x9");
}

static void test_progid_table_inside_strtab(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke32(f->b.image + SPT_OFF_PROGID_OFFSET, 0x28); /* strtab ends 0x29 */
	expect_error_bytes(f, f->b.image, f->b.size, 0x14,
			   "program-id table offset 0x28 is inside the string table");
}

static void test_progid_offset_past_end(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke32(f->b.image + SPT_OFF_PROGID_OFFSET, 0x10000);
	expect_error_bytes(f, f->b.image, f->b.size, 0x14,
			   "program-id table offset 0x10000 is past the end of the file");
}

static void test_progid_capacity_past_end(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke16(f->b.image + SPT_OFF_PROGID_CAPACITY, 0x100);
	expect_error_bytes(f, f->b.image, f->b.size, 0x1e,
			   "program-id table of capacity 256 (x 24 bytes) at 0x29 ends at 0x1829");
}

static void test_progids_used_over_capacity(void **state)
{
	struct fixture *f = *state;

	f->b.progid_capacity = 2;
	demo_segment(f);
	sptb_build(&f->b);
	sptb_poke16(f->b.image + SPT_OFF_PROGIDS_USED, 3);
	expect_error_bytes(f, f->b.image, f->b.size, 0x1c,
			   "program ids used 3 exceeds the capacity 2");
}

static void test_string_index_out_of_range(void **state)
{
	struct fixture *f = *state;
	uint64_t entry;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 1, "x.dll");
	sptb_build(&f->b);
	entry = sptb_progid_offset(&f->b) + SPT_PROGID_SIZE;
	sptb_poke32(f->b.image + entry + SPT_PROGID_OFF_NAME, 15); /* used: 15 */
	expect_error_bytes(f, f->b.image, f->b.size, entry + 20,
			   "program id 1: string index 0xf is out of range (expected less than 0xf");
}

static void test_unterminated_name(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_OTHER, 1, "x.dll");
	sptb_build(&f->b);
	/* cut the used string table before the NUL of "x.dll" (index 9) */
	sptb_poke16(f->b.image + SPT_OFF_STRTAB_USED, 14);
	expect_error_bytes(f, f->b.image, f->b.size, 0x20 + 9,
			   "program id 1: the name at string index 0x9 is not NUL-terminated");
}

/* With an unknown size (a pipe), a short file is caught when data runs out. */
static void test_truncated_tables_unknown_size(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, 0x25, true), -1);
	assert_error_at(&f->ctx.err, 0x25, "truncated file: expected the string table");
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_bytes(f, f->b.image, 0x30, true), -1);
	assert_error_at(&f->ctx.err, 0x30, "truncated file: expected the program-id table");
}

/* --- errors: events --- */

static void test_unknown_opcode(void **state)
{
	struct fixture *f = *state;
	const uint8_t bad[] = { 0x77, 0x00 };
	uint64_t at;

	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	at = sptb_offset(&f->b);
	sptb_raw(&f->b, bad, sizeof(bad));
	expect_error(f, at, "unknown opcode 0x77 (expected a record opcode: "
		     "0x01-0x05, 0x10, 0x41, 0x42, 0x81, 0x82)");
	assert_string_equal(f->ctx.err.message,
			    "unknown opcode 0x77 (expected a record opcode: "
			    "0x01-0x05, 0x10, 0x41, 0x42, 0x81, 0x82)");
}

static void test_data_before_binary_id(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	expect_error(f, sptb_events_offset(&f->b),
		     "UNHALT_CYCLE record (0x01) before any BINARY_ID");
}

static void test_repeat_before_binary_id(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_repeat(&f->b, 1);
	expect_error(f, sptb_events_offset(&f->b), "REPEAT record (0x82) before any BINARY_ID");
}

static void test_data_after_segment(void **state)
{
	struct fixture *f = *state;
	uint64_t at;

	demo_segment(f);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_build(&f->b); /* closes the segment */
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_LBR, 0);
	expect_error(f, at, "LBR record (0x10) after the segment that ended at");
}

static void test_program_id_out_of_range(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment(&f->b, 1);
	expect_error(f, sptb_events_offset(&f->b),
		     "BINARY_ID program id 1 is out of range (expected less than 1");
}

static void test_segment_length_too_small(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 3);
	expect_error(f, sptb_events_offset(&f->b), "segment length 3 is too small");
}

static void test_segment_past_end(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 4 + 6 + 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	expect_error(f, sptb_events_offset(&f->b), "past the end of the file");
}

static void test_segment_past_end_unknown_size(void **state)
{
	struct fixture *f = *state;
	uint64_t end;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 4 + 6 + 6);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	end = sptb_offset(&f->b);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size, true), -1);
	assert_error_at(&f->ctx.err, end, "truncated segment");
}

static void test_record_crosses_segment_end(void **state)
{
	struct fixture *f = *state;
	const uint32_t two[] = { 1, 2 };

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 4 + 6);    /* room for one 1-RVA record */
	sptb_rvas(&f->b, SPT_OP_UNHALT_CYCLE, 2, two); /* 10 bytes */
	expect_error(f, sptb_events_offset(&f->b) + 8,
		     "UNHALT_CYCLE record of 10 bytes crosses the end of its segment");
}

static void test_repeat_crosses_segment_end(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 4 + 6);
	sptb_repeat(&f->b, 1);
	expect_error(f, sptb_events_offset(&f->b) + 8,
		     "REPEAT record of 10 bytes crosses the end of its segment");
}

static void test_nested_binary_id(void **state)
{
	struct fixture *f = *state;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment_length(&f->b, 0, 4 + 8);
	sptb_segment_length(&f->b, 0, 4);
	expect_error(f, sptb_events_offset(&f->b) + 8, "BINARY_ID record inside the segment");
}

static void test_truncated_record_unknown_size(void **state)
{
	struct fixture *f = *state;
	const uint32_t three[] = { 1, 2, 3 };
	uint64_t at;

	demo_segment(f);
	at = sptb_offset(&f->b);
	sptb_rvas(&f->b, SPT_OP_RETIRE_INSTR, 3, three);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size - 1, true), -1);
	assert_error_at(&f->ctx.err, at,
			"truncated RETIRE_INSTR record: expected 14 bytes, the input ends after 13");
}

static void test_truncated_binary_id_unknown_size(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size - 3, true), -1);
	assert_error_at(&f->ctx.err, sptb_events_offset(&f->b),
			"truncated BINARY_ID record: expected 8 bytes");
}

/* Every cut of a valid file fails, except at a segment boundary. */
static void test_every_truncation(void **state)
{
	struct fixture *f = *state;
	const uint32_t pairs[] = { 1, 2, 3, 4 };
	uint64_t boundaries[3];

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	boundaries[0] = sptb_events_offset(&f->b);
	sptb_segment(&f->b, 0);
	sptb_repeat(&f->b, 2);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_lbr(&f->b, 2, pairs);
	boundaries[1] = sptb_offset(&f->b);
	sptb_segment(&f->b, 0);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 2, pairs);
	boundaries[2] = sptb_offset(&f->b);
	sptb_build(&f->b);
	assert_int_equal(boundaries[2], f->b.size);
	for (int unknown = 0; unknown < 2; unknown++) {
		for (size_t len = 0; len < f->b.size; len++) {
			struct pc_model *m;
			struct pc_ctx ctx;
			struct pc_input in;
			bool valid = len == boundaries[0] || len == boundaries[1];
			int rc;

			pc_ctx_init(&ctx);
			m = pc_model_new();
			pc_input_from_memory(&in, "test.spt", f->b.image, len);
			if (unknown)
				in.size = PC_SIZE_UNKNOWN;
			rc = pc_spt_reader.read(&ctx, &in, m);
			pc_input_close(&in);
			pc_model_free(m);
			if (rc != (valid ? 0 : -1))
				fail_msg("cut at %zu (%s size): rc %d: %s", len,
					 unknown ? "unknown" : "known", rc, ctx.err.message);
			if (!valid) {
				assert_int_equal(ctx.err.where, PC_WHERE_OFFSET);
				assert_true(ctx.err.offset <= len);
			}
		}
	}
}

/* --- errors: counts --- */

static void test_repeat_max_overflows(void **state)
{
	struct fixture *f = *state;
	uint64_t at;

	demo_segment(f);
	sptb_repeat(&f->b, UINT64_MAX);
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	expect_error(f, at, "count overflow");
}

static void test_count_past_int64_overflows(void **state)
{
	struct fixture *f = *state;
	uint64_t at;

	demo_segment(f);
	sptb_repeat(&f->b, (uint64_t)INT64_MAX);
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	expect_error(f, at, "count overflow");
}

static void test_count_int64_max_fits(void **state)
{
	struct fixture *f = *state;

	demo_segment(f);
	sptb_repeat(&f->b, (uint64_t)INT64_MAX - 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	assert_int_equal(read_built(f), 0);
	assert_true(ip_count(f->m, 1, 0x10, "unhalted_cycle") == (uint64_t)INT64_MAX);
}

/* The sum of several records passes INT64_MAX: error at the record that does it. */
static void test_sum_overflow(void **state)
{
	struct fixture *f = *state;
	uint64_t at;

	demo_segment(f);
	sptb_repeat(&f->b, TWO_POW(62) - 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_repeat(&f->b, TWO_POW(62) - 1);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x20); /* another address: fine */
	sptb_repeat(&f->b, TWO_POW(62) - 1);
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10); /* 2^63: too much */
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size, false), -1);
	assert_error_at(&f->ctx.err, at, "count overflow");
}

static void test_sum_overflow_lbr_and_stacks(void **state)
{
	struct fixture *f = *state;
	const uint32_t pair[] = { 1, 2 };
	uint64_t at;

	demo_segment(f);
	sptb_repeat(&f->b, TWO_POW(62));
	sptb_lbr(&f->b, 1, pair);
	sptb_repeat(&f->b, TWO_POW(62));
	at = sptb_offset(&f->b);
	sptb_lbr(&f->b, 1, pair);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size, false), -1);
	assert_error_at(&f->ctx.err, at, "count overflow");
}

/* Duplicate program ids share a module: their sum is checked too. */
static void test_sum_overflow_across_program_ids(void **state)
{
	struct fixture *f = *state;
	uint64_t at;

	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_program(&f->b, GUID_DEMO, 0x1a, "demo.exe");
	sptb_segment(&f->b, 0);
	sptb_repeat(&f->b, TWO_POW(62));
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_segment(&f->b, 1);
	sptb_repeat(&f->b, TWO_POW(62));
	at = sptb_offset(&f->b);
	ip(f, SPT_OP_UNHALT_CYCLE, 0x10);
	sptb_build(&f->b);
	assert_int_equal(read_bytes(f, f->b.image, f->b.size, false), -1);
	assert_error_at(&f->ctx.err, at, "count overflow");
}

/* --- info --- */

static void build_info_sample(struct fixture *f)
{
	const uint32_t two[] = { 0x10, 0x20 };
	const uint32_t pair[] = { 0x30, 0x40 };
	const uint32_t stack[] = { 0x100, 0x200 };

	demo_segment(f);
	sptb_repeat(&f->b, 2);
	sptb_rvas(&f->b, SPT_OP_UNHALT_CYCLE, 2, two);
	sptb_lbr(&f->b, 1, pair);
	sptb_rvas(&f->b, SPT_OP_ETW_CALLSTACK, 2, stack);
	sptb_build(&f->b);
}

static void test_info_all(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	static const char expected[] =
		"header:\n"
		"  0x00  signature                0x5350543a  (bytes 3a 54 50 53: the little-endian value)\n"
		"  0x04  version                  1\n"
		"  0x08  raw_data_id              0x00000000\n"
		"  0x0c  target_arch              0x00000000\n"
		"  0x10  string_table_offset      0x00000020\n"
		"  0x14  program_id_table_offset  0x00000029\n"
		"  0x18  string_table_used        0x0009  (9 bytes)\n"
		"  0x1a  string_table_capacity    0x0009  (9 bytes)\n"
		"  0x1c  program_ids_used         0x0001  (1)\n"
		"  0x1e  program_id_capacity      0x0001  (1)\n"
		"        event_stream_offset      0x00000041\n"
		"program ids: 1 used of 1\n"
		"  [0] {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 26 demo.exe\n"
		"string table: 9 of 9 bytes used\n"
		"  0x0000  \"demo.exe\"\n"
		"events:\n"
		"  offset      record           repeat  data\n"
		"  0x00000041  BINARY_ID        -       progid 0 length 0x2c end 0x00000071 demo.exe\n"
		"  0x00000049  REPEAT           -       2\n"
		"  0x00000053  UNHALT_CYCLE     2       2 0x10 0x20\n"
		"  0x0000005d  LBR              0       1 0x40<-0x30\n"
		"  0x00000067  ETW_CALLSTACK    0       2 0x100 0x200\n"
		"end of events at 0x00000071: 5 records\n";

	build_info_sample(f);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_ALL, &text), 0);
	assert_string_equal(text, expected);
	free(text);
}

static void test_info_views(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;

	build_info_sample(f);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_PROGID, &text), 0);
	assert_string_equal(text, "program ids: 1 used of 1\n"
			    "  [0] {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 26 demo.exe\n");
	free(text);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_STRTAB, &text), 0);
	assert_string_equal(text, "string table: 9 of 9 bytes used\n  0x0000  \"demo.exe\"\n");
	free(text);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_HEADER, &text), 0);
	assert_non_null(strstr(text, "0x04  version                  1\n"));
	assert_null(strstr(text, "events"));
	free(text);
	/* the text signature is named as such */
	memcpy(f->b.image, "SPT:", 4);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_HEADER, &text), 0);
	assert_non_null(strstr(text, "0x3a545053  (bytes 53 50 54 3a: the text \"SPT:\")"));
	free(text);
}

/* Names are shown as UTF-8; control bytes and bad UTF-8 as \xNN. */
static void test_info_escapes_names(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;

	sptb_program(&f->b, GUID_DEMO, 1, "r\xc3\xa9sum\xc3\xa9\x01\xff\"x\\");
	sptb_build(&f->b);
	assert_int_equal(info_bytes(&f->ctx, f->b.image, f->b.size, PC_INFO_STRTAB, &text), 0);
	assert_non_null(strstr(text, "\"r\xc3\xa9sum\xc3\xa9\\x01\\xff\\x22x\\x5c\"\n"));
	free(text);
}

/* --- the samples --- */

static uint8_t *load_sample(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *data;
	long len;

	if (!fp)
		return NULL;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, 0, SEEK_SET);
	data = pc_xmalloc((size_t)len + 1);
	*size = fread(data, 1, (size_t)len, fp);
	fclose(fp);
	return data;
}

static uint32_t module_named(const struct pc_model *m, const char *name)
{
	for (uint32_t id = 1; id <= pc_model_nmodules(m); id++)
		if (!strcmp(pc_str(m, pc_model_module(m, id)->name), name))
			return id;
	return 0;
}

static void test_sample_multi(void **state)
{
	struct fixture *f = *state;
	const uint32_t stack[] = { 0x1004, 0x2000, 0x3000 };
	uint32_t host, lib, kernel;
	size_t size;
	uint8_t *data = load_sample("samples/multi.spt", &size);
	long at;

	if (!data)
		skip();
	assert_int_equal(read_bytes(f, data, size, false), 0);
	assert_int_equal(pc_model_nmodules(f->m), 3);
	assert_int_equal(pc_model_ncolumns(f->m), 8);
	host = module_named(f->m, "host.exe");
	lib = module_named(f->m, "r\xc3\xa9sum\xc3\xa9-\xe6\xa8\xa1\xe5\x9d\x97.dll");
	kernel = module_named(f->m, "kernelbase.dll");
	assert_true(host && lib && kernel);
	assert_string_equal(pc_str(f->m, pc_model_module(f->m, lib)->build_id),
			    "9c3a0f557d214b6ea0c45e8f1d2b3a962a");
	assert_string_equal(pc_str(f->m, pc_model_module(f->m, kernel)->build_id),
			    "f00dface123456789abcdef012345678a");
	assert_int_equal(ip_count(f->m, host, 0x1000, "unhalted_cycle"), 15);
	assert_int_equal(ip_count(f->m, host, 0x1000, "timer"), 7);
	assert_int_equal(ip_count(f->m, host, 0x1200, "l1d_miss"), 2);
	assert_int_equal(ip_count(f->m, lib, 0x5000, "unhalted_cycle"), 101);
	assert_int_equal(ip_count(f->m, lib, 0x5008, "timer"), 2);
	assert_int_equal(ip_count(f->m, kernel, 0x70010, "l1d_miss"), 12);
	assert_int_equal(ip_count(f->m, kernel, 0x70000, "callstack"), 1);
	at = find_stack(f->m, host, 3, stack);
	assert_true(at >= 0);
	assert_int_equal(pc_model_values(f->m, (size_t)at)[column_of(f->m, "callstack")], 3);
	free(data);
}

static void test_sample_bigrepeat(void **state)
{
	struct fixture *f = *state;
	size_t size;
	uint8_t *data = load_sample("samples/bigrepeat.spt", &size);

	if (!data)
		skip();
	assert_int_equal(read_bytes(f, data, size, false), 0);
	assert_true(ip_count(f->m, 1, 0x1000, "unhalted_cycle") == TWO_POW(62));
	assert_true(ip_count(f->m, 1, 0x2000, "unhalted_cycle") == TWO_POW(61));
	assert_true(ip_count(f->m, 1, 0x3000, "unhalted_cycle") == TWO_POW(60) + 1);
	assert_true(ip_count(f->m, 1, 0x4000, "unhalted_cycle") == 1);
	free(data);
}

static void test_sample_textsig_and_demo(void **state)
{
	struct fixture *f = *state;
	size_t size;
	uint8_t *data = load_sample("samples/textsig.spt", &size);

	if (!data)
		skip();
	assert_memory_equal(data, "SPT:", 4);
	assert_int_equal(read_bytes(f, data, size, false), 0);
	assert_int_equal(ip_count(f->m, 1, 0x401000, "unhalted_cycle"), 4);
	free(data);
	data = load_sample("samples/demo.spt", &size);
	assert_non_null(data);
	pc_model_free(f->m);
	f->m = pc_model_new();
	assert_int_equal(read_bytes(f, data, size, false), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 3);
	assert_int_equal(ip_count(f->m, 1, 0x1a2c0, "unhalted_cycle"), 4000 + 800);
	free(data);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_probe),
		T(test_descriptor),
		T(test_modules_and_build_ids),
		T(test_metadata),
		T(test_ip_counts_and_repeat),
		T(test_same_rva_twice_in_one_record),
		T(test_every_ip_kind_has_its_column),
		T(test_column_order_is_fixed),
		T(test_default_is_first_present_kind),
		T(test_lbr_pairs),
		T(test_callstack_leaf_first),
		T(test_zero_item_records),
		T(test_segments_and_programs),
		T(test_duplicate_program_ids),
		T(test_text_signature),
		T(test_spare_capacity),
		T(test_streaming_large_input),
		T(test_two_threads_same_result),
		T(test_two_threads_error_in_second_half),
		T(test_two_threads_error_in_first_half),
		T(test_two_threads_strict),
		T(test_two_threads_overflow_across_halves),
		T(test_two_threads_lbr_overflow_across_halves),
		T(test_two_threads_overflow_in_second_half),
		T(test_two_threads_record_after_split),
		T(test_repeat_then_repeat_warns),
		T(test_dangling_repeat_warns),
		T(test_strict_makes_warnings_errors),
		T(test_truncated_header),
		T(test_empty_input),
		T(test_bad_signature),
		T(test_bad_version),
		T(test_strtab_overlaps_header),
		T(test_strtab_offset_past_end),
		T(test_strtab_capacity_past_end),
		T(test_strtab_used_over_capacity),
		T(test_progid_table_inside_strtab),
		T(test_progid_offset_past_end),
		T(test_progid_capacity_past_end),
		T(test_progids_used_over_capacity),
		T(test_string_index_out_of_range),
		T(test_unterminated_name),
		T(test_truncated_tables_unknown_size),
		T(test_unknown_opcode),
		T(test_data_before_binary_id),
		T(test_repeat_before_binary_id),
		T(test_data_after_segment),
		T(test_program_id_out_of_range),
		T(test_segment_length_too_small),
		T(test_segment_past_end),
		T(test_segment_past_end_unknown_size),
		T(test_record_crosses_segment_end),
		T(test_repeat_crosses_segment_end),
		T(test_nested_binary_id),
		T(test_truncated_record_unknown_size),
		T(test_truncated_binary_id_unknown_size),
		T(test_every_truncation),
		T(test_repeat_max_overflows),
		T(test_count_past_int64_overflows),
		T(test_count_int64_max_fits),
		T(test_sum_overflow),
		T(test_sum_overflow_lbr_and_stacks),
		T(test_sum_overflow_across_program_ids),
		T(test_info_all),
		T(test_info_views),
		T(test_info_escapes_names),
		T(test_sample_multi),
		T(test_sample_bigrepeat),
		T(test_sample_textsig_and_demo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
