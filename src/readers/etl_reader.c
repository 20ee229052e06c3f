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
 * (read_in_parallel), with the result of one; one of --etl-stream-mib MiB
 * (64) or more is read as a stream (read_streaming, etl_stream.c), its
 * samples counted as it goes, with the same result.
 */
#include "readers/etl_state.h"

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
/*
 * A regular file this big or bigger is read in two ranges at once (see
 * read_in_parallel). The second range's raw sequence ids carry
 * SECOND_RANGE_SEQ, so each range holds fewer than ETL_RANGE_SEQS_MAX of them;
 * a range that would hold more makes the file read again sequentially
 * (the fuzz build lowers the bound to reach that path).
 */
#define PARALLEL_MIN_BYTES ((uint64_t)4 << 20)
#ifndef ETL_RANGE_SEQS_MAX
#define ETL_RANGE_SEQS_MAX SECOND_RANGE_SEQ
#endif

/* KernelTraceControl's class GUID b3e675d7-2554-4f18-830b-2762732560de, as stored. */
static const uint8_t kernel_trace_control[16] = {
	0xd7, 0x75, 0xe6, 0xb3, 0x54, 0x25, 0x18, 0x4f,
	0x83, 0x0b, 0x27, 0x62, 0x73, 0x25, 0x60, 0xde,
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
	if (r->stream || !r->raw_reuse.given_up) { /* a stream keeps no fragment long */
		size_t before = r->raw.count;
		uint32_t seq = pc_seqs_add(&r->raw, r->raw_scratch, 2 * n);

		reuse_still_worth(&r->raw_reuse, r->raw.count == before);
		return seq | r->seq_tag;
	}
	return pc_seqs_append(&r->raw, r->raw_scratch, 2 * n) | r->seq_tag;
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
	if (r->stream)
		etl_stream_sample_added(r);
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
		if (r->have_header) /* the pointer size is known */
			f.side = !f.count ? SIDE_USER :
				 is_kernel_address(r, raw_address(r->raw_scratch, f.count - 1)) ?
				 SIDE_KERNEL : SIDE_USER;
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
	/* a lone surrogate stops it: len then counts the text before it */
	(void)pc_utf16_to_utf8(ev->payload + at, end - at, PC_UTF16_LE, utf8, &len, &bad);
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
	struct thread t = {
		.pid = etl_u32(ev, 0), .tid = etl_u32(ev, 4), .time = ev->time,
		.order = (uint32_t)r->nthreads,
	};

	if (ev->hook == HOOK_THREAD_DCSTART || ev->hook == HOOK_THREAD_DCEND)
		t.time = 0; /* a rundown: it was there before */
	if (r->stream)
		etl_stream_thread(r, &t);
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

/*
 * Whether a stream reader handles ev (1): not a key definition (its first
 * pass took them: 0), and an event in its processor's time order (else -1:
 * the stream fails).
 */
static int stream_takes(struct etl_reader *r, const struct etl_event *ev)
{
	switch (ev->hook) {
	case HOOK_KEY_CREATE:
	case HOOK_KEY_DELETE:
	case HOOK_KEY_RUNDOWN:
		return 0;
	case HOOK_SAMPLE:
	case HOOK_STACK:
	case HOOK_KEY_KERNEL:
	case HOOK_KEY_USER:
	case HOOK_IMAGE_LOAD:
	case HOOK_IMAGE_UNLOAD:
	case HOOK_IMAGE_DCSTART:
	case HOOK_IMAGE_DCEND:
	case HOOK_PROCESS_START:
	case HOOK_PROCESS_DCSTART:
	case HOOK_PROCESS_DCEND:
	case HOOK_THREAD_START:
	case HOOK_THREAD_DCSTART:
	case HOOK_THREAD_DCEND:
		return etl_stream_note(r, ev) ? 1 : -1;
	default:
		return 1;
	}
}

static int on_event(void *data, const struct etl_event *ev)
{
	struct etl_reader *r = data;
	int take;

	if (ev->kind == ETL_CLASSIC) {
		if (!memcmp(ev->guid, kernel_trace_control, 16) && ev->opcode == KTC_DBGID_RSDS)
			track(r, ev, on_dbgid);
		return 0;
	}
	if (ev->kind != ETL_SYSTEM && ev->kind != ETL_PERFINFO)
		return 0;
	if (r->stream && (take = stream_takes(r, ev)) <= 0)
		return take;
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
	return r->stream && etl_stream_failed(r) ? -1 : 0;
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
 * The first definition of key at or after time, from definition first on
 * (of key, and the definitions of key before it all before time: a gallop,
 * then a binary search), or nkeys when there is none.
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

void etl_index_first_definitions(const struct etl_reader *r, struct pc_index *first)
{
	pc_index_init(first);
	for (size_t i = 0; i < r->nkeys; i++)
		if (!i || r->keys[i].key != r->keys[i - 1].key)
			pc_index_add(first, pc_hash_u64(r->keys[i].key), (uint32_t)(i + 1));
}

/*
 * A key reference takes the first definition of its key at or after its
 * own time (the definitions sorted by sort_collected): found from the
 * key's first definition (index_first_definitions), or from the key's
 * last answer when that definition's predecessor is still before the
 * reference (references come nearly in time order: the search is then a
 * step or two). Each reference is looked up once: it is no longer by_key
 * after.
 */
uint64_t etl_resolve_fragments(const struct etl_reader *r, const struct pc_index *first,
			       struct fragment *fragments, size_t n, uint32_t *hints)
{
	uint32_t *last = hints; /* by first definition: answer */
	uint64_t undefined = 0;

	for (size_t i = 0; i < n; i++) {
		struct fragment *f = &fragments[i];
		uint32_t at;
		size_t k, from;

		if (!f->by_key)
			continue;
		f->by_key = false;
		if (!last)
			last = pc_xcalloc(r->nkeys + 1, sizeof(*last));
		at = pc_index_find(first, pc_hash_u64(f->key), first_definition_equal, r, &f->key);
		if (!at) {
			undefined++;
			continue;
		}
		from = at - 1; /* the key's first definition */
		if (last[at - 1] > from && defined_before(r, last[at - 1] - 1, f->key, f->ref_time))
			from = last[at - 1]; /* (0: none yet, as no answer is before the first) */
		k = definition_from(r, from, f->key, f->ref_time);
		if (k < r->nkeys) {
			last[at - 1] = (uint32_t)k;
			f->seq = r->keys[k].seq;
			f->count = r->keys[k].count;
			f->resolved = true;
		} else {
			undefined++;
		}
	}
	if (last != hints)
		free(last);
	return undefined;
}

static void resolve_keys(struct etl_reader *r)
{
	struct pc_index first;

	etl_index_first_definitions(r, &first);
	r->undefined_keys += etl_resolve_fragments(r, &first, r->fragments, r->nfragments, NULL);
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

static int compare_samples(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* ---- the end ---- */

static void add_metadata(struct etl_reader *r, const struct etl_file_stats *stats)
{
	uint64_t nsamples, first, last;

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
	etl_sample_span(r, &nsamples, &first, &last);
	if (nsamples > 1 && r->perf_freq) {
		uint64_t ticks = last - first;
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
	uint64_t nsamples, first, last;

	etl_sample_span(r, &nsamples, &first, &last);
	if (!nsamples && !pc_model_nsamples(r->m)) /* notices: nothing of the input is lost */
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
	etl_stream_free(r);
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
 * The key definitions by key, then time, ties in file order: their
 * indices sorted by time, then by key, each a stable radix sort
 * (pc_sort_by_keys), and the definitions moved once. (glibc's qsort, a
 * merge sort with an indirect compare, took three times as long.)
 */
static void sort_keys(struct etl_reader *r)
{
	size_t n = r->nkeys;
	uint32_t *order;
	uint64_t *by;
	struct key_definition *sorted;

	if (n > UINT32_MAX) { /* indices of 32 bits: nothing here holds as many */
		sort_items(r->keys, n, sizeof(*r->keys), compare_keys);
		return;
	}
	if (n < 2)
		return;
	order = pc_xmalloc(n * sizeof(*order));
	by = pc_xmalloc(n * sizeof(*by));
	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		by[i] = r->keys[i].time;
	}
	pc_sort_by_keys_on(order, by, n, pc_ctx_threads(r->ctx));
	for (size_t i = 0; i < n; i++)
		by[i] = r->keys[order[i]].key;
	pc_sort_by_keys_on(order, by, n, pc_ctx_threads(r->ctx));
	free(by);
	sorted = pc_xmalloc(n * sizeof(*sorted));
	for (size_t i = 0; i < n; i++)
		sorted[i] = r->keys[order[i]];
	free(order);
	free(r->keys);
	r->keys = sorted;
	r->keys_cap = n;
}

/*
 * Puts what a reader collected in order, stably: the key definitions by
 * key, then time (sort_keys), the fragments and the samples by time and
 * thread (a processor's buffers hold its events in time order, or nearly).
 */
static void sort_collected(struct etl_reader *r)
{
	sort_keys(r);
	etl_sort_samples(r);
}

void etl_sort_samples(struct etl_reader *r)
{
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
 * The second range's key references resolved (against the key definitions
 * of both ranges), then its samples merged into the first's: on a thread,
 * while the first range's references are resolved.
 */
struct second_resolve {
	struct etl_reader *r;
	const struct pc_index *first;
	struct second_range *s;
	uint64_t undefined;
};

static void *resolve_second(void *arg)
{
	struct second_resolve *j = arg;
	struct etl_reader *r = j->r, *second = &j->s->r;

	j->undefined = etl_resolve_fragments(r, j->first, second->fragments, second->nfragments,
					     NULL);
	merge_items(&r->samples, &r->nsamples, &r->samples_cap, &second->samples,
		    &second->nsamples, sizeof(*r->samples), compare_samples);
	return NULL;
}

/*
 * What the second range read, after the first range's: its key
 * definitions and samples, each range's sorted by sort_collected, merged
 * into the first's (the arrays a sequential read sorts, but for the
 * sequence ids); every key reference resolved (each range's on a thread
 * of its own), then its fragments merged into the first's too; its raw
 * sequences kept beside the first's; and the events it left handled now,
 * in order.
 */
static void take_second_range(struct etl_reader *r, struct second_range *s)
{
	struct deferred *d = &s->deferred;
	struct second_resolve job = { .r = r, .s = s };
	struct pc_index first;
	struct pc_threads *thread;

	merge_items(&r->keys, &r->nkeys, &r->keys_cap, &s->r.keys, &s->r.nkeys, sizeof(*r->keys),
		    compare_keys);
	etl_index_first_definitions(r, &first);
	job.first = &first;
	thread = pc_threads_start(1, resolve_second, (void *const[]){ &job }, false);
	r->undefined_keys += etl_resolve_fragments(r, &first, r->fragments, r->nfragments, NULL);
	if (!pc_threads_count(thread))
		resolve_second(&job);
	pc_threads_join(thread);
	pc_index_release(&first);
	r->undefined_keys += job.undefined;
	merge_items(&r->fragments, &r->nfragments, &r->fragments_cap, &s->r.fragments,
		    &s->r.nfragments, sizeof(*r->fragments), compare_fragments);
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

/* The first pass of a stream: the key definitions. */
static int on_key_definition_event(void *data, const struct etl_event *ev)
{
	if ((ev->kind == ETL_SYSTEM || ev->kind == ETL_PERFINFO) &&
	    (ev->hook == HOOK_KEY_CREATE || ev->hook == HOOK_KEY_DELETE ||
	     ev->hook == HOOK_KEY_RUNDOWN))
		on_key_definition(data, ev);
	return 0;
}

/* Reads the whole of in (a regular file) with fn, through a range of its own. */
static int read_pass(struct etl_reader *r, struct pc_input *in, etl_event_fn fn,
		     struct etl_file_stats *stats, bool progress)
{
	struct pc_input pass;
	int ret;

	pc_input_open_range(&pass, in, 0, in->size);
	if (progress)
		pass.progress = in->progress;
	ret = etl_read_events(r->ctx, &pass, fn, r, stats);
	if (ret)
		in->io_errno = pass.io_errno;
	pc_input_close(&pass);
	return ret;
}

/* A reader of key definitions only, over raw sequences of its own, always interned. */
static void definitions_reader(struct etl_reader *defs, struct pc_ctx *ctx, struct pc_model *m)
{
	*defs = (struct etl_reader){
		.ctx = ctx, .m = m, .pointer_size = 8, .seq_tag = SECOND_RANGE_SEQ,
		.in_range = true, .raw_reuse = { .period = UINT64_MAX },
	};
	pc_seqs_init(&defs->raw);
	pc_seqs_init(&defs->raw_second);
}

/* The second range of a stream's first pass, read on a thread of its own. */
struct definitions_range {
	struct pc_ctx ctx;
	struct pc_input in;
	struct etl_split split;
	struct etl_reader r;
	struct etl_file_stats stats;
	int ret;
};

static void *read_definitions_range(void *arg)
{
	struct definitions_range *s = arg;

	s->ret = etl_read_range(&s->ctx, &s->in, &s->split, on_key_definition_event, &s->r,
				&s->stats);
	return NULL;
}

/*
 * Reads the key definitions of in into defs, the second half of the file
 * on a thread of its own when it can be cut (etl_find_split), its
 * definitions then added after the first half's (their addresses interned
 * in defs's sequences). The result is that of a sequential read.
 */
static int read_definitions_in_halves(struct etl_reader *defs, struct pc_input *in,
				      struct etl_file_stats *stats)
{
	struct definitions_range *second;
	struct pc_threads *thread;
	struct etl_split split;
	struct pc_input first;
	int ret;

	if (pc_ctx_threads(defs->ctx) < 2 || !etl_find_split(in, &split))
		return read_pass(defs, in, on_key_definition_event, stats, false);
	second = pc_xcalloc(1, sizeof(*second));
	pc_ctx_init(&second->ctx);
	second->ctx.opt = defs->ctx->opt;
	second->split = split;
	definitions_reader(&second->r, &second->ctx, defs->m);
	pc_input_open_range(&second->in, in, split.at, in->size);
	thread = pc_threads_start(1, read_definitions_range, (void *const[]){ second }, false);
	if (!pc_threads_count(thread))
		read_definitions_range(second);
	pc_input_open_range(&first, in, 0, split.at);
	ret = etl_read_events(defs->ctx, &first, on_key_definition_event, defs, stats);
	pc_threads_join(thread);
	if (ret) {
		in->io_errno = first.io_errno;
	} else if (second->ret) {
		defs->ctx->err = second->ctx.err;
		in->io_errno = second->in.io_errno;
		ret = -1;
	}
	pc_input_close(&first);
	defs->range_seqs_full |= second->r.range_seqs_full;
	for (size_t i = 0; !ret && !defs->range_seqs_full && i < second->r.nkeys; i++) {
		struct key_definition k = second->r.keys[i];
		size_t n;
		const uint32_t *items = pc_seq(&second->r.raw, k.seq & ~SECOND_RANGE_SEQ, &n);

		k.seq = n ? pc_seqs_add(&defs->raw, items, n) | SECOND_RANGE_SEQ : 0;
		pc_grow(&defs->keys, &defs->keys_cap, defs->nkeys + 1, sizeof(*defs->keys));
		defs->keys[defs->nkeys++] = k;
	}
	etl_add_stats(stats, &second->stats);
	reader_release(&second->r);
	pc_input_close(&second->in);
	free(second);
	return ret;
}

/*
 * A stream's first pass: the key definitions of the whole trace, sorted,
 * over raw sequences of their own (r->raw_second, their ids tagged with
 * SECOND_RANGE_SEQ), which stay as they are while the stream's steps read
 * them on a worker. A trace with too many of them fails the stream (-1,
 * no error set).
 */
static int read_definitions(struct etl_reader *r, struct pc_input *in,
			    struct etl_file_stats *stats)
{
	struct etl_reader defs;
	int ret;

	definitions_reader(&defs, r->ctx, r->m);
	ret = read_definitions_in_halves(&defs, in, stats);
	if (!ret && defs.range_seqs_full)
		etl_stream_fail(r, "more stack key definitions than it can number");
	if (!ret && !defs.range_seqs_full) {
		sort_keys(&defs);
		r->keys = defs.keys;
		r->nkeys = defs.nkeys;
		r->keys_cap = defs.keys_cap;
		defs.keys = NULL;
		pc_seqs_release(&r->raw_second);
		r->raw_second = defs.raw;
		pc_seqs_init(&defs.raw);
	}
	reader_release(&defs);
	return ret || defs.range_seqs_full ? -1 : 0;
}

/*
 * Reads in as a stream, when etl_stream_start says so (etl_stream.c): the
 * key definitions in a first pass, then the rest, the samples retired as
 * they go. Returns 0, -1 (ctx->err set), or 1: read in otherwise (the
 * stream was not for it, or failed: r restarted, in untouched).
 */
static int read_streaming(struct etl_reader *r, struct pc_input *in,
			  struct etl_file_stats *stats)
{
	struct etl_file_stats first_pass = { 0 };
	int ret;

	if (!etl_stream_start(r, in))
		return 1;
	ret = read_definitions(r, in, &first_pass);
	if (!ret)
		ret = read_pass(r, in, on_event, stats, true);
	if ((ret && etl_stream_failed(r)) || (!ret && !etl_stream_finish(r))) {
		pc_note(r->ctx, "etl: %s: the trace is read again, whole", etl_stream_failed(r));
		pc_error_clear(&r->ctx->err);
		in->io_errno = 0;
		*stats = (struct etl_file_stats){ 0 };
		reader_restart(r);
		return 1;
	}
	if (!ret)
		pc_input_skip_to(in, in->size);
	return ret;
}

int etl_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct etl_reader r = { .ctx = ctx, .m = m, .pointer_size = 8 };
	struct etl_file_stats stats = { 0 };
	int ret;

	pc_seqs_init(&r.raw);
	pc_seqs_init(&r.raw_second);
	r.key_comm = pc_model_intern_cstr(m, "comm");
	r.key_pid = pc_model_intern_cstr(m, "pid");
	r.key_tid = pc_model_intern_cstr(m, "tid");
	ret = read_streaming(&r, in, &stats);
	if (ret > 0)
		ret = read_in_parallel(&r, in, &stats);
	if (ret > 0) {
		ret = etl_read_events(ctx, in, on_event, &r, &stats);
		if (!ret) {
			sort_collected(&r);
			resolve_keys(&r);
		}
	}
	if (!ret)
		ret = etl_emit_samples(&r);
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
	pc_str_id name = etl_process_name(r, pid, UINT64_MAX);

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
	etl_sort_threads(r);
	fprintf(out, "first samples PerfView keeps (not on an idle thread outside a DPC or ISR; "
		"ms from the trace header, pid, tid, IP):\n");
	for (size_t i = 0, shown = 0; i < r->nsamples && shown < n; i++) {
		const struct sample *s = &r->samples[i];
		uint32_t pid = 0;
		bool known = s->tid == 0 || etl_thread_process(r, s->tid, s->time, &pid);

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

		if (r->samples[i].tid && !etl_thread_process(r, r->samples[i].tid, r->samples[i].time, &pid))
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

static const struct pc_option_spec etl_options[] = {
	{ "etl-stream-mib", PC_OPTION_COUNT, "MIB",
	  "read a trace file of MIB MiB or more as a stream, its memory for its distinct stacks "
	  "rather than its samples (default 64)", 1u << 20 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_reader pc_etl_reader = {
	.name = "etl",
	.extensions = etl_extensions,
	.summary = "Windows ETW trace (WPR, xperf, PerfView): kernel CPU samples with their stacks",
	.provides = PC_PART_ADDRESSES | PC_PART_STACKS,
	.probe = etl_probe,
	.read = etl_read,
	.info = etl_info,
	.options = etl_options,
};
