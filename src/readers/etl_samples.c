/*
 * etl_samples.c - the ETL reader's samples into the model (see
 * etl_reader.c for what maps where): each sample's process from the
 * Thread events at its time, its stack from the kernel and user fragments
 * of its (time, thread), each address in the image loaded at that time.
 */
#include "readers/etl_state.h"

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

void etl_sort_threads(struct etl_reader *r)
{
	sort_items(r->threads, r->nthreads, sizeof(*r->threads), compare_threads);
}

bool etl_thread_process(const struct etl_reader *r, uint32_t tid, uint64_t time, uint32_t *pid)
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

pc_str_id etl_process_name(const struct etl_reader *r, uint32_t pid, uint64_t time)
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
	comm = has_pid ? etl_process_name(r, pid, time) : 0;
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
	bool has_pid = s->tid == 0 || etl_thread_process(r, s->tid, s->time, &pid);
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

int etl_emit_samples(struct etl_reader *r)
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
	etl_sort_threads(r);
	attach_pdbs(r);
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
