/*
 * test_report_writer.c - the report writer's exact text for small models
 * built with the pc_model_add_* API: the header, the top functions (self,
 * total once per stack under recursion, the sort order, --top), the call
 * tree (children order, pruning below 0.5%), names of unsymbolized frames,
 * --event (NAME_event, NAME, unknown), samples left out (zero values,
 * branch-only and stackless samples), escaping, overflow, deep stacks and
 * the tree's indentation cap.
 */
#include "pipeline/registry.h"
#include "support/caller_callee.h"
#include "support/fixture.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_report_writer;

/* Finalizes and writes f->m into f->text; returns the writer's status. */
static int write_report(struct fixture *f)
{
	free(f->text);
	return pct_write_model(&f->ctx, f->m, &pc_report_writer, &f->text, &f->size);
}

static void assert_report(struct fixture *f, const char *expected)
{
	assert_int_equal(write_report(f), 0);
	assert_string_equal(f->text, expected);
}

static uint32_t named_frame(struct pc_model *m, const char *name)
{
	struct pc_frame frame = { .function = pc_model_intern_cstr(m, name) };

	return pc_model_add_frame(m, &frame);
}

/* Adds value to column for the stack "root;...;leaf" of named frames. */
static void add_folded(struct pc_model *m, size_t column, const char *stack,
		       uint64_t value)
{
	uint32_t frames[64];
	size_t n = 0;
	const char *at = stack;

	for (;;) {
		const char *end = strchr(at, ';');
		char name[128];
		size_t len = end ? (size_t)(end - at) : strlen(at);

		memcpy(name, at, len);
		name[len] = '\0';
		frames[n++] = named_frame(m, name);
		if (!end)
			break;
		at = end + 1;
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t root = frames[i];

		frames[i] = frames[n - 1 - i];
		frames[n - 1 - i] = root;
	}
	struct pc_sample sample = { .stack = pc_model_add_stack(m, frames, n) };
	assert_int_equal(pc_model_add_sample(m, &sample, column, value), 0);
}

static void one_column(struct pc_model *m)
{
	pc_model_add_source(m, "folded");
	assert_int_equal(pc_model_add_column(m, "samples", "count"), 0);
}

/* --- the whole report --- */

static void test_header_top_and_tree(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "main;a;b", 8);
	add_folded(f->m, 0, "main;a", 2);
	add_folded(f->m, 0, "main;c;b", 4);
	add_folded(f->m, 0, "main;c;c;c", 4);
	add_folded(f->m, 0, "other", 2);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    20 in 5 distinct stacks\n"
		"\n"
		"top functions by self (5 of 5):\n"
		" self    self%  total   total%  function\n"
		"   12   60.00%     12   60.00%  b\n"
		"    4   20.00%      8   40.00%  c\n"
		"    2   10.00%     10   50.00%  a\n"
		"    2   10.00%      2   10.00%  other\n"
		"    0    0.00%     18   90.00%  main\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		"18   90.00%  main\n"
		"10   50.00%    a\n"
		" 8   40.00%      b\n"
		" 8   40.00%    c\n"
		" 4   20.00%      b\n"
		" 4   20.00%      c\n"
		" 4   20.00%        c\n"
		" 2   10.00%  other\n");
}

static void test_no_tree_without_the_option(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "main;a", 1);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    1 in 1 distinct stack\n"
		"\n"
		"top functions by self (2 of 2):\n"
		" self    self%  total   total%  function\n"
		"    1  100.00%      1  100.00%  a\n"
		"    0    0.00%      1  100.00%  main\n");
}

static void test_top_limits_the_table(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "main;a", 3);
	add_folded(f->m, 0, "main;b", 2);
	add_folded(f->m, 0, "main;c", 1);
	pc_ctx_set(&f->ctx, "top", "2");
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    6 in 3 distinct stacks\n"
		"\n"
		"top functions by self (2 of 4):\n"
		" self    self%  total   total%  function\n"
		"    3   50.00%      3   50.00%  a\n"
		"    2   33.33%      2   33.33%  b\n");
}

/* Self, then total (both descending), then the name bytewise, shorter first. */
static void test_function_order(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "x;c", 4);
	add_folded(f->m, 0, "x;bb", 2);
	add_folded(f->m, 0, "y;b", 2);
	add_folded(f->m, 0, "x;B", 2);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    10 in 4 distinct stacks\n"
		"\n"
		"top functions by self (6 of 6):\n"
		" self    self%  total   total%  function\n"
		"    4   40.00%      4   40.00%  c\n"
		"    2   20.00%      2   20.00%  B\n"
		"    2   20.00%      2   20.00%  b\n"
		"    2   20.00%      2   20.00%  bb\n"
		"    0    0.00%      8   80.00%  x\n"
		"    0    0.00%      2   20.00%  y\n");
}

static void test_pruning_below_half_a_percent(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "main;a;deep", 985);
	add_folded(f->m, 0, "main;e", 5);
	add_folded(f->m, 0, "main;b", 4);
	add_folded(f->m, 0, "main;c", 3);
	add_folded(f->m, 0, "main;d;more", 3);
	pc_ctx_set(&f->ctx, "tree", NULL);
	pc_ctx_set(&f->ctx, "top", "1");
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    1000 in 5 distinct stacks\n"
		"\n"
		"top functions by self (1 of 8):\n"
		" self    self%  total   total%  function\n"
		"  985   98.50%    985   98.50%  deep\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		"1000  100.00%  main\n"
		" 985   98.50%    a\n"
		" 985   98.50%      deep\n"
		"   5    0.50%    e\n"
		"  10    1.00%    (3 more below 0.5%)\n");
}

static void test_pruned_roots(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "main", 199);
	add_folded(f->m, 0, "rare", 1);
	pc_ctx_set(&f->ctx, "tree", NULL);
	pc_ctx_set(&f->ctx, "top", "1");
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    200 in 2 distinct stacks\n"
		"\n"
		"top functions by self (1 of 2):\n"
		" self    self%  total   total%  function\n"
		"  199   99.50%    199   99.50%  main\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		"199   99.50%  main\n"
		"  1    0.50%  rare\n");
	pc_model_free(f->m);
	f->m = pc_model_new();
	one_column(f->m);
	add_folded(f->m, 0, "main", 200);
	add_folded(f->m, 0, "rare", 1);
	assert_int_equal(write_report(f), 0);
	assert_non_null(strstr(f->text, "\n200   99.50%  main\n  1    0.50%  (1 more below "
				      "0.5%)\n"));
}

/* --- names --- */

static void test_names_of_unsymbolized_frames(void **state)
{
	struct fixture *f = *state;
	struct pc_module lib = { .name = pc_model_intern_cstr(f->m, "/usr/lib/libfoo.so") };
	struct pc_module exe = { .name = pc_model_intern_cstr(f->m, "C:\\bin\\app.exe") };
	uint32_t lib_id = pc_model_add_module(f->m, &lib);
	uint32_t exe_id = pc_model_add_module(f->m, &exe);
	const struct pc_frame frames[] = {
		{ .module = lib_id, .flags = PC_FRAME_HAS_ADDRESS, .address = 0x10 },
		{ .module = exe_id, .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE,
		  .address = 0x7f00 },
		{ .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE, .address = 0xdead },
		{ .module = lib_id },
		{ 0 },
		{ .module = lib_id, .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_INLINE,
		  .address = 0x20, .function = pc_model_intern_cstr(f->m, "inlined") },
	};

	pc_model_add_source(f->m, "spt");
	pc_model_add_column(f->m, "cycles", "count");
	for (size_t i = 0; i < PC_ARRAY_SIZE(frames); i++) {
		uint32_t id = pc_model_add_frame(f->m, &frames[i]);
		struct pc_sample sample = { .stack = pc_model_add_stack(f->m, &id, 1) };

		assert_int_equal(pc_model_add_sample(f->m, &sample, 0, 60 - 10 * i), 0);
	}
	assert_report(f,
		"profconv report\n"
		"source:   spt\n"
		"column:   cycles (count), the default\n"
		"total:    210 in 6 distinct stacks\n"
		"\n"
		"top functions by self (6 of 6):\n"
		" self    self%  total   total%  function\n"
		"   60   28.57%     60   28.57%  libfoo.so+0x10\n"
		"   50   23.81%     50   23.81%  app.exe@0x7f00\n"
		"   40   19.05%     40   19.05%  0xdead\n"
		"   30   14.29%     30   14.29%  [libfoo.so]\n"
		"   20    9.52%     20    9.52%  [unknown]\n"
		"   10    4.76%     10    4.76%  inlined\n");
}

/* Frames of one function at other addresses are one function and one node. */
static void test_frames_with_one_name_are_one_function(void **state)
{
	struct fixture *f = *state;
	pc_str_id name = pc_model_intern_cstr(f->m, "work");
	const struct pc_frame at_10 = { .flags = PC_FRAME_HAS_ADDRESS, .address = 0x10,
					.function = name };
	const struct pc_frame at_20 = { .flags = PC_FRAME_HAS_ADDRESS, .address = 0x20,
					.function = name };
	uint32_t ids[2] = { pc_model_add_frame(f->m, &at_10), pc_model_add_frame(f->m, &at_20) };
	struct pc_sample a = { .stack = pc_model_add_stack(f->m, &ids[0], 1) };
	struct pc_sample b = { .stack = pc_model_add_stack(f->m, &ids[1], 1) };

	pc_model_add_source(f->m, "perf-script");
	pc_model_add_column(f->m, "cycles", "count");
	pc_model_add_sample(f->m, &a, 0, 3);
	pc_model_add_sample(f->m, &b, 0, 4);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   perf-script\n"
		"column:   cycles (count), the default\n"
		"total:    7 in 2 distinct stacks\n"
		"\n"
		"top functions by self (1 of 1):\n"
		" self    self%  total   total%  function\n"
		"    7  100.00%      7  100.00%  work\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		"7  100.00%  work\n");
}

static void test_control_bytes_and_invalid_utf8_are_escaped(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "caf\xc3\xa9\x1b[31m\xff", 1);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    1 in 1 distinct stack\n"
		"\n"
		"top functions by self (1 of 1):\n"
		" self    self%  total   total%  function\n"
		"    1  100.00%      1  100.00%  caf\xc3\xa9\\x1b[31m\\xff\n");
}

/* --- the counted column --- */

static void perf_columns(struct fixture *f)
{
	pc_model_add_source(f->m, "perf-script");
	assert_int_equal(pc_model_add_event_column(f->m, "cycles_sample", "count", "cycles", PC_ROLE_SAMPLES), 0);
	assert_int_equal(pc_model_add_event_column(f->m, "cycles_event", "count", "cycles", PC_ROLE_WEIGHT), 1);
	assert_int_equal(pc_model_add_event_column(f->m, "instructions_sample", "count", "instructions", PC_ROLE_SAMPLES), 2);
	assert_int_equal(pc_model_add_event_column(f->m, "instructions_event", "count", "instructions", PC_ROLE_WEIGHT), 3);
	pc_model_set_default_column(f->m, 1);
	add_folded(f->m, 0, "main;spin", 3);
	add_folded(f->m, 1, "main;spin", 3000);
	add_folded(f->m, 2, "main;spin", 1);
	add_folded(f->m, 3, "main;spin", 500);
	add_folded(f->m, 2, "main;idle", 1);
	add_folded(f->m, 3, "main;idle", 1500);
}

static void test_default_event_column_with_its_sample_count(void **state)
{
	struct fixture *f = *state;

	perf_columns(f);
	assert_report(f,
		"profconv report\n"
		"source:   perf-script\n"
		"column:   cycles_event (count), the default; others: cycles_sample, "
		"instructions_sample, instructions_event\n"
		"total:    3000 in 1 distinct stack, 3 samples (cycles_sample)\n"
		"\n"
		"top functions by self (2 of 2):\n"
		" self    self%  total   total%  function\n"
		" 3000  100.00%   3000  100.00%  spin\n"
		"    0    0.00%   3000  100.00%  main\n");
}

static void test_event_picks_name_event(void **state)
{
	struct fixture *f = *state;

	perf_columns(f);
	f->ctx.opt.event = "instructions";
	assert_report(f,
		"profconv report\n"
		"source:   perf-script\n"
		"column:   instructions_event (count), picked by --event; others: "
		"cycles_sample, cycles_event, instructions_sample\n"
		"total:    2000 in 2 distinct stacks, 2 samples (instructions_sample)\n"
		"\n"
		"top functions by self (3 of 3):\n"
		" self    self%  total   total%  function\n"
		" 1500   75.00%   1500   75.00%  idle\n"
		"  500   25.00%    500   25.00%  spin\n"
		"    0    0.00%   2000  100.00%  main\n");
}

static void test_event_picks_a_column_by_its_name(void **state)
{
	struct fixture *f = *state;

	perf_columns(f);
	f->ctx.opt.event = "instructions_sample";
	assert_int_equal(write_report(f), 0);
	assert_non_null(strstr(f->text, "column:   instructions_sample (count), picked by "
				      "--event; others: cycles_sample, cycles_event, "
				      "instructions_event\ntotal:    2 in 2 distinct stacks\n"));
}

static void test_unknown_event_is_an_error(void **state)
{
	struct fixture *f = *state;

	perf_columns(f);
	f->ctx.opt.event = "branches";
	assert_int_equal(write_report(f), -1);
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_string_equal(f->ctx.err.message,
			    "report: no column 'branches_event' or 'branches' to count (the "
			    "profile has: cycles_sample, cycles_event, instructions_sample, "
			    "instructions_event)");
}

/* --- what is left out --- */

static void test_zero_values_and_stackless_samples(void **state)
{
	struct fixture *f = *state;
	uint32_t from = named_frame(f->m, "from"), to = named_frame(f->m, "to");
	struct pc_branch branch = { .from = from, .to = to };
	struct pc_label label = { .key = pc_model_intern_cstr(f->m, "tid"), .num = 7 };
	struct pc_sample branch_only = { .branches = pc_model_add_branches(f->m, &branch, 1) };
	struct pc_sample labels_only = { .labels = pc_model_add_labels(f->m, &label, 1) };

	one_column(f->m);
	assert_int_equal(pc_model_add_column(f->m, "lbr", "count"), 1);
	add_folded(f->m, 0, "main;work", 92);
	add_folded(f->m, 1, "main;unseen", 50); /* 0 in column 0: skipped */
	assert_int_equal(pc_model_add_sample(f->m, &branch_only, 0, 5), 0);
	assert_int_equal(pc_model_add_sample(f->m, &labels_only, 0, 3), 0);
	assert_int_equal(pc_model_add_sample(f->m, &branch_only, 1, 9), 0);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default; others: lbr\n"
		"total:    100 in 1 distinct stack\n"
		"left out: 2 samples without a call stack (1 with only a branch stack): "
		"8, 8.00%\n"
		"\n"
		"top functions by self (2 of 2):\n"
		" self    self%  total   total%  function\n"
		"   92   92.00%     92   92.00%  work\n"
		"    0    0.00%     92   92.00%  main\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		" 92   92.00%  main\n"
		" 92   92.00%    work\n");
}

static void test_only_branches_in_the_column(void **state)
{
	struct fixture *f = *state;
	uint32_t from = named_frame(f->m, "from"), to = named_frame(f->m, "to");
	struct pc_branch branch = { .from = from, .to = to };
	struct pc_sample branch_only = { .branches = pc_model_add_branches(f->m, &branch, 1) };

	one_column(f->m);
	assert_int_equal(pc_model_add_column(f->m, "lbr", "count"), 1);
	add_folded(f->m, 0, "main", 1);
	assert_int_equal(pc_model_add_sample(f->m, &branch_only, 1, 4), 0);
	f->ctx.opt.event = "lbr";
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   lbr (count), picked by --event; others: samples\n"
		"total:    4 in 0 distinct stacks\n"
		"left out: 1 sample without a call stack (1 with only a branch stack): "
		"4, 100.00%\n"
		"\n"
		"no sample with a call stack has a value in this column\n");
}

/* A sample per label set: one stack, its values added. */
static void test_labels_do_not_split_the_report(void **state)
{
	struct fixture *f = *state;
	uint32_t leaf = named_frame(f->m, "main");
	pc_str_id tid = pc_model_intern_cstr(f->m, "tid");

	one_column(f->m);
	for (int i = 1; i <= 3; i++) {
		struct pc_label label = { .key = tid, .num = i };
		struct pc_sample sample = {
			.stack = pc_model_add_stack(f->m, &leaf, 1),
			.labels = pc_model_add_labels(f->m, &label, 1),
		};

		assert_int_equal(pc_model_add_sample(f->m, &sample, 0, (uint64_t)i), 0);
	}
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_int_equal(write_report(f), 0);
	assert_non_null(strstr(f->text, "total:    6 in 1 distinct stack\n"));
	assert_non_null(strstr(f->text, "\n6  100.00%  main\n"));
}

/* --- limits --- */

/* Every writer's totals fit in int64 (what pprof and the other consumers sum in). */
static void test_total_past_2_63_is_an_error(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "a", PC_COUNT_MAX);
	add_folded(f->m, 0, "b", 1);
	assert_int_equal(write_report(f), -1);
	assert_string_equal(f->ctx.err.message, "report: the values of column 'samples' add "
			    "up to more than 2^63-1");
}

static void test_large_counts(void **state)
{
	struct fixture *f = *state;

	one_column(f->m);
	add_folded(f->m, 0, "a;b", PC_COUNT_MAX / 2);
	add_folded(f->m, 0, "a;c", PC_COUNT_MAX / 2 + 1);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   folded\n"
		"column:   samples (count), the default\n"
		"total:    9223372036854775807 in 2 distinct stacks\n"
		"\n"
		"top functions by self (3 of 3):\n"
		"               self    self%                total   total%  function\n"
		"4611686018427387904   50.00%  4611686018427387904   50.00%  c\n"
		"4611686018427387903   50.00%  4611686018427387903   50.00%  b\n"
		"                  0    0.00%  9223372036854775807  100.00%  a\n"
		"\n"
		"call tree, root first (nodes below 0.5% of the total are folded):\n"
		"9223372036854775807  100.00%  a\n"
		"4611686018427387904   50.00%    c\n"
		"4611686018427387903   50.00%    b\n");
}

/* A 3000-deep recursion: printed without recursion, counted once per stack. */
static void test_deep_recursion(void **state)
{
	struct fixture *f = *state;
	enum { DEPTH = 3000 };
	uint32_t *frames = pc_xmalloc(DEPTH * sizeof(*frames));
	uint32_t self = named_frame(f->m, "self");
	struct pc_sample sample;
	size_t lines = 0;

	for (size_t i = 0; i < DEPTH; i++)
		frames[i] = self;
	sample.stack = pc_model_add_stack(f->m, frames, DEPTH);
	sample.labels = sample.branches = 0;
	one_column(f->m);
	assert_int_equal(pc_model_add_sample(f->m, &sample, 0, 5), 0);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_int_equal(write_report(f), 0);
	assert_non_null(strstr(f->text, "    5  100.00%      5  100.00%  self\n"));
	for (const char *p = f->text; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 10 + DEPTH);
	free(frames);
}

/* The stack "f0;f1;...;fN" (the root first). */
static void add_chain(struct pc_model *m, size_t n, const char *leaf, uint64_t value)
{
	char stack[512];
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		used += (size_t)snprintf(stack + used, sizeof(stack) - used, "f%zu;", i);
	snprintf(stack + used, sizeof(stack) - used, "%s", leaf);
	add_folded(m, 0, stack, value);
}

/*
 * Levels 32 and deeper keep the indentation of level 32 (64 spaces) and
 * print their level before the name, folded siblings too.
 */
static void test_tree_indentation_is_capped(void **state)
{
	struct fixture *f = *state;
	char tail[1024];
	size_t len;

	one_column(f->m);
	add_chain(f->m, 34, "f34", 398);
	add_chain(f->m, 34, "g", 1);
	add_chain(f->m, 34, "h", 1);
	pc_ctx_set(&f->ctx, "tree", NULL);
	pc_ctx_set(&f->ctx, "top", "1");
	assert_int_equal(write_report(f), 0);
	snprintf(tail, sizeof(tail),
		 "400  100.00%%  %*sf31\n"
		 "400  100.00%%  %*s[32] f32\n"
		 "400  100.00%%  %*s[33] f33\n"
		 "398   99.50%%  %*s[34] f34\n"
		 "  2    0.50%%  %*s[34] (2 more below 0.5%%)\n",
		 62, "", 64, "", 64, "", 64, "", 64, "");
	len = strlen(tail);
	assert_true(f->size >= len);
	assert_string_equal(f->text + f->size - len, tail);
	assert_non_null(strstr(f->text, "\n400  100.00%  f0\n400  100.00%    f1\n"));
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_writer_find("report"), &pc_report_writer);
	assert_null(pc_report_writer.extensions);
	assert_int_equal(pc_report_writer.needs, PC_PART_STACKS);
	assert_true(pc_report_writer.keeps & PC_PART_ARCS); /* caller/callee data */
}

/* --- caller/callee data --- */

/*
 * seeds/002's shared callee, as a CallerCallee summary: Data::~Data is
 * called from A and B in the ratio 2:1, and calls _Tidy in another module;
 * the unknown frame has nothing.
 */
static void add_caller_callee(struct pc_model *m)
{
	uint32_t app, exe, dll, main_fn, a, b, data, tidy;

	pct_cc_columns(m);
	pc_model_add_column(m, "calls", "count");
	app = pct_cc_process(m, "app.exe", 6360);
	exe = pct_cc_module(m, "C:\\app\\app.exe", 6361);
	dll = pct_cc_module(m, "C:\\Windows\\msvcr90.dll", 6361);
	main_fn = pct_cc_function(m, "main", exe, 0x401000, app, 0, 90);
	a = pct_cc_function(m, "A(void)", exe, 0x401100, app, 20, 60);
	b = pct_cc_function(m, "B(void)", exe, 0x401200, app, 10, 30);
	data = pct_cc_function(m, "Data::~Data(void)", exe, 0x401300, app, 15, 60);
	tidy = pct_cc_function(m, "_Tidy", dll, 0x7c900000, app, 45, 45);
	pct_cc_function(m, "Unknown Frame(s)", 0, 0, app, 0, 0);
	pct_cc_call(m, main_fn, a, 60);
	pct_cc_call(m, main_fn, b, 30);
	pct_cc_call(m, a, data, 40);
	pct_cc_call(m, b, data, 20);
	pct_cc_call(m, data, tidy, 45);
}

static const char caller_callee_tables[] =
	"\n"
	"top functions by exclusive (6 of 6):\n"
	"excl    excl%  incl    incl%  address     module       function\n"
	"  45   50.00%    45   50.00%  0x7c900000  msvcr90.dll  _Tidy\n"
	"  20   22.22%    60   66.67%  0x401100    app.exe      A(void)\n"
	"  15   16.67%    60   66.67%  0x401300    app.exe      Data::~Data(void)\n"
	"  10   11.11%    30   33.33%  0x401200    app.exe      B(void)\n"
	"   0    0.00%    90  100.00%  0x401000    app.exe      main\n"
	"   0    0.00%     0    0.00%  -           -            Unknown Frame(s)\n"
	"\n"
	"top functions by inclusive (6 of 6):\n"
	"excl    excl%  incl    incl%  address     module       function\n"
	"   0    0.00%    90  100.00%  0x401000    app.exe      main\n"
	"  20   22.22%    60   66.67%  0x401100    app.exe      A(void)\n"
	"  15   16.67%    60   66.67%  0x401300    app.exe      Data::~Data(void)\n"
	"  45   50.00%    45   50.00%  0x7c900000  msvcr90.dll  _Tidy\n"
	"  10   11.11%    30   33.33%  0x401200    app.exe      B(void)\n"
	"   0    0.00%     0    0.00%  -           -            Unknown Frame(s)\n";

static void test_caller_callee_tables_and_tree(void **state)
{
	struct fixture *f = *state;
	char expected[4096];

	add_caller_callee(f->m);
	pc_ctx_set(&f->ctx, "tree", NULL);
	snprintf(expected, sizeof(expected), "%s%s%s",
		 "profconv report\n"
		 "source:   vsperf\n"
		 "column:   samples (count), the default; inclusive: inclusive_samples; "
		 "others: calls\n"
		 "total:    90 in 6 functions, 5 call arcs (caller/callee data: exact per "
		 "function, no call stacks)\n",
		 caller_callee_tables,
		 "\n"
		 "call tree, root first, reconstructed from caller/callee pairs (VsPerfView "
		 "method): approximate (nodes below 0.5% of the total are folded):\n"
		 "90  100.00%  main\n"
		 "60   66.67%    A(void)\n"
		 "40   44.44%      Data::~Data(void)\n"
		 "30   33.33%        _Tidy\n"
		 "30   33.33%    B(void)\n"
		 "20   22.22%      Data::~Data(void)\n"
		 "15   16.67%        _Tidy\n");
	assert_report(f, expected);
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* --event may name the inclusive column: the same report, picked by --event. */
static void test_caller_callee_event_inclusive(void **state)
{
	struct fixture *f = *state;
	char expected[4096];

	add_caller_callee(f->m);
	f->ctx.opt.event = "inclusive_samples";
	snprintf(expected, sizeof(expected), "%s%s",
		 "profconv report\n"
		 "source:   vsperf\n"
		 "column:   samples (count), picked by --event; inclusive: "
		 "inclusive_samples; others: calls\n"
		 "total:    90 in 6 functions, 5 call arcs (caller/callee data: exact per "
		 "function, no call stacks)\n",
		 caller_callee_tables);
	assert_report(f, expected);
}

static void test_caller_callee_event_other_column(void **state)
{
	struct fixture *f = *state;

	add_caller_callee(f->m);
	f->ctx.opt.event = "calls";
	assert_int_equal(write_report(f), -1);
	assert_string_equal(f->ctx.err.message,
			    "report: caller/callee data is reported by its exclusive and "
			    "inclusive columns ('samples', 'inclusive_samples'), not 'calls'");
}

static void test_caller_callee_top(void **state)
{
	struct fixture *f = *state;

	add_caller_callee(f->m);
	pc_ctx_set(&f->ctx, "top", "1");
	assert_report(f,
		"profconv report\n"
		"source:   vsperf\n"
		"column:   samples (count), the default; inclusive: inclusive_samples; "
		"others: calls\n"
		"total:    90 in 6 functions, 5 call arcs (caller/callee data: exact per "
		"function, no call stacks)\n"
		"\n"
		"top functions by exclusive (1 of 6):\n"
		"excl    excl%  incl    incl%  address     module       function\n"
		"  45   50.00%    45   50.00%  0x7c900000  msvcr90.dll  _Tidy\n"
		"\n"
		"top functions by inclusive (1 of 6):\n"
		"excl    excl%  incl    incl%  address   module   function\n"
		"   0    0.00%    90  100.00%  0x401000  app.exe  main\n");
}

/*
 * Functions of two processes: a pid column tells the two copies of main
 * apart, and the unknown frame that both share is one function of "*".
 */
static void test_caller_callee_functions_of_two_processes(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	uint32_t one, two;
	static const char table[] =
		"excl    excl%  incl    incl%  address   module  pid  function\n"
		"   4   50.00%     6   75.00%  -         -       *    Unknown Frame(s)\n"
		"   2   25.00%     3   37.50%  0x401000  a.exe   1    main\n"
		"   2   25.00%     3   37.50%  0x401000  a.exe   2    main\n";
	char expected[2048];

	pct_cc_columns(m);
	one = pct_cc_process(m, "a.exe", 1);
	two = pct_cc_process(m, "a.exe", 2);
	pct_cc_function(m, "main", pct_cc_module(m, "C:\\a.exe", 3), 0x401000, two, 2, 3);
	pct_cc_function(m, "main", pct_cc_module(m, "C:\\a.exe", 2), 0x401000, one, 2, 3);
	pct_cc_function(m, "Unknown Frame(s)", 0, 0, one, 3, 4);
	pct_cc_function(m, "Unknown Frame(s)", 0, 0, two, 1, 2);
	snprintf(expected, sizeof(expected), "%s%s%s%s",
		 "profconv report\n"
		 "source:   vsperf\n"
		 "column:   samples (count), the default; inclusive: inclusive_samples\n"
		 "total:    8 in 3 functions, 0 call arcs (caller/callee data: exact per "
		 "function, no call stacks)\n"
		 "\n"
		 "top functions by exclusive (3 of 3):\n", table,
		 "\n"
		 "top functions by inclusive (3 of 3):\n", table);
	assert_report(f, expected);
}

static void test_caller_callee_without_functions(void **state)
{
	struct fixture *f = *state;

	pct_cc_columns(f->m);
	pc_ctx_set(&f->ctx, "tree", NULL);
	assert_report(f,
		"profconv report\n"
		"source:   vsperf\n"
		"column:   samples (count), the default; inclusive: inclusive_samples\n"
		"total:    0 in 0 functions, 0 call arcs (caller/callee data: exact per "
		"function, no call stacks)\n"
		"\n"
		"no function in this profile\n");
}

#define T(name) cmocka_unit_test_setup_teardown(name, pct_setup, pct_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_header_top_and_tree),
		T(test_no_tree_without_the_option),
		T(test_top_limits_the_table),
		T(test_function_order),
		T(test_pruning_below_half_a_percent),
		T(test_pruned_roots),
		T(test_names_of_unsymbolized_frames),
		T(test_frames_with_one_name_are_one_function),
		T(test_control_bytes_and_invalid_utf8_are_escaped),
		T(test_default_event_column_with_its_sample_count),
		T(test_event_picks_name_event),
		T(test_event_picks_a_column_by_its_name),
		T(test_unknown_event_is_an_error),
		T(test_zero_values_and_stackless_samples),
		T(test_only_branches_in_the_column),
		T(test_labels_do_not_split_the_report),
		T(test_total_past_2_63_is_an_error),
		T(test_large_counts),
		T(test_deep_recursion),
		T(test_tree_indentation_is_capped),
		T(test_descriptor),
		T(test_caller_callee_tables_and_tree),
		T(test_caller_callee_event_inclusive),
		T(test_caller_callee_event_other_column),
		T(test_caller_callee_top),
		T(test_caller_callee_functions_of_two_processes),
		T(test_caller_callee_without_functions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
