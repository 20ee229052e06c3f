/*
 * perf_script_tables.c - the perf script reader's two lookup tables (see
 * perf_script_tables.h): open addressing with linear probing, doubled at
 * 50% load.
 */
#include "readers/perf_script_tables.h"

/* ---- text keys to values ---- */

void ps_table_release(struct ps_table *t)
{
	free(t->slots);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

static struct ps_slot *table_probe(const struct ps_table *t, uint64_t hash, uint64_t tag,
				   const char *key, size_t len)
{
	for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
		struct ps_slot *slot = &t->slots[i];

		if (!slot->value)
			return slot;
		if (slot->hash == hash && slot->tag == tag && slot->len == len &&
		    !memcmp(t->keys + slot->key, key, len))
			return slot;
	}
}

uint32_t ps_table_get(const struct ps_table *t, uint64_t hash, uint64_t tag, const char *key,
		      size_t len)
{
	return t->slots ? table_probe(t, hash, tag, key, len)->value : 0;
}

static void table_grow(struct ps_table *t)
{
	struct ps_slot *old = t->slots;
	size_t old_cap = old ? t->mask + 1 : 0;
	size_t cap = old_cap ? old_cap * 2 : 256;

	t->slots = pc_xcalloc(cap, sizeof(*t->slots));
	t->mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j = old[i].hash & t->mask;

		if (!old[i].value)
			continue;
		while (t->slots[j].value)
			j = (j + 1) & t->mask;
		t->slots[j] = old[i];
	}
	free(old);
}

void ps_table_put(struct ps_table *t, uint64_t hash, uint64_t tag, const char *key, size_t len,
		  uint32_t value)
{
	struct ps_slot *slot;

	if (!t->slots || (t->count + 1) * 2 > t->mask + 1)
		table_grow(t);
	slot = table_probe(t, hash, tag, key, len);
	if (!slot->value) {
		if (len > UINT32_MAX - t->keys_len)
			pc_die_oom(len);
		pc_grow(&t->keys, &t->keys_cap, t->keys_len + len + 1, 1);
		memcpy(t->keys + t->keys_len, key, len);
		*slot = (struct ps_slot){
			.hash = hash, .tag = tag, .key = (uint32_t)t->keys_len,
			.len = (uint32_t)len,
		};
		t->keys_len += len;
		t->count++;
	}
	slot->value = value;
}

/*
 * ---- texts identified by a 96-bit hash to values ----
 *
 * The caches of frame lines, brstack ends and whole callchains keep no key
 * bytes: a text is identified by two independent 64-bit hashes of it and
 * its context (address space, mapping generation), of which 96 bits are
 * kept. Two different texts of one input share them with a probability
 * below 2^-55 for a million distinct texts (2^-37 for a billion); in
 * exchange each lookup touches one 16-byte slot, and memory is not spent
 * on copies of the lines.
 */

struct ps_hash ps_hash_text(const char *s, size_t n, uint64_t seed)
{
	uint64_t a = seed ^ 0x9e3779b97f4a7c15ULL ^ n;
	uint64_t b = ps_rotl64(seed, 29) ^ 0xc2b2ae3d27d4eb4fULL;
	struct ps_hash h;

	while (n >= 8) {
		uint64_t word;

		memcpy(&word, s, 8);
		a = (a ^ word) * 0xbf58476d1ce4e5b9ULL;
		a ^= a >> 29;
		b = ps_rotl64(b + word, 23) * 0x94d049bb133111ebULL;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t word;

		if (n >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			word = (uint64_t)hi << 32 | lo;
		} else {
			word = (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
			       (uint64_t)(uint8_t)s[n - 1] << 16;
		}
		a = (a ^ word ^ (uint64_t)n << 59) * 0xbf58476d1ce4e5b9ULL;
		b = ps_rotl64(b + word + n, 23) * 0x94d049bb133111ebULL;
	}
	h.h1 = pc_hash_u64(a ^ ps_rotl64(b, 17));
	h.h2 = pc_hash_u64(b + 0x632be59bd9b4e019ULL);
	return h;
}

void ps_htable_release(struct ps_htable *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static struct ps_hslot *htable_probe(const struct ps_htable *t, struct ps_hash h)
{
	for (size_t i = h.h1 & t->mask;; i = (i + 1) & t->mask) {
		struct ps_hslot *slot = &t->slots[i];

		if (!slot->value || (slot->h1 == h.h1 && slot->h2 == (uint32_t)h.h2))
			return slot;
	}
}

uint32_t ps_htable_get(const struct ps_htable *t, struct ps_hash h)
{
	return t->slots ? htable_probe(t, h)->value : 0;
}

static void htable_grow(struct ps_htable *t)
{
	struct ps_hslot *old = t->slots;
	size_t old_cap = old ? t->mask + 1 : 0;
	size_t cap = old_cap ? old_cap * 2 : 1024;

	t->slots = pc_xcalloc(cap, sizeof(*t->slots));
	t->mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j = old[i].h1 & t->mask;

		if (!old[i].value)
			continue;
		while (t->slots[j].value)
			j = (j + 1) & t->mask;
		t->slots[j] = old[i];
	}
	free(old);
}

void ps_htable_add(struct ps_htable *t, struct ps_hash h, uint32_t value)
{
	struct ps_hslot *slot;

	if (!t->slots || (t->count + 1) * 2 > t->mask + 1)
		htable_grow(t);
	slot = htable_probe(t, h);
	if (!slot->value)
		t->count++;
	*slot = (struct ps_hslot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = value };
}
