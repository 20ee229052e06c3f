/*
 * perf_script_tables.h - the perf script reader's lookup tables, both on
 * the project's index (base/index.h): text keys (kept by the table, with
 * a 64-bit tag) to 32-bit values, and texts identified by a 96-bit hash
 * (no key kept) to 32-bit values. Values are never 0: a lookup returns 0
 * for "absent".
 */
#ifndef PC_PERF_SCRIPT_TABLES_H
#define PC_PERF_SCRIPT_TABLES_H

#include "base/index.h"

/* ---- text keys to values ---- */

struct ps_key {
	uint64_t tag;
	uint32_t start, len; /* the key is bytes[start, start + len) */
	uint32_t value;
};

struct ps_table {
	struct pc_index index; /* hash -> 1 + position in keys */
	struct ps_key *keys;
	size_t nkeys, keys_cap;
	char *bytes;
	size_t nbytes, bytes_cap;
};

void ps_table_release(struct ps_table *t);
/* The value of (tag, key) whose hash is hash, or 0. */
uint32_t ps_table_get(const struct ps_table *t, uint64_t hash, uint64_t tag, const char *key,
		      size_t len);
/* Sets the value (not 0) of (tag, key), adding the key when it is new. */
void ps_table_put(struct ps_table *t, uint64_t hash, uint64_t tag, const char *key, size_t len,
		  uint32_t value);

/* ---- texts identified by a 96-bit hash to values ---- */

struct ps_hash {
	uint64_t h1, h2;
};

/* Two independent 64-bit hashes of s[0, n) and seed. */
struct ps_hash ps_hash_text(const char *s, size_t n, uint64_t seed);

static inline uint64_t ps_rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/* What identifies a text: h1 and 32 bits of h2. */
struct ps_hashed {
	uint64_t h1;
	uint32_t h2;
	uint32_t value;
};

struct ps_htable {
	struct pc_index index; /* h1 -> 1 + position in entries */
	struct ps_hashed *entries;
	size_t nentries, entries_cap;
};

void ps_htable_release(struct ps_htable *t);
/* The value of the text that hashes to h, or 0. */
uint32_t ps_htable_get(const struct ps_htable *t, struct ps_hash h);
/* Adds the text that hashes to h with value (not 0); it must not be there yet. */
void ps_htable_add(struct ps_htable *t, struct ps_hash h, uint32_t value);

/*
 * A cache of texts to values that may forget (a memo: what it forgets is
 * worked out again, the same). When its lookups hardly ever hit (fewer
 * than 1 in 16 of a window of them), as with callchains that are all
 * distinct, it turns sparse: it keeps, and looks for, only the texts of
 * one in 16 hashes, until lookups of those hit again. Memory and index
 * probes go to the texts that repeat.
 */
struct ps_cache {
	struct ps_htable table;
	uint32_t lookups, hits; /* in the current window */
	bool sparse;
};

/* The cached value of the text that hashes to h, or 0. */
uint32_t ps_cache_get(struct ps_cache *c, struct ps_hash h);
/* Offers the text that hashes to h (just missed by ps_cache_get) with value (not 0). */
void ps_cache_offer(struct ps_cache *c, struct ps_hash h, uint32_t value);
/* Asks the processor for the index slot where ps_cache_get of h would look. */
void ps_cache_prefetch(const struct ps_cache *c, struct ps_hash h);

/* Asks the processor for the index slot where a lookup of h starts. */
static inline void ps_htable_prefetch(const struct ps_htable *t, struct ps_hash h)
{
	if (t->index.slots)
		PC_PREFETCH(&t->index.slots[h.h1 & t->index.mask]);
}

#endif
