/*
 * workload.c - the program profiled for the perf script samples in
 * samples/perf (NAME.perf.txt).
 *
 * Threads whose names hold spaces and digits, each spending its time in a
 * few known call paths (all noinline; build with -O1 -g
 * -fno-omit-frame-pointer so frame-pointer and DWARF unwinding both work):
 *
 *   "worker 1", "worker 2":  worker_main -> do_work -> recurse (x8, recursive)
 *                            -> spin_leaf; and do_work -> hash_block
 *   "io 2 pool":             io_main -> io_loop -> write_chunk -> pwrite(2)
 *                            on a memfd (kernel frames under libc's
 *                            pwrite; a memfd because /dev/null may be a
 *                            plain file in containers)
 *   "fault 3":               fault_main -> touch_pages (page faults) and
 *                            -> unmap_pages -> munmap(2)
 *   "t":                     tiny_main -> spin_leaf (a one-letter comm)
 *   "jit 4" (x86-64 only):   jit_main -> run_jit -> two copies of a tiny
 *                            machine-code loop: one in anonymous RWX memory
 *                            (perf names its dso /tmp/perf-PID.map, and with
 *                            --perf-map the thread writes that file so the
 *                            loop is symbolised as jit_loop), one mapped
 *                            from a memfd ("/memfd:jit code (deleted)",
 *                            no symbol: [unknown])
 *
 *   workload [MS [--perf-map]]
 *
 * The main thread (comm "workload") sleeps for MS milliseconds (default
 * 300), then stops and joins the threads and prints a checksum so nothing
 * is optimised away, and the name of the perf map file it wrote, if any
 * (the caller removes it once perf script has read it).
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static atomic_int stop;
static atomic_ulong checksum;

NOINLINE static uint64_t spin_leaf(uint64_t seed, unsigned rounds)
{
	for (unsigned i = 0; i < rounds; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
	}
	return seed;
}

NOINLINE static uint64_t recurse(unsigned depth, uint64_t seed)
{
	if (depth == 0)
		return spin_leaf(seed, 20000);
	return recurse(depth - 1, seed + depth) ^ depth;
}

NOINLINE static uint64_t hash_block(const unsigned char *block, size_t len)
{
	uint64_t hash = 1469598103934665603u;

	for (size_t i = 0; i < len; i++)
		hash = (hash ^ block[i]) * 1099511628211u;
	return hash;
}

NOINLINE static uint64_t do_work(uint64_t seed, unsigned char *block, size_t len)
{
	uint64_t sum = recurse(8, seed);

	block[seed % len] = (unsigned char)sum;
	return sum ^ hash_block(block, len);
}

static void *worker_main(void *arg)
{
	static unsigned char blocks[2][16384];
	unsigned index = (unsigned)(uintptr_t)arg;
	char name[16];
	uint64_t sum = 0;

	snprintf(name, sizeof name, "worker %u", index + 1);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&stop))
		sum += do_work(sum + index, blocks[index], sizeof blocks[index]);
	atomic_fetch_xor(&checksum, sum);
	return NULL;
}

NOINLINE static long write_chunk(int fd, const char *chunk, size_t len)
{
	return (long)pwrite(fd, chunk, len, 0);
}

NOINLINE static long io_loop(int fd)
{
	static char chunk[65536];
	long total = 0;

	for (int i = 0; i < 64; i++) {
		chunk[i] = (char)i;
		total += write_chunk(fd, chunk, sizeof chunk);
	}
	return total;
}

static void *io_main(void *arg)
{
	int fd = memfd_create("io chunk", 0);
	long total = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "io 2 pool");
	while (fd >= 0 && !atomic_load(&stop))
		total += io_loop(fd);
	if (fd >= 0)
		close(fd);
	atomic_fetch_xor(&checksum, (unsigned long)total);
	return NULL;
}

NOINLINE static uint64_t touch_pages(unsigned char *pages, size_t len, size_t page)
{
	uint64_t sum = 0;

	for (size_t at = 0; at < len; at += page) {
		pages[at] = (unsigned char)at;
		sum += pages[at];
	}
	return sum;
}

NOINLINE static void unmap_pages(void *pages, size_t len)
{
	munmap(pages, len);
}

static void *fault_main(void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 256 * page;
	uint64_t sum = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "fault 3");
	while (!atomic_load(&stop)) {
		unsigned char *pages = mmap(NULL, len, PROT_READ | PROT_WRITE,
					    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (pages == MAP_FAILED)
			break;
		sum += touch_pages(pages, len, page);
		unmap_pages(pages, len);
	}
	atomic_fetch_xor(&checksum, sum);
	return NULL;
}

#if defined(__x86_64__)
/* uint64_t loop(uint64_t n): mov rax, rdi; 1: dec rax; jnz 1b; ret */
static const unsigned char loop_code[] = { 0x48, 0x89, 0xf8, 0x48, 0xff, 0xc8, 0x75, 0xfb, 0xc3 };
typedef uint64_t jit_fn(uint64_t);
static char perf_map[64];

NOINLINE static uint64_t run_jit(void *code, uint64_t n)
{
	jit_fn *fn;

	memcpy(&fn, &code, sizeof fn);
	return fn(n);
}

static void *jit_main(void *arg)
{
	void *anon, *mapped = MAP_FAILED;
	int fd = memfd_create("jit code", 0);
	uint64_t sum = 0;

	pthread_setname_np(pthread_self(), "jit 4");
	anon = mmap(NULL, sizeof loop_code, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd >= 0 && write(fd, loop_code, sizeof loop_code) == (ssize_t)sizeof loop_code)
		mapped = mmap(NULL, sizeof loop_code, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (anon == MAP_FAILED || mapped == MAP_FAILED)
		return NULL;
	memcpy(anon, loop_code, sizeof loop_code);
	if (arg) {
		FILE *map;

		snprintf(perf_map, sizeof perf_map, "/tmp/perf-%d.map", (int)getpid());
		map = fopen(perf_map, "w");
		if (map) {
			fprintf(map, "%lx %zx jit_loop\n", (unsigned long)(uintptr_t)anon,
				sizeof loop_code);
			fclose(map);
		} else {
			perf_map[0] = 0;
		}
	}
	while (!atomic_load(&stop))
		sum += run_jit(anon, 300000) + run_jit(mapped, 200000);
	atomic_fetch_xor(&checksum, sum);
	return NULL;
}
#endif

static void *tiny_main(void *arg)
{
	uint64_t sum = 7;

	(void)arg;
	pthread_setname_np(pthread_self(), "t");
	while (!atomic_load(&stop))
		sum = spin_leaf(sum, 5000);
	atomic_fetch_xor(&checksum, sum);
	return NULL;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 300;
	struct timespec run = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000L };
	void *(*const starts[])(void *) = {
		worker_main, worker_main, io_main, fault_main, tiny_main,
#if defined(__x86_64__)
		jit_main,
#endif
	};
	enum { NTHREADS = sizeof starts / sizeof starts[0] };
	void *args[NTHREADS] = { (void *)0, (void *)1 };
	pthread_t threads[NTHREADS];

#if defined(__x86_64__)
	args[5] = argc > 2 && !strcmp(argv[2], "--perf-map") ? (void *)1 : NULL;
#endif
	for (unsigned i = 0; i < NTHREADS; i++)
		if (pthread_create(&threads[i], NULL, starts[i], args[i])) {
			fprintf(stderr, "workload: cannot create thread %u\n", i);
			return 1;
		}
	nanosleep(&run, NULL);
	atomic_store(&stop, 1);
	for (unsigned i = 0; i < NTHREADS; i++)
		pthread_join(threads[i], NULL);
	printf("checksum %lx\n", (unsigned long)atomic_load(&checksum));
#if defined(__x86_64__)
	if (perf_map[0])
		printf("perf map %s\n", perf_map);
#endif
	return 0;
}
