/*
 * test_spt_writer.c - the SPT writer: exact bytes of the layout and the
 * records, reading back through the SPT reader, perf-like models (runtime
 * addresses, stacks across modules, branch stacks), losses and limits.
 */
#include "model/format.h"
#include "support/columns.h"
#include "support/write_model.h"
#include "formats/spt.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_spt_writer;
extern const struct pc_reader pc_spt_reader;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;    /* what is written */
	struct pc_model *back; /* what the SPT reader reads from the bytes */
	char *bytes;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	f->back = pc_model_new();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	pc_model_free(f->back);
	free(f->bytes);
	free(f);
	return 0;
}

static uint32_t module(struct fixture *f, const char *name, uint64_t start, uint64_t offset)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name) };

	if (start) {
		mod.has_range = true;
		mod.start = start;
		mod.limit = start + 0x100000;
		mod.file_offset = offset;
	}
	return pc_model_add_module(f->m, &mod);
}

static uint32_t frame(struct fixture *f, uint32_t mod, uint64_t address, bool absolute)
{
	struct pc_frame fr = {
		.module = mod, .address = address,
		.flags = PC_FRAME_HAS_ADDRESS | (absolute ? PC_FRAME_ABSOLUTE : 0),
	};

	return pc_model_add_frame(f->m, &fr);
}

static void add(struct fixture *f, const char *column, const uint32_t *stack, size_t n,
		uint32_t branches, uint64_t count)
{
	struct pc_sample s = { .stack = pc_model_add_stack(f->m, stack, n), .branches = branches };
	int col = pct_column_as_read(f->m, column);

	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)col, count), 0);
}

static int write_spt(struct fixture *f)
{
	return pct_write_model(&f->ctx, f->m, &pc_spt_writer, &f->bytes, &f->size);
}

static void write_and_read_back(struct fixture *f)
{
	struct pc_ctx ctx;
	struct pc_input in;

	assert_int_equal(write_spt(f), 0);
	pc_ctx_init(&ctx);
	pc_input_from_memory(&in, "written.spt", f->bytes, f->size);
	assert_int_equal(pc_spt_reader.read(&ctx, &in, f->back), 0);
	pc_input_close(&in);
	pc_model_finalize(f->back);
}

static uint32_t le32(const struct fixture *f, size_t at)
{
	const uint8_t *p = (const uint8_t *)f->bytes + at;

	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const struct fixture *f, size_t at)
{
	const uint8_t *p = (const uint8_t *)f->bytes + at;

	return (uint16_t)(p[0] | p[1] << 8);
}

/* The count of column at the sample whose leaf (or only branch) is at rva. */
static uint64_t count_at(const struct pc_model *m, const char *column, uint64_t rva)
{
	int col = -1;

	for (size_t c = 0; c < pc_model_ncolumns(m); c++)
		if (!strcmp(pc_str(m, pc_model_column(m, c)->type), column))
			col = (int)c;
	if (col < 0)
		return 0;
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n;
		const uint32_t *stack = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

		if (n == 1 && pc_model_frame(m, stack[0])->address == rva)
			return pc_model_values(m, i)[col];
	}
	return 0;
}

#define EVENTS_AT (SPT_HEADER_SIZE + SPT_STRTAB_CAPACITY_DEFAULT + SPT_PROGID_CAPACITY_DEFAULT * SPT_PROGID_SIZE)

static void test_layout_and_grouped_ip_records(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "app.exe", 0, 0);
	const uint8_t *p;
	size_t at = EVENTS_AT;

	for (uint32_t i = 0; i < 300; i++) {
		uint32_t fr = frame(f, mod, 0x1000 + 4 * i, false);

		add(f, "unhalted_cycle", &fr, 1, 0, 1);
	}
	for (uint32_t i = 0; i < 2; i++) {
		uint32_t fr = frame(f, mod, 0x9000 + i, false);

		add(f, "unhalted_cycle", &fr, 1, 0, 5);
	}
	assert_int_equal(write_spt(f), 0);
	p = (const uint8_t *)f->bytes;
	assert_memory_equal(p, "\x3a\x54\x50\x53", 4);
	assert_int_equal(le32(f, SPT_OFF_VERSION), 1);
	assert_int_equal(le32(f, SPT_OFF_STRTAB_OFFSET), 0x20);
	assert_int_equal(le32(f, SPT_OFF_PROGID_OFFSET), 0x4020);
	assert_int_equal(le16(f, SPT_OFF_STRTAB_USED), 8);
	assert_int_equal(le16(f, SPT_OFF_STRTAB_CAPACITY), 0x4000);
	assert_int_equal(le16(f, SPT_OFF_PROGIDS_USED), 1);
	assert_int_equal(le16(f, SPT_OFF_PROGID_CAPACITY), 0x100);
	assert_string_equal((const char *)p + 0x20, "app.exe");
	/* one segment: 255 + 45 RVAs of count 1, then REPEAT 4 before the 2 of count 5 */
	assert_int_equal(p[at], SPT_OP_BINARY_ID);
	assert_int_equal(le16(f, at + 2), 0);
	assert_int_equal(le32(f, at + 4), 4 + (2 + 255 * 4) + (2 + 45 * 4) + 10 + (2 + 2 * 4));
	at += 8;
	assert_int_equal(p[at], SPT_OP_UNHALT_CYCLE);
	assert_int_equal(p[at + 1], 255);
	assert_int_equal(le32(f, at + 2), 0x1000);
	at += 2 + 255 * 4;
	assert_int_equal(p[at + 1], 45);
	at += 2 + 45 * 4;
	assert_int_equal(p[at], SPT_OP_REPEAT);
	assert_int_equal(le32(f, at + 2), 4);
	at += 10;
	assert_int_equal(p[at], SPT_OP_UNHALT_CYCLE);
	assert_int_equal(p[at + 1], 2);
	assert_int_equal(at + 2 + 8, f->size);
}

static void test_spt_columns_read_back_exactly(void **state)
{
	struct fixture *f = *state;
	uint32_t a = module(f, "a.dll", 0, 0), b = module(f, "b.dll", 0, 0);
	uint32_t stack[3] = { frame(f, a, 0x10, false), frame(f, a, 0x20, false), frame(f, a, 0x30, false) };
	struct pc_branch branches[2] = {
		{ .from = frame(f, b, 0x500, false), .to = frame(f, b, 0x400, false) },
		{ .from = frame(f, b, 0x700, false), .to = frame(f, b, 0x600, false) },
	};
	uint32_t lbr = pc_model_add_branches(f->m, branches, 2);
	size_t n;

	add(f, "retired_instr", stack, 1, 0, 7);
	add(f, "timer", &stack[1], 1, 0, (uint64_t)1 << 62);
	add(f, "lbr_branch", NULL, 0, lbr, 3);
	add(f, "callstack", stack, 3, 0, 2);
	write_and_read_back(f);
	assert_int_equal(pc_model_nmodules(f->back), 2);
	assert_int_equal(count_at(f->back, "retired_instr", 0x10), 7);
	assert_int_equal(count_at(f->back, "timer", 0x20), (uint64_t)1 << 62);
	assert_int_equal(pc_model_nsamples(f->back), 4);
	for (size_t i = 0; i < pc_model_nsamples(f->back); i++) {
		const uint32_t *pairs = pc_model_branch_stack(f->back, pc_model_sample(f->back, i)->branches, &n);

		if (n) {
			assert_int_equal(n, 2);
			assert_int_equal(pc_model_frame(f->back, pairs[0])->address, 0x500);
			assert_int_equal(pc_model_frame(f->back, pairs[1])->address, 0x400);
			assert_int_equal(pc_model_frame(f->back, pairs[3])->address, 0x600);
		}
		pc_model_stack(f->back, pc_model_sample(f->back, i)->stack, &n);
		if (n == 3)
			assert_int_equal(pc_model_values(f->back, i)[3], 2); /* callstack column */
	}
}

static void test_pdb_identity_kept_else_zero_guid(void **state)
{
	struct fixture *f = *state;
	struct pc_module with_pdb = {
		.name = pc_model_intern_cstr(f->m, "a.exe"),
		.has_pdb = true,
		.pdb = { .data1 = 0x6d2a9f13, .data2 = 0x0c4b, .data3 = 0x4e8a,
			 .data4 = { 0x9f, 0x21, 0x3b, 0x7c, 0x55, 0xd1, 0xe0, 0xa4 }, .age = 26 },
	};
	uint32_t a = pc_model_add_module(f->m, &with_pdb), b = module(f, "b.exe", 0, 0);
	uint32_t fa = frame(f, a, 1, false), fb = frame(f, b, 2, false);
	static const uint8_t on_disk[20] = { 0x13, 0x9f, 0x2a, 0x6d, 0x4b, 0x0c, 0x8a, 0x4e, 0x9f, 0x21,
					     0x3b, 0x7c, 0x55, 0xd1, 0xe0, 0xa4, 26, 0, 0, 0 };
	static const uint8_t zeros[20] = { 0 };
	size_t table = SPT_HEADER_SIZE + SPT_STRTAB_CAPACITY_DEFAULT;

	add(f, "timer", &fa, 1, 0, 1);
	add(f, "timer", &fb, 1, 0, 1);
	assert_int_equal(write_spt(f), 0);
	assert_memory_equal(f->bytes + table, on_disk, 20);
	assert_int_equal(le32(f, table + 20), 0);
	assert_memory_equal(f->bytes + table + 24, zeros, 20);
	assert_int_equal(le32(f, table + 24 + 20), 6); /* "a.exe\0" then "b.exe" */
}

static void test_perf_like_model(void **state)
{
	struct fixture *f = *state;
	uint32_t app = module(f, "/usr/bin/app", 0x400000, 0x1000);
	uint32_t libc = module(f, "/lib/libc.so.6", 0x7f0000000000, 0);
	uint32_t stack[4] = {
		frame(f, libc, 0x7f0000001234, true), /* leaf in libc */
		frame(f, app, 0x401100, true), frame(f, app, 0x401200, true),
		frame(f, app, 0x401300, true),
	};
	uint32_t app_stack[2] = { stack[1], stack[2] };
	struct pc_branch branches[2] = {
		{ .from = stack[2], .to = stack[1] },      /* inside app */
		{ .from = stack[3], .to = stack[0] },      /* app -> libc: dropped */
	};
	uint32_t lbr = pc_model_add_branches(f->m, branches, 2);

	add(f, "cycles:u_sample", stack, 4, lbr, 3);
	add(f, "cycles:u_event", stack, 4, lbr, 3000000);
	add(f, "instructions_sample", app_stack, 2, 0, 2);
	add(f, "page-faults_sample", app_stack, 1, 0, 1);
	write_and_read_back(f);
	assert_int_equal(count_at(f->back, "unhalted_cycle", 0x1234), 3);
	assert_int_equal(count_at(f->back, "retired_instr", 0x401100 - 0x400000 + 0x1000), 2);
	assert_int_equal(count_at(f->back, "timer", 0x2100), 1);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "1 branches between two binaries"));
	/* call-stack runs: app's three frames (count 3) and app's two (count 2) */
	size_t runs = 0;
	for (size_t i = 0; i < pc_model_nsamples(f->back); i++) {
		size_t n;
		const uint32_t *s = pc_model_stack(f->back, pc_model_sample(f->back, i)->stack, &n);

		if (n >= 2) {
			runs++;
			assert_int_equal(pc_model_frame(f->back, s[0])->address, 0x2100);
			assert_int_equal(pc_model_values(f->back, i)[pc_model_ncolumns(f->back) - 1], n == 3 ? 3 : 2);
		}
	}
	assert_int_equal(runs, 2);
}

static void test_losses_are_counted(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "a.exe", 0, 0), nomap = module(f, "jit", 0, 0);
	uint32_t deep[300];
	uint32_t wide = frame(f, mod, (uint64_t)1 << 32, false);
	uint32_t loose = frame(f, nomap, 0x7fff00001000, true);

	for (uint32_t i = 0; i < 300; i++)
		deep[i] = frame(f, mod, 0x1000 + i, false);
	add(f, "callstack", deep, 300, 0, 1);
	add(f, "samples", &wide, 1, 0, 1);
	add(f, "samples", &loose, 1, 0, 1);
	write_and_read_back(f);
	assert_int_equal(f->ctx.nwarnings, 3);
	assert_non_null(strstr(f->ctx.warnings[0].text, "1 runtime addresses of binaries with no known load address"));
	assert_non_null(strstr(f->ctx.warnings[1].text, "1 addresses that do not fit in a 32-bit RVA"));
	assert_non_null(strstr(f->ctx.warnings[2].text, "1 call stacks deeper than 255 frames"));
	for (size_t i = 0; i < pc_model_nsamples(f->back); i++) {
		size_t n;
		const uint32_t *s = pc_model_stack(f->back, pc_model_sample(f->back, i)->stack, &n);

		assert_int_equal(n, 255);
		assert_int_equal(pc_model_frame(f->back, s[0])->address, 0x1000);
	}
	f->ctx.opt.strict = true;
	free(f->bytes);
	f->bytes = NULL;
	assert_int_equal(write_spt(f), -1);
}

static void test_binary_option_picks_modules(void **state)
{
	struct fixture *f = *state;
	uint32_t a = module(f, "/x/a.dll", 0, 0), b = module(f, "/y/b.dll", 0, 0);
	uint32_t fa = frame(f, a, 1, false), fb = frame(f, b, 2, false);

	add(f, "timer", &fa, 1, 0, 1);
	add(f, "timer", &fb, 1, 0, 1);
	pc_ctx_set(&f->ctx, "binary", "b.dll");
	write_and_read_back(f);
	assert_int_equal(pc_model_nmodules(f->back), 1);
	assert_string_equal(pc_str(f->back, pc_model_module(f->back, (uint32_t)(0) + 1)->name), "/y/b.dll");
	pc_ctx_set(&f->ctx, "binary", "c.dll");
	free(f->bytes);
	f->bytes = NULL;
	assert_int_equal(write_spt(f), -1);
	assert_string_equal(f->ctx.err.message, "spt: no binary named 'c.dll' in the input");
}

/* A binary in two processes (two address spaces) is one program id. */
static void test_one_program_per_binary_across_processes(void **state)
{
	struct fixture *f = *state;
	struct pc_module in_pid1 = { .name = pc_model_intern_cstr(f->m, "/bin/app"), .space = 2,
				     .has_range = true, .start = 0x400000, .limit = 0x500000 };
	struct pc_module in_pid2 = in_pid1;
	uint32_t a, b, fa, fb;

	in_pid2.space = 3;
	in_pid2.start = 0x600000;
	in_pid2.limit = 0x700000;
	a = pc_model_add_module(f->m, &in_pid1);
	b = pc_model_add_module(f->m, &in_pid2);
	fa = frame(f, a, 0x400010, true);
	fb = frame(f, b, 0x600010, true);
	add(f, "cycles_sample", &fa, 1, 0, 2);
	add(f, "cycles_sample", &fb, 1, 0, 3);
	write_and_read_back(f);
	assert_int_equal(le16(f, SPT_OFF_PROGIDS_USED), 1);
	assert_int_equal(count_at(f->back, "unhalted_cycle", 0x10), 5);
}

static void test_second_write_identical(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "a.exe", 0, 0);
	char *first;
	size_t first_size;

	for (uint32_t i = 0; i < 50; i++) {
		uint32_t fr = frame(f, mod, 0x100 * (i % 7), false);

		add(f, i % 2 ? "timer" : "l1d_miss", &fr, 1, 0, i + 1);
	}
	assert_int_equal(write_spt(f), 0);
	first = f->bytes;
	first_size = f->size;
	f->bytes = NULL;
	assert_int_equal(write_spt(f), 0);
	assert_int_equal(first_size, f->size);
	assert_memory_equal(first, f->bytes, first_size);
	free(first);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layout_and_grouped_ip_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spt_columns_read_back_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pdb_identity_kept_else_zero_guid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perf_like_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_losses_are_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binary_option_picks_modules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_program_per_binary_across_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_write_identical, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
