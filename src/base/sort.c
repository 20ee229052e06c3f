/* sort.c - bottom-up merge sort of indices (stable, no recursion). */
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
