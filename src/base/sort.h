/* sort.h - stable sorts: index arrays with a caller's context, items from nearly sorted streams. */
#ifndef PC_SORT_H
#define PC_SORT_H

#include "base/pc.h"

typedef int (*pc_index_compare_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Sorts order[0..n) stably by compare (a bottom-up merge sort, O(n log n)). */
void pc_sort_indices(const void *ctx, uint32_t *order, size_t n, pc_index_compare_fn compare);

/*
 * Sorts order[0..n) stably by keys[0..n), where keys[i] is order[i]'s key
 * and moves with it: an LSD radix sort, one pass per byte in which the
 * keys differ, O(n) for keys of few bytes.
 */
void pc_sort_by_keys(uint32_t *order, uint64_t *keys, size_t n);
/*
 * pc_sort_by_keys on up to threads threads (each pass counts and moves
 * the two halves of the keys at once); the result is the same.
 */
void pc_sort_by_keys_on(uint32_t *order, uint64_t *keys, size_t n, unsigned threads);

/*
 * Sorts items[0..n) (of size bytes each) stably by compare, fast when they
 * are the interleaving of streams that each come nearly in order (an ETW
 * trace's events: one stream per processor's buffers). The byte at
 * stream_at of an item names its stream; items equal by compare must share
 * one. A natural merge sort: the items are gathered by stream, cut into
 * ascending runs and the runs merged, in O(n log runs). (Past 2^32 - 1
 * items, which nothing here holds, it is qsort, stable or not.)
 */
void pc_sort_streams(void *items, size_t n, size_t size, size_t stream_at,
		     int (*compare)(const void *, const void *));

#endif
