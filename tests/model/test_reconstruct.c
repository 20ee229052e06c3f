/*
 * test_reconstruct.c - stacks reconstructed from caller/callee data
 * (model/reconstruct.c) on small hand-built models, checked through the
 * folded writer with exact counts: the seed's shared callee (Data::~Data
 * under two callers), rounding and its ties, recursion, two processes
 * sharing the unknown frame, functions with inclusive 0, a cycle that
 * nothing calls, zero-count arcs, pruning, the path limit, determinism,
 * what is copied and what is refused.
 */
#include "model/reconstruct.h"
#include "support/caller_callee.h"
#include "support/fixture.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_folded_writer;

/* src is the fixture's model; dst and its folded text live here. */
struct recon {
	struct fixture *f;
	struct pc_model dst;
	char *text;
	size_t size;
};

static int setup(void **state)
{
	struct recon *r = pc_xcalloc(1, sizeof(*r));
	void *fixture;

	pct_setup(&fixture);
	r->f = fixture;
	pc_model_init(&r->dst);
	pct_cc_columns(&r->f->m);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct recon *r = *state;
	void *fixture = r->f;

	pc_model_release(&r->dst);
	free(r->text);
	pct_teardown(&fixture);
	free(r);
	return 0;
}

/* Finalizes src, reconstructs with a path limit, and folds dst into r->text. */
static int reconstruct_limited(struct recon *r, size_t max_paths)
{
	int status;

	pc_model_finalize(&r->f->m);
	status = pc_model_reconstruct_stacks_limited(&r->f->ctx, &r->f->m, &r->dst, max_paths);
	if (!status)
		assert_int_equal(pct_write_model(&r->f->ctx, &r->dst, &pc_folded_writer,
						 &r->text, &r->size), 0);
	return status;
}

static void assert_folded(struct recon *r, const char *expected)
{
	assert_int_equal(reconstruct_limited(r, PC_RECONSTRUCT_MAX_PATHS), 0);
	assert_string_equal(r->text, expected);
}

static const struct pc_warning *warning_like(const struct pc_ctx *ctx, const char *prefix)
{
	for (size_t i = 0; i < ctx->nwarnings; i++)
		if (!strncmp(ctx->warnings[i].text, prefix, strlen(prefix)))
			return &ctx->warnings[i];
	return NULL;
}

/* --- the method --- */

/*
 * seeds/002: the destructor is called from two branches in the ratio 2:1,
 * so what it calls (_Tidy, 45) is 30 under one and 15 under the other,
 * not 45 under each.
 */
static void add_shared_callee(struct pc_model *m)
{
	uint32_t main_fn = pct_cc_named(m, "main", 0, 90);
	uint32_t a = pct_cc_named(m, "A", 20, 60), b = pct_cc_named(m, "B", 10, 30);
	uint32_t data = pct_cc_named(m, "Data::~Data", 15, 60);
	uint32_t tidy = pct_cc_named(m, "_Tidy", 45, 45);

	pct_cc_call(m, main_fn, a, 60);
	pct_cc_call(m, main_fn, b, 30);
	pct_cc_call(m, a, data, 40);
	pct_cc_call(m, b, data, 20);
	pct_cc_call(m, data, tidy, 45);
}

static void test_shared_callee_split_by_branch(void **state)
{
	struct recon *r = *state;

	add_shared_callee(&r->f->m);
	assert_folded(r, "main;A 20\n"
			 "main;A;Data::~Data 10\n"
			 "main;A;Data::~Data;_Tidy 30\n"
			 "main;B 10\n"
			 "main;B;Data::~Data 5\n"
			 "main;B;Data::~Data;_Tidy 15\n");
	assert_int_equal(r->f->ctx.nwarnings, 0);
}

/*
 * Shares of .5 each: rounding goes top down, so each subtree keeps its
 * whole units (main;A 2, main;B 1) and within one a tie goes to the
 * earlier path of the walk (a path's own value before its children).
 */
static void test_rounding_ties_go_to_earlier_paths(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 0, 3);
	uint32_t a = pct_cc_named(m, "A", 1, 2), b = pct_cc_named(m, "B", 0, 1);
	uint32_t x = pct_cc_named(m, "X", 0, 2), y = pct_cc_named(m, "Y", 1, 2);
	uint32_t z = pct_cc_named(m, "Z", 1, 1);

	pct_cc_call(m, main_fn, a, 2);
	pct_cc_call(m, main_fn, b, 1);
	pct_cc_call(m, a, x, 1);
	pct_cc_call(m, b, x, 1);
	pct_cc_call(m, x, y, 2);
	pct_cc_call(m, y, z, 1);
	/* real values: main;A 1, then .5 on each of main;{A,B};X;Y and ...;Y;Z */
	assert_folded(r, "main;A 1\nmain;A;X;Y 1\nmain;B;X;Y 1\n");
}

/* A callee already on the path is not expanded; a self-call is no caller. */
static void test_recursion_stops_and_self_calls_are_no_callers(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 0, 10);
	uint32_t fib = pct_cc_named(m, "fib", 4, 10), leaf = pct_cc_named(m, "leaf", 6, 6);
	uint32_t alone = pct_cc_named(m, "alone", 3, 3);

	pct_cc_call(m, main_fn, fib, 10);
	pct_cc_call(m, fib, fib, 5);
	pct_cc_call(m, fib, leaf, 6);
	pct_cc_call(m, alone, alone, 2);
	assert_folded(r, "alone 3\nmain;fib 4\nmain;fib;leaf 6\n");
	assert_int_equal(r->f->ctx.nwarnings, 0);
}

/* An arc of count 0 is no caller: its callee is an entry point. */
static void test_zero_count_arcs_are_no_callers(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 1, 1), worker = pct_cc_named(m, "worker", 2, 4);
	uint32_t job = pct_cc_named(m, "job", 2, 2);

	pct_cc_call(m, main_fn, worker, 0);
	pct_cc_call(m, worker, job, 2);
	assert_folded(r, "main 1\nworker 2\nworker;job 2\n");
	assert_int_equal(r->f->ctx.nwarnings, 0);
}

/*
 * Two processes, each with its own module and a main, share the unknown
 * frame (no module): it is one function per process, and its callee in
 * process 1 is not reached from process 2's copy.
 */
static void test_two_processes_share_the_unknown_frame(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t one = pct_cc_process(m, "a.exe", 100), two = pct_cc_process(m, "b.exe", 200);
	uint32_t exe1 = pct_cc_module(m, "C:\\a.exe", 101);
	uint32_t exe2 = pct_cc_module(m, "C:\\b.exe", 201);
	uint32_t main1 = pct_cc_function(m, "main", exe1, 0x401000, one, 0, 10);
	uint32_t helper1 = pct_cc_function(m, "helper", exe1, 0x401100, one, 3, 3);
	uint32_t main2 = pct_cc_function(m, "main", exe2, 0x401000, two, 2, 6);
	uint32_t unknown = pct_cc_function(m, "Unknown Frame(s)", 0, 0, one, 7, 10);

	assert_int_equal(pct_cc_function(m, "Unknown Frame(s)", 0, 0, two, 4, 4), unknown);
	pct_cc_call(m, main1, unknown, 10);
	pct_cc_call(m, main2, unknown, 4);
	pct_cc_call(m, unknown, helper1, 3);
	assert_folded(r, "a.exe;main;Unknown Frame(s) 7\n"
			 "a.exe;main;Unknown Frame(s);helper 3\n"
			 "b.exe;main 2\n"
			 "b.exe;main;Unknown Frame(s) 4\n");
	assert_int_equal(r->f->ctx.nwarnings, 0);
}

/* Inclusive 0: not expanded; with an exclusive count, a stack of its own. */
static void test_zero_inclusive_functions(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 5, 5), empty = pct_cc_named(m, "empty", 0, 0);
	uint32_t odd = pct_cc_named(m, "odd", 2, 0);

	pct_cc_call(m, main_fn, empty, 1);
	pct_cc_call(m, main_fn, odd, 1);
	pct_cc_call(m, empty, main_fn, 1);
	assert_folded(r, "main 5\nodd 2\n");
	assert_int_equal(r->f->ctx.nwarnings, 1); /* empty calls main, but carries nothing */
	assert_non_null(warning_like(&r->f->ctx, "reconstruct: 1 function(s) have an "
				     "exclusive count but an inclusive count of 0: each is a "
				     "stack of its own"));
}

/* A cycle that nothing calls: its first function becomes an entry point. */
static void test_cycle_without_outside_caller(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 2, 2);
	uint32_t a = pct_cc_named(m, "A", 1, 5), b = pct_cc_named(m, "B", 4, 5);

	(void)main_fn;
	pct_cc_call(m, a, b, 4);
	pct_cc_call(m, b, a, 1);
	/* A 1, A;B 4 x 4/5 = 3.2: rescaled from 6.2 to 7 over main 2, A 1, A;B 3.2 */
	assert_folded(r, "A 1\nA;B 4\nmain 2\n");
	assert_non_null(warning_like(&r->f->ctx, "reconstruct: no entry point reaches 1 "
				     "function(s) (their callers form a cycle): each became an "
				     "entry point"));
}

/* Paths below a millionth of the total are not expanded; their mass is rescaled. */
static void test_tiny_paths_are_pruned(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t main_fn = pct_cc_named(m, "main", 0, 10000000);
	uint32_t big = pct_cc_named(m, "big", 9999999, 9999999);
	uint32_t tiny = pct_cc_named(m, "tiny", 1, 1);

	pct_cc_call(m, main_fn, big, 9999999);
	pct_cc_call(m, main_fn, tiny, 1);
	assert_folded(r, "main;big 10000000\n");
	assert_int_equal(r->f->ctx.nwarnings, 0); /* tiny is reached, only not expanded */
}

static void test_path_limit_stops_with_a_warning(void **state)
{
	struct recon *r = *state;

	add_shared_callee(&r->f->m);
	assert_int_equal(reconstruct_limited(r, 2), 0);
	assert_string_equal(r->text, "main;A 90\n");
	assert_non_null(warning_like(&r->f->ctx, "reconstruct: the call graph has more than 2 "
				     "paths: stacks reconstructed from the first 2 only"));
}

static void test_strict_turns_warnings_into_errors(void **state)
{
	struct recon *r = *state;

	add_shared_callee(&r->f->m);
	r->f->ctx.opt.strict = true;
	assert_int_equal(reconstruct_limited(r, 2), -1);
	assert_non_null(strstr(r->f->ctx.err.message, "(an error with --strict)"));
}

/* --- order, copies, refusals --- */

static void test_output_does_not_depend_on_input_order(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t tidy = pct_cc_named(m, "_Tidy", 45, 45);
	uint32_t data = pct_cc_named(m, "Data::~Data", 15, 60);
	uint32_t b = pct_cc_named(m, "B", 10, 30), a = pct_cc_named(m, "A", 20, 60);
	uint32_t main_fn = pct_cc_named(m, "main", 0, 90);

	pct_cc_call(m, data, tidy, 45);
	pct_cc_call(m, b, data, 20);
	pct_cc_call(m, a, data, 40);
	pct_cc_call(m, main_fn, b, 30);
	pct_cc_call(m, main_fn, a, 60);
	assert_folded(r, "main;A 20\n"
			 "main;A;Data::~Data 10\n"
			 "main;A;Data::~Data;_Tidy 30\n"
			 "main;B 10\n"
			 "main;B;Data::~Data 5\n"
			 "main;B;Data::~Data;_Tidy 15\n");
}

static void test_copies_metadata_and_sets_one_column(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	struct pc_model *dst = &r->dst;
	struct pc_module module = { .name = pc_model_intern_cstr(m, "C:\\app.exe"),
				    .has_range = true, .start = 0x400000, .limit = 0x400101 };
	uint32_t exe = pc_model_add_module(m, &module);
	uint32_t main_fn = pct_cc_function(m, "main", exe, 0x400100, 0, 4, 4);
	size_t n;
	const uint32_t *frames;

	(void)main_fn;
	pc_model_add_column(m, "calls", "count");
	pc_model_add_comment(m, "Visual Studio CallerCallee summary");
	pc_model_add_fact(m, "vsperf.report", "CallerCallee");
	m->time_nanos = 5;
	m->duration_nanos = 6;
	m->period_type.type = pc_model_intern_cstr(m, "cpu");
	m->period_type.unit = pc_model_intern_cstr(m, "nanoseconds");
	m->period = 7;
	assert_int_equal(reconstruct_limited(r, 10), 0);
	assert_true(dst->finalized);
	assert_int_equal(dst->ncolumns, 1);
	assert_int_equal(dst->default_column, 0);
	assert_string_equal(pc_str(dst, dst->columns[0].type), "samples");
	assert_string_equal(pc_str(dst, dst->columns[0].unit), "count");
	assert_int_equal(dst->arc_self_column, -1);
	assert_int_equal(dst->arc_total_column, -1);
	assert_int_equal(dst->narcs, 0);
	assert_int_equal(dst->nsources, 1);
	assert_string_equal(pc_str(dst, dst->sources[0]), "vsperf");
	assert_int_equal(dst->ncomments, 2);
	assert_string_equal(pc_str(dst, dst->comments[0]), "Visual Studio CallerCallee summary");
	assert_string_equal(pc_str(dst, dst->comments[1]), "stacks reconstructed from "
			    "caller/callee pairs (VsPerfView method): approximate");
	assert_int_equal(dst->nfacts, 1);
	assert_string_equal(pc_str(dst, dst->facts[0].key), "vsperf.report");
	assert_string_equal(pc_str(dst, dst->facts[0].value), "CallerCallee");
	assert_int_equal(dst->time_nanos, 5);
	assert_int_equal(dst->duration_nanos, 6);
	assert_string_equal(pc_str(dst, dst->period_type.type), "cpu");
	assert_string_equal(pc_str(dst, dst->period_type.unit), "nanoseconds");
	assert_int_equal(dst->period, 7);
	assert_int_equal(dst->nmodules, 1);
	assert_string_equal(pc_str(dst, dst->modules[0].name), "C:\\app.exe");
	assert_true(dst->modules[0].has_range);
	assert_int_equal(dst->modules[0].limit, 0x400101);
	assert_int_equal(dst->nsamples, 1);
	frames = pc_model_stack(dst, dst->samples[0].stack, &n);
	assert_int_equal(n, 1);
	assert_int_equal(pc_model_frame(dst, frames[0])->address, 0x400100);
	assert_int_equal(pc_model_frame(dst, frames[0])->flags,
			 PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE);
	assert_string_equal(pc_str(dst, pc_model_frame(dst, frames[0])->function), "main");
	assert_int_equal(pc_model_values(dst, 0)[0], 4);
}

/* Samples that are no function (deeper stacks) are left out, with a warning. */
static void test_deeper_stacks_are_left_out(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t frames[2] = { pct_cc_named(m, "leaf", 1, 1), pct_cc_named(m, "root", 2, 2) };
	struct pc_sample deep = { .stack = pc_model_add_stack(m, frames, 2) };

	assert_int_equal(pc_model_add_sample(m, &deep, 0, 100), 0);
	assert_folded(r, "leaf 1\nroot 2\n");
	assert_non_null(warning_like(&r->f->ctx, "reconstruct: 1 sample(s) that are no "
				     "function (no stack, or more than one frame) are left out"));
}

static void test_no_exclusive_counts_give_no_samples(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;

	pct_cc_call(m, pct_cc_named(m, "main", 0, 0), pct_cc_named(m, "f", 0, 0), 0);
	assert_int_equal(reconstruct_limited(r, 10), 0);
	assert_int_equal(r->dst.nsamples, 0);
	assert_int_equal(r->f->ctx.nwarnings, 0);
}

static void test_has_arc_data(void **state)
{
	struct recon *r = *state;
	struct pc_model plain;

	pc_model_init(&plain);
	assert_false(pc_model_has_arc_data(&plain));
	pc_model_add_column(&plain, "samples", "count");
	plain.arc_self_column = 0;
	plain.arc_total_column = 1; /* no such column */
	assert_false(pc_model_has_arc_data(&plain));
	pc_model_finalize(&plain);
	assert_int_equal(pc_model_reconstruct_stacks(&r->f->ctx, &plain, &r->dst), -1);
	assert_string_equal(r->f->ctx.err.message,
			    "reconstruct: the model holds no finalized caller/callee data");
	assert_true(pc_model_has_arc_data(&r->f->m));
	pc_model_release(&plain);
}

static void test_exclusive_total_past_int64_is_an_error(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;

	pct_cc_named(m, "a", PC_COUNT_MAX, PC_COUNT_MAX);
	pct_cc_named(m, "b", 1, 1);
	assert_int_equal(reconstruct_limited(r, 10), -1);
	assert_string_equal(r->f->ctx.err.message,
			    "reconstruct: the exclusive counts ('samples') add up past 2^63-1");
}

/* A chain far deeper than any C stack would allow with recursion. */
static void test_deep_chain(void **state)
{
	struct recon *r = *state;
	struct pc_model *m = &r->f->m;
	uint32_t caller = pct_cc_named(m, "f0", 0, 1);
	char name[16];

	for (int i = 1; i < 100000; i++) {
		uint32_t callee;

		snprintf(name, sizeof(name), "f%d", i);
		callee = pct_cc_named(m, name, i == 99999, 1);
		pct_cc_call(m, caller, callee, 1);
		caller = callee;
	}
	assert_int_equal(reconstruct_limited(r, PC_RECONSTRUCT_MAX_PATHS), 0);
	assert_int_equal(r->dst.nsamples, 1);
	assert_int_equal(pc_model_values(&r->dst, 0)[0], 1);
	size_t n;

	pc_model_stack(&r->dst, r->dst.samples[0].stack, &n);
	assert_int_equal(n, 100000);
}

#define TEST(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_shared_callee_split_by_branch),
		TEST(test_rounding_ties_go_to_earlier_paths),
		TEST(test_recursion_stops_and_self_calls_are_no_callers),
		TEST(test_zero_count_arcs_are_no_callers),
		TEST(test_two_processes_share_the_unknown_frame),
		TEST(test_zero_inclusive_functions),
		TEST(test_cycle_without_outside_caller),
		TEST(test_tiny_paths_are_pruned),
		TEST(test_path_limit_stops_with_a_warning),
		TEST(test_strict_turns_warnings_into_errors),
		TEST(test_output_does_not_depend_on_input_order),
		TEST(test_copies_metadata_and_sets_one_column),
		TEST(test_deeper_stacks_are_left_out),
		TEST(test_no_exclusive_counts_give_no_samples),
		TEST(test_has_arc_data),
		TEST(test_exclusive_total_past_int64_is_an_error),
		TEST(test_deep_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
