/*
 * pie_main.c - a position-independent executable calling its own shared
 * library (samples/perfdata/libshape.c), recorded by
 * tests/e2e/perf_data.sh: perf sees the executable and libshape.so each
 * loaded at a random address, and frames of both in one callchain.
 *
 *   gcc -O1 -g -fno-omit-frame-pointer -fPIC -shared -o libshape.so libshape.c
 *   gcc -O1 -g -fno-omit-frame-pointer -fPIE -pie -o pie_main pie_main.c \
 *       -L. -lshape -Wl,-rpath,'$ORIGIN'
 *
 * For about MS milliseconds of CPU time (default 300), main -> pie_round
 * calls the library's shape_area_sum and shape_perimeter_sum (through the
 * PLT) and its own static pie_mix, then prints a checksum on standard
 * error (standard output may be `perf record -o -`'s data).
 *
 *   pie_main [MS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

double shape_area_sum(int polygons, uint64_t seed);
uint64_t shape_perimeter_sum(int edges, uint64_t seed);

NOINLINE static uint64_t pie_mix(uint64_t x)
{
	for (int i = 0; i < 20000; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdu;
		x ^= x >> 33;
	}
	return x;
}

NOINLINE static uint64_t pie_round(uint64_t seed)
{
	seed ^= (uint64_t)shape_area_sum(600, seed);
	seed ^= shape_perimeter_sum(2500, seed | 1);
	seed = pie_mix(seed);
	return seed ^ (seed >> 29); /* not a tail call: pie_round stays a frame */
}

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	long budget = argc > 1 ? atol(argv[1]) : 300, start = cpu_ms();
	uint64_t seed = (uint64_t)argc;

	while (cpu_ms() - start < budget)
		seed = pie_round(seed);
	fprintf(stderr, "%llu\n", (unsigned long long)seed);
	return 0;
}
