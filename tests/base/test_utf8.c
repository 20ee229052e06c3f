/* test_utf8.c - strict UTF-8 character lengths. */
#include "base/utf8.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static size_t len_of(const char *s)
{
	return pc_utf8_char_len((const unsigned char *)s, strlen(s) ? strlen(s) : 1);
}

static void test_valid_characters(void **state)
{
	(void)state;
	assert_int_equal(len_of("a"), 1);
	assert_int_equal(len_of(""), 1); /* NUL */
	assert_int_equal(len_of("\xc3\xa9"), 2);       /* é */
	assert_int_equal(len_of("\xe6\xa8\xa1"), 3);   /* 模 */
	assert_int_equal(len_of("\xf0\x9f\x94\xa5"), 4);
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
}

static void test_invalid_sequences(void **state)
{
	(void)state;
	assert_int_equal(len_of("\x80"), 0);             /* continuation */
	assert_int_equal(len_of("\xc0\xaf"), 0);         /* overlong / */
	assert_int_equal(len_of("\xe0\x80\xaf"), 0);     /* overlong */
	assert_int_equal(len_of("\xed\xa0\x80"), 0);     /* surrogate D800 */
	assert_int_equal(len_of("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	assert_int_equal(len_of("\xff"), 0);
	assert_int_equal(len_of("\xc3(x"), 0);           /* bad continuation */
	assert_int_equal(pc_utf8_char_len((const unsigned char *)"\xe6\xa8", 2), 0); /* cut */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_characters),
		cmocka_unit_test(test_invalid_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
