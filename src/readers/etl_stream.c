/*
 * etl_stream.c - the ETL reader's samples counted into groups as the trace
 * is read, so that a long trace costs memory for its distinct stacks,
 * threads, images and stack key definitions, not for its samples. A file
 * of --etl-stream-mib MiB (64 unless given) or more is read so.
 *
 * A processor's buffers hold its events in time order. Once every
 * processor's events have passed a time W (the watermark: the least of
 * their last times), no event before W is still to come, and a sample
 * before W has every fragment it will get, but for a user stack that the
 * kernel defers to its thread's return to user mode. Every so often (a
 * step) the samples before W are sorted with their fragments and each is
 * retired: counted in the group of its key (etl_sample_key, as a read of
 * the whole trace makes it), unless it may still get such a user stack (a
 * kernel stack and no user one, in a thread of neither the Idle nor the
 * System process) or its thread's process is that of a first Thread
 * event after it that an earlier one may still replace.
 * Samples that share their (time, thread), as the Idle threads of several
 * processors do (all tid 0), are retired together or not at all. The key
 * definitions, which a trace mostly gives at its end, come from a first
 * pass over the file (etl_reader.c). A sample's images' epoch is the last
 * load or unload known at its step, which is its epoch in the whole trace:
 * loads and unloads are events in time order too, and rundowns date
 * theirs 0. A step runs on a worker while the trace reads on; reading
 * waits for it only when STEP_BACKLOG steps' worth of samples are read.
 *
 * The groups, in the order of their first samples, give the model what
 * the samples of the whole trace give it (etl_emit_samples). Where the
 * stream cannot show that, it fails and the trace is read again the
 * whole way (etl_read), which -v says: an event whose time goes back on
 * its processor, or of a processor past the header's count; a fragment
 * with no sample of its (time, thread) at a step, at or before the last
 * retired sample of its thread (it may be a retired sample's); a Thread
 * event dated before the watermark (a rundown) that would give a thread
 * with retired samples another process, or any Thread event of a thread
 * whose samples were retired before one named it. It also gives way when
 * its samples hardly repeat (REPEAT_CHECK_READ): it would save nothing.
 */
#include "readers/etl_state.h"

#include "base/threads.h"

#include <stdatomic.h>

/*
 * A step comes once the samples read since the last one reach the step
 * size, and as many as the last step held back: a sample for each 4 KiB
 * of the trace, from 256 to STEP_MAX (the fuzz build makes it 2, to reach
 * every path on small traces).
 */
#ifndef ETL_STREAM_STEP_MIN
#define ETL_STREAM_STEP_MIN 256
#endif
#define STEP_MAX 16384
#ifndef ETL_STREAM_STEP_BYTES
#define ETL_STREAM_STEP_BYTES 4096
#endif
/* Past this many steps' worth of samples, reading waits for the step at work. */
#define STEP_BACKLOG 4
/* A trace this big or bigger is streamed, unless --etl-stream-mib says otherwise. */
#define STREAM_MIN_MIB 64
/*
 * At this many samples read, a step is taken at once and waited for: a
 * stream whose groups are then more than three quarters of the samples it
 * counted (at least REPEAT_CHECK_COUNTED: nearly every sample a stack of
 * its own) gives way, as the whole read, which then stops grouping, costs
 * less. The sample count makes the decision the same on any thread count.
 */
#define REPEAT_CHECK_READ 32768
#define REPEAT_CHECK_COUNTED 8192
/* How many samples on the groups of the samples being counted are asked for. */
#define PREFETCH_AHEAD 8
#define IDLE_PID 0
#define SYSTEM_PID 4

/*
 * Where a retired sample's process came from, among its thread's Thread
 * events read by then: the last at or before it, dated after 0 (settled:
 * no event read later can come before it); one dated 0, a rundown, or
 * the first after it (open: a rundown read later, also dated 0, would
 * come before it or take its place); none (unnamed: the process its stack
 * names, or none, until an event names the thread).
 */
enum thread_source { SOURCE_SETTLED, SOURCE_OPEN, SOURCE_UNNAMED };

/*
 * A thread with retired samples: the last one's time; the process of its
 * open samples and that of its unnamed ones (see enum thread_source), or
 * whether those were of no process or of several (any later Thread event
 * of the right kind may then change them).
 */
struct retired_thread {
	uint32_t tid;
	uint64_t last;
	uint32_t open_pid, unnamed_pid;
	bool open, unnamed;         /* it has such samples */
	bool open_mixed, unnamed_mixed;
};

/* A Thread event read, for the next step to check against the retired threads. */
struct thread_event {
	struct thread t;
	bool before_watermark;      /* dated before the watermark when it was read */
};

/*
 * A step's work, done on a worker while the trace reads on (or at once
 * without one): the samples and fragments it holds (those the last step
 * held back, then those read since), and copies of what it reads of the
 * trace's state. The reader (view) is a copy of the real one but for them.
 */
struct step {
	struct etl_reader view;
	struct sample *samples;
	size_t samples_cap;
	struct fragment *fragments;
	size_t fragments_cap;
	struct thread *threads;     /* every Thread event read */
	size_t nthreads, threads_cap;
	uint64_t *bounds;           /* the epochs' starts known: image loads and unloads */
	size_t nbounds, bounds_cap;
	struct thread_event *thread_events; /* read since the step before */
	size_t nthread_events, thread_events_cap;
	struct sample_key *keys;    /* of the samples before the watermark */
	size_t keys_cap;
	uint64_t *hashes;           /* theirs */
	size_t hashes_cap;
	uint64_t w;                 /* the watermark */
	bool last;                  /* the trace's end: every sample is counted */
	uint64_t undefined;         /* key references never defined */
	const char *failed;         /* why the stream fails, or NULL */
	atomic_bool done;
};

struct etl_stream {
	const char *failed;         /* why the trace is to be read the whole way instead, or NULL */
	bool indexed;               /* first holds the key definitions' index */
	struct pc_index first;      /* key -> its first definition + 1 */
	uint32_t *hints;            /* etl_resolve_fragments's, kept from step to step */
	uint64_t *cpu_last;         /* each processor's last event time */
	uint32_t cpus_seen;         /* the processors with an event */
	uint32_t ncpus;
	uint64_t watermark;         /* of the last step started */
	size_t step_size;
	size_t next_step;           /* samples read since the last step that start one */
	struct step step;
	struct pc_threads *worker;  /* running step, or NULL */
	struct thread_event *thread_events; /* read since the last step started */
	size_t nthread_events, thread_events_cap;
	struct stream_group *groups;
	size_t ngroups, groups_cap;
	struct pc_index group_index;
	uint64_t made;
	struct retired_thread *retired;
	size_t nretired, retired_cap;
	struct pc_index retired_index;
	uint64_t nsamples, first_time, last_time;
	size_t most_held;           /* the most samples a step took at once */
	uint64_t nretired_samples;  /* counted in the groups so far */
	size_t threads_taken, images_taken, unloads_taken; /* by the steps so far */
};

bool etl_stream_start(struct etl_reader *r, const struct pc_input *in)
{
	unsigned long mib = pc_option_count(r->ctx, "etl-stream-mib");
	uint64_t step = in->size / ETL_STREAM_STEP_BYTES;

	if (!pc_input_is_whole_file(in) || in->size >> 20 < (mib ? mib : STREAM_MIN_MIB) ||
	    pc_model_keeps_times(r->m))
		return false;
	r->stream = pc_xcalloc(1, sizeof(*r->stream));
	r->stream->step_size = step < ETL_STREAM_STEP_MIN ? ETL_STREAM_STEP_MIN :
			       step > STEP_MAX ? STEP_MAX : (size_t)step;
	r->stream->next_step = r->stream->step_size;
	r->stream->first_time = UINT64_MAX;
	pc_index_init(&r->stream->first);
	pc_index_init(&r->stream->group_index);
	pc_index_init(&r->stream->retired_index);
	return true;
}

/* Waits for the running step, if any; false when it failed. */
static bool join_step(struct etl_reader *r)
{
	struct etl_stream *st = r->stream;

	if (st->worker) {
		pc_threads_join(st->worker);
		st->worker = NULL;
	}
	r->undefined_keys += st->step.undefined;
	st->step.undefined = 0;
	if (!st->failed)
		st->failed = st->step.failed;
	return !st->failed;
}

void etl_stream_free(struct etl_reader *r)
{
	struct etl_stream *st = r->stream;

	if (!st)
		return;
	join_step(r);
	pc_index_release(&st->first);
	free(st->hints);
	pc_index_release(&st->group_index);
	pc_index_release(&st->retired_index);
	free(st->cpu_last);
	free(st->step.samples);
	free(st->step.fragments);
	free(st->step.threads);
	free(st->step.bounds);
	free(st->step.thread_events);
	free(st->step.keys);
	free(st->step.hashes);
	free(st->thread_events);
	free(st->groups);
	free(st->retired);
	free(st);
	r->stream = NULL;
}

const char *etl_stream_failed(const struct etl_reader *r)
{
	return r->stream->failed;
}

void etl_stream_fail(struct etl_reader *r, const char *why)
{
	if (!r->stream->failed)
		r->stream->failed = why;
}

bool etl_stream_note(struct etl_reader *r, const struct etl_event *ev)
{
	struct etl_stream *st = r->stream;

	if (!st->cpu_last) {
		if (!r->have_header || !r->cpus || r->cpus > 256) /* a sample keeps its CPU in a byte */
			etl_stream_fail(r, "no trace header naming 1 to 256 processors");
		else
			st->cpu_last = pc_xcalloc(r->cpus, sizeof(*st->cpu_last));
		st->ncpus = r->cpus;
	}
	if (!st->failed && ev->cpu >= st->ncpus)
		etl_stream_fail(r, "an event of a processor past the header's count");
	if (!st->failed && ev->time < st->cpu_last[ev->cpu])
		etl_stream_fail(r, "a processor's events go back in time");
	if (st->failed)
		return false;
	if (!st->cpu_last[ev->cpu] && ev->time) /* (a first event at time 0 goes uncounted) */
		st->cpus_seen++;
	st->cpu_last[ev->cpu] = ev->time;
	return true;
}

void etl_stream_thread(struct etl_reader *r, const struct thread *t)
{
	struct etl_stream *st = r->stream;

	if (t->tid) {
		pc_grow(&st->thread_events, &st->thread_events_cap, st->nthread_events + 1,
			sizeof(*st->thread_events));
		st->thread_events[st->nthread_events++] =
			(struct thread_event){ *t, t->time < st->watermark };
	}
}

/* ---- a step (on the worker) ---- */

static bool retired_equal(const void *ctx, uint32_t id, const void *key)
{
	return ((const struct etl_stream *)ctx)->retired[id - 1].tid == *(const uint32_t *)key;
}

static struct retired_thread *find_retired(const struct etl_stream *st, uint32_t tid)
{
	uint32_t at = pc_index_find(&st->retired_index, pc_hash_u64(tid), retired_equal, st, &tid);

	return at ? &st->retired[at - 1] : NULL;
}

/* The retired thread of a new group of key k (made if new), its index. */
static uint32_t retired_thread(struct etl_stream *st, const struct sample_key *k)
{
	struct retired_thread *rt = find_retired(st, k->tid);

	if (rt)
		return (uint32_t)(rt - st->retired);
	pc_grow(&st->retired, &st->retired_cap, st->nretired + 1, sizeof(*st->retired));
	st->retired[st->nretired++] = (struct retired_thread){ .tid = k->tid };
	pc_index_add(&st->retired_index, pc_hash_u64(k->tid), (uint32_t)st->nretired);
	return (uint32_t)(st->nretired - 1);
}

/* Notes the process pid (none: !has) of a sample of one of the kinds *have, *at, *mixed. */
static void note_process(bool *have, uint32_t *at, bool *mixed, bool has, uint32_t pid)
{
	*mixed |= !has || (*have && *at != pid);
	*at = pid;
	*have = true;
}

/*
 * Whether a Thread event may give samples already retired another process
 * than they were given: a rundown (dated 0, before the watermark) that
 * would come before their open samples' events (or take their place),
 * of another process; any event of another process than their unnamed
 * samples' (the first to come names them all). Other events come after
 * every retired sample and its event.
 */
static bool changes_retired(const struct etl_stream *st, const struct thread_event *ev)
{
	const struct retired_thread *rt = find_retired(st, ev->t.tid);

	if (!rt)
		return false;
	return (rt->unnamed && (rt->unnamed_mixed || rt->unnamed_pid != ev->t.pid)) ||
	       (ev->before_watermark && rt->open && (rt->open_mixed || rt->open_pid != ev->t.pid));
}

static bool group_equal(const void *ctx, uint32_t id, const void *key)
{
	return etl_same_key(&((const struct etl_stream *)ctx)->groups[id - 1].key, key);
}

/* Whether sample s comes before group g's first sample (of the same thread). */
static bool before_first(const struct sample *s, const struct stream_group *g)
{
	if (s->time != g->time)
		return s->time < g->time;
	return s->cpu < g->cpu;
}

/*
 * Counts sample s, of key k (of hash hash), retired: in its group and in
 * its thread, with where its process came from.
 */
static void count_retired(struct etl_stream *st, const struct sample *s, const struct sample_key *k,
			  uint64_t hash, enum thread_source source)
{
	uint32_t at = pc_index_find(&st->group_index, hash, group_equal, st, k);
	struct retired_thread *rt;
	struct stream_group *g;

	if (!at) {
		pc_grow(&st->groups, &st->groups_cap, st->ngroups + 1, sizeof(*st->groups));
		st->groups[st->ngroups++] = (struct stream_group){
			.key = *k, .time = s->time, .cpu = s->cpu, .made = st->made++,
			.thread = retired_thread(st, k),
		};
		at = (uint32_t)st->ngroups;
		pc_index_add(&st->group_index, hash, at);
	}
	g = &st->groups[at - 1];
	rt = &st->retired[g->thread];
	if (source == SOURCE_OPEN)
		note_process(&rt->open, &rt->open_pid, &rt->open_mixed, true, k->pid);
	else if (source == SOURCE_UNNAMED)
		note_process(&rt->unnamed, &rt->unnamed_pid, &rt->unnamed_mixed, k->has_pid, k->pid);
	if (s->time > rt->last)
		rt->last = s->time;
	if (before_first(s, g)) { /* a sample held back, retired late */
		g->time = s->time;
		g->cpu = s->cpu;
		g->made = st->made++;
	}
	g->count++;
	st->nretired_samples++;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static bool same_moment(const struct sample *a, const struct sample *b)
{
	return a->time == b->time && a->tid == b->tid;
}

/*
 * Whether sample s (before the watermark w), of key k, may be retired now;
 * in *source, where its process came from.
 */
static bool may_retire(const struct etl_reader *view, const struct sample *s,
		       const struct sample_key *k, uint64_t w, enum thread_source *source)
{
	bool waits_for_user = is_kernel_address(view, s->ip) && k->kernel && !k->user &&
			      !s->in_dpc_or_isr && k->pid != IDLE_PID && k->pid != SYSTEM_PID;
	uint64_t when = 1;

	switch (s->tid ? etl_thread_at(view, s->tid, s->time, &when) : 1) {
	case 1: /* the last event at or before it */
		*source = when ? SOURCE_SETTLED : SOURCE_OPEN;
		break;
	case 0: /* the first after it: one read later, but before w, would come first */
		if (when >= w)
			return false;
		*source = SOURCE_OPEN;
		break;
	default:
		*source = SOURCE_UNNAMED;
		break;
	}
	return !waits_for_user;
}

/*
 * Retires the n samples of one (time, thread) from the first, of keys
 * keys, when each of them may be (or at the end): all or none, as a
 * sample's fragments depend on whether it shares its moment.
 */
static void retire_moment(struct etl_stream *st, struct step *job, size_t first, size_t n)
{
	struct sample *s = &job->samples[first];
	const struct sample_key *keys = &job->keys[first];
	enum thread_source source = SOURCE_SETTLED; /* of their thread's process, at the end too */
	bool retire = true;

	for (size_t i = 0; i < n && !job->last && retire; i++)
		retire = may_retire(&job->view, &s[i], &keys[i], job->w, &source);
	for (size_t i = 0; i < n; i++) {
		s[i].retired = retire;
		if (retire)
			count_retired(st, &s[i], &keys[i], job->hashes[first + i], source);
	}
}

/*
 * Asks the processor for the index slot of the key PREFETCH_AHEAD samples
 * on from i, and for the likely group of the key half as far on: their
 * cache misses overlap the counting of the samples before them.
 */
static void prefetch_groups(const struct etl_stream *st, const struct step *job, size_t i,
			    size_t n)
{
	uint32_t id;

	if (i + PREFETCH_AHEAD < n)
		pc_index_prefetch(&st->group_index, job->hashes[i + PREFETCH_AHEAD]);
	if (i + PREFETCH_AHEAD / 2 < n &&
	    (id = pc_index_candidate(&st->group_index, job->hashes[i + PREFETCH_AHEAD / 2])) != 0)
		PC_PREFETCH(&st->groups[id - 1]);
}

/*
 * The sample of fragment f's (time, thread) among the sorted samples, from
 * *j on (fragments are taken in order too), or NULL.
 */
static const struct sample *moment_of(const struct etl_reader *view, size_t *j,
				      const struct fragment *f)
{
	const struct sample *s = view->samples;

	while (*j < view->nsamples &&
	       (s[*j].time < f->time || (s[*j].time == f->time && s[*j].tid < f->tid)))
		(*j)++;
	if (*j < view->nsamples && s[*j].time == f->time && s[*j].tid == f->tid)
		return &s[*j];
	return NULL;
}

/*
 * Whether a fragment before the watermark has no sample of its own among
 * those held and may be a retired sample's (see the top).
 */
static bool stray_fragment(const struct etl_stream *st, const struct step *job)
{
	size_t j = 0;

	for (size_t i = 0; i < job->view.nfragments && (job->last || job->fragments[i].time < job->w);
	     i++) {
		const struct fragment *f = &job->fragments[i];
		const struct retired_thread *rt;

		if (!moment_of(&job->view, &j, f) && (rt = find_retired(st, f->tid)) != NULL &&
		    f->time <= rt->last)
			return true;
	}
	return false;
}

/* Keeps the fragments at or after the watermark and those of samples held back. */
static void keep_fragments(struct step *job)
{
	size_t j = 0, kept = 0;

	for (size_t i = 0; i < job->view.nfragments; i++) {
		const struct fragment *f = &job->fragments[i];
		bool before = job->last || f->time < job->w;
		const struct sample *s = before ? moment_of(&job->view, &j, f) : NULL;

		if (!before || (s && !s->retired))
			job->fragments[kept++] = *f;
	}
	job->view.nfragments = kept;
}

static void keep_samples(struct step *job)
{
	size_t kept = 0;

	for (size_t i = 0; i < job->view.nsamples; i++)
		if (!job->samples[i].retired)
			job->samples[kept++] = job->samples[i];
	job->view.nsamples = kept;
}

/* Retires the samples before the watermark that can be (all of them at the end). */
static void run_step(struct etl_stream *st, struct step *job)
{
	struct etl_reader *view = &job->view;
	struct key_cursor c = { 0 };
	struct epochs epochs = { job->bounds, job->nbounds };
	size_t n = 0;

	for (size_t i = 0; i < job->nthread_events && !job->failed; i++)
		if (changes_retired(st, &job->thread_events[i]))
			job->failed = "a Thread event gives samples already counted another process";
	job->nthread_events = 0;
	etl_sort_samples(view);
	job->undefined += etl_resolve_fragments(view, &st->first, view->fragments,
						view->nfragments, st->hints);
	if (!job->failed && stray_fragment(st, job))
		job->failed = "a stack fragment comes after its sample was counted";
	if (job->failed)
		return;
	etl_sort_threads(view);
	qsort(job->bounds, job->nbounds, sizeof(*job->bounds), compare_u64);
	while (n < view->nsamples && (job->last || job->samples[n].time < job->w))
		n++;
	pc_grow(&job->keys, &job->keys_cap, n, sizeof(*job->keys));
	pc_grow(&job->hashes, &job->hashes_cap, n, sizeof(*job->hashes));
	for (size_t i = 0; i < n; i++) {
		etl_sample_key(view, &epochs, &c, i, &job->keys[i]);
		job->hashes[i] = etl_key_hash(&job->keys[i]);
	}
	for (size_t i = 0, end; i < n; i = end) {
		prefetch_groups(st, job, i, n);
		for (end = i + 1; end < n && same_moment(&job->samples[end], &job->samples[i]); end++)
			;
		retire_moment(st, job, i, end - i);
	}
	keep_fragments(job);
	keep_samples(job);
}

static void *run_step_worker(void *arg)
{
	struct etl_stream *st = arg;

	run_step(st, &st->step);
	atomic_store_explicit(&st->step.done, true, memory_order_release);
	return NULL;
}

/* ---- starting a step (on the reader's thread) ---- */

/* The least of the processors' last times: every event before it is in. */
static uint64_t watermark(const struct etl_stream *st)
{
	uint64_t w = UINT64_MAX;

	if (!st->cpu_last)
		return 0;
	for (uint32_t c = 0; c < st->ncpus; c++)
		if (st->cpu_last[c] < w)
			w = st->cpu_last[c];
	return w;
}

/* Appends n items of size bytes at from to *items (count *have, room *cap). */
static void append(void *items, size_t *have, size_t *cap, const void *from, size_t n,
		   size_t size)
{
	if (!n)
		return;
	pc_grow(items, cap, *have + n, size);
	memcpy(*(char **)items + *have * size, from, n * size);
	*have += n;
}

/*
 * Hands the samples and fragments read since the last step to a new one,
 * with what it reads of the trace, as its own copies: the Thread events
 * and the epochs' starts (image loads and unloads, and the end of time)
 * read since the last step, added to those before (the step sorts them).
 */
static void fill_step(struct etl_reader *r, struct step *job, uint64_t w, bool last)
{
	struct etl_stream *st = r->stream;
	size_t held_samples = job->view.nsamples, held_fragments = job->view.nfragments;

	job->view = *r;
	job->view.stream = st;
	job->view.nsamples = held_samples;
	job->view.nfragments = held_fragments;
	append(&job->samples, &job->view.nsamples, &job->samples_cap, r->samples, r->nsamples,
	       sizeof(*r->samples));
	append(&job->fragments, &job->view.nfragments, &job->fragments_cap, r->fragments,
	       r->nfragments, sizeof(*r->fragments));
	job->view.samples = job->samples;
	job->view.fragments = job->fragments;
	if (job->view.nsamples > st->most_held)
		st->most_held = job->view.nsamples;
	r->nsamples = r->nfragments = 0;
	if (r->nthreads > st->threads_taken)
		append(&job->threads, &job->nthreads, &job->threads_cap,
		       r->threads + st->threads_taken, r->nthreads - st->threads_taken,
		       sizeof(*r->threads));
	st->threads_taken = r->nthreads;
	job->view.threads = job->threads;
	job->view.nthreads = job->nthreads;
	if (!job->nbounds) { /* the end of time */
		pc_grow(&job->bounds, &job->bounds_cap, 1, sizeof(*job->bounds));
		job->bounds[job->nbounds++] = UINT64_MAX;
	}
	pc_grow(&job->bounds, &job->bounds_cap, job->nbounds + r->nimages - st->images_taken +
		r->nunloads - st->unloads_taken, sizeof(*job->bounds));
	for (; st->images_taken < r->nimages; st->images_taken++)
		job->bounds[job->nbounds++] = r->images[st->images_taken].loaded;
	for (; st->unloads_taken < r->nunloads; st->unloads_taken++)
		job->bounds[job->nbounds++] = r->unloads[st->unloads_taken].time;
	append(&job->thread_events, &job->nthread_events, &job->thread_events_cap,
	       st->thread_events, st->nthread_events, sizeof(*st->thread_events));
	st->nthread_events = 0;
	job->w = w;
	job->last = last;
	if (!last && w > st->watermark)
		st->watermark = w;
}

/* Starts a step on a worker, or does it at once when there is none to be had. */
static void start_step(struct etl_reader *r, uint64_t w, bool last, bool wait)
{
	struct etl_stream *st = r->stream;

	if (!st->indexed) {
		etl_index_first_definitions(r, &st->first);
		st->hints = pc_xcalloc(r->nkeys + 1, sizeof(*st->hints));
		st->indexed = true;
	}
	fill_step(r, &st->step, w, last);
	st->step.failed = NULL;
	atomic_store_explicit(&st->step.done, false, memory_order_relaxed);
	if (pc_ctx_threads(r->ctx) >= 2 && !last && !wait) {
		st->worker = pc_threads_start(1, run_step_worker, (void *const[]){ st }, false);
		if (pc_threads_count(st->worker)) {
			if (r->ctx->threads_used < 2)
				r->ctx->threads_used = 2;
			return;
		}
		pc_threads_join(st->worker);
		st->worker = NULL;
	}
	run_step(st, &st->step);
}

/* Whether the samples counted so far hardly repeat (see REPEAT_CHECK_READ). */
static bool hardly_repeat(const struct etl_stream *st)
{
	return st->nretired_samples >= REPEAT_CHECK_COUNTED &&
	       st->ngroups > st->nretired_samples / 4 * 3;
}

void etl_stream_sample_added(struct etl_reader *r)
{
	struct etl_stream *st = r->stream;
	uint64_t time = r->samples[r->nsamples - 1].time;
	bool check = ++st->nsamples == REPEAT_CHECK_READ;

	st->first_time = time < st->first_time ? time : st->first_time;
	st->last_time = time > st->last_time ? time : st->last_time;
	if (r->nsamples < st->next_step && !check)
		return;
	if (st->worker && !atomic_load_explicit(&st->step.done, memory_order_acquire) &&
	    r->nsamples < STEP_BACKLOG * st->next_step && !check)
		return; /* the step before is still at work: the next sample asks again */
	if (!join_step(r))
		return;
	st->next_step = st->step.view.nsamples > st->step_size ? st->step.view.nsamples :
			st->step_size;
	start_step(r, watermark(st), false, check);
	if (check && join_step(r) && hardly_repeat(st))
		etl_stream_fail(r, "its samples hardly repeat, so that counting them as they come "
				"saves no memory");
}

bool etl_stream_finish(struct etl_reader *r)
{
	struct etl_stream *st = r->stream;

	if (join_step(r))
		start_step(r, UINT64_MAX, true, true);
	if (!join_step(r))
		return false;
	pc_note(r->ctx, "etl: read as a stream: %llu samples counted in %zu groups, at most %zu "
		"held at once", (unsigned long long)st->nsamples, st->ngroups, st->most_held);
	if (st->cpus_seen < st->ncpus)
		pc_note(r->ctx, "etl: %u of the header's %u processors logged no event of a known "
			"time: every sample was held to the end", st->ncpus - st->cpus_seen,
			st->ncpus);
	return true;
}

static int compare_groups(const void *a, const void *b)
{
	const struct stream_group *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->key.tid != y->key.tid)
		return x->key.tid < y->key.tid ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->made > y->made) - (x->made < y->made);
}

const struct stream_group *etl_stream_groups(struct etl_reader *r, size_t *n)
{
	struct etl_stream *st = r->stream;

	pc_index_release(&st->group_index);
	pc_index_init(&st->group_index);
	if (st->ngroups > 1)
		qsort(st->groups, st->ngroups, sizeof(*st->groups), compare_groups);
	*n = st->ngroups;
	return st->groups;
}

void etl_sample_span(const struct etl_reader *r, uint64_t *n, uint64_t *first, uint64_t *last)
{
	if (r->stream) {
		*n = r->stream->nsamples;
		*first = r->stream->first_time;
		*last = r->stream->last_time;
	} else {
		*n = r->nsamples;
		*first = r->nsamples ? r->samples[0].time : 0;
		*last = r->nsamples ? r->samples[r->nsamples - 1].time : 0;
	}
}
