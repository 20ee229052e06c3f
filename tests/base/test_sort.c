/* test_sort.c - pc_sort_streams against a plain stable sort; radix sorts on two threads. */
#include "base/sort.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

struct event {
	uint64_t time;
	uint32_t thread;
	uint8_t stream;
	uint32_t place; /* where it was before sorting: not compared */
};

static int compare_events(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return (x->stream > y->stream) - (x->stream < y->stream);
}

/* The reference: compare, then the place before sorting (what stable means). */
static int compare_stably(const void *a, const void *b)
{
	const struct event *x = a, *y = b;
	int diff = compare_events(a, b);

	return diff ? diff : (x->place > y->place) - (x->place < y->place);
}

static uint64_t next_random(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state >> 33;
}

/*
 * n events on nstreams streams, each stream's times rising except for a
 * jump back one time in disorder (0: never, 1: always, random order); few
 * threads and repeated times make equal events.
 */
static void check_streams(size_t n, unsigned nstreams, unsigned disorder, uint64_t seed)
{
	struct event *events = calloc(n + 1, sizeof(*events));
	struct event *expected = calloc(n + 1, sizeof(*expected));
	uint64_t clock[256] = { 0 }, state = seed;

	for (size_t i = 0; i < n; i++) {
		uint8_t stream = (uint8_t)(nstreams < 256 ? next_random(&state) % nstreams :
						      next_random(&state));

		if (disorder && next_random(&state) % disorder == 0)
			clock[stream] = clock[stream] > 5 ? clock[stream] - 5 : 0;
		else
			clock[stream] += next_random(&state) % 3;
		events[i] = (struct event){ .time = clock[stream], .stream = stream,
					    .thread = (uint32_t)(next_random(&state) % 3),
					    .place = (uint32_t)i };
	}
	memcpy(expected, events, n * sizeof(*events));
	qsort(expected, n, sizeof(*expected), compare_stably);
	pc_sort_streams(events, n, sizeof(*events), offsetof(struct event, stream),
			compare_events);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(events[i].place, expected[i].place);
	free(events);
	free(expected);
}

static void test_sorted_streams_merge(void **state)
{
	(void)state;
	check_streams(0, 1, 0, 1);
	check_streams(1, 1, 0, 1);
	check_streams(1000, 1, 0, 2);
	check_streams(5000, 2, 0, 3);
	check_streams(5000, 64, 0, 4);
}

static void test_streams_out_of_order_are_sorted(void **state)
{
	(void)state;
	check_streams(5000, 2, 50, 5);  /* a few jumps back, as real traces have */
	check_streams(5000, 16, 7, 6);
	check_streams(3000, 256, 2, 7); /* every stream byte, half the steps back */
	check_streams(2000, 3, 1, 8);   /* every step back: time 0, runs broken by threads */
}

/* Strictly falling times on one stream and on three: every item a run of its own. */
static void test_falling_times_are_runs_of_one(void **state)
{
	struct event events[300];

	(void)state;
	for (uint32_t i = 0; i < 300; i++)
		events[i] = (struct event){ .time = 1000 - i, .stream = (uint8_t)(i % 3),
					    .place = i };
	pc_sort_streams(events, 300, sizeof(*events), offsetof(struct event, stream),
			compare_events);
	for (uint32_t i = 0; i < 300; i++)
		assert_int_equal(events[i].place, 299 - i);
	for (uint32_t i = 0; i < 300; i++)
		events[i] = (struct event){ .time = 1000 - i, .place = i };
	pc_sort_streams(events, 300, sizeof(*events), offsetof(struct event, stream),
			compare_events);
	for (uint32_t i = 0; i < 300; i++)
		assert_int_equal(events[i].place, 299 - i);
}

/*
 * The radix sort on two threads (each pass counts and moves two halves at
 * once) orders as on one, stably: keys of few values that differ in
 * several bytes, past the size where threads start.
 */
static void test_radix_sort_on_two_threads(void **state)
{
	size_t n = 300000;
	uint32_t *order[2];
	uint64_t *keys[2], seed = 7;

	(void)state;
	for (int t = 0; t < 2; t++) {
		order[t] = malloc(n * sizeof(*order[t]));
		keys[t] = malloc(n * sizeof(*keys[t]));
	}
	for (size_t i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		order[0][i] = order[1][i] = (uint32_t)i;
		keys[0][i] = keys[1][i] = (seed >> 33) % 1000 * 0x0001000100010001ULL;
	}
	pc_sort_by_keys_on(order[0], keys[0], n, 1);
	pc_sort_by_keys_on(order[1], keys[1], n, 2);
	assert_memory_equal(order[0], order[1], n * sizeof(*order[0]));
	assert_memory_equal(keys[0], keys[1], n * sizeof(*keys[0]));
	for (size_t i = 1; i < n; i++) /* ascending, and equal keys in their first order */
		assert_true(keys[1][i - 1] < keys[1][i] ||
			    (keys[1][i - 1] == keys[1][i] && order[1][i - 1] < order[1][i]));
	for (int t = 0; t < 2; t++) {
		free(order[t]);
		free(keys[t]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_streams_merge),
		cmocka_unit_test(test_streams_out_of_order_are_sorted),
		cmocka_unit_test(test_falling_times_are_runs_of_one),
		cmocka_unit_test(test_radix_sort_on_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
