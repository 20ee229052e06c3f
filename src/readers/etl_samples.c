/*
 * etl_samples.c - the ETL reader's samples into the model (see
 * etl_reader.c for what maps where): each sample's process from the
 * Thread events at its time, its stack from the kernel and user fragments
 * of its (time, thread), each address in the image loaded at that time.
 */
#include "readers/etl_state.h"

#include "base/threads.h"

/*
 * Samples this many or more are grouped in two ranges at once
 * (group_ranges); a range whose keys hardly repeat gives grouping up
 * after this many of them. (The fuzz build lowers both, to reach them.)
 */
#ifndef ETL_GROUP_SPLIT_MIN
#define ETL_GROUP_SPLIT_MIN 4096
#endif
#ifndef ETL_GROUP_REUSE_PERIOD
#define ETL_GROUP_REUSE_PERIOD 4096
#endif

/*
 * The first of the n fragments (sorted) of (time, tid), or n, looked for
 * from *cursor on (samples are taken in the fragments' order, so it only
 * moves forward).
 */
static size_t first_fragment(const struct fragment *fragments, size_t n, size_t *cursor,
			     uint64_t time, uint32_t tid)
{
	size_t i = *cursor;

	while (i < n && (fragments[i].time < time ||
			 (fragments[i].time == time && fragments[i].tid < tid)))
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
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

void etl_sort_threads(struct etl_reader *r)
{
	sort_items(r->threads, r->nthreads, sizeof(*r->threads), compare_threads);
}

/* Where thread tid's Thread events after time begin (the threads in order). */
static size_t threads_after(const struct etl_reader *r, uint32_t tid, uint64_t time)
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
	return lo;
}

bool etl_thread_process(const struct etl_reader *r, uint32_t tid, uint64_t time, uint32_t *pid)
{
	size_t at = threads_after(r, tid, time);

	if (at > 0 && r->threads[at - 1].tid == tid) {
		*pid = r->threads[at - 1].pid;
		return true;
	}
	if (at < r->nthreads && r->threads[at].tid == tid) {
		*pid = r->threads[at].pid;
		return true;
	}
	return false;
}

int etl_thread_at(const struct etl_reader *r, uint32_t tid, uint64_t time, uint64_t *when)
{
	size_t at = threads_after(r, tid, time);

	if (at > 0 && r->threads[at - 1].tid == tid) {
		*when = r->threads[at - 1].time;
		return 1;
	}
	if (at < r->nthreads && r->threads[at].tid == tid) {
		*when = r->threads[at].time;
		return 0;
	}
	return -1;
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

/* Samples of equal keys: the first of them, how many. */
struct sample_group {
	struct sample_key key;
	size_t first;
	uint64_t count;
};

/*
 * The samples [begin, end) in groups, in the order of their first samples:
 * those of [begin, grouped), the rest one by one (grouping was given up:
 * the keys hardly repeated, or the model keeps each sample's time). Filled
 * on a thread of its own, which only reads the reader.
 */
struct key_range {
	const struct etl_reader *r;
	const struct epochs *epochs;
	size_t begin, end, grouped;
	struct sample_group *groups;
	size_t ngroups, groups_cap;
	struct pc_index index;        /* key -> group + 1 */
	struct reuse_gauge reuse;
};

/*
 * A stack part resolved: the model frames of one raw sequence (a kernel or
 * a user fragment) in process pid, which hold over [from, until)
 * (resolve_part). A trace's thousands of stacks share some hundreds of
 * parts, so each address is looked up once, not once a stack.
 */
struct part_memo {
	uint32_t seq;
	int32_t pid;
	uint64_t from, until;
	size_t at;                    /* its frames: part_frames[at .. at + n) */
	uint32_t n, unknown;          /* unknown: its frames in no image */
};

struct emitter {
	int col_samples, col_cpu;
	uint64_t ns_per_sample;
	struct pc_frame *frames;      /* of the part (or the IP) being resolved */
	uint32_t *frame_ids;          /* of the stack being made */
	struct pc_index label_index;  /* (pid, tid) -> label set + 1 */
	uint64_t *label_keys;
	uint32_t *label_sets;
	size_t nlabels, labels_cap;
	struct part_memo *parts;
	size_t nparts, parts_cap;
	uint32_t *part_frames;
	size_t npart_frames, part_frames_cap;
	size_t part_frames_max;       /* past it, the parts are given up */
	struct pc_index part_index;   /* (seq, pid) -> part + 1 */
	struct reuse_gauge part_reuse;
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
	return (f->side != SIDE_UNKNOWN ? f->side : fragment_side(r, f)) == SIDE_KERNEL;
}

/*
 * Of the n fragments (sorted), those of the sample's (time, thread): the
 * last kernel one in *kernel and the last user one in *user, when it has
 * them.
 */
static void pick_from(const struct etl_reader *r, const struct fragment *fragments, size_t n,
		      size_t *cursor, const struct sample *s, bool shared,
		      const struct fragment **kernel, const struct fragment **user)
{
	for (size_t i = first_fragment(fragments, n, cursor, s->time, s->tid);
	     i < n && fragments[i].time == s->time && fragments[i].tid == s->tid; i++) {
		const struct fragment *f = &fragments[i];

		if (!f->resolved || (shared && f->cpu != s->cpu))
			continue;
		if (is_kernel_fragment(r, f))
			*kernel = f;
		else
			*user = f;
	}
}

/* The sample's fragments: the last kernel one and the last user one of its (time, thread). */
static void pick_fragments(const struct etl_reader *r, struct key_cursor *c,
			   const struct sample *s, bool shared, const struct fragment **kernel,
			   const struct fragment **user)
{
	*kernel = *user = NULL;
	pick_from(r, r->fragments, r->nfragments, &c->fragment, s, shared, kernel, user);
}

void etl_sample_key(const struct etl_reader *r, const struct epochs *epochs,
		    struct key_cursor *c, size_t i, struct sample_key *k)
{
	const struct sample *s = &r->samples[i];
	bool shared = (i > 0 && s[-1].time == s->time && s[-1].tid == s->tid) ||
		      (i + 1 < r->nsamples && s[1].time == s->time && s[1].tid == s->tid);
	const struct fragment *kernel, *user;
	uint32_t stack_pid;

	*k = (struct sample_key){ .tid = s->tid };
	k->has_pid = s->tid == 0 || etl_thread_process(r, s->tid, s->time, &k->pid);
	pick_fragments(r, c, s, shared, &kernel, &user);
	stack_pid = user ? user->pid : kernel ? kernel->pid : UINT32_MAX;
	if (!k->has_pid && stack_pid != UINT32_MAX) { /* the stack says whose it is */
		k->pid = stack_pid;
		k->has_pid = true;
	}
	k->kernel = kernel ? kernel->seq : 0;
	k->user = user ? user->seq : 0;
	if (!k->kernel && !k->user)
		k->ip = s->ip;
	while (c->epoch < epochs->n && epochs->times[c->epoch] <= s->time)
		c->epoch++;
	k->epoch = c->epoch ? epochs->times[c->epoch - 1] : 0;
}

uint64_t etl_key_hash(const struct sample_key *k)
{
	return pc_hash_u64(((uint64_t)k->kernel << 32 | k->user) ^
			   pc_hash_u64(k->ip ^ ((uint64_t)k->tid << 32 | k->pid) ^
				       pc_hash_u64(k->epoch ^ k->has_pid)));
}

bool etl_same_key(const struct sample_key *a, const struct sample_key *b)
{
	return a->kernel == b->kernel && a->user == b->user && a->tid == b->tid &&
	       a->pid == b->pid && a->has_pid == b->has_pid && a->epoch == b->epoch &&
	       a->ip == b->ip;
}

static bool group_equal(const void *ctx, uint32_t id, const void *key)
{
	return etl_same_key(&((const struct key_range *)ctx)->groups[id - 1].key, key);
}

/* The keys of a batch of samples are found, then their slots asked for together. */
#define GROUP_BATCH 8

/* Counts sample i, of key k (hash hash), in its group, or makes one. */
static void group_sample(struct key_range *g, size_t i, const struct sample_key *k, uint64_t hash)
{
	uint32_t at = pc_index_find(&g->index, hash, group_equal, g, k);

	if (at) {
		g->groups[at - 1].count++;
	} else {
		pc_grow(&g->groups, &g->groups_cap, g->ngroups + 1, sizeof(*g->groups));
		g->groups[g->ngroups++] = (struct sample_group){ .key = *k, .first = i, .count = 1 };
		pc_index_add(&g->index, hash, (uint32_t)g->ngroups);
	}
	reuse_still_worth(&g->reuse, at != 0);
}

/*
 * Groups the range's samples until their keys prove to hardly repeat (a
 * worker), GROUP_BATCH at a time: the keys of a batch, then the index
 * slots and the likely groups asked for (their cache misses overlap), then
 * each counted in order.
 */
static void *group_samples(void *arg)
{
	struct key_range *g = arg;
	struct key_cursor c = { 0 };
	struct sample_key keys[GROUP_BATCH];
	uint64_t hashes[GROUP_BATCH];
	size_t i = g->begin;

	while (i < g->end && !g->reuse.given_up && g->ngroups < UINT32_MAX - GROUP_BATCH) {
		size_t n = g->end - i < GROUP_BATCH ? g->end - i : GROUP_BATCH, j;

		for (j = 0; j < n; j++) {
			etl_sample_key(g->r, g->epochs, &c, i + j, &keys[j]);
			hashes[j] = etl_key_hash(&keys[j]);
			pc_index_prefetch(&g->index, hashes[j]);
		}
		for (j = 0; j < n; j++) {
			uint32_t id = pc_index_candidate(&g->index, hashes[j]);

			if (id)
				PC_PREFETCH(&g->groups[id - 1]);
		}
		for (j = 0; j < n && !g->reuse.given_up; j++)
			group_sample(g, i + j, &keys[j], hashes[j]);
		i += j;
	}
	g->grouped = i;
	pc_index_release(&g->index);
	return NULL;
}

static bool stack_memo_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct stack_memo *memo = &((const struct etl_reader *)ctx)->stack_memos[id - 1];
	const struct stack_memo *want = key;

	return memo->kernel == want->kernel && memo->user == want->user &&
	       memo->pid == want->pid && memo->ip == want->ip;
}

static bool part_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct part_memo *part = &((const struct emitter *)ctx)->parts[id - 1];
	const struct part_memo *want = key;

	return part->seq == want->seq && part->pid == want->pid;
}

/* Resolves part's addresses at time into model frames, their ids in ids. */
static void resolve_part(struct etl_reader *r, struct emitter *e, struct part_memo *part,
			 uint64_t time, uint32_t *ids)
{
	size_t count;
	const uint32_t *items = raw_items(r, part->seq, &count);

	part->from = 0;
	part->until = UINT64_MAX;
	part->unknown = 0;
	part->n = (uint32_t)(count / 2);
	for (size_t i = 0; i < part->n; i++) {
		uint64_t from, until;
		bool unknown;

		e->frames[i] = frame_at(r, part->pid, raw_address(items, i), time, &from, &until,
					&unknown);
		part->unknown += unknown;
		part->from = from > part->from ? from : part->from;
		part->until = until < part->until ? until : part->until;
	}
	pc_model_add_frames(r->m, e->frames, part->n, ids);
}

/* Narrows memo's span to part's and counts its frames in no image. */
static void take_part_span(struct stack_memo *memo, const struct part_memo *part)
{
	memo->unknown += part->unknown;
	memo->from = part->from > memo->from ? part->from : memo->from;
	memo->until = part->until < memo->until ? part->until : memo->until;
}

/*
 * The part memo of (seq, pid), resolved at time (new, or past its span);
 * NULL, and the parts given up, when a new one would take their frames
 * past e->part_frames_max (a trace of many processes sharing long stacks
 * would otherwise keep them once per process).
 */
static const struct part_memo *part_at(struct etl_reader *r, struct emitter *e, uint32_t seq,
				       int32_t pid, uint64_t time)
{
	struct part_memo key = { .seq = seq, .pid = pid }, *part;
	uint64_t hash = pc_hash_u64((uint64_t)seq << 32 | (uint32_t)pid);
	uint32_t at = pc_index_find(&e->part_index, hash, part_equal, e, &key);
	size_t count;

	reuse_still_worth(&e->part_reuse, at != 0);
	if (at) {
		part = &e->parts[at - 1];
		if (time < part->from || time >= part->until)
			resolve_part(r, e, part, time, e->part_frames + part->at);
		return part;
	}
	raw_items(r, seq, &count);
	if (count / 2 > e->part_frames_max - e->npart_frames) {
		e->part_reuse.given_up = true;
		return NULL;
	}
	key.at = e->npart_frames;
	pc_grow(&e->part_frames, &e->part_frames_cap, key.at + count / 2, sizeof(*e->part_frames));
	e->npart_frames += count / 2;
	pc_grow(&e->parts, &e->parts_cap, e->nparts + 1, sizeof(*e->parts));
	e->parts[e->nparts++] = key;
	pc_index_add(&e->part_index, hash, (uint32_t)e->nparts);
	part = &e->parts[e->nparts - 1];
	resolve_part(r, e, part, time, e->part_frames + part->at);
	return part;
}

/* Drops the part memos once they have been given up (part_reuse). */
static bool parts_in_use(struct emitter *e)
{
	if (e->part_reuse.given_up && e->parts) {
		free(e->parts);
		free(e->part_frames);
		e->parts = NULL;
		e->part_frames = NULL;
		e->nparts = e->parts_cap = e->npart_frames = e->part_frames_cap = 0;
		pc_index_release(&e->part_index);
	}
	return !e->part_reuse.given_up;
}

/*
 * Appends the frames of raw sequence seq (0: none) in memo's process at
 * time to e->frame_ids[*n ...], through the part memos until they are
 * given up (then each part is resolved where it goes).
 */
static void add_part(struct etl_reader *r, struct emitter *e, struct stack_memo *memo,
		     uint32_t seq, uint64_t time, size_t *n)
{
	struct part_memo direct = { .seq = seq, .pid = memo->pid };
	const struct part_memo *part = &direct;

	if (!seq)
		return;
	if (parts_in_use(e) && (part = part_at(r, e, seq, memo->pid, time)) != NULL) {
		memcpy(e->frame_ids + *n, e->part_frames + part->at, part->n * sizeof(*e->frame_ids));
	} else {
		part = &direct;
		resolve_part(r, e, &direct, time, e->frame_ids + *n);
	}
	take_part_span(memo, part);
	*n += part->n;
}

/*
 * Resolves memo's frames at time into a model stack (its kernel part, then
 * its user part, else its IP), and the span of time over which every one
 * of them holds.
 */
static void resolve_stack(struct etl_reader *r, struct emitter *e, struct stack_memo *memo,
			  uint64_t time)
{
	size_t n = 0;

	memo->from = 0;
	memo->until = UINT64_MAX;
	memo->unknown = 0;
	add_part(r, e, memo, memo->kernel, time, &n);
	add_part(r, e, memo, memo->user, time, &n);
	if (!n) { /* neither: its IP */
		uint64_t from, until;
		bool unknown;

		e->frames[0] = frame_at(r, memo->pid, memo->ip, time, &from, &until, &unknown);
		memo->unknown = unknown;
		memo->from = from;
		memo->until = until;
		pc_model_add_frames(r->m, e->frames, 1, e->frame_ids);
		n = 1;
	}
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
 * The model stack of key at time, and in *unknown how many of its frames
 * are in no image. Each (fragments, IP, process) keeps its last answer and
 * the span of time over which all its frames hold (image_at), so a
 * repeated stack costs one lookup.
 */
static uint32_t sample_stack(struct etl_reader *r, struct emitter *e, const struct sample_key *k,
			     uint64_t time, uint32_t *unknown)
{
	struct stack_memo key = {
		.kernel = k->kernel, .user = k->user, .pid = k->has_pid ? (int32_t)k->pid : -1,
		.ip = k->ip,
	};
	uint64_t hash;
	uint32_t at;
	struct stack_memo *memo;

	if (!memo_in_use(r)) {
		resolve_stack(r, e, &key, time);
		*unknown = key.unknown;
		return key.stack;
	}
	hash = pc_hash_u64(((uint64_t)key.kernel << 32 | key.user) ^
			   pc_hash_u64(key.ip ^ (uint64_t)(uint32_t)key.pid << 32));
	at = pc_index_find(&r->stack_memo_index, hash, stack_memo_equal, r, &key);
	reuse_still_worth(&r->memo_reuse, at != 0);
	if (!at) {
		pc_grow(&r->stack_memos, &r->stack_memos_cap, r->nstack_memos + 1,
			sizeof(*r->stack_memos));
		r->stack_memos[r->nstack_memos++] = key;
		at = (uint32_t)r->nstack_memos;
		pc_index_add(&r->stack_memo_index, hash, at);
		memo = &r->stack_memos[at - 1];
		resolve_stack(r, e, memo, time);
	} else {
		memo = &r->stack_memos[at - 1];
		if (time < memo->from || time >= memo->until)
			resolve_stack(r, e, memo, time);
	}
	*unknown = memo->unknown;
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

/*
 * Adds count samples of key (the first at time: the time the model keeps
 * when it keeps them, and then count is 1) with their CPU time.
 */
static int add_samples(struct etl_reader *r, struct emitter *e, const struct sample_key *k,
		       uint64_t time, uint64_t count)
{
	struct pc_sample sample = { 0 };
	struct pc_column_count counts[2] = {
		{ (size_t)e->col_samples, count }, { (size_t)e->col_cpu, 0 },
	};
	bool clock = r->perf_freq && r->perf_freq <= UINT64_MAX / 1000000000u;
	uint32_t unknown;
	int64_t nanos;
	int ret;

	sample.stack = sample_stack(r, e, k, time, &unknown);
	r->unknown_frames += unknown * count;
	sample.labels = labels_for(r, e, k->has_pid, k->pid, k->tid, time);
	if (e->ns_per_sample && count > PC_COUNT_MAX / e->ns_per_sample) {
		ret = -1;
	} else {
		counts[1].count = count * e->ns_per_sample;
		nanos = clock ? ticks_to_nanos(r, time) : 0;
		ret = pc_model_add_sample_counts(r->m, &sample, counts, 2, clock ? &nanos : NULL);
	}
	if (ret)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "the sample counts pass 2^63-1");
	return 0;
}

/* The range's samples into the model: its groups, then the samples it did not group. */
static int add_range(struct etl_reader *r, struct emitter *e, struct key_range *g)
{
	struct key_cursor c = { 0 };

	for (size_t i = 0; i < g->ngroups; i++)
		if (add_samples(r, e, &g->groups[i].key, r->samples[g->groups[i].first].time,
				g->groups[i].count))
			return -1;
	for (size_t i = g->grouped; i < g->end; i++) {
		struct sample_key k;

		etl_sample_key(r, g->epochs, &c, i, &k);
		if (add_samples(r, e, &k, r->samples[i].time, 1))
			return -1;
	}
	return 0;
}

/* The samples the stream retired into the model: its groups, in order. */
static int add_stream_groups(struct etl_reader *r, struct emitter *e)
{
	size_t n;
	const struct stream_group *groups = etl_stream_groups(r, &n);

	for (size_t i = 0; i < n; i++)
		if (add_samples(r, e, &groups[i].key, groups[i].time, groups[i].count))
			return -1;
	return 0;
}

static int compare_times(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The images' epochs (see struct sample_key), and the last time of all,
 * at which image_at finds no image (an image never unloaded has
 * "unloaded" UINT64_MAX).
 */
static void find_epochs(const struct etl_reader *r, struct epochs *epochs)
{
	size_t n = 0;

	epochs->times = pc_xmalloc((2 * r->nimages + 1) * sizeof(*epochs->times));
	epochs->times[n++] = UINT64_MAX;
	for (size_t i = 0; i < r->nimages; i++) {
		epochs->times[n++] = r->images[i].loaded;
		if (r->images[i].unloaded != UINT64_MAX)
			epochs->times[n++] = r->images[i].unloaded;
	}
	sort_items(epochs->times, n, sizeof(*epochs->times), compare_times);
	epochs->n = 0;
	for (size_t i = 0; i < n; i++)
		if (!epochs->n || epochs->times[i] != epochs->times[epochs->n - 1])
			epochs->times[epochs->n++] = epochs->times[i];
}

/*
 * Groups the samples in two ranges at once (a thread for the second) when
 * there are enough of them and threads to spare, else in one; none when
 * the model keeps each sample's time.
 */
static size_t group_ranges(struct etl_reader *r, const struct epochs *epochs,
			   struct key_range ranges[2])
{
	bool keep_times = pc_model_keeps_times(r->m);
	bool two = !keep_times && pc_ctx_threads(r->ctx) >= 2 &&
		   r->nsamples >= ETL_GROUP_SPLIT_MIN;
	size_t n = two ? 2 : 1;
	struct pc_threads *thread = NULL;

	for (size_t i = 0; i < n; i++) {
		ranges[i] = (struct key_range){ .r = r, .epochs = epochs };
		ranges[i].begin = i * (r->nsamples / n);
		ranges[i].end = i + 1 < n ? (i + 1) * (r->nsamples / n) : r->nsamples;
		ranges[i].grouped = ranges[i].begin;
		pc_index_init(&ranges[i].index);
		ranges[i].reuse.period = ETL_GROUP_REUSE_PERIOD;
		ranges[i].reuse.given_up = keep_times;
	}
	if (two)
		thread = pc_threads_start(1, group_samples, (void *const[]){ &ranges[1] }, false);
	group_samples(&ranges[0]);
	if (two && !pc_threads_count(thread))
		group_samples(&ranges[1]);
	else if (two && r->ctx->threads_used < 2)
		r->ctx->threads_used = 2;
	if (thread)
		pc_threads_join(thread);
	return n;
}

int etl_emit_samples(struct etl_reader *r)
{
	struct emitter e = { 0 };
	struct epochs epochs = { 0 };
	struct key_range ranges[2];
	size_t nranges = 0;
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
	if (!r->stream) {
		find_epochs(r, &epochs);
		nranges = group_ranges(r, &epochs, ranges);
	}
	e.frames = pc_xmalloc(2 * MAX_STACK * sizeof(*e.frames));
	e.frame_ids = pc_xmalloc(2 * MAX_STACK * sizeof(*e.frame_ids));
	pc_index_init(&e.label_index);
	pc_index_init(&e.part_index);
	/* as many frames as the raw sequences hold addresses, and some */
	e.part_frames_max = (r->raw.nitems + r->raw_second.nitems) / 2 + ((size_t)1 << 16);
	if (r->stream) {
		ret = add_stream_groups(r, &e);
	} else {
		for (size_t i = 0; i < nranges; i++) {
			if (!ret)
				ret = add_range(r, &e, &ranges[i]);
			free(ranges[i].groups);
		}
		free(epochs.times);
	}
	free(e.frames);
	free(e.frame_ids);
	free(e.label_keys);
	free(e.label_sets);
	pc_index_release(&e.label_index);
	free(e.parts);
	free(e.part_frames);
	pc_index_release(&e.part_index);
	return ret;
}
