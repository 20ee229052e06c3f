/*
 * index.h - an open-addressing hash index from a 64-bit hash to a 32-bit
 * id (1-based; 0 marks an empty slot). The caller keeps the objects and
 * decides equality, so one index type serves strings, frames, sequences,
 * samples and arcs.
 */
#ifndef PC_INDEX_H
#define PC_INDEX_H

#include "base/pc.h"

struct pc_index_slot {
	uint32_t hash; /* low bits of the 64-bit hash, to skip most compares */
	uint32_t id;
};

struct pc_index {
	struct pc_index_slot *slots;
	size_t mask;  /* capacity - 1; capacity is a power of two */
	size_t count;
};

typedef bool (*pc_index_equal_fn)(const void *ctx, uint32_t id, const void *key);

void pc_index_init(struct pc_index *index);
void pc_index_release(struct pc_index *index);
/*
 * Returns the id whose object equals key, or 0. Inline, so that each
 * caller's equality function is inlined into its probe loop.
 */
static inline uint32_t pc_index_find(const struct pc_index *index, uint64_t hash,
				     pc_index_equal_fn equal, const void *ctx,
				     const void *key)
{
	if (!index->slots)
		return 0;
	for (size_t i = hash & index->mask;; i = (i + 1) & index->mask) {
		const struct pc_index_slot *slot = &index->slots[i];

		if (!slot->id)
			return 0;
		if (slot->hash == (uint32_t)hash && equal(ctx, slot->id, key))
			return slot->id;
	}
}
/*
 * For a batch of lookups on a big index (their cache misses overlap):
 * pc_index_prefetch asks for the slot where a lookup of hash starts;
 * pc_index_candidate then gives the first id stored under hash's low bits
 * (its object is the likely match, to prefetch in turn), or 0.
 */
static inline void pc_index_prefetch(const struct pc_index *index, uint64_t hash)
{
	if (index->slots)
		PC_PREFETCH(&index->slots[hash & index->mask]);
}

static inline uint32_t pc_index_candidate(const struct pc_index *index, uint64_t hash)
{
	if (!index->slots)
		return 0;
	for (size_t i = hash & index->mask;; i = (i + 1) & index->mask)
		if (!index->slots[i].id || index->slots[i].hash == (uint32_t)hash)
			return index->slots[i].id;
}
/* Adds id under hash; the caller has checked that no equal object exists. */
void pc_index_add(struct pc_index *index, uint64_t hash, uint32_t id);
/* Makes room for count ids in all, so that adding up to that many does not grow. */
void pc_index_reserve(struct pc_index *index, size_t count);

/* Hashes bytes (a fast 64-bit mix; not for adversarial use). */
uint64_t pc_hash_bytes(const void *data, size_t len, uint64_t seed);
static inline uint64_t pc_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

#endif
