/*
 * test_json_text.c - JSON strings: plain text as it is, '"' and '\\'
 * escaped, control characters as \b \f \n \r \t or \u00XX (NUL too),
 * valid UTF-8 of every length kept, and each byte that does not start
 * valid UTF-8 (stray continuation, overlong, surrogate, past U+10FFFF,
 * cut off at the end) replaced by U+FFFD, with the replacement reported.
 */
#include "writers/json_text.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

/* s[0, len) as pc_json_put_string writes it, in a static buffer; *replaced says. */
static const char *json_of(const char *s, size_t len, bool *replaced)
{
	static char text[256];
	char *buf = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&buf, &size);

	assert_non_null(fp);
	*replaced = pc_json_put_string(fp, s, len);
	assert_int_equal(fclose(fp), 0);
	assert_true(size < sizeof(text));
	memcpy(text, buf, size + 1);
	free(buf);
	return text;
}

static void expect(const char *s, size_t len, const char *json, bool replaced)
{
	bool was_replaced;

	assert_string_equal(json_of(s, len, &was_replaced), json);
	assert_int_equal(was_replaced, replaced);
}

static void test_plain_and_escapes(void **state)
{
	(void)state;
	expect("", 0, "\"\"", false);
	expect("main", 4, "\"main\"", false);
	expect("a\"b\\c/d", 7, "\"a\\\"b\\\\c/d\"", false);
	expect("\b\f\n\r\t", 5, "\"\\b\\f\\n\\r\\t\"", false);
	expect("x\0y", 3, "\"x\\u0000y\"", false);
	expect("\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"", false);
}

static void test_valid_utf8_kept(void **state)
{
	(void)state;
	expect("Gr\xc3\xb6\xc3\x9f" "e", 7, "\"Gr\xc3\xb6\xc3\x9f" "e\"", false);
	expect("\xe6\x8f\x8f\xe7\x94\xbb", 6, "\"\xe6\x8f\x8f\xe7\x94\xbb\"", false);
	expect("\xf0\x9f\x94\xa5!", 5, "\"\xf0\x9f\x94\xa5!\"", false);
	expect("\xe2\x80\xa8", 3, "\"\xe2\x80\xa8\"", false); /* U+2028 is valid JSON */
}

static void test_invalid_utf8_replaced(void **state)
{
	(void)state;
	/* a stray continuation byte, a lone lead byte, Latin-1 */
	expect("a\x80" "b", 3, "\"a\xef\xbf\xbd" "b\"", true);
	expect("\xc3(", 2, "\"\xef\xbf\xbd(\"", true);
	expect("caf\xe9", 4, "\"caf\xef\xbf\xbd\"", true);
	/* overlong '/', a surrogate, past U+10FFFF: one U+FFFD per byte */
	expect("\xc0\xaf", 2, "\"\xef\xbf\xbd\xef\xbf\xbd\"", true);
	expect("\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", true);
	expect("\xf4\x90\x80\x80", 4,
	       "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"", true);
	/* a sequence cut off by the end of the string, then a quote after a bad byte */
	expect("x\xe6\x8f", 3, "\"x\xef\xbf\xbd\xef\xbf\xbd\"", true);
	expect("\xff\"", 2, "\"\xef\xbf\xbd\\\"\"", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_escapes),
		cmocka_unit_test(test_valid_utf8_kept),
		cmocka_unit_test(test_invalid_utf8_replaced),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
