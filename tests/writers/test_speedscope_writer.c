/*
 * test_speedscope_writer.c - the speedscope JSON writer: the exact bytes
 * of a small file (shared frames with file and line, made-up names of
 * frames without a function, frames of one function line shared, stacks
 * root first, weights), one profile per column or per thread (named
 * "COMM PID/TID", sorted, the busiest active), --event, units, the
 * "(no stack)" frame, escaping, and the errors and warnings.
 *
 * Models are built with the model's builder calls, as a reader would.
 */
#include "support/fixture_model.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_speedscope_writer;

static int write_json(struct fixture *f)
{
	free(f->text);
	return pct_write_model(&f->ctx, f->m, &pc_speedscope_writer, &f->text, &f->size);
}

static void test_exact_bytes(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_event_column(f->m, "samples", "count", "samples",
					       PC_ROLE_SAMPLES);
	uint32_t app = pct_module(f, "/opt/app/bin/app");
	uint32_t main_fn = pct_frame(f, app, 0x10, "main", "/src/main.c", 12);
	uint32_t leaf = pct_frame(f, app, 0x20, "leaf", "/src/leaf.c", 3);
	uint32_t leaf_again = pct_frame(f, app, 0x24, "leaf", "/src/leaf.c", 3); /* same line */
	uint32_t unknown = pct_frame(f, app, 0x4a0, NULL, NULL, 0);
	static const char expected[] =
		"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
		"\"exporter\":\"profconv " PC_VERSION "\",\n"
		"\"name\":\"profconv: test\",\n"
		"\"activeProfileIndex\":0,\n"
		"\"shared\":{\"frames\":[\n"
		"{\"name\":\"main\",\"file\":\"/src/main.c\",\"line\":12},\n"
		"{\"name\":\"leaf\",\"file\":\"/src/leaf.c\",\"line\":3},\n"
		"{\"name\":\"app+0x4a0\"}]},\n"
		"\"profiles\":[\n"
		"{\"type\":\"sampled\",\"name\":\"samples\",\"unit\":\"none\",\"startValue\":0,"
		"\"endValue\":10,\n"
		"\"samples\":[[0,1],[0,1],[0,2]],\n"
		"\"weights\":[3,2,5]}]}\n";

	pc_model_add_source(f->m, "test");
	pct_add(f, (uint32_t[]){ leaf, main_fn }, 2, NULL, 0, column, 3);
	pct_add(f, (uint32_t[]){ leaf_again, main_fn }, 2, NULL, 0, column, 2);
	pct_add(f, (uint32_t[]){ unknown, main_fn }, 2, NULL, 0, column, 5);
	assert_int_equal(write_json(f), 0);
	assert_string_equal(f->text, expected);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_profile_per_thread(void **state)
{
	struct fixture *f = *state;
	int periods = pc_model_add_event_column(f->m, "cycles_event", "count", "cycles",
						PC_ROLE_WEIGHT);
	int samples = pc_model_add_event_column(f->m, "cycles_sample", "count", "cycles",
						PC_ROLE_SAMPLES);
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0);
	struct pc_label late[3] = { pct_str_label(f, "comm", "my app"), pct_num_label(f, "pid", 20),
				    pct_num_label(f, "tid", 21) };
	struct pc_label early[4] = { pct_str_label(f, "comm", "srv"), pct_num_label(f, "pid", 10),
				     pct_num_label(f, "tid", 11), pct_num_label(f, "cpu", 3) };
	struct pc_label no_tid[2] = { pct_str_label(f, "comm", "srv"), pct_num_label(f, "pid", 10) };

	pc_model_set_default_column(f->m, periods);
	pct_add(f, &a, 1, late, 3, periods, 700);
	pct_add(f, &a, 1, late, 3, samples, 7);
	pct_add(f, &a, 1, early, 4, periods, 100);
	pct_add(f, &a, 1, early, 4, samples, 1);
	pct_add(f, &a, 1, no_tid, 2, periods, 50);
	pct_add(f, &a, 1, NULL, 0, periods, 5);
	assert_int_equal(write_json(f), 0);
	/* sorted by pid then tid, a missing one first; the busiest is active */
	assert_non_null(strstr(f->text,
			       "\"name\":\"(no thread)\",\"unit\":\"none\",\"startValue\":0,\"endValue\":5,"));
	assert_non_null(strstr(f->text, "},\n{\"type\":\"sampled\",\"name\":\"srv 10/?\","));
	assert_non_null(strstr(f->text, "\"name\":\"srv 10/11\",\"unit\":\"none\",\"startValue\":0,"
				       "\"endValue\":100,"));
	assert_non_null(strstr(f->text, "\"name\":\"my app 20/21\",\"unit\":\"none\","
				       "\"startValue\":0,\"endValue\":700,"));
	assert_true(strstr(f->text, "(no thread)") < strstr(f->text, "srv 10/?"));
	assert_true(strstr(f->text, "srv 10/11") < strstr(f->text, "my app 20/21"));
	assert_non_null(strstr(f->text, "\"activeProfileIndex\":3,"));
	/* the samples twin of the written weight is not lost; the cpu label is */
	assert_false(pct_has_warning(f, "only column"));
	assert_true(pct_has_warning(f, "labels other than comm, pid and tid are lost"));
}

static void test_profile_per_column_and_units(void **state)
{
	struct fixture *f = *state;
	int count = pc_model_add_column(f->m, "samples", "count");
	int nanos = pc_model_add_column(f->m, "cpu", "nanoseconds");
	int empty = pc_model_add_column(f->m, "empty", "count");
	int odd = pc_model_add_column(f->m, "retired", "instructions");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0);

	(void)empty;
	pc_model_set_default_column(f->m, nanos);
	pct_add(f, &a, 1, NULL, 0, count, 2);
	pct_add(f, &a, 1, NULL, 0, nanos, 2000000);
	pct_add(f, &a, 1, NULL, 0, odd, 9);
	assert_int_equal(write_json(f), 0);
	assert_non_null(strstr(f->text, "\"name\":\"samples\",\"unit\":\"none\",\"startValue\":0,"
				       "\"endValue\":2,"));
	assert_non_null(strstr(f->text, "\"name\":\"cpu\",\"unit\":\"nanoseconds\",\"startValue\":0,"
				       "\"endValue\":2000000,"));
	assert_non_null(strstr(f->text, "\"name\":\"retired\",\"unit\":\"none\""));
	assert_null(strstr(f->text, "\"name\":\"empty\""));
	assert_non_null(strstr(f->text, "\"activeProfileIndex\":1,"));
	assert_true(pct_has_warning(f, "unit 'instructions' has no speedscope equivalent"));
	assert_false(pct_has_warning(f, "only column"));
	/* a unit speedscope lacks is its nature: a notice, which --strict does not refuse */
	f->ctx.opt.strict = true;
	assert_int_equal(write_json(f), 0);

	/* --event: that column only */
	pc_ctx_init(&f->ctx);
	f->ctx.opt.event = "samples";
	assert_int_equal(write_json(f), 0);
	assert_null(strstr(f->text, "\"name\":\"cpu\""));
	assert_non_null(strstr(f->text, "\"activeProfileIndex\":0,"));
	assert_true(pct_has_warning(f, "only column 'samples' is written; others such as 'cpu'"));

	pc_ctx_init(&f->ctx);
	f->ctx.opt.event = "nope";
	assert_int_equal(write_json(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "no event 'nope'"));
}

static void test_no_stack_and_escaping(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t odd = pct_frame(f, 0, 0x1, "say(\"hi\")\t\\ caf\xe9", "C:\\src\\a.c", 1);
	struct pc_branch branch = { odd, odd };
	struct pc_sample branch_only = { .branches = pc_model_add_branches(f->m, &branch, 1) };

	pct_add(f, &odd, 1, NULL, 0, column, 1);
	assert_int_equal(pc_model_add_sample(f->m, &branch_only, (size_t)column, 4), 0);
	assert_int_equal(write_json(f), 0);
	assert_non_null(strstr(f->text, "{\"name\":\"say(\\\"hi\\\")\\t\\\\ caf\xef\xbf\xbd\","
				       "\"file\":\"C:\\\\src\\\\a.c\",\"line\":1},\n"
				       "{\"name\":\"(no stack)\"}]}"));
	assert_non_null(strstr(f->text, "\"samples\":[[1],[0]],\n\"weights\":[4,1]}"));
	assert_true(pct_has_warning(f, "samples without a call stack (a weight of 4) are written with the one frame"));
	assert_true(pct_has_warning(f, "invalid UTF-8 in names is written as U+FFFD"));
	/* the "(no stack)" frame is a notice; a name changed is a loss, an error with --strict */
	pc_ctx_clear_warnings(&f->ctx);
	f->ctx.opt.strict = true;
	assert_int_equal(write_json(f), -1);
	assert_string_equal(f->ctx.err.message,
			    "invalid UTF-8 in names is written as U+FFFD (an error with --strict)");
	assert_false(pct_has_warning(f, "invalid UTF-8 in names"));
}

static void test_total_past_int64_max(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "samples", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0), b = pct_frame(f, 0, 0x2, "b", NULL, 0);

	pct_add(f, &a, 1, NULL, 0, column, PC_COUNT_MAX);
	pct_add(f, &b, 1, NULL, 0, column, 1);
	assert_int_equal(write_json(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "add up to more than 2^63-1"));
}

static void test_past_2_53_warns(void **state)
{
	struct fixture *f = *state;
	int column = pc_model_add_column(f->m, "cycles", "count");
	uint32_t a = pct_frame(f, 0, 0x1, "a", NULL, 0);

	pct_add(f, &a, 1, NULL, 0, column, (UINT64_C(1) << 53) + 1);
	assert_int_equal(write_json(f), 0);
	assert_non_null(strstr(f->text, "\"weights\":[9007199254740993]"));
	assert_true(pct_has_warning(f, "passes 2^53"));
	/* written exactly: what JavaScript readers round is a notice */
	f->ctx.opt.strict = true;
	assert_int_equal(write_json(f), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_bytes, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_profile_per_thread, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_profile_per_column_and_units, pct_setup,
						pct_teardown),
		cmocka_unit_test_setup_teardown(test_no_stack_and_escaping, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_total_past_int64_max, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_past_2_53_warns, pct_setup, pct_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
