/* alloc.c - allocation helpers that end the program on out-of-memory. */
#include "base/pc.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif

void pc_die_oom(size_t size)
{
	fprintf(stderr, "profconv: out of memory (allocating %zu bytes)\n", size);
	abort();
}

void *pc_xmalloc(size_t size)
{
	void *ptr = malloc(size ? size : 1);
	if (!ptr)
		pc_die_oom(size);
	return ptr;
}

void *pc_xcalloc(size_t count, size_t size)
{
	void *ptr = calloc(count ? count : 1, size ? size : 1);
	if (!ptr)
		pc_die_oom(count * size);
	return ptr;
}

void *pc_xrealloc(void *ptr, size_t size)
{
	void *grown = realloc(ptr, size ? size : 1);
	if (!grown)
		pc_die_oom(size);
	return grown;
}

void pc_grow_to(void *items_ptr, size_t *capacity, size_t need, size_t elem)
{
	void **items = items_ptr;
	size_t cap = *capacity;

	if (need <= cap)
		return;
	if (cap < 16)
		cap = 16;
	while (cap < need) {
		if (cap > SIZE_MAX / 2 / elem)
			pc_die_oom(SIZE_MAX);
		cap *= 2;
	}
	*items = pc_xrealloc(*items, cap * elem);
	*capacity = cap;
}

/*
 * glibc keeps freed memory for reuse (below its adaptive mmap threshold,
 * in the heap and the threads' arenas): after a phase that freed much, as
 * reading frees its counting tables, hand it back to the system, or it
 * stays in the peak resident size of every later phase.
 */
void pc_release_free_memory(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
