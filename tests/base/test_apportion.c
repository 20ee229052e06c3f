/* test_apportion.c - largest-remainder shares of an integer total. */
#include "base/apportion.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static void test_shares_add_up_to_the_total(void **state)
{
	const double weight[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	uint64_t out[3];

	(void)state;
	assert_int_equal(pc_apportion(weight, 3, 100, out), 0);
	assert_int_equal(out[0], 34); /* the tie goes to the lowest index */
	assert_int_equal(out[1], 33);
	assert_int_equal(out[2], 33);
}

static void test_largest_fraction_wins(void **state)
{
	const double weight[] = { 0.3, 2.45, 1.25 }; /* of 4: 0.3, 2.45, 1.25 */
	uint64_t out[3];

	(void)state;
	assert_int_equal(pc_apportion(weight, 3, 4, out), 0);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 3);
	assert_int_equal(out[2], 1);
}

static void test_weights_are_scaled(void **state)
{
	const double weight[] = { 2, 6, 0 };
	uint64_t out[3];

	(void)state;
	assert_int_equal(pc_apportion(weight, 3, 117, out), 0);
	assert_int_equal(out[0], 29); /* 29.25 */
	assert_int_equal(out[1], 88); /* 87.75 */
	assert_int_equal(out[2], 0);
}

static void test_all_zero_weights(void **state)
{
	const double weight[] = { 0, 0 };
	uint64_t out[2] = { 7, 7 };

	(void)state;
	assert_int_equal(pc_apportion(weight, 2, 5, out), -1);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 0);
	assert_int_equal(pc_apportion(weight, 2, 0, out), 0);
}

static void test_huge_total(void **state)
{
	const double weight[] = { 1, 1, 1 };
	uint64_t out[3];

	(void)state;
	assert_int_equal(pc_apportion(weight, 3, INT64_MAX, out), 0);
	assert_true(out[0] + out[1] + out[2] == (uint64_t)INT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares_add_up_to_the_total),
		cmocka_unit_test(test_largest_fraction_wins),
		cmocka_unit_test(test_weights_are_scaled),
		cmocka_unit_test(test_all_zero_weights),
		cmocka_unit_test(test_huge_total),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
