/*
 * test_cpuprofile_writer.c - the Chrome .cpuprofile writer: the exact
 * bytes of a small profile (the (root) node, ids in pre-order, children
 * in first-met order and left out of leaves, callFrames with 0-based
 * lines, urls from files or modules and their script ids, hitCounts,
 * samples in tree order, evenly spaced timeDeltas), thread nodes, the
 * samples column preferred to a weight, the profile's period as the
 * tick, --max-samples thinning, a time column, "(no stack)", and the
 * errors and warnings.
 *
 * Models are built with the model's builder calls, as a reader would.
 */
#include "support/fixture_model.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_cpuprofile_writer;

static int write_profile(struct fixture *f)
{
	free(f->text);
	return pct_write_model(&f->ctx, f->m, &pc_cpuprofile_writer, &f->text, &f->size);
}

/* The text between "\"KEY\":[" and the next ']'. */
static char *array_of(const struct fixture *f, const char *key)
{
	static char text[4096];
	char pattern[64];
	const char *at, *end;

	snprintf(pattern, sizeof(pattern), "\"%s\":[", key);
	at = strstr(f->text, pattern);
	assert_non_null(at);
	at += strlen(pattern);
	end = strchr(at, ']');
	assert_non_null(end);
	assert_true((size_t)(end - at) < sizeof(text));
	memcpy(text, at, (size_t)(end - at));
	text[end - at] = '\0';
	return text;
}

static void test_exact_bytes(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_event_column(f->m, "samples", "count", "samples",
					       PC_ROLE_SAMPLES);
	uint32_t app = pct_module(f, "/opt/app/bin/app");
	uint32_t main_fn = pct_frame(f, app, 0x10, "main", "/src/main.c", 12);
	uint32_t leaf = pct_frame(f, app, 0x20, "leaf", "/src/leaf.c", 3);
	uint32_t unknown = pct_frame(f, app, 0x4a0, NULL, NULL, 0);
	static const char expected[] =
		"{\"nodes\":[\n"
		"{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
		"\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0,\"children\":[2]},\n"
		"{\"id\":2,\"callFrame\":{\"functionName\":\"main\",\"scriptId\":\"1\","
		"\"url\":\"/src/main.c\",\"lineNumber\":11,\"columnNumber\":-1},\"hitCount\":1,"
		"\"children\":[3,4]},\n"
		"{\"id\":3,\"callFrame\":{\"functionName\":\"leaf\",\"scriptId\":\"2\","
		"\"url\":\"/src/leaf.c\",\"lineNumber\":2,\"columnNumber\":-1},\"hitCount\":3},\n"
		"{\"id\":4,\"callFrame\":{\"functionName\":\"app+0x4a0\",\"scriptId\":\"3\","
		"\"url\":\"/opt/app/bin/app\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":2}],\n"
		"\"startTime\":0,\"endTime\":6000,\n"
		"\"samples\":[2,3,3,3,4,4],\n"
		"\"timeDeltas\":[0,1000,1000,1000,1000,1000]}\n";

	pct_add(f, (uint32_t[]){ leaf, main_fn }, 2, NULL, 0, column, 3);
	pct_add(f, (uint32_t[]){ unknown, main_fn }, 2, NULL, 0, column, 2);
	pct_add(f, &main_fn, 1, NULL, 0, column, 1);
	assert_int_equal(write_profile(f), 0);
	assert_string_equal(f->text, expected);
	/* the input had no times: spacing the samples evenly loses nothing */
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_threads_and_samples_column(void **state)
{
	struct fixture *f = *state;
	int periods = pc_model_add_event_column(f->m, "cycles_event", "count", "cycles",
						PC_ROLE_WEIGHT);
	int samples = pc_model_add_event_column(f->m, "cycles_sample", "count", "cycles",
						PC_ROLE_SAMPLES);
	int other = pc_model_add_column(f->m, "faults", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0);
	struct pc_label one[3] = { pct_str_label(f, "comm", "srv"), pct_num_label(f, "pid", 10),
				   pct_num_label(f, "tid", 11) };
	struct pc_label two[2] = { pct_num_label(f, "pid", 10), pct_num_label(f, "tid", 12) };

	pc_model_set_default_column(f->m, periods);
	pct_add(f, &a, 1, one, 3, periods, 3000);
	pct_add(f, &a, 1, one, 3, samples, 3);
	pct_add(f, &a, 1, two, 2, periods, 1000);
	pct_add(f, &a, 1, two, 2, samples, 1);
	pct_add(f, &a, 1, two, 2, other, 9);
	assert_int_equal(write_profile(f), 0);
	/* the samples, not the periods; a node per thread under the root */
	assert_string_equal(array_of(f, "samples"), "3,3,3,5");
	assert_non_null(strstr(f->text, "{\"id\":2,\"callFrame\":{\"functionName\":\"srv 10/11\","
				       "\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,"
				       "\"columnNumber\":-1},\"hitCount\":0,\"children\":[3]}"));
	assert_non_null(strstr(f->text, "{\"id\":4,\"callFrame\":{\"functionName\":\"10/12\","));
	assert_true(pct_has_warning(f, "only column 'cycles_sample' is written; others such as 'faults'"));
}

static void test_period_is_the_tick(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0);

	pc_model_set_period(f->m, pc_model_intern_cstr(f->m, "cpu-clock"),
			    pc_model_intern_cstr(f->m, "nanoseconds"), 250500);
	pc_model_set_time(f->m, INT64_C(1700000000123456789), 0);
	pct_add(f, &a, 1, NULL, 0, column, 4);
	assert_int_equal(write_profile(f), 0);
	/* 4 x 250.5 us = 1002 us, spread without drift */
	assert_non_null(strstr(f->text, "\"startTime\":1700000000123456,\"endTime\":1700000000124458,"));
	assert_string_equal(array_of(f, "timeDeltas"), "0,250,251,250");
	assert_true(pct_has_warning(f, "0.2505 ms apart (the profile's period)"));
	/* the model keeps no sample times: a notice, which --strict does not refuse */
	f->ctx.opt.strict = true;
	assert_int_equal(write_profile(f), 0);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_true(f->ctx.warnings[0].notice);
}

static void test_max_samples_thins(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0), b = pct_frame(f, 0, 0x2, "b", NULL, 0);

	pct_add(f, &a, 1, NULL, 0, column, 15);
	pct_add(f, &b, 1, NULL, 0, column, 10);
	assert_int_equal(pc_ctx_set(&f->ctx, "max-samples", "10"), 0);
	assert_int_equal(write_profile(f), 0);
	/* 25 samples as 10, 6 and 4, still 25 ms long */
	assert_string_equal(array_of(f, "samples"), "2,2,2,2,2,2,3,3,3,3");
	assert_string_equal(array_of(f, "timeDeltas"), "0,2500,2500,2500,2500,2500,2500,2500,2500,2500");
	assert_non_null(strstr(f->text, "\"startTime\":0,\"endTime\":25000,"));
	assert_true(pct_has_warning(f, "25 samples are more than --max-samples: 10 written"));
	/* thinning is a loss: --strict refuses it, said once, as the error */
	pc_ctx_clear_warnings(&f->ctx);
	f->ctx.opt.strict = true;
	assert_int_equal(write_profile(f), -1);
	assert_null(f->text);
	assert_non_null(strstr(f->ctx.err.message, "25 samples are more than --max-samples"));
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_time_column(void **state)
{
	struct fixture *f = *state;
	int count = pc_model_add_column(f->m, "samples", "count");
	int cpu = pc_model_add_column(f->m, "cpu", "nanoseconds");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0), b = pct_frame(f, 0, 0x2, "b", NULL, 0);

	pct_add(f, &a, 1, NULL, 0, count, 1);
	pct_add(f, &a, 1, NULL, 0, cpu, 2600000);
	pct_add(f, &b, 1, NULL, 0, cpu, 400000);
	f->ctx.opt.event = "cpu";
	assert_int_equal(write_profile(f), 0);
	/* 3 ms in 1 ms ticks, shared 2.6 : 0.4 by largest remainders */
	assert_string_equal(array_of(f, "samples"), "2,2,2");
	assert_non_null(strstr(f->text, "\"startTime\":0,\"endTime\":3000,"));
	assert_true(pct_has_warning(f, "only column 'cpu' is written; others such as 'samples'"));
}

static void test_no_stack_and_utf8(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t odd = pct_frame(f, 0, 0x1, "caf\xe9", NULL, 0);
	struct pc_branch branch = { odd, odd };
	struct pc_sample branch_only = { .branches = pc_model_add_branches(f->m, &branch, 1) };

	pct_add(f, &odd, 1, NULL, 0, column, 1);
	assert_int_equal(pc_model_add_sample(f->m, &branch_only, (size_t)column, 2), 0);
	assert_int_equal(write_profile(f), 0);
	assert_non_null(strstr(f->text, "\"functionName\":\"(no stack)\",\"scriptId\":\"0\""));
	assert_non_null(strstr(f->text, "\"functionName\":\"caf\xef\xbf\xbd\""));
	assert_string_equal(array_of(f, "samples"), "2,2,3");
	assert_true(pct_has_warning(f, "2 samples without a call stack are written under the node"));
	assert_true(pct_has_warning(f, "invalid UTF-8 in names"));
	/* the "(no stack)" node is a notice; a name changed is a loss, an error with --strict */
	pc_ctx_clear_warnings(&f->ctx);
	f->ctx.opt.strict = true;
	assert_int_equal(write_profile(f), -1);
	assert_string_equal(f->ctx.err.message,
			    "invalid UTF-8 in names is written as U+FFFD (an error with --strict)");
	assert_true(pct_has_warning(f, "2 samples without a call stack are written under the node"));
	assert_false(pct_has_warning(f, "invalid UTF-8 in names"));
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0), b = pct_frame(f, 0, 0x2, "b", NULL, 0);

	pct_add(f, &a, 1, NULL, 0, column, PC_COUNT_MAX);
	assert_int_equal(write_profile(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "span more than 2^53 microseconds"));
	pct_add(f, &b, 1, NULL, 0, column, 1);
	pc_ctx_init(&f->ctx);
	assert_int_equal(write_profile(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "add up to more than 2^63-1"));
	pc_ctx_init(&f->ctx);
	f->ctx.opt.event = "nope";
	assert_int_equal(write_profile(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "no event 'nope'"));
}

static void test_empty_model(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(write_profile(f), 0);
	assert_string_equal(f->text,
			    "{\"nodes\":[\n"
			    "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\","
			    "\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":0}],\n"
			    "\"startTime\":0,\"endTime\":0,\n\"samples\":[],\n\"timeDeltas\":[]}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_bytes, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_threads_and_samples_column, pct_setup,
						pct_teardown),
		cmocka_unit_test_setup_teardown(test_period_is_the_tick, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_max_samples_thins, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_time_column, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_no_stack_and_utf8, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_errors, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_empty_model, pct_setup, pct_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
