/*
 * etl_reader.c - reads the CPU samples of an ETW trace (.etl, from WPR,
 * xperf, PerfView or Visual Studio) into the model.
 *
 * Source: ../shared/research/etl.md sections 4-6 (the kernel events'
 * payloads and the rule set that reproduces PerfView's and snail-server's
 * call trees); the buffers and event headers are etl_file.c's.
 * What maps where:
 *   PerfInfo SampledProfile -> one sample (column samples/count, and
 *                         cpu/nanoseconds from the sampling interval, 1 ms
 *                         unless SampledProfileInterval says otherwise);
 *                         every sample is kept, the Idle process's too
 *   StackWalk Stack, StackKeyKernel/User -> the sample's stack: the
 *                         fragments of the same (EventTimeStamp, thread),
 *                         its processor breaking ties, the kernel one
 *                         before the user one; a key reference takes the
 *                         first KeyCreate/KeyDelete/KeyRundown definition
 *                         of that key at or after its own time; no stack:
 *                         the sample's IP
 *   address             -> the image loaded at the sample's time in its
 *                         process (kernel addresses in process 0): module
 *                         = the image (its path; its PDB GUID and age from
 *                         KernelTraceControl DbgID_RSDS), frame = its RVA;
 *                         else a frame of no module at the address
 *   Process, Thread     -> labels pid, tid (numeric) and comm (the image
 *                         name of the process; the thread's process from
 *                         the Thread events, else the sample's own)
 *   EventTrace header   -> comments (OS version, CPUs, pointer size),
 *                         time_nanos (StartTime), duration (first to last
 *                         sample)
 * What is lost: every event but those above (they are counted by
 * `profconv info`), sample priorities and DPC/ISR flags, thread names.
 * A regular file of 4 MiB or more is read in two ranges at once
 * (read_in_parallel), with the result of one.
 */
#include "readers/etl_reader.h"

#include "base/index.h"
#include "base/seqs.h"
#include "base/sort.h"
#include "base/threads.h"
#include "base/utf16.h"
#include "model/format.h"

#define HOOK_TRACE_HEADER 0x0000
#define HOOK_SAMPLE 0x0F2E
#define HOOK_INTERVAL_SET 0x0F48
#define HOOK_INTERVAL_START 0x0F49
#define HOOK_STACK 0x1820
#define HOOK_KEY_CREATE 0x1822
#define HOOK_KEY_DELETE 0x1823
#define HOOK_KEY_RUNDOWN 0x1824
#define HOOK_KEY_KERNEL 0x1825
#define HOOK_KEY_USER 0x1826
#define HOOK_IMAGE_LOAD 0x030A
#define HOOK_IMAGE_UNLOAD 0x1402
#define HOOK_IMAGE_DCSTART 0x1403
#define HOOK_IMAGE_DCEND 0x1404
#define HOOK_IMAGE_KERNELBASE 0x1421
#define HOOK_PROCESS_START 0x0301
#define HOOK_PROCESS_DCSTART 0x0303
#define HOOK_PROCESS_DCEND 0x0304
#define HOOK_THREAD_START 0x0501
#define HOOK_THREAD_DCSTART 0x0503
#define HOOK_THREAD_DCEND 0x0504
#define KTC_DBGID_RSDS 0x24
#define KERNEL_BOUNDARY_64 0xFFFF800000000000ULL
#define KERNEL_BOUNDARY_32 0x80000000ULL
#define MAX_STACK 1024
/*
 * A regular file this big or bigger is read in two ranges at once (see
 * read_in_parallel). The second range's raw sequence ids carry
 * SECOND_RANGE_SEQ, so each range holds fewer than ETL_RANGE_SEQS_MAX of them;
 * a range that would hold more makes the file read again sequentially
 * (the fuzz build lowers the bound to reach that path).
 */
#define PARALLEL_MIN_BYTES ((uint64_t)4 << 20)
#define SECOND_RANGE_SEQ 0x80000000u
#ifndef ETL_RANGE_SEQS_MAX
#define ETL_RANGE_SEQS_MAX SECOND_RANGE_SEQ
#endif

/* KernelTraceControl's class GUID b3e675d7-2554-4f18-830b-2762732560de, as stored. */
static const uint8_t kernel_trace_control[16] = {
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde,
};

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
 * at every 65,536th lookup), where it would only cost time and memory. The
 * output is the same either way.
 */
struct reuse_gauge {
	uint64_t lookups, hits;
	bool given_up;
};

/* Counts a lookup; false once the cache is given up (from this lookup on). */
static bool reuse_still_worth(struct reuse_gauge *g, bool hit)
{
	g->hits += hit;
	if (++g->lookups % 65536 == 0 && g->hits < g->lookups / 4)
		g->given_up = true;
	return !g->given_up;
}

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

/* ---- collecting ---- */

/*
 * The addresses of a stack event from payload offset at on (at most
 * MAX_STACK), kept as a raw sequence: its id (0 for none), *count of them.
 * They are interned, so that a repeated stack is kept once, until the
 * trace shows stacks that hardly repeat (raw_reuse); from then on each is
 * appended as it comes, which is cheaper (equal stacks then have ids of
 * their own, and meet in the model).
 */
static uint32_t keep_frames(struct etl_reader *r, const struct etl_event *ev, size_t at,
			    uint32_t *count)
{
	size_t n = ev->payload_len > at ? (ev->payload_len - at) / ev->pointer_size : 0;
	const uint8_t *p = ev->payload + at;

	if (n > MAX_STACK)
		n = MAX_STACK;
	for (size_t i = 0; i < n && ev->pointer_size == 8; i++) { /* in bounds: n fits the payload */
		r->raw_scratch[2 * i] = pc_le32(p + 8 * i);
		r->raw_scratch[2 * i + 1] = pc_le32(p + 8 * i + 4);
	}
	for (size_t i = 0; i < n && ev->pointer_size == 4; i++) {
		r->raw_scratch[2 * i] = pc_le32(p + 4 * i);
		r->raw_scratch[2 * i + 1] = 0;
	}
	*count = (uint32_t)n;
	if (!n)
		return 0;
	if (r->in_range && r->raw.count >= ETL_RANGE_SEQS_MAX) {
		r->range_seqs_full = true; /* the ranges are given up */
		*count = 0;
		return 0;
	}
	if (!r->raw_reuse.given_up) {
		size_t before = r->raw.count;
		uint32_t seq = pc_seqs_add(&r->raw, r->raw_scratch, 2 * n);

		reuse_still_worth(&r->raw_reuse, r->raw.count == before);
		return seq | r->seq_tag;
	}
	return pc_seqs_append(&r->raw, r->raw_scratch, 2 * n) | r->seq_tag;
}

/* The items of raw sequence seq (of the first range or of the second), *n of them. */
static const uint32_t *raw_items(const struct etl_reader *r, uint32_t seq, size_t *n)
{
	if (seq & SECOND_RANGE_SEQ)
		return pc_seq(&r->raw_second, seq & ~SECOND_RANGE_SEQ, n);
	return pc_seq(&r->raw, seq, n);
}

/* Address i of a raw sequence's items. */
static uint64_t raw_address(const uint32_t *items, size_t i)
{
	return items[2 * i] | (uint64_t)items[2 * i + 1] << 32;
}

static void on_trace_header(struct etl_reader *r, const struct etl_event *ev)
{
	size_t p = ev->pointer_size == 8 ? 8 : 0;
	uint32_t version = etl_u32(ev, 4);

	if (r->have_header)
		return;
	r->have_header = true;
	r->pointer_size = etl_u32(ev, 44) == 4 ? 4 : 8;
	r->cpus = etl_u32(ev, 12);
	r->os_major = version & 0xFF;
	r->os_minor = version >> 8 & 0xFF;
	r->os_build = etl_u32(ev, 8);
	r->perf_freq = etl_u64(ev, 248 + p);
	r->start_filetime = etl_u64(ev, 256 + p);
	r->header_time = ev->time;
}

static void on_sample(struct etl_reader *r, const struct etl_event *ev)
{
	pc_grow(&r->samples, &r->samples_cap, r->nsamples + 1, sizeof(*r->samples));
	r->samples[r->nsamples++] = (struct sample){
		.time = ev->time, .ip = etl_pointer(ev, 0),
		.tid = etl_u32(ev, ev->pointer_size), .cpu = (uint8_t)ev->cpu,
		.in_dpc_or_isr = (etl_u16(ev, ev->pointer_size + 6) & 3) != 0,
	};
}

static void on_stack(struct etl_reader *r, const struct etl_event *ev, bool by_key)
{
	struct fragment f = {
		.time = etl_u64(ev, 0), .pid = etl_u32(ev, 8), .tid = etl_u32(ev, 12),
		.cpu = (uint8_t)ev->cpu, .by_key = by_key,
	};

	if (by_key) {
		f.key = etl_pointer(ev, 16);
		f.ref_time = ev->time;
	} else {
		f.seq = keep_frames(r, ev, 16, &f.count);
		f.resolved = true;
	}
	pc_grow(&r->fragments, &r->fragments_cap, r->nfragments + 1, sizeof(*r->fragments));
	r->fragments[r->nfragments++] = f;
}

static void on_key_definition(struct etl_reader *r, const struct etl_event *ev)
{
	struct key_definition k = { .key = etl_pointer(ev, 0), .time = ev->time };

	k.seq = keep_frames(r, ev, ev->pointer_size, &k.count);
	pc_grow(&r->keys, &r->keys_cap, r->nkeys + 1, sizeof(*r->keys));
	r->keys[r->nkeys++] = k;
}

/* UTF-16 text at payload[at, ...) up to its NUL, interned as UTF-8. */
static pc_str_id utf16_text(struct etl_reader *r, const struct etl_event *ev, size_t at)
{
	size_t end = at, len;
	uint8_t *utf8;
	pc_str_id id;
	size_t bad;

	while (end + 1 < ev->payload_len && (ev->payload[end] || ev->payload[end + 1]))
		end += 2;
	if (at >= end)
		return 0;
	utf8 = pc_xmalloc(PC_UTF16_UTF8_MAX(end - at) + 1);
	if (pc_utf16_to_utf8(ev->payload + at, end - at, PC_UTF16_LE, utf8, &len, &bad))
		len = len; /* a lone surrogate: the text before it */
	id = pc_model_intern(r->m, utf8, len);
	free(utf8);
	return id;
}

/* The image's file name: its path after the last '\\'. */
static pc_str_id file_name(struct etl_reader *r, const struct etl_event *ev, size_t at)
{
	pc_str_id path = utf16_text(r, ev, at);
	const char *text = pc_str(r->m, path), *slash = strrchr(text, '\\');

	return slash ? pc_model_intern_cstr(r->m, slash + 1) : path;
}

static void on_image(struct etl_reader *r, const struct etl_event *ev)
{
	size_t p = ev->pointer_size;
	struct image im = {
		.base = etl_pointer(ev, 0), .size = etl_pointer(ev, p),
		.pid = (int32_t)etl_u32(ev, 2 * p), .unloaded = UINT64_MAX,
		.loaded = ev->hook == HOOK_IMAGE_LOAD ? ev->time : 0, /* rundowns: there before */
	};

	if (ev->hook == HOOK_IMAGE_UNLOAD) { /* applied by time once all are read */
		pc_grow(&r->unloads, &r->unloads_cap, r->nunloads + 1, sizeof(*r->unloads));
		r->unloads[r->nunloads++] = (struct unload){ im.pid, im.base, ev->time };
		return;
	}
	im.path = file_name(r, ev, 3 * p + 32);
	pc_grow(&r->images, &r->images_cap, r->nimages + 1, sizeof(*r->images));
	r->images[r->nimages++] = im;
}

static void on_dbgid(struct etl_reader *r, const struct etl_event *ev)
{
	size_t p = ev->pointer_size;
	const uint8_t *g;
	struct pdb_record rec = { .base = etl_pointer(ev, 0), .pid = (int32_t)etl_u32(ev, p) };

	if (ev->payload_len < p + 24)
		return;
	g = ev->payload + p + 4;
	rec.pdb.data1 = pc_le32(g);
	rec.pdb.data2 = pc_le16(g + 4);
	rec.pdb.data3 = pc_le16(g + 6);
	memcpy(rec.pdb.data4, g + 8, 8);
	rec.pdb.age = etl_u32(ev, p + 20);
	pc_grow(&r->pdbs, &r->pdbs_cap, r->npdbs + 1, sizeof(*r->pdbs));
	r->pdbs[r->npdbs++] = rec;
}

/* The ImageFileName of a Process event: after the SID, whose size depends on it. */
static void on_process(struct etl_reader *r, const struct etl_event *ev)
{
	size_t p = ev->pointer_size, at = ev->version >= 4 ? 2 * p + 20 : 2 * p + 16, end;
	struct process pr = { .pid = etl_u32(ev, p), .time = ev->time };

	if (etl_u32(ev, at) == 0) {
		at += 4;
	} else {
		size_t sid = at + 2 * p;

		if (sid + 2 > ev->payload_len)
			return;
		at = sid + 8 + 4 * (size_t)ev->payload[sid + 1];
	}
	for (end = at; end < ev->payload_len && ev->payload[end]; end++)
		;
	if (at >= ev->payload_len)
		return;
	pr.name = pc_model_intern(r->m, ev->payload + at, end - at);
	pc_grow(&r->processes, &r->processes_cap, r->nprocesses + 1, sizeof(*r->processes));
	r->processes[r->nprocesses++] = pr;
}

static void on_interval(struct etl_reader *r, const struct etl_event *ev)
{
	if (etl_u32(ev, 0) == 0 && etl_u32(ev, 4)) /* source 0: the timer */
		r->interval_100ns = etl_u32(ev, 4);
}

static void on_thread(struct etl_reader *r, const struct etl_event *ev)
{
	struct thread t = { .pid = etl_u32(ev, 0), .tid = etl_u32(ev, 4), .time = ev->time };

	if (ev->hook == HOOK_THREAD_DCSTART || ev->hook == HOOK_THREAD_DCEND)
		t.time = 0; /* a rundown: it was there before */
	pc_grow(&r->threads, &r->threads_cap, r->nthreads + 1, sizeof(*r->threads));
	r->threads[r->nthreads++] = t;
}

/* Keeps a copy of ev for the first range's reader (events come one at a time). */
static void defer(struct deferred *d, const struct etl_event *ev)
{
	pc_grow(&d->events, &d->cap, d->n + 1, sizeof(*d->events));
	pc_grow(&d->bytes, &d->bytes_cap, d->nbytes + ev->payload_len + 1, 1);
	memcpy(d->bytes + d->nbytes, ev->payload, ev->payload_len);
	d->events[d->n++] = (struct deferred_event){ .ev = *ev, .payload_at = d->nbytes };
	d->nbytes += ev->payload_len;
}

/*
 * An event that the trace's state (images, processes, threads, the header)
 * is made of: handled now, or, by the second range's reader, left to the
 * first range's reader, which takes them after its own, in file order.
 */
static void track(struct etl_reader *r, const struct etl_event *ev,
		  void (*handle)(struct etl_reader *, const struct etl_event *))
{
	if (r->deferred)
		defer(r->deferred, ev);
	else
		handle(r, ev);
}

static int on_event(void *data, const struct etl_event *ev)
{
	struct etl_reader *r = data;

	if (ev->kind == ETL_CLASSIC) {
		if (!memcmp(ev->guid, kernel_trace_control, 16) && ev->opcode == KTC_DBGID_RSDS)
			track(r, ev, on_dbgid);
		return 0;
	}
	if (ev->kind != ETL_SYSTEM && ev->kind != ETL_PERFINFO)
		return 0;
	switch (ev->hook) {
	case HOOK_TRACE_HEADER:
		track(r, ev, on_trace_header);
		break;
	case HOOK_SAMPLE:
		on_sample(r, ev);
		break;
	case HOOK_INTERVAL_SET:
	case HOOK_INTERVAL_START:
		track(r, ev, on_interval);
		break;
	case HOOK_STACK:
		on_stack(r, ev, false);
		break;
	case HOOK_KEY_KERNEL:
	case HOOK_KEY_USER:
		on_stack(r, ev, true);
		break;
	case HOOK_KEY_CREATE:
	case HOOK_KEY_DELETE:
	case HOOK_KEY_RUNDOWN:
		on_key_definition(r, ev);
		break;
	case HOOK_IMAGE_LOAD:
	case HOOK_IMAGE_UNLOAD:
	case HOOK_IMAGE_DCSTART:
	case HOOK_IMAGE_DCEND:
	case HOOK_IMAGE_KERNELBASE:
		track(r, ev, on_image);
		break;
	case HOOK_PROCESS_START:
	case HOOK_PROCESS_DCSTART:
	case HOOK_PROCESS_DCEND:
		track(r, ev, on_process);
		break;
	case HOOK_THREAD_START:
	case HOOK_THREAD_DCSTART:
	case HOOK_THREAD_DCEND:
		track(r, ev, on_thread);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- resolving ---- */

/* qsort for arrays that may be empty (and NULL). */
static void sort_items(void *items, size_t n, size_t size, int (*compare)(const void *, const void *))
{
	if (n > 1)
		qsort(items, n, size, compare);
}

static int compare_keys(const void *a, const void *b)
{
	const struct key_definition *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

static bool first_definition_equal(const void *ctx, uint32_t id, const void *key)
{
	return ((const struct etl_reader *)ctx)->keys[id - 1].key == *(const uint64_t *)key;
}

/* Definition at is of key and before time (they are sorted by key, then time). */
static bool defined_before(const struct etl_reader *r, size_t at, uint64_t key, uint64_t time)
{
	return at < r->nkeys && r->keys[at].key == key && r->keys[at].time < time;
}

/*
 * The first definition of key at or after time, from its first definition
 * first on (a gallop, then a binary search), or nkeys when there is none.
 */
static size_t definition_from(const struct etl_reader *r, size_t first, uint64_t key,
			      uint64_t time)
{
	size_t lo = first, hi, step = 1;

	if (!defined_before(r, first, key, time))
		return first;
	while (defined_before(r, lo + step, key, time)) { /* defined_before(lo) holds */
		lo += step;
		step *= 2;
	}
	hi = lo + step; /* defined_before(hi) does not hold, or hi is past the end */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (defined_before(r, mid, key, time))
			lo = mid;
		else
			hi = mid;
	}
	return hi < r->nkeys && r->keys[hi].key == key ? hi : r->nkeys;
}

/*
 * A key reference takes the first definition of its key at or after its
 * own time (the definitions sorted by sort_collected): found from the
 * key's first definition (an index of them).
 */
static void resolve_keys(struct etl_reader *r)
{
	struct pc_index first; /* of each key's first definition, + 1 */

	pc_index_init(&first);
	for (size_t i = 0; i < r->nkeys; i++)
		if (!i || r->keys[i].key != r->keys[i - 1].key)
			pc_index_add(&first, pc_hash_u64(r->keys[i].key), (uint32_t)(i + 1));
	for (size_t i = 0; i < r->nfragments; i++) {
		struct fragment *f = &r->fragments[i];
		uint32_t at;
		size_t k;

		if (!f->by_key)
			continue;
		at = pc_index_find(&first, pc_hash_u64(f->key), first_definition_equal, r, &f->key);
		k = at ? definition_from(r, at - 1, f->key, f->ref_time) : r->nkeys;
		if (k < r->nkeys) {
			f->seq = r->keys[k].seq;
			f->count = r->keys[k].count;
			f->resolved = true;
		} else {
			r->undefined_keys++;
		}
	}
	pc_index_release(&first);
}

static int compare_fragments(const void *a, const void *b)
{
	const struct fragment *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * The first fragment of (time, tid), or nfragments, looked for from *cursor
 * on (samples are taken in the fragments' order, so it only moves forward).
 */
static size_t first_fragment(const struct etl_reader *r, size_t *cursor, uint64_t time,
			     uint32_t tid)
{
	size_t i = *cursor;

	while (i < r->nfragments && (r->fragments[i].time < time ||
				     (r->fragments[i].time == time && r->fragments[i].tid < tid)))
		i++;
	*cursor = i;
	return i;
}

static bool is_kernel_address(const struct etl_reader *r, uint64_t address)
{
	return address >= (r->pointer_size == 4 ? KERNEL_BOUNDARY_32 : KERNEL_BOUNDARY_64);
}

static int compare_images(const void *a, const void *b)
{
	const struct image *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->base != y->base)
		return x->base < y->base ? -1 : 1;
	return (x->loaded > y->loaded) - (x->loaded < y->loaded);
}

static int compare_pdbs(const void *a, const void *b)
{
	const struct pdb_record *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->base > y->base) - (x->base < y->base);
}

static int compare_unloads(const void *a, const void *b)
{
	const struct unload *x = a, *y = b;

	return (x->time > y->time) - (x->time < y->time);
}

/*
 * Each Unload, in time order, ends the image of its process and base
 * loaded last before it (buffers are per CPU: file order is not time
 * order).
 */
static void apply_unloads(struct etl_reader *r)
{
	sort_items(r->unloads, r->nunloads, sizeof(*r->unloads), compare_unloads);
	for (size_t u = 0; u < r->nunloads; u++) {
		const struct unload *un = &r->unloads[u];
		struct image *best = NULL;

		for (size_t i = 0; i < r->nimages; i++) { /* few unloads: a scan */
			struct image *im = &r->images[i];

			if (im->pid == un->pid && im->base == un->base && im->loaded <= un->time &&
			    im->unloaded == UINT64_MAX && (!best || im->loaded >= best->loaded))
				best = im;
		}
		if (best)
			best->unloaded = un->time;
	}
}

/* Each image's PDB identity: the DbgID_RSDS of its process and base. */
static void attach_pdbs(struct etl_reader *r)
{
	size_t j = 0;

	sort_items(r->images, r->nimages, sizeof(*r->images), compare_images);
	apply_unloads(r);
	sort_items(r->pdbs, r->npdbs, sizeof(*r->pdbs), compare_pdbs);
	for (size_t i = 0; i < r->nimages; i++) {
		struct image *im = &r->images[i];

		while (j < r->npdbs && (r->pdbs[j].pid < im->pid ||
					(r->pdbs[j].pid == im->pid && r->pdbs[j].base < im->base)))
			j++;
		if (j < r->npdbs && r->pdbs[j].pid == im->pid && r->pdbs[j].base == im->base) {
			im->has_pdb = true;
			im->pdb = r->pdbs[j].pdb;
		}
	}
}

/*
 * The image holding address in process pid at time, or NULL; [*from, *until)
 * is a span of time around time over which the answer stays the same:
 * inside the image's own life, and outside the life of every image of
 * that address looked at before it.
 */
static struct image *image_at(struct etl_reader *r, int32_t pid, uint64_t address, uint64_t time,
			      uint64_t *from, uint64_t *until)
{
	size_t lo = 0, hi = r->nimages;

	*from = 0;
	*until = UINT64_MAX;
	while (lo < hi) { /* the first image after (pid, address) */
		size_t mid = lo + (hi - lo) / 2;
		const struct image *im = &r->images[mid];

		if (im->pid < pid || (im->pid == pid && im->base <= address))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i > 0; i--) {
		struct image *im = &r->images[i - 1];

		if (im->pid != pid)
			break;
		if (address - im->base >= im->size)
			continue;
		if (time < im->loaded) {
			*until = im->loaded < *until ? im->loaded : *until;
		} else if (time >= im->unloaded) {
			*from = im->unloaded > *from ? im->unloaded : *from;
		} else {
			*from = im->loaded > *from ? im->loaded : *from;
			*until = im->unloaded < *until ? im->unloaded : *until;
			return im;
		}
	}
	return NULL;
}

static uint32_t image_module(struct etl_reader *r, struct image *im)
{
	struct pc_module module = { .name = im->path, .has_pdb = im->has_pdb, .pdb = im->pdb };
	char key[64];

	if (im->module)
		return im->module;
	if (im->has_pdb) {
		pc_pdb_id_key(&im->pdb, key, sizeof(key));
		module.build_id = pc_model_intern_cstr(r->m, key);
	}
	im->module = pc_model_add_module(r->m, &module);
	return im->module;
}

/*
 * The frame of address in process pid (kernel addresses: process 0) at
 * time, and the span [*from, *until) around time over which it holds; *unknown
 * when it is in no image known then.
 */
static struct pc_frame frame_at(struct etl_reader *r, int32_t pid, uint64_t address,
				uint64_t time, uint64_t *from, uint64_t *until, bool *unknown)
{
	struct image *im = image_at(r, is_kernel_address(r, address) ? 0 : pid, address, time,
				    from, until);
	struct pc_frame frame = { .flags = PC_FRAME_HAS_ADDRESS, .address = address };

	*unknown = !im || !im->path;
	if (!*unknown) {
		frame.module = image_module(r, im);
		frame.address = address - im->base;
	} else {
		frame.flags |= PC_FRAME_ABSOLUTE;
	}
	return frame;
}

static int compare_threads(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->time > y->time) - (x->time < y->time);
}

/* The process of thread tid at time: its last Thread event before then (else its first). */
static bool thread_process(const struct etl_reader *r, uint32_t tid, uint64_t time, uint32_t *pid)
{
	size_t lo = 0, hi = r->nthreads;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct thread *t = &r->threads[mid];

		if (t->tid < tid || (t->tid == tid && t->time <= time))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && r->threads[lo - 1].tid == tid) {
		*pid = r->threads[lo - 1].pid;
		return true;
	}
	if (lo < r->nthreads && r->threads[lo].tid == tid) {
		*pid = r->threads[lo].pid;
		return true;
	}
	return false;
}

/* The name of process pid at time: its last Process event before then, else its first. */
static pc_str_id process_name(const struct etl_reader *r, uint32_t pid, uint64_t time)
{
	const struct process *best = NULL;

	for (size_t i = 0; i < r->nprocesses; i++) { /* labels are cached: a scan */
		const struct process *p = &r->processes[i];

		if (p->pid != pid)
			continue;
		if (!best || (p->time <= time && (best->time > time || p->time >= best->time)) ||
		    (best->time > time && p->time < best->time))
			best = p;
	}
	return best ? best->name : 0;
}

static int compare_samples(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* ---- samples into the model ---- */

struct emitter {
	size_t fragment;              /* the cursor of first_fragment */
	int col_samples, col_cpu;
	uint64_t ns_per_sample;
	struct pc_frame *frames;      /* of the stack being resolved */
	uint32_t *frame_ids;
	struct pc_index label_index;  /* (pid, tid) -> label set + 1 */
	uint64_t *label_keys;
	uint32_t *label_sets;
	size_t nlabels, labels_cap;
};

static bool label_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct emitter *e = ctx;

	return e->label_keys[id - 1] == *(const uint64_t *)key;
}

static uint32_t labels_for(struct etl_reader *r, struct emitter *e, bool has_pid, uint32_t pid,
			   uint32_t tid, uint64_t time)
{
	uint64_t key = (uint64_t)(has_pid ? pid : UINT32_MAX) << 32 | tid;
	uint32_t at = pc_index_find(&e->label_index, pc_hash_u64(key), label_equal, e, &key);
	struct pc_label labels[3];
	size_t n = 0;
	pc_str_id comm;

	if (at)
		return e->label_sets[at - 1];
	comm = has_pid ? process_name(r, pid, time) : 0;
	if (comm)
		labels[n++] = (struct pc_label){ .key = r->key_comm, .str = comm };
	if (has_pid)
		labels[n++] = (struct pc_label){ .key = r->key_pid, .num = pid, .unit = r->key_pid };
	labels[n++] = (struct pc_label){ .key = r->key_tid, .num = tid, .unit = r->key_tid };
	if (e->nlabels == e->labels_cap) {
		size_t cap = e->labels_cap;

		pc_grow(&e->label_keys, &e->labels_cap, e->nlabels + 1, sizeof(*e->label_keys));
		pc_grow(&e->label_sets, &cap, e->nlabels + 1, sizeof(*e->label_sets));
	}
	e->label_keys[e->nlabels] = key;
	e->label_sets[e->nlabels++] = pc_model_add_labels(r->m, labels, n);
	pc_index_add(&e->label_index, pc_hash_u64(key), (uint32_t)e->nlabels);
	return e->label_sets[e->nlabels - 1];
}

static bool is_kernel_fragment(const struct etl_reader *r, const struct fragment *f)
{
	size_t n;

	return f->count && is_kernel_address(r, raw_address(raw_items(r, f->seq, &n),
							    f->count - 1));
}

/* The sample's fragments: the last kernel one and the last user one of its (time, thread). */
static void pick_fragments(const struct etl_reader *r, struct emitter *e, const struct sample *s,
			   bool shared, const struct fragment **kernel, const struct fragment **user)
{
	*kernel = *user = NULL;
	for (size_t i = first_fragment(r, &e->fragment, s->time, s->tid);
	     i < r->nfragments && r->fragments[i].time == s->time && r->fragments[i].tid == s->tid;
	     i++) {
		const struct fragment *f = &r->fragments[i];

		if (!f->resolved || (shared && f->cpu != s->cpu))
			continue;
		if (is_kernel_fragment(r, f))
			*kernel = f;
		else
			*user = f;
	}
}

static bool stack_memo_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct stack_memo *memo = &((const struct etl_reader *)ctx)->stack_memos[id - 1];
	const struct stack_memo *want = key;

	return memo->kernel == want->kernel && memo->user == want->user &&
	       memo->pid == want->pid && memo->ip == want->ip;
}

/* Adds the frame of address at time to memo's stack being made in e->frames[*n]. */
static void add_frame_at(struct etl_reader *r, struct emitter *e, struct stack_memo *memo,
			 uint64_t address, uint64_t time, size_t *n)
{
	uint64_t from, until;
	bool unknown;

	e->frames[(*n)++] = frame_at(r, memo->pid, address, time, &from, &until, &unknown);
	memo->unknown += unknown;
	memo->from = from > memo->from ? from : memo->from;
	memo->until = until < memo->until ? until : memo->until;
}

/*
 * Resolves memo's frames at time into a model stack (its kernel part, then
 * its user part, else its IP), and the span of time over which every one
 * of them holds.
 */
static void resolve_stack(struct etl_reader *r, struct emitter *e, struct stack_memo *memo,
			  uint64_t time)
{
	const uint32_t seqs[2] = { memo->kernel, memo->user };
	size_t n = 0;

	memo->from = 0;
	memo->until = UINT64_MAX;
	memo->unknown = 0;
	for (int k = 0; k < 2; k++) {
		size_t count;
		const uint32_t *items = raw_items(r, seqs[k], &count);

		for (size_t i = 0; i < count / 2; i++)
			add_frame_at(r, e, memo, raw_address(items, i), time, &n);
	}
	if (!n)
		add_frame_at(r, e, memo, memo->ip, time, &n);
	pc_model_add_frames(r->m, e->frames, n, e->frame_ids);
	memo->stack = pc_model_add_stack(r->m, e->frame_ids, n);
}

/* Drops the stack memo once it has been given up (memo_reuse). */
static bool memo_in_use(struct etl_reader *r)
{
	if (r->memo_reuse.given_up && r->stack_memos) {
		free(r->stack_memos);
		r->stack_memos = NULL;
		r->nstack_memos = r->stack_memos_cap = 0;
		pc_index_release(&r->stack_memo_index);
	}
	return !r->memo_reuse.given_up;
}

/*
 * The model stack of a sample in process pid (-1: unknown) from its kernel
 * and user fragments (either may be NULL), else its IP. Each such stack
 * keeps its last answer and the span of time over which all its frames
 * hold (image_at), so a repeated stack costs one lookup.
 */
static uint32_t sample_stack(struct etl_reader *r, struct emitter *e, const struct sample *s,
			     const struct fragment *kernel, const struct fragment *user, int32_t pid)
{
	struct stack_memo key = {
		.kernel = kernel ? kernel->seq : 0, .user = user ? user->seq : 0, .pid = pid,
	};
	uint64_t hash;
	uint32_t at;
	struct stack_memo *memo;

	if (!key.kernel && !key.user)
		key.ip = s->ip;
	if (!memo_in_use(r)) {
		resolve_stack(r, e, &key, s->time);
		r->unknown_frames += key.unknown;
		return key.stack;
	}
	hash = pc_hash_u64(((uint64_t)key.kernel << 32 | key.user) ^
			   pc_hash_u64(key.ip ^ (uint64_t)(uint32_t)pid << 32));
	at = pc_index_find(&r->stack_memo_index, hash, stack_memo_equal, r, &key);
	reuse_still_worth(&r->memo_reuse, at != 0);
	if (!at) {
		pc_grow(&r->stack_memos, &r->stack_memos_cap, r->nstack_memos + 1,
			sizeof(*r->stack_memos));
		r->stack_memos[r->nstack_memos++] = key;
		at = (uint32_t)r->nstack_memos;
		pc_index_add(&r->stack_memo_index, hash, at);
		memo = &r->stack_memos[at - 1];
		resolve_stack(r, e, memo, s->time);
	} else {
		memo = &r->stack_memos[at - 1];
		if (s->time < memo->from || s->time >= memo->until)
			resolve_stack(r, e, memo, s->time);
	}
	r->unknown_frames += memo->unknown;
	return memo->stack;
}

/* QPC ticks in nanoseconds (the trace's perf frequency), for the model's times. */
static int64_t ticks_to_nanos(const struct etl_reader *r, uint64_t ticks)
{
	uint64_t whole = ticks / r->perf_freq, part = ticks % r->perf_freq;

	if (whole > (uint64_t)INT64_MAX / 1000000000u - 1)
		return INT64_MAX;
	return (int64_t)(whole * 1000000000u + part * 1000000000u / r->perf_freq);
}

/* Adds the sample's count and CPU time, at its time when the trace gives a clock. */
static int add_sample(struct etl_reader *r, struct emitter *e, const struct sample *s,
		      const struct pc_sample *sample)
{
	const struct pc_column_count counts[2] = {
		{ (size_t)e->col_samples, 1 }, { (size_t)e->col_cpu, e->ns_per_sample },
	};
	int64_t nanos;

	if (!r->perf_freq || r->perf_freq > UINT64_MAX / 1000000000u)
		return pc_model_add_sample_counts(r->m, sample, counts, 2, NULL);
	nanos = ticks_to_nanos(r, s->time);
	return pc_model_add_sample_counts(r->m, sample, counts, 2, &nanos);
}

static int emit_sample(struct etl_reader *r, struct emitter *e, const struct sample *s,
		       bool shared)
{
	uint32_t pid = 0;
	bool has_pid = s->tid == 0 || thread_process(r, s->tid, s->time, &pid);
	struct pc_sample sample = { 0 };
	const struct fragment *kernel, *user;
	uint32_t stack_pid;

	pick_fragments(r, e, s, shared, &kernel, &user);
	stack_pid = user ? user->pid : kernel ? kernel->pid : UINT32_MAX;
	if (!has_pid && stack_pid != UINT32_MAX) { /* the stack says whose it is */
		pid = stack_pid;
		has_pid = true;
	}
	sample.stack = sample_stack(r, e, s, kernel, user, has_pid ? (int32_t)pid : -1);
	sample.labels = labels_for(r, e, has_pid, pid, s->tid, s->time);
	if (add_sample(r, e, s, &sample))
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "the sample counts pass 2^63-1");
	return 0;
}

static int emit_samples(struct etl_reader *r)
{
	struct emitter e = { 0 };
	int ret = 0;

	e.ns_per_sample = (r->interval_100ns ? r->interval_100ns : 10000) * 100;
	e.col_samples = pc_model_add_event_column(r->m, "samples", "count", "cpu", PC_ROLE_SAMPLES);
	e.col_cpu = pc_model_add_event_column(r->m, "cpu", "nanoseconds", "cpu", PC_ROLE_WEIGHT);
	if (e.col_samples < 0 || e.col_cpu < 0)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "more than %d value columns",
			       PC_MAX_COLUMNS);
	if (pc_model_default_column(r->m) < 0)
		pc_model_set_default_column(r->m, e.col_samples);
	e.frames = pc_xmalloc(2 * MAX_STACK * sizeof(*e.frames));
	e.frame_ids = pc_xmalloc(2 * MAX_STACK * sizeof(*e.frame_ids));
	pc_index_init(&e.label_index);
	for (size_t i = 0; i < r->nsamples && !ret; i++) {
		const struct sample *s = &r->samples[i];
		bool shared = (i > 0 && s[-1].time == s->time && s[-1].tid == s->tid) ||
			      (i + 1 < r->nsamples && s[1].time == s->time && s[1].tid == s->tid);

		ret = emit_sample(r, &e, s, shared);
	}
	free(e.frames);
	free(e.frame_ids);
	free(e.label_keys);
	free(e.label_sets);
	pc_index_release(&e.label_index);
	return ret;
}

/* ---- the end ---- */

static void add_metadata(struct etl_reader *r, const struct etl_file_stats *stats)
{
	pc_model_add_source(r->m, ETL_FORMAT);
	if (r->have_header) {
		pc_model_add_comment(r->m, "etl: Windows %u.%u build %u, %u CPUs, %u-bit pointers",
				     r->os_major, r->os_minor, r->os_build, r->cpus,
				     8 * r->pointer_size);
		if (r->start_filetime > 116444736000000000ULL &&
		    r->start_filetime - 116444736000000000ULL <= (uint64_t)INT64_MAX / 100)
			pc_model_set_time(r->m, (int64_t)((r->start_filetime - 116444736000000000ULL) *
							  100), pc_model_duration_nanos(r->m));
	}
	if (r->nsamples > 1 && r->perf_freq) {
		uint64_t ticks = r->samples[r->nsamples - 1].time - r->samples[0].time;
		double nanos = (double)ticks * 1e9 / (double)r->perf_freq;

		if (nanos < 9.2e18) /* else a damaged clock: no duration */
			pc_model_set_time(r->m, pc_model_time_nanos(r->m), (int64_t)nanos);
	}
	if (stats->lost_buffers)
		pc_model_add_comment(r->m, "etl: %llu buffers report lost events",
				     (unsigned long long)stats->lost_buffers);
}

static int warn_gaps(struct etl_reader *r)
{
	if (!r->nsamples && !pc_model_nsamples(r->m)) /* notices: nothing of the input is lost */
		pc_notice(r->ctx, ETL_FORMAT, "no CPU samples in the trace: record them with the "
			  "kernel's PROFILE flag (xperf -on PROC_THREAD+LOADER+PROFILE -stackwalk "
			  "Profile, or wpr -start CPU)");
	if (r->unknown_frames)
		pc_notice(r->ctx, ETL_FORMAT, "%llu frame(s) in no image known at their time: kept "
			  "as addresses without a module", (unsigned long long)r->unknown_frames);
	if (r->undefined_keys &&
	    pc_warn(r->ctx, ETL_FORMAT, "%llu stack key reference(s) never defined: those "
		    "samples keep the other part of their stack, or their IP",
		    (unsigned long long)r->undefined_keys))
		return -1;
	return 0;
}

static void reader_release(struct etl_reader *r)
{
	free(r->samples);
	free(r->fragments);
	free(r->keys);
	pc_seqs_release(&r->raw);
	pc_seqs_release(&r->raw_second);
	free(r->images);
	free(r->pdbs);
	free(r->unloads);
	free(r->processes);
	free(r->threads);
	free(r->stack_memos);
	pc_index_release(&r->stack_memo_index);
}

/*
 * Puts what a reader collected in order, stably: the key definitions by
 * key, then time (glibc's qsort keeps ties in file order: a merge sort
 * below a quarter of the memory; an index sort measured slower), the
 * fragments and the samples by time and thread (a processor's buffers
 * hold its events in time order, or nearly).
 */
static void sort_collected(struct etl_reader *r)
{
	sort_items(r->keys, r->nkeys, sizeof(*r->keys), compare_keys);
	pc_sort_streams(r->fragments, r->nfragments, sizeof(*r->fragments),
			offsetof(struct fragment, cpu), compare_fragments);
	pc_sort_streams(r->samples, r->nsamples, sizeof(*r->samples), offsetof(struct sample, cpu),
			compare_samples);
}

/* ---- two ranges at once ---- */

/*
 * The second range of a trace, read on a thread of its own by a reader
 * of its own: it collects the samples, stack fragments and key definitions
 * (over raw sequences of its own, whose ids carry SECOND_RANGE_SEQ) and
 * leaves every other event it would handle to the first range's reader.
 * The model is not touched on its thread.
 */
struct second_range {
	struct pc_ctx ctx;
	struct pc_input in;
	struct etl_split split;
	struct etl_reader r;
	struct deferred deferred;
	struct etl_file_stats stats;
	int ret;
};

static void *read_second_range(void *arg)
{
	struct second_range *s = arg;

	s->ret = etl_read_range(&s->ctx, &s->in, &s->split, on_event, &s->r, &s->stats);
	if (!s->ret)
		sort_collected(&s->r);
	return NULL;
}

/*
 * Merges the nmore items of *more into *items (n of them, room for *cap),
 * both sorted by compare, from the back, in place: those of *items first
 * where they tie, as a stable sort of both in file order places them.
 * Frees *more at once, so that only one array is held twice at a time.
 */
static void merge_items(void *items, size_t *n, size_t *cap, void *more, size_t *nmore,
			size_t size, int (*compare)(const void *, const void *))
{
	char **from = more, *to;
	size_t i = *n, j = *nmore, k = *n + *nmore;

	if (j) {
		pc_grow(items, cap, k, size);
		to = *(char **)items;
		while (j > 0 && i > 0) {
			if (compare(to + (i - 1) * size, *from + (j - 1) * size) > 0)
				memcpy(to + --k * size, to + --i * size, size);
			else
				memcpy(to + --k * size, *from + --j * size, size);
		}
		memcpy(to, *from, j * size); /* what is left of *more goes first */
		*n += *nmore;
	}
	free(*from);
	*from = NULL;
	*nmore = 0;
}

/*
 * What the second range read, after the first range's: its samples,
 * fragments and key definitions, each range's sorted by sort_collected,
 * merged into the first's (the arrays a sequential read sorts, but for
 * the sequence ids), its raw sequences kept beside the first's, and the
 * events it left handled now, in order.
 */
static void take_second_range(struct etl_reader *r, struct second_range *s)
{
	struct deferred *d = &s->deferred;

	merge_items(&r->samples, &r->nsamples, &r->samples_cap, &s->r.samples, &s->r.nsamples,
		    sizeof(*r->samples), compare_samples);
	merge_items(&r->fragments, &r->nfragments, &r->fragments_cap, &s->r.fragments,
		    &s->r.nfragments, sizeof(*r->fragments), compare_fragments);
	merge_items(&r->keys, &r->nkeys, &r->keys_cap, &s->r.keys, &s->r.nkeys, sizeof(*r->keys),
		    compare_keys);
	pc_seqs_release(&r->raw_second);
	r->raw_second = s->r.raw;
	pc_seqs_init(&s->r.raw);
	for (size_t i = 0; i < d->n; i++) {
		struct etl_event ev = d->events[i].ev;

		ev.payload = d->bytes + d->events[i].payload_at;
		on_event(r, &ev);
	}
}

static void second_range_release(struct second_range *s)
{
	reader_release(&s->r);
	free(s->deferred.events);
	free(s->deferred.bytes);
	pc_input_close(&s->in);
	free(s);
}

/* Forgets what r read, for a sequential read from the start. */
static void reader_restart(struct etl_reader *r)
{
	struct etl_reader fresh = {
		.ctx = r->ctx, .m = r->m, .pointer_size = 8,
		.key_comm = r->key_comm, .key_pid = r->key_pid, .key_tid = r->key_tid,
	};

	reader_release(r);
	*r = fresh;
	pc_seqs_init(&r->raw);
	pc_seqs_init(&r->raw_second);
}

/*
 * Reads in's buffers in two ranges at once (a thread for the second),
 * when in is a regular file of PARALLEL_MIN_BYTES or more that
 * etl_find_split can cut; the result is that of a sequential read, error
 * included (the first range's, else the second's), or, when a range has
 * too many raw sequences, none (r restarted). Returns 0, -1 (ctx->err
 * set), or 1: read in sequentially instead (in is untouched then).
 */
static int read_in_parallel(struct etl_reader *r, struct pc_input *in,
			    struct etl_file_stats *stats)
{
	struct second_range *second;
	struct pc_threads *thread;
	struct pc_input first;
	struct etl_split split;
	int ret;

	if (pc_ctx_threads(r->ctx) < 2 || !pc_input_is_whole_file(in) ||
	    in->size < PARALLEL_MIN_BYTES || !etl_find_split(in, &split))
		return 1;
	second = pc_xcalloc(1, sizeof(*second));
	pc_ctx_init(&second->ctx);
	second->ctx.opt = r->ctx->opt;
	second->split = split;
	second->r = (struct etl_reader){ .ctx = &second->ctx, .pointer_size = 8,
					 .seq_tag = SECOND_RANGE_SEQ, .in_range = true,
					 .deferred = &second->deferred };
	pc_seqs_init(&second->r.raw);
	pc_seqs_init(&second->r.raw_second);
	pc_input_open_range(&second->in, in, split.at, in->size);
	thread = pc_threads_start(1, read_second_range, (void *const[]){ second }, false);
	if (!pc_threads_count(thread)) { /* no thread to be had: sequentially */
		pc_threads_join(thread);
		second_range_release(second);
		return 1;
	}
	if (r->ctx->threads_used < 2)
		r->ctx->threads_used = 2;
	r->in_range = true;
	pc_input_open_range(&first, in, 0, split.at);
	first.progress = in->progress;
	first.progress_ranges = 2;
	ret = etl_read_events(r->ctx, &first, on_event, r, stats);
	if (!ret)
		sort_collected(r);
	pc_threads_join(thread);
	r->in_range = false;
	if (r->range_seqs_full || second->r.range_seqs_full) {
		pc_error_clear(&r->ctx->err);
		reader_restart(r);
		ret = 1;
	} else if (ret) {
		in->io_errno = first.io_errno; /* a read error: the pipeline says so */
	} else if (second->ret) {
		r->ctx->err = second->ctx.err;
		in->io_errno = second->in.io_errno;
		ret = -1;
	}
	pc_input_close(&first);
	if (!ret) {
		etl_add_stats(stats, &second->stats);
		take_second_range(r, second);
		pc_input_skip_to(in, in->size);
	}
	second_range_release(second);
	return ret;
}

int etl_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct etl_reader r = { .ctx = ctx, .m = m, .pointer_size = 8 };
	struct etl_file_stats stats;
	int ret;

	pc_seqs_init(&r.raw);
	pc_seqs_init(&r.raw_second);
	r.key_comm = pc_model_intern_cstr(m, "comm");
	r.key_pid = pc_model_intern_cstr(m, "pid");
	r.key_tid = pc_model_intern_cstr(m, "tid");
	ret = read_in_parallel(&r, in, &stats);
	if (ret > 0) {
		ret = etl_read_events(ctx, in, on_event, &r, &stats);
		if (!ret)
			sort_collected(&r);
	}
	if (!ret) {
		resolve_keys(&r);
		sort_items(r.threads, r.nthreads, sizeof(*r.threads), compare_threads);
		attach_pdbs(&r);
		ret = emit_samples(&r);
	}
	if (!ret) {
		add_metadata(&r, &stats);
		ret = warn_gaps(&r);
	}
	reader_release(&r);
	return ret;
}

/* ---- for info ---- */

struct etl_reader *etl_reader_new(struct pc_ctx *ctx, struct pc_model *m)
{
	struct etl_reader *r = pc_xcalloc(1, sizeof(*r));

	r->ctx = ctx;
	r->m = m;
	r->pointer_size = 8;
	pc_seqs_init(&r->raw);
	pc_seqs_init(&r->raw_second);
	return r;
}

void etl_reader_free(struct etl_reader *r)
{
	if (!r)
		return;
	reader_release(r);
	free(r);
}

int etl_reader_event(void *r, const struct etl_event *ev)
{
	return on_event(r, ev);
}

static void print_process(const struct etl_reader *r, FILE *out, uint32_t pid, uint64_t samples)
{
	pc_str_id name = process_name(r, pid, UINT64_MAX);

	fprintf(out, "  %6u %-28s %llu\n", pid, name ? pc_str(r->m, name) : "?",
		(unsigned long long)samples);
}

void etl_reader_print_summary(struct etl_reader *r, FILE *out, size_t n)
{
	uint32_t *pids = pc_xmalloc((r->nsamples + 1) * sizeof(*pids));
	uint64_t *counts = pc_xcalloc(r->nsamples + 1, sizeof(*counts));
	size_t npids = 0;

	pc_sort_streams(r->samples, r->nsamples, sizeof(*r->samples), offsetof(struct sample, cpu),
			compare_samples);
	sort_items(r->threads, r->nthreads, sizeof(*r->threads), compare_threads);
	fprintf(out, "first samples PerfView keeps (not on an idle thread outside a DPC or ISR; "
		"ms from the trace header, pid, tid, IP):\n");
	for (size_t i = 0, shown = 0; i < r->nsamples && shown < n; i++) {
		const struct sample *s = &r->samples[i];
		uint32_t pid = 0;
		bool known = s->tid == 0 || thread_process(r, s->tid, s->time, &pid);

		if (s->tid == 0 && !s->in_dpc_or_isr)
			continue;
		shown++;
		fprintf(out, "  %.3f pid %s%u tid %u ip 0x%llx\n", r->perf_freq ?
			(double)(s->time - r->header_time) * 1000.0 / (double)r->perf_freq : 0.0,
			known ? "" : "? ", pid, s->tid, (unsigned long long)s->ip);
	}
	for (size_t i = 0; i < r->nsamples; i++) { /* samples per process, in pid order below */
		uint32_t pid = 0;
		size_t j;

		if (r->samples[i].tid && !thread_process(r, r->samples[i].tid, r->samples[i].time, &pid))
			pid = UINT32_MAX;
		for (j = 0; j < npids && pids[j] != pid; j++)
			;
		if (j == npids)
			pids[npids++] = pid;
		counts[j]++;
	}
	fprintf(out, "processes with CPU samples (pid, image, samples):\n");
	for (size_t j = 0; j < npids; j++)
		if (pids[j] != UINT32_MAX)
			print_process(r, out, pids[j], counts[j]);
		else
			fprintf(out, "  %6s %-28s %llu\n", "?", "(thread of no known process)",
				(unsigned long long)counts[j]);
	free(pids);
	free(counts);
}

static int etl_probe(const uint8_t *head, size_t len)
{
	return etl_looks_like(head, len) ? PC_PROBE_CERTAIN : PC_PROBE_NO;
}

int etl_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views);

static const char *const etl_extensions[] = { ".etl", NULL };

const struct pc_reader pc_etl_reader = {
	.name = "etl",
	.extensions = etl_extensions,
	.summary = "Windows ETW trace (WPR, xperf, PerfView): kernel CPU samples with their stacks",
	.provides = PC_PART_ADDRESSES | PC_PART_STACKS,
	.probe = etl_probe,
	.read = etl_read,
	.info = etl_info,
};
