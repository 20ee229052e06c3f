/*
 * pc.h - what every profconv source file includes first: the standard
 * headers we rely on, attributes, and the few allocation helpers that
 * die on out-of-memory (as git's xmalloc does) so that callers never have
 * to check for NULL.
 */
#ifndef PC_H
#define PC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PC_VERSION "0.1.0"

#if defined(__GNUC__)
#define PC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#define PC_NORETURN __attribute__((noreturn))
#else
#define PC_PRINTF(fmt, args)
#define PC_NORETURN
#endif

#define PC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Asks the processor for the cache line of addr ahead of its use (to read,
 * or to write): a loop over random ids fetches them all first, so that the
 * cache misses overlap instead of following each other.
 */
#if defined(__GNUC__)
#define PC_PREFETCH(addr) __builtin_prefetch((addr), 0)
#define PC_PREFETCH_WRITE(addr) __builtin_prefetch((addr), 1)
#else
#define PC_PREFETCH(addr) ((void)(addr))
#define PC_PREFETCH_WRITE(addr) ((void)(addr))
#endif

PC_NORETURN void pc_die_oom(size_t size);
void *pc_xmalloc(size_t size);
void *pc_xcalloc(size_t count, size_t size);
void *pc_xrealloc(void *ptr, size_t size);
/* Grows *items (element size elem) so that it holds at least need elements. */
void pc_grow_to(void *items_ptr, size_t *capacity, size_t need, size_t elem);
/* pc_grow_to when there is not room already (a check inlined at every call). */
static inline void pc_grow(void *items_ptr, size_t *capacity, size_t need, size_t elem)
{
	if (need > *capacity)
		pc_grow_to(items_ptr, capacity, need, elem);
}
/* Returns freed memory to the system (after a phase that freed much). */
void pc_release_free_memory(void);

/* The value of a hexadecimal digit (either case), or -1. */
static inline int pc_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unsigned integers stored in a given byte order, for binary readers. */
static inline uint16_t pc_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

static inline uint32_t pc_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t pc_le64(const uint8_t *p)
{
	return (uint64_t)pc_le32(p) | (uint64_t)pc_le32(p + 4) << 32;
}

/* Stores the low `bytes` bytes of value at p, least significant first. */
static inline void pc_put_le(uint8_t *p, uint64_t value, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

/* a + b, or UINT64_MAX when that would pass it. */
static inline uint64_t pc_add_saturated(uint64_t a, uint64_t b)
{
	return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

static inline uint32_t pc_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#include "base/banned.h"

#endif
