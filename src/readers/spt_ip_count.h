/*
 * spt_ip_count.h - the SPT reader's IP hit counts by (module, kind, RVA),
 * and those of its one-frame call stacks:
 * exact, 64-bit, each total checked against INT64_MAX at the record that
 * adds to it. One counter per decoding thread; counters merge.
 */
#ifndef PC_SPT_IP_COUNT_H
#define PC_SPT_IP_COUNT_H

#include "base/error.h"
#include "formats/spt.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The largest module id a counter takes (its keys are module << 35 | ...). */
#define SPT_IP_MAX_MODULE ((1u << (64 - 35)) - 1)

/* One IP record: n little-endian u32 RVAs at items, each hit count times. */
struct spt_ip_record {
	uint64_t offset; /* of the record, for errors */
	uint64_t count;  /* 1 + repeat, at most INT64_MAX */
	uint32_t module; /* model module id, >= 1 */
	enum spt_kind kind;
	unsigned n;      /* 1..255 */
	const uint8_t *items;
};

struct spt_ip_hit {
	uint32_t rva;
	enum spt_kind kind;
	uint64_t count;
};

struct spt_ip_counter;

/* A counter for modules 1..max_module. */
struct spt_ip_counter *spt_ip_counter_new(uint32_t max_module);

/*
 * Counts rec's hits. Returns 0, or -1 with *err set ("count overflow", at
 * rec->offset) when a total would pass INT64_MAX.
 */
int spt_ip_count(struct spt_ip_counter *c, const struct spt_ip_record *rec,
		 struct pc_error *err);

/*
 * Counts count hits of one RVA of module in a column of kind kind: the
 * reader's one-frame call stacks, which are samples of one frame as IP
 * hits are. Returns 0, or -1 when the total would pass INT64_MAX.
 */
int spt_ip_count_one(struct spt_ip_counter *c, uint32_t module, enum spt_kind kind,
		     uint32_t rva, uint64_t count);

/*
 * Adds from's hits to into (same modules). Returns 0, or -1 when a total
 * would pass INT64_MAX; into is then partly merged.
 */
int spt_ip_counter_merge(struct spt_ip_counter *into, const struct spt_ip_counter *from);

/* The hits of module, by RVA and then kind, malloc'ed; *n of them. */
struct spt_ip_hit *spt_ip_counter_module_hits(const struct spt_ip_counter *c,
					      uint32_t module, size_t *n);
/* How many (module, kind, RVA) keys have hits: at least the distinct (module, RVA). */
size_t spt_ip_counter_keys(const struct spt_ip_counter *c);
/* Frees module's counts (once its hits are taken): it has no hits after. */
void spt_ip_counter_release_module(struct spt_ip_counter *c, uint32_t module);

/* Sets *err to "count overflow" at offset: have + add passes INT64_MAX. */
int spt_fail_sum_overflow(struct pc_error *err, uint64_t offset, enum spt_kind kind,
			  uint64_t add, uint64_t have);

void spt_ip_counter_free(struct spt_ip_counter *c);

#endif
