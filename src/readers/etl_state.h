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
	bool retired;               /* streaming: counted in its group (etl_stream.c) */
};

/* Whether a fragment's last address is the kernel's: known once its addresses and the pointer size are. */
enum fragment_side { SIDE_UNKNOWN, SIDE_USER, SIDE_KERNEL };

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
	uint8_t side;               /* enum fragment_side */
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
	uint32_t order;             /* read order: ties of (tid, time) keep it */
};

/*
 * What decides a sample's model sample: its fragments' raw sequences (else
 * its IP), its thread and process, and the images' epoch of its time,
 * within which every address stays in the same image: the last image load
 * or unload time at or before it (0: none). Samples of one key are added
 * to the model at once (group_samples, etl_stream.c).
 */
struct sample_key {
	uint64_t ip;                  /* when it has no fragment */
	uint64_t epoch;
	uint32_t kernel, user;        /* raw sequences, 0: none */
	uint32_t tid, pid;            /* pid when has_pid */
	bool has_pid;
};

/* Where the keys of samples in time order are: both only move forward. */
struct key_cursor {
	size_t fragment;              /* first_fragment's */
	size_t epoch;                 /* epochs at or before the last sample's time */
};

/* The images' epochs: their load and unload times, sorted, each once. */
struct epochs {
	uint64_t *times;
	size_t n;
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
	struct etl_stream *stream;  /* reading with samples retired as it goes, or NULL */
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

/* A resolved fragment's side, from its last address. */
static inline enum fragment_side fragment_side(const struct etl_reader *r,
					       const struct fragment *f)
{
	size_t n;

	if (!f->count)
		return SIDE_USER;
	return is_kernel_address(r, raw_address(raw_items(r, f->seq, &n), f->count - 1)) ?
	       SIDE_KERNEL : SIDE_USER;
}

/*
 * After the keys are resolved: puts the images and threads in order and
 * adds every sample to the model (etl_samples.c). 0, or -1 when a count
 * would pass 2^63-1.
 */
int etl_emit_samples(struct etl_reader *r);
/*
 * The key of sample i (of the sorted samples), the samples before it
 * taken in order through c, which starts zeroed.
 */
void etl_sample_key(const struct etl_reader *r, const struct epochs *epochs,
		    struct key_cursor *c, size_t i, struct sample_key *k);
uint64_t etl_key_hash(const struct sample_key *k);
bool etl_same_key(const struct sample_key *a, const struct sample_key *b);
/*
 * Resolves the key references among the n fragments (each once) through
 * the sorted key definitions and first, their index (etl_reader.c);
 * returns how many refer to a key never defined at or after their time.
 * hints: nkeys + 1 zeroed entries the search may keep its answers in from
 * call to call, or NULL.
 */
uint64_t etl_resolve_fragments(const struct etl_reader *r, const struct pc_index *first,
			       struct fragment *fragments, size_t n, uint32_t *hints);
/* Indexes each key's first definition (+ 1) among the sorted definitions. */
void etl_index_first_definitions(const struct etl_reader *r, struct pc_index *first);
/* The samples' and fragments' order (time, thread, processor). */
void etl_sort_samples(struct etl_reader *r);

/* ---- streaming (etl_stream.c) ---- */

/*
 * Whether to read in's trace in one streaming pass, after a first pass for
 * the key definitions: its samples retired into groups as the trace goes
 * (see etl_stream.c), so that memory follows the distinct stacks and not
 * the samples. Starts r->stream when so.
 */
bool etl_stream_start(struct etl_reader *r, const struct pc_input *in);
void etl_stream_free(struct etl_reader *r);
/* An event's time on its processor: false (r->stream->failed) when it goes back. */
bool etl_stream_note(struct etl_reader *r, const struct etl_event *ev);
/* Why the stream fails (the trace is then read the whole way), or NULL. */
const char *etl_stream_failed(const struct etl_reader *r);
void etl_stream_fail(struct etl_reader *r, const char *why);
/* After each sample: retires what can be, now and then. */
void etl_stream_sample_added(struct etl_reader *r);
/* A Thread event: fails the stream when it would change the process of retired samples. */
void etl_stream_thread(struct etl_reader *r, const struct thread *t);
/* At the end of the trace: retires the rest; false when the stream failed. */
bool etl_stream_finish(struct etl_reader *r);
/*
 * Samples of one key that the stream retired: how many, and the first of
 * them in the samples' order (time, thread, processor, then the order the
 * groups were made in).
 */
struct stream_group {
	struct sample_key key;
	uint64_t time, made, count;
	uint32_t thread;            /* its thread among the stream's retired ones */
	uint8_t cpu;
};

/* The stream's groups in the order of their first samples. */
const struct stream_group *etl_stream_groups(struct etl_reader *r, size_t *n);
/* All samples read, their first and last times (streaming or not). */
void etl_sample_span(const struct etl_reader *r, uint64_t *n, uint64_t *first, uint64_t *last);

/* Puts the threads in order for etl_thread_process (etl_emit_samples does). */
void etl_sort_threads(struct etl_reader *r);
/*
 * The process of thread tid at time: its last Thread event at or before
 * then (else its first).
 */
bool etl_thread_process(const struct etl_reader *r, uint32_t tid, uint64_t time, uint32_t *pid);
/*
 * Whether thread tid has a Thread event at or before time (1: the last of
 * them at *when), only later ones (0: the first of them at *when), or none
 * (-1); the threads in order.
 */
int etl_thread_at(const struct etl_reader *r, uint32_t tid, uint64_t time, uint64_t *when);
/* The name of process pid at time: its last Process event at or before then, else its first. */
pc_str_id etl_process_name(const struct etl_reader *r, uint32_t pid, uint64_t time);

#endif
