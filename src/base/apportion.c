/* apportion.c - largest-remainder shares of an integer total. */
#include "base/apportion.h"
#include "base/sort.h"

#include <math.h>

struct remainders {
	const double *fraction;
};

/* Larger fraction first; equal fractions keep index order (stable sort). */
static int by_fraction(const void *ctx, uint32_t a, uint32_t b)
{
	const struct remainders *r = ctx;

	return (r->fraction[a] < r->fraction[b]) - (r->fraction[a] > r->fraction[b]);
}

int pc_apportion(const double *weight, size_t n, uint64_t total, uint64_t *out)
{
	long double sum = 0, scale;
	uint64_t given = 0;
	double *fraction;
	uint32_t *order;

	for (size_t i = 0; i < n; i++)
		sum += weight[i];
	if (!(sum > 0)) {
		memset(out, 0, n * sizeof(*out));
		return total ? -1 : 0;
	}
	scale = (long double)total / sum;
	fraction = pc_xmalloc((n ? n : 1) * sizeof(*fraction));
	order = pc_xmalloc((n ? n : 1) * sizeof(*order));
	for (size_t i = 0; i < n; i++) {
		long double share = weight[i] * scale, whole = floorl(share);

		if (whole > (long double)(total - given))
			whole = (long double)(total - given);
		out[i] = (uint64_t)whole;
		given += out[i];
		/* Billionths: fractions equal but for rounding noise tie. */
		fraction[i] = nearbyint((double)(share - whole) * 1e9);
		order[i] = (uint32_t)i;
	}
	pc_sort_indices(&(struct remainders){ fraction }, order, n, by_fraction);
	/* Rounding down leaves fewer than n units, bar floating-point error. */
	for (size_t k = 0; given < total; k = (k + 1) % n, given++)
		out[order[k]]++;
	free(fraction);
	free(order);
	return 0;
}
