/*
 * spt_ip_count.c - the SPT reader's IP hit counts (see spt_ip_count.h).
 *
 * One small open-addressing table per (module, kind): 8-byte slots of RVA
 * and 32-bit count, at most half full so that most RVAs are found in
 * their home slot; the home slots of a record are prefetched together.
 * Count 0 is an empty slot. A total that would reach IP_SPILLED moves,
 * exactly, to the spill table of 64-bit counts keyed (module << 35 | kind
 * << 32 | RVA), and the slot keeps IP_SPILLED.
 */
#define _DEFAULT_SOURCE 1 /* MADV_HUGEPAGE */
#include "readers/spt_ip_count.h"

#include "base/pc.h"
#include "base/index.h"
#include "model/model.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define FORMAT "spt"
#define IP_SPILLED UINT32_MAX
#define IP_MIN_BITS 10 /* slots of a new table: log2 */
#define IP_MODULE_SHIFT 35 /* see SPT_IP_MAX_MODULE */
#define IP_KIND_SHIFT 32
#define HUGE_PAGE_BYTES ((size_t)2 << 20)

struct ip_slot {
	uint32_t rva, count;
};

struct ip_group {
	struct ip_slot *slots; /* NULL until the first hit */
	size_t mask, count;    /* slots - 1; keys */
	unsigned shift;        /* 64 - log2(slots) */
};

struct spill_slot {
	uint64_t key, count; /* key 0: empty (module ids start at 1) */
};

struct spill_table {
	struct spill_slot *slots; /* NULL until the first spill */
	size_t mask, count;
};

struct spt_ip_counter {
	struct ip_group (*groups)[SPT_NKINDS]; /* by module id */
	size_t ngroups;
	struct spill_table spill;
};

/* --- the tables --- */

/*
 * Zeroed memory for a table, written at once. (Fresh calloc memory that
 * is read before it is written maps the shared zero page first; the first
 * write then takes a copy-on-write fault, which with two decoding threads
 * also flushes the other CPU's TLB.) A large table is probed at random,
 * so it is asked to live in huge pages where the system offers them
 * (Linux MADV_HUGEPAGE): TLB misses otherwise cost as much as the probes.
 */
static void *table_alloc(size_t count, size_t size)
{
	size_t bytes = count * size;
	void *table = NULL;

#ifdef MADV_HUGEPAGE
	if (bytes >= HUGE_PAGE_BYTES &&
	    !posix_memalign(&table, HUGE_PAGE_BYTES, bytes))
		madvise(table, bytes, MADV_HUGEPAGE);
#endif
	if (!table)
		table = pc_xmalloc(bytes);
	memset(table, 0, bytes);
	return table;
}

static inline size_t ip_slot_of(const struct ip_group *g, uint32_t rva)
{
	return (size_t)(((uint64_t)rva * 0x9E3779B97F4A7C15ULL) >> g->shift);
}

/* The slot of rva from at (its home) on: its own, or the empty one it takes. */
static inline struct ip_slot *ip_group_find(struct ip_group *g, size_t at, uint32_t rva)
{
	while (g->slots[at].count && g->slots[at].rva != rva)
		at = (at + 1) & g->mask;
	return &g->slots[at];
}

static void ip_group_init(struct ip_group *g, unsigned bits)
{
	g->slots = table_alloc((size_t)1 << bits, sizeof(*g->slots));
	g->mask = ((size_t)1 << bits) - 1;
	g->count = 0;
	g->shift = 64 - bits;
}

/*
 * Makes room for more keys, at most half the slots used. Room is made for
 * a whole record ahead, so a table of 2^k keys may keep 2^(k+2) slots:
 * measured, the shorter probes are worth more than the smaller table.
 */
static void ip_group_reserve(struct ip_group *g, size_t more)
{
	struct ip_group bigger;

	while (!g->slots || (g->count + more) * 2 > g->mask + 1) {
		ip_group_init(&bigger, g->slots ? 64 - g->shift + 1 : IP_MIN_BITS);
		for (size_t i = 0; g->slots && i <= g->mask; i++)
			if (g->slots[i].count)
				*ip_group_find(&bigger, ip_slot_of(&bigger, g->slots[i].rva),
					       g->slots[i].rva) = g->slots[i];
		bigger.count = g->count;
		free(g->slots);
		*g = bigger;
	}
}

static inline size_t spill_slot_of(const struct spill_table *t, uint64_t key)
{
	return (size_t)pc_hash_u64(key) & t->mask;
}

static struct spill_slot *spill_find(const struct spill_table *t, uint64_t key)
{
	size_t at = spill_slot_of(t, key);

	while (t->slots[at].key && t->slots[at].key != key)
		at = (at + 1) & t->mask;
	return &t->slots[at];
}

static void spill_reserve(struct spill_table *t)
{
	struct spill_table bigger;

	if (t->slots && (t->count + 1) * 2 <= t->mask + 1)
		return;
	bigger.mask = t->slots ? 2 * t->mask + 1 : 63;
	bigger.slots = pc_xcalloc(bigger.mask + 1, sizeof(*bigger.slots));
	bigger.count = t->count;
	for (size_t i = 0; t->slots && i <= t->mask; i++)
		if (t->slots[i].key)
			*spill_find(&bigger, t->slots[i].key) = t->slots[i];
	free(t->slots);
	*t = bigger;
}

static uint64_t ip_key(uint32_t module, enum spt_kind kind, uint32_t rva)
{
	return (uint64_t)module << IP_MODULE_SHIFT | (uint64_t)kind << IP_KIND_SHIFT | rva;
}

int spt_fail_sum_overflow(struct pc_error *err, uint64_t offset, enum spt_kind kind,
			  uint64_t add, uint64_t have)
{
	return pc_fail_at(err, FORMAT, offset,
			  "count overflow: adding %llu to the %llu hits already counted "
			  "for the same %s address passes INT64_MAX",
			  (unsigned long long)add, (unsigned long long)have,
			  spt_kind_column(kind));
}

/*
 * The slow path of adding add to a slot whose total would not fit its 32
 * bits: the key's exact count lives in the spill table from then on.
 * Returns 0, or -1 (adding nothing) if the sum would pass INT64_MAX;
 * *have is the total it had.
 */
static int spill_add(struct spt_ip_counter *c, uint64_t key, struct ip_slot *slot,
		     uint64_t add, uint64_t *have)
{
	struct spill_slot *spilled;

	spill_reserve(&c->spill);
	spilled = spill_find(&c->spill, key);
	*have = slot->count == IP_SPILLED ? spilled->count : slot->count;
	if (*have > PC_COUNT_MAX - add)
		return -1;
	spilled->key = key;
	c->spill.count += slot->count != IP_SPILLED;
	spilled->count = *have + add;
	slot->count = IP_SPILLED;
	return 0;
}

/* Adds add to slot; -1 (with *have) if the total would pass INT64_MAX. */
static inline int slot_add(struct spt_ip_counter *c, uint32_t module, enum spt_kind kind,
			   struct ip_slot *slot, uint64_t add, uint64_t *have)
{
	if (add < IP_SPILLED - slot->count) {
		slot->count += (uint32_t)add;
		return 0;
	}
	return spill_add(c, ip_key(module, kind, slot->rva), slot, add, have);
}

/* The slot of rva in g, taken for it if it had none. */
static inline struct ip_slot *slot_take(struct ip_group *g, size_t home, uint32_t rva)
{
	struct ip_slot *slot = ip_group_find(g, home, rva);

	if (!slot->count) {
		slot->rva = rva;
		g->count++;
	}
	return slot;
}

/*
 * The hot loop: one probe of one small table per RVA. The home slots of
 * the whole record are computed and prefetched first, so that the cache
 * misses overlap instead of following each other.
 */
int spt_ip_count(struct spt_ip_counter *c, const struct spt_ip_record *rec,
		 struct pc_error *err)
{
	struct ip_group *g = &c->groups[rec->module][rec->kind];
	uint32_t rvas[SPT_MAX_ITEMS];
	size_t homes[SPT_MAX_ITEMS];
	uint64_t have;

	ip_group_reserve(g, rec->n);
	for (unsigned i = 0; i < rec->n; i++) {
		rvas[i] = pc_le32(rec->items + 4 * i);
		homes[i] = ip_slot_of(g, rvas[i]);
		PC_PREFETCH_WRITE(&g->slots[homes[i]]);
	}
	for (unsigned i = 0; i < rec->n; i++)
		if (slot_add(c, rec->module, rec->kind, slot_take(g, homes[i], rvas[i]),
			     rec->count, &have))
			return spt_fail_sum_overflow(err, rec->offset, rec->kind,
						     rec->count, have);
	return 0;
}

int spt_ip_count_one(struct spt_ip_counter *c, uint32_t module, enum spt_kind kind,
		     uint32_t rva, uint64_t count)
{
	struct ip_group *g = &c->groups[module][kind];
	uint64_t have;

	ip_group_reserve(g, 1);
	return slot_add(c, module, kind, slot_take(g, ip_slot_of(g, rva), rva), count, &have);
}

struct spt_ip_counter *spt_ip_counter_new(uint32_t max_module)
{
	struct spt_ip_counter *c = pc_xcalloc(1, sizeof(*c));

	c->ngroups = (size_t)max_module + 1;
	c->groups = pc_xcalloc(c->ngroups, sizeof(*c->groups));
	return c;
}

static uint64_t slot_total(const struct spt_ip_counter *c, uint32_t module,
			   enum spt_kind kind, const struct ip_slot *slot)
{
	if (slot->count != IP_SPILLED)
		return slot->count;
	return spill_find(&c->spill, ip_key(module, kind, slot->rva))->count;
}

int spt_ip_counter_merge(struct spt_ip_counter *into, const struct spt_ip_counter *from)
{
	uint64_t have;

	for (uint32_t module = 1; module < from->ngroups; module++)
		for (int k = 0; k < SPT_NKINDS; k++) {
			enum spt_kind kind = (enum spt_kind)k;
			const struct ip_group *src = &from->groups[module][kind];
			struct ip_group *dst = &into->groups[module][kind];

			ip_group_reserve(dst, src->count);
			for (size_t i = 0; src->slots && i <= src->mask; i++) {
				const struct ip_slot *slot = &src->slots[i];

				if (slot->count &&
				    slot_add(into, module, kind,
					     slot_take(dst, ip_slot_of(dst, slot->rva), slot->rva),
					     slot_total(from, module, kind, slot), &have))
					return -1;
			}
		}
	return 0;
}

/*
 * Sorts hits by RVA, keeping the order of equal RVAs: an LSD radix sort,
 * one pass per RVA byte that varies.
 */
static void sort_hits(struct spt_ip_hit *hits, size_t n)
{
	struct spt_ip_hit *spare = pc_xmalloc((n + 1) * sizeof(*spare));
	struct spt_ip_hit *src = hits, *dst = spare;

	for (unsigned shift = 0; n && shift < 32; shift += 8) {
		size_t counts[256] = { 0 }, at = 0;

		for (size_t i = 0; i < n; i++)
			counts[(src[i].rva >> shift) & 0xff]++;
		if (counts[(src[0].rva >> shift) & 0xff] == n)
			continue;
		for (size_t digit = 0; digit < 256; digit++) {
			size_t here = counts[digit];

			counts[digit] = at;
			at += here;
		}
		for (size_t i = 0; i < n; i++)
			dst[counts[(src[i].rva >> shift) & 0xff]++] = src[i];
		dst = src;
		src = src == hits ? spare : hits;
	}
	if (src != hits)
		memcpy(hits, src, n * sizeof(*hits));
	free(spare);
}

struct spt_ip_hit *spt_ip_counter_module_hits(const struct spt_ip_counter *c,
					      uint32_t module, size_t *n)
{
	size_t keys = 0;
	struct spt_ip_hit *hits;

	for (int kind = 0; kind < SPT_NKINDS; kind++)
		keys += c->groups[module][kind].count;
	hits = pc_xmalloc((keys + 1) * sizeof(*hits));
	*n = 0;
	for (int k = 0; k < SPT_NKINDS; k++) {
		enum spt_kind kind = (enum spt_kind)k;
		const struct ip_group *g = &c->groups[module][kind];

		for (size_t i = 0; g->slots && i <= g->mask; i++)
			if (g->slots[i].count)
				hits[(*n)++] = (struct spt_ip_hit){
					.rva = g->slots[i].rva, .kind = kind,
					.count = slot_total(c, module, kind, &g->slots[i]),
				};
	}
	sort_hits(hits, *n);
	return hits;
}

size_t spt_ip_counter_keys(const struct spt_ip_counter *c)
{
	size_t keys = 0;

	for (size_t module = 0; module < c->ngroups; module++)
		for (int kind = 0; kind < SPT_NKINDS; kind++)
			keys += c->groups[module][kind].count;
	return keys;
}

void spt_ip_counter_release_module(struct spt_ip_counter *c, uint32_t module)
{
	for (int kind = 0; kind < SPT_NKINDS; kind++) {
		free(c->groups[module][kind].slots);
		memset(&c->groups[module][kind], 0, sizeof(c->groups[module][kind]));
	}
}

void spt_ip_counter_free(struct spt_ip_counter *c)
{
	if (!c)
		return;
	for (uint32_t module = 0; module < c->ngroups; module++)
		spt_ip_counter_release_module(c, module);
	free(c->groups);
	free(c->spill.slots);
	free(c);
}
