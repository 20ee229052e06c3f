/* sort.h - a stable sort of index arrays with a caller's context. */
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

#endif
