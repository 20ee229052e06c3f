/* test_error.c - message formats and counted warnings. */
#include "base/ctx.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static void test_offset_format(void **state)
{
	struct pc_error err = { 0 };
	char text[700];

	(void)state;
	assert_int_equal(pc_fail_at(&err, "spt", 0x1234, "unknown opcode 0x%02x", 0x77), -1);
	pc_error_set_path(&err, "a.spt");
	pc_error_set_path(&err, "ignored.spt");
	pc_error_format(&err, text, sizeof(text));
	assert_string_equal(text, "a.spt: offset 0x1234: spt: unknown opcode 0x77");
	assert_int_equal(err.status, PC_STATUS_INPUT);
}

static void test_line_format(void **state)
{
	struct pc_error err = { 0 };
	char text[700];

	(void)state;
	pc_fail_line(&err, "perf-script", 12, 5, "expected a hex address, found 'zz'");
	pc_error_set_path(&err, "perf.txt");
	pc_error_format(&err, text, sizeof(text));
	assert_string_equal(text, "perf.txt:12:5: perf-script: expected a hex address, found 'zz'");
}

static void test_plain_format(void **state)
{
	struct pc_error err = { 0 };
	char text[700];

	(void)state;
	pc_fail(&err, PC_STATUS_USAGE, "no input");
	pc_error_format(&err, text, sizeof(text));
	assert_string_equal(text, "no input");
	assert_int_equal(err.status, PC_STATUS_USAGE);
}

static void test_quote(void **state)
{
	char text[64];

	(void)state;
	pc_quote(text, sizeof(text), "ab\n\xff", 4, 10);
	assert_string_equal(text, "ab\\x0a\\xff");
	pc_quote(text, sizeof(text), "abcdef", 6, 3);
	assert_string_equal(text, "abc...");
}

static void test_warnings_counted_by_kind(void **state)
{
	struct pc_ctx ctx;

	(void)state;
	pc_ctx_init(&ctx);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pc_warn(&ctx, "spt", "dangling REPEAT at offset 0x%x", i), 0);
	pc_warn(&ctx, NULL, "other");
	assert_int_equal(ctx.nwarnings, 2);
	assert_int_equal(ctx.warnings[0].count, 3);
	assert_string_equal(ctx.warnings[0].text, "spt: dangling REPEAT at offset 0x0");
	ctx.opt.strict = true;
	assert_int_equal(pc_warn(&ctx, "spt", "lost %d", 1), -1);
	assert_int_equal(ctx.err.status, PC_STATUS_INPUT);
	assert_string_equal(ctx.err.message, "lost 1 (an error with --strict)");
}

/* After pc_ctx_clear_warnings a new kind of warning starts from nothing. */
static void test_warnings_after_clear(void **state)
{
	struct pc_ctx ctx;

	(void)state;
	pc_ctx_init(&ctx);
	pc_warn(&ctx, "perf-data", "first kind");
	pc_warn(&ctx, "perf-data", "first kind");
	pc_ctx_clear_warnings(&ctx);
	pc_warn(&ctx, "symbols", "second kind %d", 7);
	assert_int_equal(ctx.nwarnings, 1);
	assert_int_equal(ctx.warnings[0].count, 1);
	assert_string_equal(ctx.warnings[0].text, "symbols: second kind 7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offset_format),
		cmocka_unit_test(test_line_format),
		cmocka_unit_test(test_plain_format),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_warnings_counted_by_kind),
		cmocka_unit_test(test_warnings_after_clear),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
