/* seqs.c - interned id sequences and tallies (see seqs.h). */
#include "base/seqs.h"

/* ---- sequences ---- */

struct seq_key {
	const uint32_t *items;
	size_t len;
};

void pc_seqs_init(struct pc_seqs *seqs)
{
	memset(seqs, 0, sizeof(*seqs));
	pc_grow(&seqs->starts, &seqs->starts_cap, 2, sizeof(*seqs->starts));
	seqs->starts[0] = seqs->starts[1] = 0;
	seqs->count = 1;
	seqs->indexed = 1; /* the empty sequence is never looked up */
}

void pc_seqs_release(struct pc_seqs *seqs)
{
	free(seqs->items);
	free(seqs->starts);
	pc_index_release(&seqs->index);
}

static bool seq_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct pc_seqs *seqs = ctx;
	const struct seq_key *key = key_ptr;
	size_t start = seqs->starts[id];

	return seqs->starts[id + 1] - start == key->len &&
	       !memcmp(seqs->items + start, key->items, key->len * sizeof(uint32_t));
}

static uint64_t seq_hash(const uint32_t *items, size_t len)
{
	return pc_hash_bytes(items, len * sizeof(uint32_t), 0x5e9);
}

/* Indexes the sequences added by pc_seqs_append since the last lookup. */
static void seqs_catch_up(struct pc_seqs *seqs)
{
	if (seqs->indexed == seqs->count)
		return;
	pc_index_reserve(&seqs->index, seqs->count);
	for (size_t id = seqs->indexed; id < seqs->count; id++)
		pc_index_add(&seqs->index,
			     seq_hash(seqs->items + seqs->starts[id],
				      seqs->starts[id + 1] - seqs->starts[id]),
			     (uint32_t)id);
	seqs->indexed = seqs->count;
}

static uint32_t seqs_lookup(struct pc_seqs *seqs, const uint32_t *items, size_t len,
			    uint64_t hash)
{
	struct seq_key key = { .items = items, .len = len };

	seqs_catch_up(seqs);
	return pc_index_find(&seqs->index, hash, seq_equal, seqs, &key);
}

uint32_t pc_seqs_find(struct pc_seqs *seqs, const uint32_t *items, size_t len)
{
	return len ? seqs_lookup(seqs, items, len, seq_hash(items, len)) : 0;
}

uint32_t pc_seqs_append(struct pc_seqs *seqs, const uint32_t *items, size_t len)
{
	if (len > UINT32_MAX || seqs->count >= UINT32_MAX)
		pc_die_oom(len);
	pc_grow(&seqs->items, &seqs->items_cap, seqs->nitems + len, sizeof(uint32_t));
	memcpy(seqs->items + seqs->nitems, items, len * sizeof(uint32_t));
	seqs->nitems += len;
	pc_grow(&seqs->starts, &seqs->starts_cap, seqs->count + 2, sizeof(*seqs->starts));
	seqs->starts[seqs->count + 1] = seqs->nitems;
	return (uint32_t)seqs->count++;
}

uint32_t pc_seqs_add(struct pc_seqs *seqs, const uint32_t *items, size_t len)
{
	uint64_t hash;
	uint32_t id;

	if (!len)
		return 0;
	hash = seq_hash(items, len);
	id = seqs_lookup(seqs, items, len, hash);
	if (id)
		return id;
	id = pc_seqs_append(seqs, items, len);
	pc_index_add(&seqs->index, hash, id);
	seqs->indexed = seqs->count;
	return id;
}

void pc_seqs_prefetch(const struct pc_seqs *seqs, const uint32_t *items, size_t len)
{
	if (len && seqs->indexed == seqs->count)
		pc_index_prefetch(&seqs->index, seq_hash(items, len));
}

void pc_seqs_reserve(struct pc_seqs *seqs, size_t count)
{
	seqs_catch_up(seqs);
	pc_index_reserve(&seqs->index, count);
}

void pc_seqs_drop_index(struct pc_seqs *seqs)
{
	pc_index_release(&seqs->index);
	seqs->indexed = 1;
}

/* ---- tallies ---- */

void pc_tally_init(struct pc_tally *tally)
{
	memset(tally, 0, sizeof(*tally));
	pc_seqs_init(&tally->keys);
}

void pc_tally_release(struct pc_tally *tally)
{
	pc_seqs_release(&tally->keys);
	free(tally->counts);
}

int pc_tally_add(struct pc_tally *tally, const uint32_t *items, size_t len, uint64_t count)
{
	uint32_t id = pc_seqs_add(&tally->keys, items, len);

	if (id >= tally->counts_cap) {
		size_t old = tally->counts_cap;

		pc_grow(&tally->counts, &tally->counts_cap, (size_t)id + 1, sizeof(*tally->counts));
		memset(tally->counts + old, 0, (tally->counts_cap - old) * sizeof(*tally->counts));
	}
	if (count > PC_COUNT_MAX - tally->counts[id])
		return -1;
	tally->counts[id] += count;
	return 0;
}
