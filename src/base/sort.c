/* sort.c - stable sorts of indices: merge sort by a comparison, radix sort by keys. */
#include "base/sort.h"

void pc_sort_indices(const void *ctx, uint32_t *order, size_t n, pc_index_compare_fn compare)
{
	uint32_t *scratch = pc_xmalloc((n ? n : 1) * sizeof(*scratch));
	uint32_t *from = order, *to = scratch;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				to[k++] = compare(ctx, from[j], from[i]) < 0 ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		uint32_t *swap = from;
		from = to;
		to = swap;
	}
	if (from != order)
		memcpy(order, from, n * sizeof(*order));
	free(scratch);
}

/* Radix digits of a byte (measured faster than 11 bits here: the scatter stays in cache). */
#define DIGIT_BITS 8
#define DIGITS ((size_t)1 << DIGIT_BITS)
#define DIGIT_MASK (DIGITS - 1)

void pc_sort_by_keys(uint32_t *order, uint64_t *keys, size_t n)
{
	uint32_t *order_spare, *order_from = order, *order_to;
	uint64_t *keys_spare, *keys_from = keys, *keys_to, differ = 0;

	for (size_t i = 1; i < n; i++)
		differ |= keys[i] ^ keys[0];
	if (!differ)
		return;
	order_spare = order_to = pc_xmalloc(n * sizeof(*order));
	keys_spare = keys_to = pc_xmalloc(n * sizeof(*keys));
	for (unsigned shift = 0; shift < 64; shift += DIGIT_BITS) {
		size_t at[DIGITS] = { 0 }, sum = 0;

		if (!((differ >> shift) & DIGIT_MASK))
			continue;
		for (size_t i = 0; i < n; i++)
			at[(keys_from[i] >> shift) & DIGIT_MASK]++;
		for (size_t digit = 0; digit < DIGITS; digit++) {
			size_t here = at[digit];

			at[digit] = sum;
			sum += here;
		}
		for (size_t i = 0; i < n; i++) {
			size_t to = at[(keys_from[i] >> shift) & DIGIT_MASK]++;

			order_to[to] = order_from[i];
			keys_to[to] = keys_from[i];
		}
		uint32_t *order_swap = order_from;
		uint64_t *keys_swap = keys_from;

		order_from = order_to;
		order_to = order_swap;
		keys_from = keys_to;
		keys_to = keys_swap;
	}
	if (order_from != order) {
		memcpy(order, order_from, n * sizeof(*order));
		memcpy(keys, keys_from, n * sizeof(*keys));
	}
	free(order_spare);
	free(keys_spare);
}
