/* test_strtab.c - interned strings: ids in first-interned order, batched interning. */
#include "base/strtab.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static void test_ids_in_order(void **state)
{
	struct pc_strtab t;

	(void)state;
	pc_strtab_init(&t);
	assert_int_equal(pc_strtab_intern(&t, "", 0), 0);
	assert_int_equal(pc_strtab_intern(&t, "main", 4), 1);
	assert_int_equal(pc_strtab_intern(&t, "a\0b", 3), 2); /* a NUL within */
	assert_int_equal(pc_strtab_intern(&t, "a", 1), 3);
	assert_int_equal(pc_strtab_intern(&t, "main", 4), 1);
	assert_int_equal(pc_strtab_find(&t, "a\0b", 3), 2);
	assert_int_equal(pc_strtab_find(&t, "b", 1), 0);
	assert_int_equal(pc_strtab_len(&t, 2), 3);
	assert_memory_equal(pc_strtab_text(&t, 2), "a\0b", 4); /* NUL-terminated */
	assert_string_equal(pc_strtab_text(&t, 0), "");
	assert_int_equal(t.count, 4);
	pc_strtab_release(&t);
}

/*
 * Interning all of another table: its strings that are new come after the
 * table's own, in the other table's order, across many batches and index
 * growth (with and without room reserved first).
 */
static void test_intern_all_keeps_order(void **state)
{
	struct pc_strtab t, from;
	uint32_t *map;
	char text[32];

	(void)state;
	for (int reserve = 0; reserve < 2; reserve++) {
		pc_strtab_init(&t);
		pc_strtab_init(&from);
		for (int i = 0; i < 1000; i += 2) /* t has the even ones */
			pc_strtab_intern(&t, text, (size_t)snprintf(text, sizeof(text), "s%d", i));
		for (int i = 999; i >= 0; i--) /* from has all, backwards */
			pc_strtab_intern(&from, text, (size_t)snprintf(text, sizeof(text), "s%d", i));
		if (reserve)
			pc_strtab_reserve(&t, t.count + from.count);
		map = pc_xmalloc(from.count * sizeof(*map));
		pc_strtab_intern_all(&t, &from, map);
		assert_int_equal(t.count, 1001);
		assert_int_equal(map[0], 0);
		for (uint32_t id = 1; id < from.count; id++) {
			int i = 1000 - (int)id; /* from's id of s<i> */

			assert_string_equal(pc_strtab_text(&t, map[id]), pc_strtab_text(&from, id));
			if (i % 2 == 0)
				assert_int_equal(map[id], (uint32_t)(i / 2 + 1));
			else /* s999 first, then s997, ...: in from's order after t's 500 */
				assert_int_equal(map[id], (uint32_t)(501 + (999 - i) / 2));
		}
		free(map);
		pc_strtab_release(&from);
		pc_strtab_release(&t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_in_order),
		cmocka_unit_test(test_intern_all_keeps_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
