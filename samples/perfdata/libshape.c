/*
 * libshape.c - the shared library of samples/perfdata/pie_main.c, recorded
 * by tests/e2e/perf_data.sh: hot loops that perf finds in libshape.so
 * (position-independent code loaded by ld.so at a random address).
 *
 *   gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -o libshape.so libshape.c
 *
 * shape_area_sum -> shape_area (polygon areas, floating point) and
 * shape_perimeter_sum -> shape_edge (integer square roots) are exported;
 * shape_area and shape_edge are static (in .symtab only, not .dynsym).
 */
#include <stdint.h>

#define NOINLINE __attribute__((noinline))
#define EXPORT __attribute__((visibility("default")))

NOINLINE static double shape_area(const double *xs, const double *ys, int n)
{
	double area = 0;

	for (int i = 0; i < n; i++) {
		int j = (i + 1) % n;

		area += xs[i] * ys[j] - xs[j] * ys[i];
	}
	return area / 2;
}

EXPORT NOINLINE double shape_area_sum(int polygons, uint64_t seed)
{
	double xs[64], ys[64], sum = 0;

	for (int p = 0; p < polygons; p++) {
		for (int i = 0; i < 64; i++) {
			seed = seed * 6364136223846793005u + 1442695040888963407u;
			xs[i] = (double)(seed >> 40);
			ys[i] = (double)((seed >> 16) & 0xffffff);
		}
		sum += shape_area(xs, ys, 64);
	}
	return sum;
}

NOINLINE static uint64_t shape_edge(uint64_t dx, uint64_t dy)
{
	uint64_t square = dx * dx + dy * dy, root = 0, bit = (uint64_t)1 << 62;

	while (bit > square)
		bit >>= 2;
	while (bit) {
		if (square >= root + bit) {
			square -= root + bit;
			root = (root >> 1) + bit;
		} else {
			root >>= 1;
		}
		bit >>= 2;
	}
	return root;
}

EXPORT NOINLINE uint64_t shape_perimeter_sum(int edges, uint64_t seed)
{
	uint64_t sum = 0;

	for (int i = 0; i < edges; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		sum += shape_edge(seed & 0xfffff, (seed >> 20) & 0xfffff);
	}
	return sum;
}
