/*
 * test_vsperf_model.c - the row builder shared by the Visual Studio report
 * readers (vsperf_model.h), driven directly as the XML reader drives it:
 * the layout check, the API's order, texts copied at add time, row types
 * and values no CSV field can carry (odd types, NaN and negative weights,
 * huge products, pids beyond an address space), and the process label of
 * call trees. Also the number syntax both readers share (vsperf_parse_*),
 * called directly.
 */
#include "model/format.h"
#include "readers/vsperf_model.h"
#include "support/fixture.h"

#include <math.h>
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#define COUNT(c) (1u << (c))
#define REAL(r) (1u << (r))

static struct vsperf_text text(const char *s)
{
	return (struct vsperf_text){ .p = s, .len = strlen(s) };
}

static struct vsperf_row row_named(int type, const char *name, uint32_t line)
{
	return (struct vsperf_row){ .type = type, .name = text(name), .at_line = line,
				    .at_column = 1 };
}

static void assert_error(const struct fixture *f, uint32_t line, uint32_t column,
			 const char *message)
{
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f->ctx.err.format, "vsperf-xml");
	assert_int_equal(f->ctx.err.line, line);
	assert_int_equal(f->ctx.err.column, column);
	assert_string_equal(f->ctx.err.message, message);
}

static int begin(struct fixture *f, struct vsperf_builder *b, enum vsperf_report report,
		 unsigned counts, unsigned reals)
{
	struct vsperf_layout layout = { .report = report, .counts = counts, .reals = reals };

	vsperf_builder_init(b, &f->ctx, f->m, "vsperf-xml");
	return vsperf_builder_begin(b, &layout, 3, 7);
}

static const unsigned sampling = COUNT(VSPERF_INCLUSIVE_SAMPLES) |
				 COUNT(VSPERF_EXCLUSIVE_SAMPLES);

static void test_a_layout_without_values_is_refused(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;

	assert_int_equal(begin(f, &b, VSPERF_FUNCTIONS, COUNT(VSPERF_CALLS), 0), -1);
	assert_error(f, 3, 7, "missing columns \"Inclusive Samples\" and \"Exclusive Samples\" "
		     "(a Function report needs Inclusive Samples and Exclusive Samples, or "
		     "Elapsed Inclusive Time and Elapsed Exclusive Time)");
	vsperf_builder_release(&b);
	vsperf_builder_release(&b); /* twice is harmless */
}

static void test_rows_and_finish_need_a_begin(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row row = row_named(VSPERF_ROOT, "f", 4);

	vsperf_builder_init(&b, &f->ctx, f->m, "vsperf-xml");
	assert_int_equal(vsperf_builder_add(&b, &row), -1);
	assert_error(f, 4, 1, "a row before the report's header");
	pc_error_clear(&f->ctx.err);
	assert_int_equal(vsperf_builder_finish(&b, 9), -1);
	assert_error(f, 9, 1, "the input ends before the report's header");
	vsperf_builder_release(&b);
}

static void test_texts_are_copied(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	char name[16] = "first", module[16] = "a.dll";
	struct vsperf_row row = row_named(VSPERF_ROOT, name, 2);

	row.module_name = text(module);
	row.counts[VSPERF_EXCLUSIVE_SAMPLES] = 3;
	assert_int_equal(begin(f, &b, VSPERF_FUNCTIONS, sampling, 0), 0);
	assert_int_equal(vsperf_builder_add(&b, &row), 0);
	memcpy(name, "XXXXX", 5);
	memcpy(module, "XXXXX", 5);
	assert_int_equal(vsperf_builder_finish(&b, 3), 0);
	vsperf_builder_release(&b);
	assert_int_equal(pc_model_nframes(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_frame(f->m, (uint32_t)(0) + 1)->function), "first");
	assert_string_equal(pc_str(f->m, pc_model_module(f->m, 1)->name), "a.dll");
	assert_int_equal(pc_model_nsources(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "vsperf");
}

static void test_unknown_row_types(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row row = row_named(7, "f", 5);

	assert_int_equal(begin(f, &b, VSPERF_CALLER_CALLEE, sampling, 0), 0);
	assert_int_equal(vsperf_builder_add(&b, &row), -1);
	assert_error(f, 5, 1, "unknown row type 7 (expected Root, Caller or Callee)");
	vsperf_builder_release(&b);
}

static void test_pids_beyond_an_address_space(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row row = row_named(VSPERF_ROOT, "f", 2);

	row.module_path = text("C:\\a.exe");
	row.has_pid = true;
	row.pid = (int64_t)UINT32_MAX + 5;
	assert_int_equal(begin(f, &b, VSPERF_FUNCTIONS, sampling, 0), 0);
	assert_int_equal(vsperf_builder_add(&b, &row), 0);
	row.pid = -3;
	assert_int_equal(vsperf_builder_add(&b, &row), 0);
	assert_int_equal(vsperf_builder_finish(&b, 3), 0);
	vsperf_builder_release(&b);
	pc_model_finalize(f->m);
	assert_int_equal(pc_model_nmodules(f->m), 1);
	assert_int_equal(pc_model_module(f->m, 1)->space, 0);
	assert_int_equal(pc_model_nsamples(f->m), 2); /* still two processes by their pid labels */
}

static const unsigned ide_counts = COUNT(VSPERF_CALLS);
static const unsigned ide_reals = REAL(VSPERF_AVG_ELAPSED_INCLUSIVE) |
				  REAL(VSPERF_ELAPSED_EXCLUSIVE_PCT);

static struct vsperf_row ide_row(int level, const char *name, uint64_t calls, double avg,
				 double pct, uint32_t line)
{
	struct vsperf_row row = row_named(level, name, line);

	row.counts[VSPERF_CALLS] = calls;
	row.reals[VSPERF_AVG_ELAPSED_INCLUSIVE] = avg;
	row.reals[VSPERF_ELAPSED_EXCLUSIVE_PCT] = pct;
	return row;
}

static void test_weights_that_are_not_numbers_count_as_zero(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row rows[] = {
		ide_row(1, "a", 2, 5.0, NAN, 2),
		ide_row(2, "b", 1, 1.0, -4.0, 3),
		ide_row(2, "c", 1, 1.0, 1e300, 4),
		ide_row(2, "d", 1, 1.0, INFINITY, 5),
	};

	assert_int_equal(begin(f, &b, VSPERF_CALL_TREE, ide_counts, ide_reals), 0);
	for (size_t i = 0; i < PC_ARRAY_SIZE(rows); i++)
		assert_int_equal(vsperf_builder_add(&b, &rows[i]), 0);
	assert_int_equal(vsperf_builder_finish(&b, 6), 0);
	vsperf_builder_release(&b);
	pc_model_finalize(f->m);
	/* 2 x 5.0 = 10 ticks, shared equally by c and d (both capped weights) */
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(f->m, pc_model_sample(f->m, i)->stack, &n);
		const char *leaf = pc_str(f->m, pc_model_frame(f->m, frames[0])->function);
		uint64_t ticks = pc_model_values(f->m, i)[0];

		assert_int_equal(ticks, !strcmp(leaf, "c") || !strcmp(leaf, "d") ? 5 : 0);
	}
}

static void test_a_subtree_total_past_int64_is_refused(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row row = ide_row(1, "a", 4000000000u, 4e9, 1.0, 8);

	assert_int_equal(begin(f, &b, VSPERF_CALL_TREE, ide_counts, ide_reals), 0);
	assert_int_equal(vsperf_builder_add(&b, &row), -1);
	assert_error(f, 8, 1, "Number of Calls x Avg Elapsed Inclusive Time of \"a\" is not a "
		     "time from 0 to 9223372036854775807");
	vsperf_builder_release(&b);
}

static void test_process_name_beats_the_level_0_name(void **state)
{
	struct fixture *f = *state;
	struct vsperf_builder b;
	struct vsperf_row process = row_named(0, "node.exe", 2), child = row_named(1, "f", 3);
	size_t n;
	const uint32_t *labels;

	child.process_name = text("real.exe");
	child.has_pid = true;
	child.pid = 42;
	child.counts[VSPERF_EXCLUSIVE_SAMPLES] = 4;
	assert_int_equal(begin(f, &b, VSPERF_CALL_TREE, COUNT(VSPERF_EXCLUSIVE_SAMPLES), 0), 0);
	assert_int_equal(vsperf_builder_add(&b, &process), 0);
	assert_int_equal(vsperf_builder_add(&b, &child), 0);
	assert_int_equal(vsperf_builder_finish(&b, 4), 0);
	vsperf_builder_release(&b);
	pc_model_finalize(f->m);
	assert_int_equal(pc_model_nsamples(f->m), 1);
	labels = pc_model_labelset(f->m, pc_model_sample(f->m, 0)->labels, &n);
	assert_int_equal(n, 2);
	assert_string_equal(pc_str(f->m, pc_model_label(f->m, labels[0])->str), "real.exe");
	assert_int_equal(pc_model_label(f->m, labels[1])->num, 42);
}

static enum vsperf_number count_of(const char *s, uint64_t max, uint64_t *out)
{
	return vsperf_parse_count(s, strlen(s), max, out);
}

static enum vsperf_number real_of(const char *s, double *out)
{
	return vsperf_parse_real(s, strlen(s), out);
}

static void test_numbers_as_visual_studio_writes_them(void **state)
{
	static const char *const bad_counts[] = {
		"12x", "-3", "1.5", "1,44", "1,,444", ",444", "1,444,", "1,444.000",
		"1234,567", "1,0000,000", "1,00,00", "0x10", "\xc2\xa0\x31" /* NBSP 1 */,
	};
	uint64_t u = 0;
	double d = 0;
	int level = 0;

	(void)state;
	/* counts: one kind of separator, first group 1-3 digits, then 2 or 3, last 3 */
	assert_int_equal(count_of(" 2,893,824\t", PC_COUNT_MAX, &u), VSPERF_NUMBER_OK);
	assert_int_equal(u, 2893824);
	assert_int_equal(count_of("1,00,000", PC_COUNT_MAX, &u), VSPERF_NUMBER_OK);
	assert_int_equal(u, 100000);
	assert_int_equal(count_of("8\xe2\x80\xaf" "735", PC_COUNT_MAX, &u), VSPERF_NUMBER_OK);
	assert_int_equal(u, 8735);
	assert_int_equal(count_of(" \r\n", PC_COUNT_MAX, &u), VSPERF_NUMBER_EMPTY);
	for (size_t i = 0; i < PC_ARRAY_SIZE(bad_counts); i++)
		assert_int_equal(count_of(bad_counts[i], PC_COUNT_MAX, &u), VSPERF_NUMBER_BAD);
	assert_int_equal(count_of("4294967296", UINT32_MAX, &u), VSPERF_NUMBER_TOO_LARGE);
	/* a malformed value is bad even when its digits are too many */
	assert_int_equal(count_of("99999999999999999999x", PC_COUNT_MAX, &u), VSPERF_NUMBER_BAD);
	/* decimals: the point is the last of '.' and ',', or a lone one */
	assert_int_equal(real_of("18,160.51", &d), VSPERF_NUMBER_OK);
	assert_true(d == 18160.51);
	assert_int_equal(real_of("1.426,50", &d), VSPERF_NUMBER_OK);
	assert_true(d == 1426.5);
	assert_int_equal(real_of("100,00", &d), VSPERF_NUMBER_OK);
	assert_true(d == 100);
	assert_int_equal(real_of("1,000", &d), VSPERF_NUMBER_OK);
	assert_true(d == 1);
	assert_int_equal(real_of("1.234.567", &d), VSPERF_NUMBER_OK);
	assert_true(d == 1234567);
	assert_int_equal(real_of("", &d), VSPERF_NUMBER_EMPTY);
	assert_int_equal(real_of("5.", &d), VSPERF_NUMBER_BAD);
	assert_int_equal(real_of(".5", &d), VSPERF_NUMBER_BAD);
	assert_int_equal(real_of("1.0.0,5", &d), VSPERF_NUMBER_BAD);
	assert_int_equal(real_of("18446744073709551616.5", &d), VSPERF_NUMBER_TOO_LARGE);
	/* levels and addresses */
	assert_int_equal(vsperf_parse_level(" -2 ", 4, &level), VSPERF_NUMBER_OK);
	assert_int_equal(level, -2);
	assert_int_equal(vsperf_parse_level("-", 1, &level), VSPERF_NUMBER_BAD);
	assert_int_equal(vsperf_parse_level("2147483648", 10, &level),
			 VSPERF_NUMBER_TOO_LARGE);
	assert_int_equal(vsperf_parse_address("0x000000000000000000401690", 26, &u),
			 VSPERF_NUMBER_OK);
	assert_int_equal(u, 0x401690);
	assert_int_equal(vsperf_parse_address("FFFFFFFFFFFFFFFF", 16, &u), VSPERF_NUMBER_OK);
	assert_int_equal(u, UINT64_MAX);
	assert_int_equal(vsperf_parse_address("0x11112222333344445", 19, &u),
			 VSPERF_NUMBER_TOO_LARGE);
	assert_int_equal(vsperf_parse_address("0x", 2, &u), VSPERF_NUMBER_BAD);
	assert_int_equal(vsperf_parse_address("  ", 2, &u), VSPERF_NUMBER_EMPTY);
}

static enum vsperf_number time_of(const char *s, uint64_t max, uint64_t *out, bool *rounded)
{
	return vsperf_parse_time(s, strlen(s), max, out, rounded);
}

/* Times: counts exactly, else decimals rounded half up to whole ticks. */
static void test_times_round_their_fractions(void **state)
{
	uint64_t u = 0;
	bool rounded = true;

	(void)state;
	assert_int_equal(time_of("1,000", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 1000);
	assert_false(rounded);
	assert_int_equal(time_of("9223372036854775807", PC_COUNT_MAX, &u, &rounded),
			 VSPERF_NUMBER_OK);
	assert_int_equal(u, PC_COUNT_MAX);
	assert_int_equal(time_of("12.5", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 13);
	assert_true(rounded);
	assert_int_equal(time_of("12,49", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 12);
	assert_true(rounded);
	assert_int_equal(time_of("18,160.51", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 18161);
	assert_int_equal(time_of("1.426,50", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 1427);
	assert_int_equal(time_of("0.04", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 0);
	assert_int_equal(time_of("7.00", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_OK);
	assert_int_equal(u, 7);
	assert_false(rounded);
	assert_int_equal(time_of(" ", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_EMPTY);
	assert_int_equal(time_of("5.", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_BAD);
	assert_int_equal(time_of(".5", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_BAD);
	assert_int_equal(time_of("-1.5", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_BAD);
	assert_int_equal(time_of("1.5x", PC_COUNT_MAX, &u, &rounded), VSPERF_NUMBER_BAD);
	assert_int_equal(time_of("9223372036854775807.5", PC_COUNT_MAX, &u, &rounded),
			 VSPERF_NUMBER_TOO_LARGE);
	assert_int_equal(time_of("9223372036854775808.1", PC_COUNT_MAX, &u, &rounded),
			 VSPERF_NUMBER_TOO_LARGE);
}

#define T(name) cmocka_unit_test_setup_teardown(name, pct_setup, pct_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_layout_without_values_is_refused),
		T(test_rows_and_finish_need_a_begin),
		T(test_texts_are_copied),
		T(test_unknown_row_types),
		T(test_pids_beyond_an_address_space),
		T(test_weights_that_are_not_numbers_count_as_zero),
		T(test_a_subtree_total_past_int64_is_refused),
		T(test_process_name_beats_the_level_0_name),
		cmocka_unit_test(test_numbers_as_visual_studio_writes_them),
		cmocka_unit_test(test_times_round_their_fractions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
