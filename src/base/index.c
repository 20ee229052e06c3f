/* index.c - open addressing with linear probing, doubled at 50% load. */
#include "base/index.h"

void pc_index_init(struct pc_index *index)
{
	memset(index, 0, sizeof(*index));
}

void pc_index_release(struct pc_index *index)
{
	free(index->slots);
	memset(index, 0, sizeof(*index));
}

static void insert_slot(struct pc_index *index, uint32_t hash, uint32_t id)
{
	size_t i = hash & index->mask;

	while (index->slots[i].id)
		i = (i + 1) & index->mask;
	index->slots[i].hash = hash;
	index->slots[i].id = id;
}

/*
 * Slots keep only 32 bits of the hash, so on growth the probe start comes
 * from those bits; the index is therefore limited to 2^32 slots, far
 * beyond the 32-bit id space's practical use.
 */
static void grow_to(struct pc_index *index, size_t cap)
{
	struct pc_index_slot *old = index->slots;
	size_t old_cap = old ? index->mask + 1 : 0;

	/*
	 * Written before it is read: probing calloc's untouched pages would
	 * map the zero page first, and each write after that costs a second
	 * fault and a TLB flush (an interrupt to every CPU running a thread).
	 */
	index->slots = pc_xmalloc(cap * sizeof(*index->slots));
	memset(index->slots, 0, cap * sizeof(*index->slots));
	index->mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].id)
			insert_slot(index, old[i].hash, old[i].id);
	free(old);
}

static void grow(struct pc_index *index)
{
	grow_to(index, index->slots ? (index->mask + 1) * 2 : 64);
}

void pc_index_reserve(struct pc_index *index, size_t count)
{
	size_t cap = index->slots ? index->mask + 1 : 64;

	while (count * 2 > cap)
		cap *= 2;
	if (!index->slots || cap > index->mask + 1)
		grow_to(index, cap);
}

void pc_index_add(struct pc_index *index, uint64_t hash, uint32_t id)
{
	if (!index->slots || (index->count + 1) * 2 > index->mask + 1)
		grow(index);
	insert_slot(index, (uint32_t)hash, id);
	index->count++;
}

uint64_t pc_hash_bytes(const void *data, size_t len, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ (len * 0x9e3779b97f4a7c15ULL);

	while (len >= 8) {
		uint64_t word;

		memcpy(&word, p, 8);
		h = pc_hash_u64(h ^ word) + 0x9e3779b97f4a7c15ULL;
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t word = 0;

		memcpy(&word, p, len);
		h = pc_hash_u64(h ^ word ^ ((uint64_t)len << 56));
	}
	return pc_hash_u64(h);
}
