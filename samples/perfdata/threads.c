/*
 * threads.c - a multi-threaded program recorded by tests/e2e/perf_data.sh
 * (perf.data read natively versus perf script text).
 *
 * Each thread renames itself with pthread_setname_np (at most 15 bytes) to
 * a name with spaces and non-ASCII UTF-8, then burns about MS milliseconds
 * of its own CPU time (default 250) in call paths of its own, all noinline
 * (build with -O1 -g -fno-omit-frame-pointer -pthread):
 *
 *   "worker one":   one_main -> one_outer -> one_inner (xorshift rounds)
 *   "wörker-β":     beta_main -> beta_hash -> beta_step (FNV over a block)
 *   "作業 three":   three_main -> three_walk (x6, recursive) -> three_leaf
 *   "fault ü":      fault_main -> fault_round -> fault_touch: malloc'd 4 MB
 *                   buffers (mmap'd by glibc, unmapped by free) touched
 *                   page by page, so the page-faults event gets samples
 *                   (mallopt fixes glibc's mmap threshold at 1 MB: every
 *                   buffer is a fresh mapping)
 *
 * Every thread reads its CPU clock with clock_gettime (libc, the vdso, the
 * kernel) between rounds. The main thread (comm "threads") starts them,
 * spins a little in main_spin and joins them, then prints a checksum so
 * nothing is optimised away (on standard error: `perf record -o -` writes
 * the perf data to the standard output the program inherits).
 *
 *   threads [MS]
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long budget_ms = 250;
static volatile uint64_t sink;

static long cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void rename_self(const char *name)
{
	pthread_setname_np(pthread_self(), name);
}

/* "worker one" */
NOINLINE static uint64_t one_inner(uint64_t x, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

NOINLINE static uint64_t one_outer(uint64_t x)
{
	for (int i = 0; i < 8; i++)
		x = one_inner(x + (uint64_t)i, 5000);
	return x;
}

static void *one_main(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1;
	long start;

	rename_self("worker one");
	start = cpu_ms();
	while (cpu_ms() - start < budget_ms)
		x = one_outer(x);
	sink ^= x;
	return NULL;
}

/* "wörker-β" */
NOINLINE static uint64_t beta_step(uint64_t hash, unsigned char byte)
{
	return (hash ^ byte) * 1099511628211u;
}

NOINLINE static uint64_t beta_hash(const unsigned char *block, size_t len, uint64_t hash)
{
	for (size_t i = 0; i < len; i++)
		hash = beta_step(hash, block[i]);
	return hash;
}

static void *beta_main(void *arg)
{
	static unsigned char block[32768];
	uint64_t hash = 1469598103934665603u;
	long start;

	(void)arg;
	rename_self("w\xc3\xb6rker-\xce\xb2"); /* wörker-β, 10 bytes */
	for (size_t i = 0; i < sizeof block; i++)
		block[i] = (unsigned char)(i * 7);
	start = cpu_ms();
	while (cpu_ms() - start < budget_ms) {
		hash = beta_hash(block, sizeof block, hash);
		block[hash % sizeof block] ^= 1;
	}
	sink ^= hash;
	return NULL;
}

/* "作業 three" */
NOINLINE static uint64_t three_leaf(uint64_t x)
{
	for (int i = 0; i < 4000; i++)
		x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

NOINLINE static uint64_t three_walk(unsigned depth, uint64_t x)
{
	if (depth == 0)
		return three_leaf(x);
	return three_walk(depth - 1, x + depth) ^ depth;
}

static void *three_main(void *arg)
{
	uint64_t x = (uintptr_t)arg;
	long start;

	rename_self("\xe4\xbd\x9c\xe6\xa5\xad three"); /* 作業 three, 12 bytes */
	start = cpu_ms();
	while (cpu_ms() - start < budget_ms)
		for (int i = 0; i < 16; i++)
			x = three_walk(6, x);
	sink ^= x;
	return NULL;
}

/* "fault ü" */
NOINLINE static uint64_t fault_touch(unsigned char *buffer, size_t len, size_t page)
{
	uint64_t sum = 0;

	for (size_t at = 0; at < len; at += page) {
		buffer[at] = (unsigned char)(at >> 12);
		sum += buffer[at];
	}
	return sum;
}

NOINLINE static uint64_t fault_round(size_t len, size_t page)
{
	unsigned char *buffer = malloc(len);
	uint64_t sum;

	if (!buffer)
		return 0;
	sum = fault_touch(buffer, len, page);
	free(buffer);
	return sum;
}

static void *fault_main(void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint64_t sum = 0;
	long start;

	(void)arg;
	rename_self("fault \xc3\xbc"); /* fault ü, 8 bytes */
	start = cpu_ms();
	while (cpu_ms() - start < budget_ms / 2)
		sum += fault_round((size_t)4 << 20, page);
	sink ^= sum;
	return NULL;
}

NOINLINE static uint64_t main_spin(uint64_t x)
{
	for (int i = 0; i < 2000000; i++)
		x = x * 2862933555777941757u + 3037000493u;
	return x;
}

int main(int argc, char **argv)
{
	void *(*const mains[])(void *) = { one_main, beta_main, three_main, fault_main };
	pthread_t threads[sizeof mains / sizeof mains[0]];
	size_t started = 0;

	if (argc > 1)
		budget_ms = atol(argv[1]);
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	for (size_t i = 0; i < sizeof mains / sizeof mains[0]; i++)
		if (pthread_create(&threads[started], NULL, mains[i], (void *)(uintptr_t)i) == 0)
			started++;
	sink ^= main_spin((uint64_t)argc);
	for (size_t i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	fprintf(stderr, "%llu\n", (unsigned long long)sink);
	return started == sizeof mains / sizeof mains[0] ? 0 : 1;
}
