/*
 * perf_script_tables.c - the perf script reader's two lookup tables (see
 * perf_script_tables.h): each an array of entries and a pc_index from a
 * hash to an entry.
 */
#include "readers/perf_script_tables.h"

/* ---- text keys to values ---- */

struct key_probe {
	const char *text;
	size_t len;
	uint64_t tag;
};

void ps_table_release(struct ps_table *t)
{
	pc_index_release(&t->index);
	free(t->keys);
	free(t->bytes);
	memset(t, 0, sizeof(*t));
}

static bool key_equal(const void *ctx, uint32_t id, const void *probe_ptr)
{
	const struct ps_table *t = ctx;
	const struct ps_key *key = &t->keys[id - 1];
	const struct key_probe *probe = probe_ptr;

	return key->tag == probe->tag && key->len == probe->len &&
	       !memcmp(t->bytes + key->start, probe->text, probe->len);
}

static uint32_t find_key(const struct ps_table *t, uint64_t hash, uint64_t tag, const char *text,
			 size_t len)
{
	struct key_probe probe = { .text = text, .len = len, .tag = tag };

	return pc_index_find(&t->index, hash, key_equal, t, &probe);
}

uint32_t ps_table_get(const struct ps_table *t, uint64_t hash, uint64_t tag, const char *key,
		      size_t len)
{
	uint32_t id = find_key(t, hash, tag, key, len);

	return id ? t->keys[id - 1].value : 0;
}

void ps_table_put(struct ps_table *t, uint64_t hash, uint64_t tag, const char *key, size_t len,
		  uint32_t value)
{
	uint32_t id = find_key(t, hash, tag, key, len);

	if (id) {
		t->keys[id - 1].value = value;
		return;
	}
	if (len > UINT32_MAX - t->nbytes || t->nkeys >= UINT32_MAX)
		pc_die_oom(len);
	pc_grow(&t->bytes, &t->bytes_cap, t->nbytes + len + 1, 1);
	memcpy(t->bytes + t->nbytes, key, len);
	pc_grow(&t->keys, &t->keys_cap, t->nkeys + 1, sizeof(*t->keys));
	t->keys[t->nkeys++] = (struct ps_key){
		.tag = tag, .start = (uint32_t)t->nbytes, .len = (uint32_t)len, .value = value,
	};
	t->nbytes += len;
	pc_index_add(&t->index, hash, (uint32_t)t->nkeys);
}

/*
 * ---- texts identified by a 96-bit hash to values ----
 *
 * The caches of frame lines, brstack ends and whole callchains keep no key
 * bytes: a text is identified by two independent 64-bit hashes of it and
 * its context (address space, mapping generation), of which 96 bits are
 * kept. Two different texts of one input share them with a probability
 * below 2^-55 for a million distinct texts (2^-37 for a billion); in
 * exchange a lookup touches an index slot and a 16-byte entry, and memory
 * is not spent on copies of the lines.
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
	pc_index_release(&t->index);
	free(t->entries);
	memset(t, 0, sizeof(*t));
}

static bool hashed_equal(const void *ctx, uint32_t id, const void *h_ptr)
{
	const struct ps_hashed *entry = &((const struct ps_htable *)ctx)->entries[id - 1];
	const struct ps_hash *h = h_ptr;

	return entry->h1 == h->h1 && entry->h2 == (uint32_t)h->h2;
}

uint32_t ps_htable_get(const struct ps_htable *t, struct ps_hash h)
{
	uint32_t id = pc_index_find(&t->index, h.h1, hashed_equal, t, &h);

	return id ? t->entries[id - 1].value : 0;
}

void ps_htable_add(struct ps_htable *t, struct ps_hash h, uint32_t value)
{
	if (t->nentries >= UINT32_MAX)
		pc_die_oom(t->nentries);
	pc_grow(&t->entries, &t->entries_cap, t->nentries + 1, sizeof(*t->entries));
	t->entries[t->nentries++] = (struct ps_hashed){
		.h1 = h.h1, .h2 = (uint32_t)h.h2, .value = value,
	};
	pc_index_add(&t->index, h.h1, (uint32_t)t->nentries);
}

/* ---- caches that may forget ---- */

#define CACHE_WINDOW 65536 /* lookups between two looks at the hit rate */
#define SPARSE_KEEP 16     /* sparse: 1 in this many texts kept; and the hit rate */

/* Whether the text that hashes to h is one a sparse cache keeps (and so looks up). */
static bool kept_when_sparse(struct ps_hash h)
{
	return (h.h2 >> 40) % SPARSE_KEEP == 0;
}

uint32_t ps_cache_get(struct ps_cache *c, struct ps_hash h)
{
	uint32_t value;

	if (c->sparse && !kept_when_sparse(h))
		return 0; /* not kept, so not looked for: no index probe */
	value = ps_htable_get(&c->table, h);
	c->hits += value != 0;
	if (++c->lookups == CACHE_WINDOW) {
		c->sparse = c->hits < CACHE_WINDOW / SPARSE_KEEP;
		c->lookups = c->hits = 0;
	}
	return value;
}

void ps_cache_offer(struct ps_cache *c, struct ps_hash h, uint32_t value)
{
	if (!c->sparse || kept_when_sparse(h))
		ps_htable_add(&c->table, h, value);
}

void ps_cache_prefetch(const struct ps_cache *c, struct ps_hash h)
{
	if (!c->sparse || kept_when_sparse(h))
		ps_htable_prefetch(&c->table, h);
}
