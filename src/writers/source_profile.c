/*
 * source_profile.c - AutoFDO's counts of one binary turned into a profile
 * by source position, with the rules of create_gcov 0.19 (profile.cc,
 * symbol_map.cc) as ../shared/research/autofdo.md section 1.3 and
 * autofdo-loop.md sections 2, 6 and 7 describe them:
 *
 *   body counts    with branch stacks: every address in a range [b, e] is
 *                  executed once per count of the range (the ranges are
 *                  the only body counts); without: the IP samples. A
 *                  position's count is the largest over the addresses
 *                  that map to it (create_gcov's MAX).
 *   zeros          every line-table row of a sampled function that got no
 *                  count is written with 0: "ran, but under one sample".
 *   head           with branches: the taken branches whose target is the
 *                  entry of a sampled function, from a sampled function;
 *                  without: the IP samples on the entry address.
 *   targets        those same branches, at the source position of their
 *                  source, as call-target counts (gcc promotes indirect
 *                  calls with them; LLVM writes them after the count).
 *   call floor     IP samples only: a direct call (from the debug
 *                  information's call sites) to a sampled function counts
 *                  at least 1 at its position, so that gcc does not read
 *                  a caller that ran under one sample as never executed.
 *   names          the DWARF linkage name, else the name. gcc: cut at the
 *                  first '.', and clones of one function (foo.constprop.0,
 *                  foo.part.1) merged by summing, as gcc matches them.
 *   positions      (line - the function's DW_AT_decl_line) << 16 |
 *                  discriminator. gcc: discriminator 0 (gcc 12 masks it
 *                  and keeps the last record of a line: merged here by
 *                  MAX). LLVM: the base discriminator of LLVM's encoding,
 *                  counts scaled by the duplication factor, as
 *                  llvm-profgen; negative offsets cannot be written.
 *   totals         the positions' counts plus the nested totals.
 *
 * What is lost, each counted in a warning (an error with --strict):
 * addresses without line information (line 0, no function) or in
 * functions without a name, LLVM positions outside 0..65535. A profile
 * from IP samples alone is advised about in a notice (never an error).
 */
#include "writers/source_profile.h"
#include "writers/autofdo_counts.h"
#include "symbols/dwarf_source.h"
#include "base/sort.h"

#include <inttypes.h>
#include <strings.h>

#define MAX_INLINE_DEPTH 64

/* ---- names: borrowed (text, length) pairs, interned ---- */

struct sp_names {
	const char **texts;
	uint32_t *lens;
	size_t count, cap, lens_cap;
	struct pc_index index;
};

struct name_key {
	const char *text;
	uint32_t len;
};

static bool name_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct sp_names *names = ctx;
	const struct name_key *k = key;

	return names->lens[id - 1] == k->len && !memcmp(names->texts[id - 1], k->text, k->len);
}

/* The id of the name (0 for ""). */
static uint32_t name_intern(struct sp_names *names, const char *text, size_t len)
{
	struct name_key key = { text, (uint32_t)len };
	uint64_t hash = pc_hash_bytes(text, len, 0);
	uint32_t id;

	if (!len)
		return 0;
	id = pc_index_find(&names->index, hash, name_equal, names, &key);
	if (id)
		return id;
	pc_grow(&names->texts, &names->cap, names->count + 1, sizeof(*names->texts));
	pc_grow(&names->lens, &names->lens_cap, names->count + 1, sizeof(*names->lens));
	names->texts[names->count] = text;
	names->lens[names->count] = (uint32_t)len;
	id = (uint32_t)++names->count;
	pc_index_add(&names->index, hash, id);
	return id;
}

/* ---- the tree being built: instances, positions, targets ---- */

struct sp_tree {
	struct pc_seqs instances;  /* top: (0, name, entry hi, entry lo); nested: (parent, loc, name) */
	uint32_t *parent, *loc, *name;
	uint64_t *head;
	size_t inst_cap[4];
	struct pc_seqs positions;  /* (instance, loc) */
	uint64_t *count;
	size_t count_cap;
	struct pc_tally targets;   /* (position, name) */
};

static void tree_init(struct sp_tree *t)
{
	memset(t, 0, sizeof(*t));
	pc_seqs_init(&t->instances);
	pc_seqs_init(&t->positions);
	pc_tally_init(&t->targets);
}

static void tree_release(struct sp_tree *t)
{
	pc_seqs_release(&t->instances);
	pc_seqs_release(&t->positions);
	pc_tally_release(&t->targets);
	free(t->parent);
	free(t->loc);
	free(t->name);
	free(t->head);
	free(t->count);
}

static uint32_t tree_instance(struct sp_tree *t, const uint32_t *key, size_t n)
{
	size_t before = t->instances.count;
	uint32_t id = pc_seqs_add(&t->instances, key, n);

	if (t->instances.count == before)
		return id;
	pc_grow(&t->parent, &t->inst_cap[0], id + 1, sizeof(*t->parent));
	pc_grow(&t->loc, &t->inst_cap[1], id + 1, sizeof(*t->loc));
	pc_grow(&t->name, &t->inst_cap[2], id + 1, sizeof(*t->name));
	pc_grow(&t->head, &t->inst_cap[3], id + 1, sizeof(*t->head));
	t->parent[id] = n == 3 ? key[0] : 0;
	t->loc[id] = n == 3 ? key[1] : 0;
	t->name[id] = n == 3 ? key[2] : key[1];
	t->head[id] = 0;
	return id;
}

static uint32_t tree_top(struct sp_tree *t, uint32_t name, uint64_t entry)
{
	uint32_t key[4] = { 0, name, (uint32_t)(entry >> 32), (uint32_t)entry };

	return tree_instance(t, key, 4);
}

static uint32_t tree_child(struct sp_tree *t, uint32_t parent, uint32_t loc, uint32_t name)
{
	uint32_t key[3] = { parent, loc, name };

	return tree_instance(t, key, 3);
}

/* The position (instance, loc), created with count 0 when new. */
static uint32_t tree_position(struct sp_tree *t, uint32_t instance, uint32_t loc)
{
	uint32_t key[2] = { instance, loc };
	size_t before = t->positions.count;
	uint32_t id = pc_seqs_add(&t->positions, key, 2);

	if (t->positions.count != before) {
		pc_grow(&t->count, &t->count_cap, id + 1, sizeof(*t->count));
		t->count[id] = 0;
	}
	return id;
}

static uint64_t add_capped(uint64_t a, uint64_t b)
{
	return a > PC_COUNT_MAX - b ? PC_COUNT_MAX : a + b;
}

/* ---- building from counts and DWARF ---- */

struct sp_builder {
	struct pc_ctx *ctx;
	const char *format;
	enum sp_flavour flavour;
	struct pc_dwarf *dw;
	struct sp_names *names;
	struct sp_tree tree;
	uint64_t *sampled;         /* entries of the sampled functions, sorted */
	size_t nsampled, sampled_cap;
	uint64_t lost_no_line, lost_offset, lost_unnamed;
};

/* A frame's name id, cut at the first '.' for gcc. */
static uint32_t frame_name(struct sp_builder *b, const char *name)
{
	size_t len = strlen(name);

	if (b->flavour == SP_GCC) {
		const char *dot = strchr(name, '.');

		if (dot && dot != name)
			len = (size_t)(dot - name);
	}
	return name_intern(b->names, name, len);
}

/* LLVM's base discriminator (DILocation::getBaseDiscriminatorFromDiscriminator, LLVM 14). */
static uint32_t llvm_base_discriminator(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	return d & 0x20 ? ((d >> 1) & 0xfe0) | (d & 0x1f) : d & 0x1f;
}

/* LLVM's duplication factor of a discriminator (1 when none is encoded). */
static uint32_t llvm_dup_factor(uint32_t d)
{
	uint32_t factor;

	if (d & 1)
		d >>= 1;
	else
		d >>= (d & 0x40) ? 14 : 7;
	if (d & 1)
		return 1;
	d >>= 1;
	factor = d & 0x20 ? ((d >> 1) & 0xfe0) | (d & 0x1f) : d & 0x1f;
	return factor ? factor : 1;
}

/* The position of a frame's line; false when the flavour cannot write it. */
static bool frame_loc(struct sp_builder *b, const struct pc_source_frame *f, uint32_t *loc)
{
	int64_t offset = (int64_t)f->line - (int64_t)f->decl_line;

	if (b->flavour == SP_GCC) {
		*loc = (uint32_t)((uint64_t)offset << 16);
		return true;
	}
	if (offset < 0 || offset > 0xffff)
		return false;
	*loc = (uint32_t)offset << 16 | llvm_base_discriminator(f->discriminator);
	return true;
}

/*
 * The instance of the leaf frame, through the inline chain, and the leaf's
 * position; 0 when a position of the chain cannot be written (then nothing
 * is created).
 */
static uint32_t chain_instance(struct sp_builder *b, const struct pc_source_frame *frames,
			       size_t n, const struct pc_source_function *fn, uint32_t *leaf_loc)
{
	uint32_t locs[MAX_INLINE_DEPTH], instance;

	for (size_t i = 0; i < n; i++)
		if (!frame_loc(b, &frames[i], &locs[i]))
			return 0;
	for (size_t i = 0; i < n; i++)
		if (!frame_name(b, frames[i].name)) { /* gcc asserts names are not "" */
			*leaf_loc = UINT32_MAX;
			return 0;
		}
	instance = tree_top(&b->tree, frame_name(b, fn->name), fn->entry);
	for (size_t i = n - 1; i > 0; i--)
		instance = tree_child(&b->tree, instance, locs[i], frame_name(b, frames[i - 1].name));
	*leaf_loc = locs[0];
	return instance;
}

/*
 * Counts count at addr's position, keeping the largest (create_gcov's
 * MAX); returns the position, or 0 when addr has none.
 */
static uint32_t add_at(struct sp_builder *b, uint64_t addr, uint64_t count)
{
	struct pc_source_frame frames[MAX_INLINE_DEPTH];
	struct pc_source_function fn;
	size_t n = pc_dwarf_frames(b->dw, addr, frames, MAX_INLINE_DEPTH, &fn);
	uint32_t instance, loc, position;

	if (!n) {
		b->lost_no_line = add_capped(b->lost_no_line, count);
		return 0;
	}
	loc = 0;
	instance = chain_instance(b, frames, n, &fn, &loc);
	if (!instance) {
		if (loc == UINT32_MAX)
			b->lost_unnamed = add_capped(b->lost_unnamed, count);
		else
			b->lost_offset = add_capped(b->lost_offset, count);
		return 0;
	}
	if (b->flavour == SP_LLVM && count > PC_COUNT_MAX / llvm_dup_factor(frames[0].discriminator))
		count = PC_COUNT_MAX;
	else if (b->flavour == SP_LLVM)
		count *= llvm_dup_factor(frames[0].discriminator);
	position = tree_position(&b->tree, instance, loc);
	if (count > b->tree.count[position])
		b->tree.count[position] = count;
	return position;
}

static bool is_sampled(const struct sp_builder *b, uint64_t entry)
{
	size_t lo = 0, hi = b->nsampled;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->sampled[mid] == entry)
			return true;
		if (b->sampled[mid] < entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Records the entries of the functions holding the addresses (keys' value 0), sorted, once each. */
static void find_sampled(struct sp_builder *b, const struct pc_tally *t)
{
	struct pc_source_function fn;
	size_t kept = 0;

	for (uint32_t key = 1; key < t->keys.count; key++) {
		size_t n;
		uint64_t addr = afdo_key_value(pc_seq(&t->keys, key, &n), 0);

		if (!pc_dwarf_function_of(b->dw, addr, &fn))
			continue;
		pc_grow(&b->sampled, &b->sampled_cap, b->nsampled + 1, sizeof(*b->sampled));
		b->sampled[b->nsampled++] = fn.entry;
	}
	if (b->nsampled)
		qsort(b->sampled, b->nsampled, sizeof(*b->sampled), compare_u64);
	for (size_t i = 0; i < b->nsampled; i++)
		if (!kept || b->sampled[kept - 1] != b->sampled[i])
			b->sampled[kept++] = b->sampled[i];
	b->nsampled = kept;
}

static void add_zero(void *arg, uint64_t address)
{
	add_at(arg, address, 0);
}

/* Explicit zeros at every row of every sampled function. */
static void add_zeros(struct sp_builder *b)
{
	uint64_t no_line = b->lost_no_line;

	for (size_t i = 0; i < b->nsampled; i++)
		pc_dwarf_function_rows(b->dw, b->sampled[i], add_zero, b);
	b->lost_no_line = no_line; /* rows of line 0 are not losses */
}

/* IP samples: each address's count at its position; the entry's samples are the head. */
static void add_ips(struct sp_builder *b, const struct pc_tally *addresses)
{
	for (uint32_t key = 1; key < addresses->keys.count; key++) {
		size_t n;
		uint64_t addr = afdo_key_value(pc_seq(&addresses->keys, key, &n), 0);
		struct pc_source_function fn;

		add_at(b, addr, addresses->counts[key]);
		if (pc_dwarf_function_at(b->dw, addr, &fn)) {
			uint32_t top = tree_top(&b->tree, frame_name(b, fn.name), fn.entry);

			b->tree.head[top] = add_capped(b->tree.head[top], addresses->counts[key]);
		}
	}
}

/* ---- ranges: how often each address ran ---- */

/*
 * A step of the running count: +count where a range starts, -count after
 * it ends. The running total is kept in 128 bits (high, low words, modulo
 * 2^128): ranges of counts up to 2^63-1 may overlap, and a total read
 * after all the steps at an address is never negative.
 */
struct coverage_step {
	uint64_t address;
	uint64_t count;
	bool minus;
	uint64_t total_hi, total_lo; /* the running total after this step */
};

struct coverage {
	struct coverage_step *steps; /* by address */
	size_t n;
};

static int compare_steps(const void *a, const void *b)
{
	return compare_u64(&((const struct coverage_step *)a)->address,
			   &((const struct coverage_step *)b)->address);
}

/* The running count from the ranges' starts (+) and ends + 1 (-). */
static void coverage_build(struct coverage *c, const struct pc_tally *ranges)
{
	uint64_t hi = 0, lo = 0;
	size_t n = 0;

	c->steps = pc_xmalloc(2 * ranges->keys.count * sizeof(*c->steps));
	for (uint32_t key = 1; key < ranges->keys.count; key++) {
		size_t len;
		const uint32_t *k = pc_seq(&ranges->keys, key, &len);
		uint64_t end = afdo_key_value(k, 1);

		c->steps[n++] = (struct coverage_step){ .address = afdo_key_value(k, 0),
							.count = ranges->counts[key] };
		if (end != UINT64_MAX) /* a range up to the last address never ends */
			c->steps[n++] = (struct coverage_step){ .address = end + 1,
								.count = ranges->counts[key],
								.minus = true };
	}
	if (n)
		qsort(c->steps, n, sizeof(*c->steps), compare_steps);
	for (size_t i = 0; i < n; i++) {
		uint64_t before = lo;

		if (c->steps[i].minus) {
			lo -= c->steps[i].count;
			hi -= lo > before;
		} else {
			lo += c->steps[i].count;
			hi += lo < before;
		}
		c->steps[i].total_hi = hi;
		c->steps[i].total_lo = lo;
	}
	c->n = n;
}

/* How often the instruction at addr ran: the running count after the last step at or below it. */
static uint64_t coverage_at(const struct coverage *c, uint64_t addr)
{
	const struct coverage_step *step;
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->steps[mid].address <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return 0;
	step = &c->steps[lo - 1];
	return step->total_hi || step->total_lo > PC_COUNT_MAX ? PC_COUNT_MAX : step->total_lo;
}

struct range_walk {
	struct sp_builder *b;
	const struct coverage *coverage;
};

static void add_row_coverage(void *arg, uint64_t address)
{
	struct range_walk *walk = arg;

	add_at(walk->b, address, coverage_at(walk->coverage, address));
}

/*
 * Ranges: the count of each row of a sampled function and of each
 * address inside one where the running count changes; the largest per
 * position, as create_gcov's per-address walk gives.
 */
static void add_ranges(struct sp_builder *b, const struct pc_tally *ranges)
{
	struct coverage coverage;
	struct range_walk walk = { b, &coverage };
	uint64_t no_line = b->lost_no_line, unnamed = b->lost_unnamed, offset = b->lost_offset;

	coverage_build(&coverage, ranges);
	for (size_t i = 0; i < b->nsampled; i++)
		pc_dwarf_function_rows(b->dw, b->sampled[i], add_row_coverage, &walk);
	for (size_t i = 0; i < coverage.n; i++) {
		struct pc_source_function fn;

		if (pc_dwarf_function_of(b->dw, coverage.steps[i].address, &fn) &&
		    is_sampled(b, fn.entry))
			add_row_coverage(&walk, coverage.steps[i].address);
	}
	free(coverage.steps);
	/* instruction executions, not samples: compilers skip line-0 code as well */
	b->lost_no_line = no_line;
	b->lost_unnamed = unnamed;
	b->lost_offset = offset;
}

/* Adds count to a (position, name) total, which stops at 2^63-1. */
static void tally_add_capped(struct pc_tally *t, const uint32_t key[2], uint64_t count)
{
	if (pc_tally_add(t, key, 2, count))
		t->counts[pc_seqs_find(&t->keys, key, 2)] = PC_COUNT_MAX;
}

/* Branches to the entry of a sampled function, from one: heads and call targets. */
static int add_calls(struct sp_builder *b, const struct pc_tally *branches)
{
	for (uint32_t key = 1; key < branches->keys.count; key++) {
		size_t n;
		const uint32_t *k = pc_seq(&branches->keys, key, &n);
		uint64_t from = afdo_key_value(k, 0), count = branches->counts[key];
		struct pc_source_function callee, caller;
		uint32_t position, target[2], top;

		if (!pc_dwarf_function_at(b->dw, afdo_key_value(k, 1), &callee) ||
		    !is_sampled(b, callee.entry) || !pc_dwarf_function_of(b->dw, from, &caller) ||
		    !is_sampled(b, caller.entry))
			continue;
		top = tree_top(&b->tree, frame_name(b, callee.name), callee.entry);
		b->tree.head[top] = add_capped(b->tree.head[top], count);
		position = add_at(b, from, 0);
		if (!position)
			continue;
		target[0] = position;
		target[1] = frame_name(b, callee.name);
		if (!target[1]) {
			b->lost_unnamed = add_capped(b->lost_unnamed, count);
			continue;
		}
		tally_add_capped(&b->tree.targets, target, count);
	}
	return 0;
}

static void floor_call(void *arg, uint64_t call_address, uint64_t callee_entry)
{
	struct sp_builder *b = arg;
	uint32_t position;

	if (!is_sampled(b, callee_entry))
		return;
	position = add_at(b, call_address, 0); /* at least 1, not scaled by LLVM's duplication */
	if (position && !b->tree.count[position])
		b->tree.count[position] = 1;
}

/* ---- merging by name, and the output arrays ---- */

/* Adds tree a into tree out with the top-level entries set to 0: clones meet, counts sum. */
static void merge_by_name(const struct sp_tree *a, struct sp_tree *out)
{
	uint32_t *map = pc_xcalloc(a->instances.count + 1, sizeof(*map));

	for (uint32_t id = 1; id < a->instances.count; id++) {
		map[id] = a->parent[id] ? tree_child(out, map[a->parent[id]], a->loc[id], a->name[id])
					: tree_top(out, a->name[id], 0);
		out->head[map[id]] = add_capped(out->head[map[id]], a->head[id]);
	}
	for (uint32_t id = 1; id < a->positions.count; id++) {
		size_t n;
		const uint32_t *k = pc_seq(&a->positions, id, &n);
		uint32_t position = tree_position(out, map[k[0]], k[1]);

		out->count[position] = add_capped(out->count[position], a->count[id]);
	}
	for (uint32_t id = 1; id < a->targets.keys.count; id++) {
		size_t n;
		const uint32_t *k = pc_seq(&a->targets.keys, id, &n);
		uint32_t key[2] = { 0, k[1] };

		key[0] = tree_position(out, map[pc_seq(&a->positions, k[0], &n)[0]],
				       pc_seq(&a->positions, k[0], &n)[1]);
		tally_add_capped(&out->targets, key, a->targets.counts[id]);
	}
	free(map);
}

struct sort_ctx {
	const struct source_profile *p;
	const struct sp_tree *t;
};

static int compare_names(const struct source_profile *p, uint32_t a, uint32_t b)
{
	size_t la = p->name_lens[a], lb = p->name_lens[b];
	int c = memcmp(p->names[a], p->names[b], la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* Instances by (parent, loc, name). */
static int compare_instances(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sort_ctx *s = ctx;
	const struct sp_tree *t = s->t;

	if (t->parent[a] != t->parent[b])
		return t->parent[a] < t->parent[b] ? -1 : 1;
	if (t->loc[a] != t->loc[b])
		return t->loc[a] < t->loc[b] ? -1 : 1;
	return compare_names(s->p, t->name[a], t->name[b]);
}

/* Positions by (instance, loc). */
static int compare_positions(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sp_tree *t = ((const struct sort_ctx *)ctx)->t;
	size_t n;
	const uint32_t *ka = pc_seq(&t->positions, a, &n), *kb = pc_seq(&t->positions, b, &n);

	if (ka[0] != kb[0])
		return ka[0] < kb[0] ? -1 : 1;
	return ka[1] < kb[1] ? -1 : ka[1] > kb[1];
}

/* Targets by (position, count descending, name). */
static int compare_targets(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sort_ctx *s = ctx;
	const struct pc_tally *t = &s->t->targets;
	size_t n;
	const uint32_t *ka = pc_seq(&t->keys, a, &n), *kb = pc_seq(&t->keys, b, &n);

	if (ka[0] != kb[0])
		return ka[0] < kb[0] ? -1 : 1;
	if (t->counts[a] != t->counts[b])
		return t->counts[a] > t->counts[b] ? -1 : 1;
	return compare_names(s->p, ka[1], kb[1]);
}

static uint32_t *identity_order(size_t first, size_t count)
{
	uint32_t *order = pc_xmalloc((count ? count : 1) * sizeof(*order));

	for (size_t i = 0; i < count; i++)
		order[i] = (uint32_t)(first + i);
	return order;
}

static void lay_out_instances(struct source_profile *p, const struct sp_tree *t)
{
	size_t n = t->instances.count - 1;
	struct sort_ctx s = { p, t };
	uint32_t *order = identity_order(1, n);

	p->ninstances = n;
	p->instances = pc_xcalloc(n + 1, sizeof(*p->instances));
	p->children = pc_xmalloc((n ? n : 1) * sizeof(*p->children));
	pc_sort_indices(&s, order, n, compare_instances);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = order[i], parent = t->parent[id];
		struct sp_instance *inst = &p->instances[id];

		inst->name = t->name[id];
		inst->loc = t->loc[id];
		inst->head = t->head[id];
		p->children[i] = id;
		if (!parent) {
			p->ntops++;
			continue;
		}
		if (!p->instances[parent].nchildren)
			p->instances[parent].first_child = (uint32_t)i;
		p->instances[parent].nchildren++;
	}
	/* the top-level instances sort first (parent 0): they are the tops, by name */
	p->tops = p->children;
	free(order);
}

static void lay_out_positions(struct source_profile *p, const struct sp_tree *t)
{
	size_t n = t->positions.count - 1, ntargets = t->targets.keys.count - 1;
	struct sort_ctx s = { p, t };
	uint32_t *order = identity_order(1, n), *slot = pc_xcalloc(n + 1, sizeof(*slot));
	uint32_t *torder = identity_order(1, ntargets);

	p->positions = pc_xcalloc(n ? n : 1, sizeof(*p->positions));
	p->targets = pc_xcalloc(ntargets ? ntargets : 1, sizeof(*p->targets));
	pc_sort_indices(&s, order, n, compare_positions);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const uint32_t *k = pc_seq(&t->positions, order[i], &len);
		struct sp_instance *inst = &p->instances[k[0]];

		if (!inst->npositions)
			inst->first_position = (uint32_t)i;
		inst->npositions++;
		p->positions[i] = (struct sp_position){ .loc = k[1], .count = t->count[order[i]] };
		slot[order[i]] = (uint32_t)i;
	}
	pc_sort_indices(&s, torder, ntargets, compare_targets);
	for (size_t i = 0; i < ntargets; i++) {
		size_t len;
		const uint32_t *k = pc_seq(&t->targets.keys, torder[i], &len);
		struct sp_position *pos = &p->positions[slot[k[0]]];

		if (!pos->ntargets)
			pos->first_target = (uint32_t)i;
		pos->ntargets++;
		p->targets[i] = (struct sp_target){ k[1], t->targets.counts[torder[i]] };
	}
	free(order);
	free(torder);
	free(slot);
}

/* Totals bottom-up: nested instances have larger ids than their parents. */
static void sum_totals(struct source_profile *p, const struct sp_tree *t)
{
	for (size_t id = p->ninstances; id >= 1; id--) {
		struct sp_instance *inst = &p->instances[id];

		for (uint32_t i = 0; i < inst->npositions; i++)
			inst->total = add_capped(inst->total, p->positions[inst->first_position + i].count);
		if (t->parent[id])
			p->instances[t->parent[id]].total =
				add_capped(p->instances[t->parent[id]].total, inst->total);
	}
}

/* ---- the whole build ---- */

static int report(struct sp_builder *b)
{
	if (b->lost_no_line &&
	    pc_warn(b->ctx, b->format,
		    "%" PRIu64 " samples at addresses without a source line (no function, or line 0) were left out",
		    b->lost_no_line))
		return -1;
	if (b->lost_unnamed &&
	    pc_warn(b->ctx, b->format,
		    "%" PRIu64 " samples in functions without a name in the debug information were left out",
		    b->lost_unnamed))
		return -1;
	if (b->lost_offset &&
	    pc_warn(b->ctx, b->format,
		    "%" PRIu64 " samples on lines before their function's declaration line (or 65536 lines after it) were left out",
		    b->lost_offset))
		return -1;
	return 0;
}

static int build_tree(struct sp_builder *b, const struct afdo_counts *c)
{
	bool lbr = c->ranges.keys.count > 1, branches = c->branches.keys.count > 1;

	find_sampled(b, lbr ? &c->ranges : &c->addresses);
	if (!b->nsampled)
		return pc_fail(&b->ctx->err, PC_STATUS_INPUT,
			       "%s: no sampled address of '%s' lies in a function of its debug information%s",
			       b->format, pc_option_text(b->ctx, "binary"),
			       branches && !lbr ? " (SPT LBR records give ranges with --lbr-ranges)" :
			       pc_option_text(b->ctx, "base") ? " (is --base the load bias?)" : "");
	add_zeros(b);
	if (lbr) {
		add_ranges(b, &c->ranges);
		if (add_calls(b, &c->branches))
			return -1;
	} else {
		add_ips(b, &c->addresses);
		pc_dwarf_call_sites(b->dw, floor_call, b);
		/* branch counts are not on the scale of IP samples: no heads or targets from them */
		/* advice, not a loss: a notice */
		if (branches)
			pc_notice(b->ctx, b->format,
				  "the profile comes from the IP samples: SPT LBR records give ranges, heads and call targets with --lbr-ranges");
		else
			pc_notice(b->ctx, b->format,
				  "IP samples only: they show which functions are hot but can mislead block layout (skid); record branch stacks (perf record -b) where the CPU has them");
	}
	return report(b);
}

/* The build ids of the recording and of --binary differ: the wrong binary. */
static int check_build_id(struct pc_ctx *ctx, const char *format, const struct afdo_counts *c,
			  struct pc_dwarf *dw)
{
	char hex[2 * 64 + 1];
	size_t len = pc_dwarf_build_id(dw, hex, sizeof(hex));
	size_t recorded = strlen(c->build_id);

	if (!len || !recorded)
		return 0;
	/* perf pads build ids to 20 bytes with zeros */
	if (recorded >= len && !strncasecmp(c->build_id, hex, len) &&
	    strspn(c->build_id + len, "0") == recorded - len)
		return 0;
	return pc_fail(&ctx->err, PC_STATUS_INPUT,
		       "%s: --binary '%s' has build id %s, but the recorded '%s' had %s: give the binary that was profiled",
		       format, pc_option_text(ctx, "binary"), hex, c->binary, c->build_id);
}

/* Opens --binary's DWARF; its errors say that they are about --binary. */
static int open_binary(struct pc_ctx *ctx, const char *format, struct pc_dwarf **dw)
{
	const char *binary = pc_option_text(ctx, "binary");
	char message[sizeof(ctx->err.message)];

	if (!binary)
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "%s: --binary must name the profiled ELF file (none given)", format);
	if (!pc_dwarf_open(binary, dw, &ctx->err))
		return 0;
	snprintf(message, sizeof(message), "%s", ctx->err.message);
	pc_error_clear(&ctx->err);
	return pc_fail(&ctx->err, PC_STATUS_INPUT, "%s: --binary: %s", format, message);
}

/* What the profile keeps alive: the names borrow the DWARF's strings. */
struct sp_internal {
	struct sp_names names;
	struct pc_dwarf *dw;
};

static void copy_names(struct source_profile *p, const struct sp_names *names)
{
	p->nnames = names->count + 1; /* id 0 is "" */
	p->names = pc_xmalloc(p->nnames * sizeof(*p->names));
	p->name_lens = pc_xmalloc(p->nnames * sizeof(*p->name_lens));
	p->names[0] = "";
	p->name_lens[0] = 0;
	for (size_t i = 0; i < names->count; i++) {
		p->names[i + 1] = names->texts[i];
		p->name_lens[i + 1] = names->lens[i];
	}
}

int source_profile_build(struct source_profile *p, struct pc_ctx *ctx, const struct pc_model *m,
			 const char *format, enum sp_flavour flavour)
{
	struct sp_internal *internal = pc_xcalloc(1, sizeof(*internal));
	struct sp_builder b = { .ctx = ctx, .format = format, .flavour = flavour,
				.names = &internal->names };
	struct afdo_counts counts;
	struct sp_tree merged;
	int ret = -1;

	memset(p, 0, sizeof(*p));
	p->internal = internal;
	pc_index_init(&internal->names.index);
	tree_init(&b.tree);
	tree_init(&merged);
	memset(&counts, 0, sizeof(counts));
	if (open_binary(ctx, format, &internal->dw) ||
	    afdo_counts_collect(&counts, ctx, m, format, AFDO_SPACE_VADDR) ||
	    check_build_id(ctx, format, &counts, internal->dw))
		goto out;
	b.dw = internal->dw;
	if (build_tree(&b, &counts))
		goto out;
	merge_by_name(&b.tree, &merged);
	copy_names(p, &internal->names);
	lay_out_instances(p, &merged);
	lay_out_positions(p, &merged);
	sum_totals(p, &merged);
	ret = 0;
out:
	afdo_counts_release(&counts);
	tree_release(&b.tree);
	tree_release(&merged);
	free(b.sampled);
	return ret;
}

void source_profile_release(struct source_profile *p)
{
	struct sp_internal *internal = p->internal;

	free(p->names);
	free(p->name_lens);
	free(p->instances);
	free(p->children);
	free(p->positions);
	free(p->targets);
	if (internal) {
		free(internal->names.texts);
		free(internal->names.lens);
		pc_index_release(&internal->names.index);
		if (internal->dw)
			pc_dwarf_close(internal->dw);
		free(internal);
	}
	memset(p, 0, sizeof(*p));
}
