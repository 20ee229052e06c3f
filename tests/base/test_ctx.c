/*
 * test_ctx.c - the two kinds of counted message of a run: pc_warn (data
 * lost: an error with --strict, then said once, as the error alone) and
 * pc_notice (what the output format holds not, advice: recorded and
 * printed like a warning, never an error), and how both travel between
 * contexts and are printed.
 */
#include "base/ctx.h"

#include <setjmp.h>
#include <stdarg.h>
#include <cmocka.h>

/* What pc_ctx_print_warnings writes, in a buffer the caller frees. */
static char *printed(const struct pc_ctx *ctx)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);

	assert_non_null(fp);
	pc_ctx_print_warnings(ctx, fp);
	assert_int_equal(fclose(fp), 0);
	return text;
}

/* A notice is counted by kind and printed as "profconv: warning: FORMAT: TEXT". */
static void test_notice_is_recorded_like_a_warning(void **state)
{
	struct pc_ctx ctx;
	char *text;

	(void)state;
	pc_ctx_init(&ctx);
	for (int i = 0; i < 2; i++)
		pc_notice(&ctx, "folded", "only column '%s' is written", i ? "b" : "a");
	assert_int_equal(pc_warn(&ctx, "folded", "%d samples are not written", 3), 0);
	assert_int_equal(ctx.nwarnings, 2);
	assert_string_equal(ctx.warnings[0].text, "folded: only column 'a' is written");
	assert_int_equal(ctx.warnings[0].count, 2);
	assert_true(ctx.warnings[0].notice);
	assert_string_equal(ctx.warnings[1].text, "folded: 3 samples are not written");
	assert_false(ctx.warnings[1].notice);
	text = printed(&ctx);
	assert_string_equal(text, "profconv: warning: folded: only column 'a' is written (2 times)\n"
				  "profconv: warning: folded: 3 samples are not written\n");
	free(text);
}

/* --strict: a notice stays a notice; nothing fails. */
static void test_notice_is_never_an_error(void **state)
{
	struct pc_ctx ctx;

	(void)state;
	pc_ctx_init(&ctx);
	ctx.opt.strict = true;
	pc_notice(&ctx, NULL, "the input has no branch stacks");
	assert_int_equal(ctx.err.status, PC_STATUS_OK);
	assert_int_equal(ctx.nwarnings, 1);
	assert_string_equal(ctx.warnings[0].text, "the input has no branch stacks");
	assert_int_equal(ctx.warnings[0].count, 1);
}

/* --strict: the warning becomes the error and is not recorded as well (said once). */
static void test_strict_warning_is_the_error_alone(void **state)
{
	struct pc_ctx ctx;
	char *text;

	(void)state;
	pc_ctx_init(&ctx);
	ctx.opt.strict = true;
	pc_notice(&ctx, "svg", "labels other than comm, pid and tid are lost");
	assert_int_equal(pc_warn(&ctx, "svg", "%d samples are not drawn", 2), -1);
	assert_int_equal(ctx.err.status, PC_STATUS_INPUT);
	assert_string_equal(ctx.err.message, "2 samples are not drawn (an error with --strict)");
	assert_string_equal(ctx.err.format, "svg");
	assert_int_equal(ctx.nwarnings, 1); /* the notice only */
	assert_true(ctx.warnings[0].notice);
	text = printed(&ctx);
	assert_null(strstr(text, "not drawn"));
	free(text);
}

/* Adding a context's messages keeps their kind; counts add up. */
static void test_added_warnings_keep_their_kind(void **state)
{
	static const char *const notice_fmt = "no --binary given: writing '%s'";
	struct pc_ctx from, to;

	(void)state;
	pc_ctx_init(&from);
	pc_ctx_init(&to);
	pc_notice(&from, "autofdo", notice_fmt, "app");
	pc_warn(&from, "autofdo", "frames were left out");
	pc_notice(&to, "autofdo", notice_fmt, "other");
	pc_ctx_add_warnings(&to, &from);
	assert_int_equal(to.nwarnings, 2);
	assert_string_equal(to.warnings[0].text, "autofdo: no --binary given: writing 'other'");
	assert_int_equal(to.warnings[0].count, 2);
	assert_true(to.warnings[0].notice);
	assert_string_equal(to.warnings[1].text, "autofdo: frames were left out");
	assert_false(to.warnings[1].notice);
}

/* Kinds past PC_MAX_WARNINGS are counted as dropped, notices too. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
static void test_notices_past_the_limit_are_counted(void **state)
{
	static const char kinds[PC_MAX_WARNINGS + 2][4]; /* kinds are format strings' addresses */
	struct pc_ctx ctx;

	(void)state;
	pc_ctx_init(&ctx);
	for (size_t i = 0; i < PC_MAX_WARNINGS + 2; i++)
		pc_notice(&ctx, NULL, kinds[i]);
	assert_int_equal(ctx.nwarnings, PC_MAX_WARNINGS);
	assert_int_equal(ctx.dropped_warnings, 2);
}
#pragma GCC diagnostic pop

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_notice_is_recorded_like_a_warning),
		cmocka_unit_test(test_notice_is_never_an_error),
		cmocka_unit_test(test_strict_warning_is_the_error_alone),
		cmocka_unit_test(test_added_warnings_keep_their_kind),
		cmocka_unit_test(test_notices_past_the_limit_are_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
