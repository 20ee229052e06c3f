/*
 * etl_state.h - the state the ETL reader's files share (private to
 * src/readers/etl_*.c): what the reader collects from the events, and
 * the functions each file gives the other:
 *   etl_reader.c   the events into samples, stack fragments, key
 *                  definitions, images, processes and threads; the keys
 *                  resolved; two ranges at once; the reader's descriptor
 *   etl_samples.c  the samples into the model: their processes, images
 *                  and stacks at their time
 */
#ifndef PC_ETL_STATE_H
#define PC_ETL_STATE_H

#include "readers/etl_reader.h"
#include "base/index.h"
#include "base/seqs.h"

#include <stdlib.h>

#define MAX_STACK 1024
#define KERNEL_BOUNDARY_64 0xFFFF800000000000ULL
#define KERNEL_BOUNDARY_32 0x80000000ULL
/* The raw sequence ids of the second of two ranges carry it (etl_reader.c). */
#define SECOND_RANGE_SEQ 0x80000000u

struct sample {
	uint64_t time, ip;
	uint32_t tid;
	uint8_t cpu;                /* of its buffer: a byte there */
	bool in_dpc_or_isr;
};

/* A stack fragment: frames of its own, or a key reference resolved at the end. */
struct fragment {
	uint64_t time;              /* EventTimeStamp: the sampled event's */
	uint64_t ref_time;          /* a key reference: its own time */
	union {
		uint64_t key;       /* a key reference, until it is resolved */
		struct {
			uint32_t seq, count; /* its addresses: raw sequence seq, once resolved */
		};
	};
	uint32_t tid, pid;
	uint8_t cpu;                /* of its buffer */
	bool by_key, resolved;
};

struct key_definition {
	uint64_t key, time;
	uint32_t seq, count;
};

struct image {
	int32_t pid;
	uint64_t base, size, loaded, unloaded;
	pc_str_id path;
	uint32_t module;            /* made on the first frame in it */
	bool has_pdb;
	struct pc_pdb_id pdb;
};

struct unload {
	int32_t pid;
	uint64_t base, time;
};

struct pdb_record {
	int32_t pid;
	uint64_t base;
	struct pc_pdb_id pdb;
};

struct process {
	uint32_t pid;
	uint64_t time;
	pc_str_id name;
};

/*
 * Whether a cache earns its keep: it is given up once a trace shows it
 * hardly ever finds what it looks for (fewer than one lookup in four, checked
 * at every period-th lookup: 65,536 unless it says otherwise), where it
 * would only cost time and memory. The output is the same either way.
 */
struct reuse_gauge {
	uint64_t lookups, hits;
	uint64_t period;            /* 0: 65,536 */
	bool given_up;
};

/*
 * A sample's stack resolved: the model stack of its kernel and user address
 * sequences (or its IP) in process pid, over [from, until) (sample_stack).
 */
struct stack_memo {
	uint32_t kernel, user;      /* raw sequences, 0: none */
	int32_t pid;
	uint64_t ip;                /* when it has neither */
	uint64_t from, until;
	uint32_t stack;
	uint32_t unknown;           /* its frames in no image */
};

struct thread {
	uint32_t tid, pid;
	uint64_t time;
};

/* An event the second range leaves to the first range's reader: a copy. */
struct deferred_event {
	struct etl_event ev;        /* its payload: at payload_at in the bytes */
	size_t payload_at;
};

/* The events of the second range that its reader leaves to the first's. */
struct deferred {
	struct deferred_event *events;
	size_t n, cap;
	uint8_t *bytes;
	size_t nbytes, bytes_cap;
};

struct etl_reader {
	struct pc_ctx *ctx;
	struct pc_model *m;
	unsigned pointer_size;
	uint64_t perf_freq, start_filetime, header_time, interval_100ns;
	uint32_t cpus, os_major, os_minor, os_build;
	bool have_header;

	struct sample *samples;
	size_t nsamples, samples_cap;
	struct fragment *fragments;
	size_t nfragments, fragments_cap;
	/*
	 * The second range's fragments, sorted, kept apart: a sample's are
	 * looked for in both arrays, the first range's first, as a merge of
	 * the two would put them.
	 */
	struct fragment *fragments2;
	size_t nfragments2;
	struct key_definition *keys;
	size_t nkeys, keys_cap;
	struct pc_seqs raw;         /* addresses of fragments and key definitions, as u32 pairs */
	struct pc_seqs raw_second;  /* the second range's: ids with SECOND_RANGE_SEQ */
	uint32_t seq_tag;           /* SECOND_RANGE_SEQ for the second range's reader */
	bool in_range;              /* reading one of two ranges: ETL_RANGE_SEQS_MAX holds */
	bool range_seqs_full;       /* ... and a sequence was past it */
	struct deferred *deferred;  /* the second range's reader: what it leaves */
	uint32_t raw_scratch[2 * MAX_STACK];
	struct reuse_gauge raw_reuse; /* given up: sequences appended, not interned */
	struct image *images;
	size_t nimages, images_cap;
	struct pdb_record *pdbs;
	size_t npdbs, pdbs_cap;
	struct unload *unloads;
	size_t nunloads, unloads_cap;
	struct process *processes;
	size_t nprocesses, processes_cap;
	struct thread *threads;
	size_t nthreads, threads_cap;

	struct stack_memo *stack_memos;
	size_t nstack_memos, stack_memos_cap;
	struct pc_index stack_memo_index;
	struct reuse_gauge memo_reuse;

	uint64_t undefined_keys, unknown_frames;
	pc_str_id key_comm, key_pid, key_tid;
};

/* Counts a lookup; false once the cache is given up (from this lookup on). */
static inline bool reuse_still_worth(struct reuse_gauge *g, bool hit)
{
	g->hits += hit;
	if (++g->lookups % (g->period ? g->period : 65536) == 0 && g->hits < g->lookups / 4)
		g->given_up = true;
	return !g->given_up;
}

/* The items of raw sequence seq (of the first range or of the second), *n of them. */
static inline const uint32_t *raw_items(const struct etl_reader *r, uint32_t seq, size_t *n)
{
	if (seq & SECOND_RANGE_SEQ)
		return pc_seq(&r->raw_second, seq & ~SECOND_RANGE_SEQ, n);
	return pc_seq(&r->raw, seq, n);
}

/* Address i of a raw sequence's items. */
static inline uint64_t raw_address(const uint32_t *items, size_t i)
{
	return items[2 * i] | (uint64_t)items[2 * i + 1] << 32;
}

/* ---- resolving ---- */

/* qsort for arrays that may be empty (and NULL). */
static inline void sort_items(void *items, size_t n, size_t size,
			      int (*compare)(const void *, const void *))
{
	if (n > 1)
		qsort(items, n, size, compare);
}

static inline bool is_kernel_address(const struct etl_reader *r, uint64_t address)
{
	return address >= (r->pointer_size == 4 ? KERNEL_BOUNDARY_32 : KERNEL_BOUNDARY_64);
}

/*
 * After the keys are resolved: puts the images and threads in order and
 * adds every sample to the model (etl_samples.c). 0, or -1 when a count
 * would pass 2^63-1.
 */
int etl_emit_samples(struct etl_reader *r);
/* Puts the threads in order for etl_thread_process (etl_emit_samples does). */
void etl_sort_threads(struct etl_reader *r);
/*
 * The process of thread tid at time: its last Thread event at or before
 * then (else its first).
 */
bool etl_thread_process(const struct etl_reader *r, uint32_t tid, uint64_t time, uint32_t *pid);
/* The name of process pid at time: its last Process event at or before then, else its first. */
pc_str_id etl_process_name(const struct etl_reader *r, uint32_t pid, uint64_t time);

#endif
