/*
 * seqs.h - interned sequences of 32-bit ids (an id per distinct sequence,
 * 0 for the empty one) and tallies that count per sequence: the model's
 * stacks, label sets and branch stacks, and what writers aggregate of
 * their own. Built on the one interning hash, base/index.h.
 */
#ifndef PC_SEQS_H
#define PC_SEQS_H

#include "base/index.h"

#define PC_COUNT_MAX ((uint64_t)INT64_MAX)

/*
 * Interned sequences of 32-bit ids; sequence id 0 is the empty one.
 * Sequence id i holds items[starts[i] .. starts[i + 1]). The index covers
 * the first `indexed` sequences: pc_seqs_append adds without it, and the
 * next lookup indexes the rest first.
 */
struct pc_seqs {
	uint32_t *items;
	size_t nitems, items_cap;
	size_t *starts;          /* count + 1 entries */
	size_t count, starts_cap; /* count includes the empty sequence 0 */
	struct pc_index index;
	size_t indexed;
};

/* Interned id sequences, also for writers that aggregate their own records. */
void pc_seqs_init(struct pc_seqs *seqs);
void pc_seqs_release(struct pc_seqs *seqs);
/* Returns the id (>= 1) of the sequence, adding it if new; 0 for len 0. */
uint32_t pc_seqs_add(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* The id of the sequence, 0 if it is not there (or len is 0). */
uint32_t pc_seqs_find(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* Adds a sequence the caller knows is not there yet (len >= 1); returns its id. */
uint32_t pc_seqs_append(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* Asks the processor for the index slot where adding or finding items[0, len) looks first. */
void pc_seqs_prefetch(const struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* Makes room in the index for more sequences, up to count in all. */
void pc_seqs_reserve(struct pc_seqs *seqs, size_t count);
/* Frees the index (the next lookup rebuilds it). */
void pc_seqs_drop_index(struct pc_seqs *seqs);

/* Totals per interned id sequence, for writers that aggregate records of their own. */
struct pc_tally {
	struct pc_seqs keys;
	uint64_t *counts; /* by key id */
	size_t counts_cap;
};

void pc_tally_init(struct pc_tally *tally);
void pc_tally_release(struct pc_tally *tally);
/* Adds count to the sequence's total; -1 when it would pass PC_COUNT_MAX. */
int pc_tally_add(struct pc_tally *tally, const uint32_t *items, size_t len, uint64_t count);

/* The items of sequence id (0 <= id < count), *n of them. */
static inline const uint32_t *pc_seq(const struct pc_seqs *seqs, uint32_t id,
				     size_t *n)
{
	*n = seqs->starts[id + 1] - seqs->starts[id];
	return seqs->items ? seqs->items + seqs->starts[id] : seqs->items;
}

#endif
