/*
 * reconstruct.c - approximate call stacks from per-function totals and
 * caller -> callee arcs, by the VsPerfView method (seeds/002 "Step 5 -
 * Correcting the values", DESIGN.md section 3.3; the API and the method
 * are described in reconstruct.h).
 *
 * A function (a "node" below) is one one-frame sample of src: its frame
 * and its label set, with its exclusive count (arc_self_column) and its
 * inclusive count (arc_total_column). Functions of different processes
 * are different frames already (their modules differ by address space);
 * a frame without a module that several processes share (the unknown
 * frame) is one node per label set. A call arc from frame F to frame G
 * leads from the node (F, L) to G's node with the same label set L, or to
 * G's only node when both F and G have one node each (the labels of a
 * process-less input may differ from caller to callee).
 *
 * Choices the seed leaves open:
 *   - a caller is a function with a nonzero inclusive count and an arc
 *     of a nonzero count to the function (either 0 carries nothing, so it
 *     does not stop a function from being an entry point);
 *   - functions with inclusive 0 are not expanded (their share of a path
 *     is undefined); if one has an exclusive count anyway, it becomes a
 *     stack of its own, with a counted warning;
 *   - a function with an inclusive count that no walk reached (its
 *     callers are only in a cycle that nothing outside calls) becomes an
 *     entry point of its own after the real ones, with a counted warning,
 *     so that no mass is lost silently;
 *   - samples of src with no stack or more than one frame are not part of
 *     caller/callee data: they are left out, with a counted warning.
 * Each path's value is a real number. They are rounded top down with
 * pc_apportion: the total exclusive count is split among the entry points'
 * subtrees, and each path's rounded subtree among its own value and its
 * children's subtrees. So the stacks add up to the total exactly and every
 * subtree stays within one of its real value (rounding each path on its
 * own would let many small paths drift a whole subtree by many units). The
 * mass that recursion cut-offs and pruning leave out is spread over the
 * rest by the same rescaling.
 *
 * Order: nodes in the finalized order of src's samples and callees in the
 * finalized order of its arcs, which are both by content, so the output
 * does not depend on the order the input was read in.
 *
 * Every warning here is a loss (pc_warn: an error with --strict): the
 * walk warns of what it left out or made up, and pc_model_reconstruct_stacks
 * (not the _limited variant the tests call) warns that the stacks are
 * approximate when they are: when a function's exclusive count was split
 * among several paths, or scaled, by the method's assumption that a
 * function's callees share its calls in proportion. A function that ends
 * on one path with all of its exclusive count (a call tree, a summary
 * without callers) is exact, and says nothing.
 */
#include "model/reconstruct.h"

#include "base/apportion.h"
#include "model/copy.h"

#define RECONSTRUCT "reconstruct"
#define PRUNE_FRACTION 1e-6 /* paths below total x this are not expanded */

/* A function: a one-frame sample of src. */
struct rc_node {
	uint32_t frame, labels;   /* src ids */
	uint64_t self, total;     /* exclusive, inclusive */
	bool on_path, reached;
};

/* A node on the current path, with the arcs of its frame left to try. */
struct rc_step {
	uint32_t node, path; /* path: its index in paths */
	double value;
	size_t next_arc, end_arc;
};

/*
 * A path walked: its leaf and the path it extends, so that memory follows
 * the number of paths, not their lengths; only the paths that get a
 * share after rounding become stacks.
 */
struct rc_path {
	uint32_t parent;        /* index + 1 of the path without the leaf, 0 = none */
	uint32_t node;          /* the leaf's */
	uint32_t frame, labels; /* the leaf's, dst ids */
	double weight;          /* the leaf's exclusive share */
};

struct reconstruction {
	struct pc_ctx *ctx;
	const struct pc_model *src;
	struct pc_model *dst;
	size_t self_column, total_column;
	size_t max_paths, npaths;
	bool stopped;          /* the path limit was reached */
	bool say_approximate;  /* warn when the stacks are approximate */
	double min_value;      /* paths below it are not expanded */
	uint64_t total;        /* the exclusive counts of all nodes */

	struct rc_node *nodes;
	size_t nnodes;
	uint32_t *frame_nodes; /* nodes of frame f: frame_nodes[node_start[f] ..] */
	size_t *node_start;    /* by src frame id, nframes + 2 entries */
	uint32_t *frame_arcs;  /* call arcs from frame f, the same way */
	size_t *arc_start;
	size_t left_out;       /* samples that are no function */

	struct pc_model_copy copy; /* src ids -> dst ids */

	struct rc_step *steps;  /* the current path, root first */
	size_t depth, steps_cap;
	struct rc_path *paths; /* in walk order */
	size_t paths_cap;      /* r->npaths are used */
};

bool pc_model_has_arc_data(const struct pc_model *src)
{
	return pc_model_arc_self_column(src) >= 0 && pc_model_arc_total_column(src) >= 0 &&
	       (size_t)pc_model_arc_self_column(src) < pc_model_ncolumns(src) &&
	       (size_t)pc_model_arc_total_column(src) < pc_model_ncolumns(src);
}

/* ---- the functions and their arcs ---- */

/* The function of a one-frame sample: a new node, or the last one again. */
static void add_node(struct reconstruction *r, size_t sample, uint32_t frame)
{
	const uint64_t *values = pc_model_values(r->src, sample);
	uint32_t labels = pc_model_sample(r->src, sample)->labels;
	struct rc_node *last = r->nnodes ? &r->nodes[r->nnodes - 1] : NULL;

	/* samples differing only by branch stacks are adjacent: one function */
	if (!last || last->frame != frame || last->labels != labels)
		last = &r->nodes[r->nnodes++];
	*last = (struct rc_node){
		.frame = frame, .labels = labels,
		.self = pc_add_saturated(last->self, values[r->self_column]),
		.total = pc_add_saturated(last->total, values[r->total_column]),
	};
}

static int find_nodes(struct reconstruction *r)
{
	const struct pc_model *src = r->src;

	r->nodes = pc_xcalloc(pc_model_nsamples(src) ? pc_model_nsamples(src) : 1, sizeof(*r->nodes));
	for (size_t i = 0; i < pc_model_nsamples(src); i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(src, pc_model_sample(src, i)->stack, &n);
		uint64_t self = pc_model_values(src, i)[r->self_column];

		if (n != 1) {
			r->left_out++;
			continue;
		}
		if (self > PC_COUNT_MAX - r->total)
			return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
				       "%s: the exclusive counts ('%s') add up past 2^63-1",
				       RECONSTRUCT,
				       pc_str(src, pc_model_column(src, r->self_column)->type));
		r->total += self;
		add_node(r, i, frames[0]);
	}
	if (r->left_out &&
	    pc_warn(r->ctx, RECONSTRUCT, "%zu sample(s) that are no function (no stack, or "
		    "more than one frame) are left out of the reconstructed stacks",
		    r->left_out))
		return -1;
	return 0;
}

/*
 * Groups n items by frame id, keeping their order: the items of frame f
 * are (*items)[(*start)[f] .. (*start)[f + 1]). key(i) is item i's frame,
 * or 0 to leave it out.
 */
static void group_by_frame(const struct reconstruction *r, size_t n,
			   uint32_t (*key)(const struct reconstruction *, size_t),
			   uint32_t **items, size_t **start)
{
	size_t nframes = pc_model_nframes(r->src);
	size_t *fill = pc_xcalloc(nframes + 2, sizeof(*fill));

	*start = pc_xcalloc(nframes + 2, sizeof(**start));
	*items = pc_xmalloc((n ? n : 1) * sizeof(**items));
	for (size_t i = 0; i < n; i++)
		if (key(r, i))
			(*start)[key(r, i) + 1]++;
	for (size_t f = 0; f <= nframes; f++)
		(*start)[f + 1] += (*start)[f];
	memcpy(fill, *start, (nframes + 2) * sizeof(*fill));
	for (size_t i = 0; i < n; i++)
		if (key(r, i))
			(*items)[fill[key(r, i)]++] = (uint32_t)i;
	free(fill);
}

static uint32_t node_frame(const struct reconstruction *r, size_t i)
{
	return r->nodes[i].frame;
}

static uint32_t call_arc_caller(const struct reconstruction *r, size_t i)
{
	const struct pc_arc *arc = pc_model_arc(r->src, i);

	return arc->kind == PC_ARC_CALL ? arc->from : 0;
}

static size_t frame_node_count(const struct reconstruction *r, uint32_t frame)
{
	return r->node_start[frame + 1] - r->node_start[frame];
}

/*
 * The node that a call arc from the node caller to frame callee reaches:
 * the callee's node with the caller's labels, else the callee's only node
 * when the caller is its frame's only node too; -1 when there is none.
 */
static int64_t callee_node(const struct reconstruction *r, uint32_t caller, uint32_t callee)
{
	size_t from = r->node_start[callee], to = r->node_start[callee + 1];

	for (size_t i = from; i < to; i++)
		if (r->nodes[r->frame_nodes[i]].labels == r->nodes[caller].labels)
			return r->frame_nodes[i];
	if (to - from == 1 && frame_node_count(r, r->nodes[caller].frame) == 1)
		return r->frame_nodes[from];
	return -1;
}

/* Marks the nodes that another node with an inclusive count calls with a nonzero count. */
static bool *find_called(const struct reconstruction *r)
{
	bool *called = pc_xcalloc(r->nnodes ? r->nnodes : 1, sizeof(*called));

	for (size_t n = 0; n < r->nnodes; n++) {
		uint32_t frame = r->nodes[n].frame;

		if (!r->nodes[n].total)
			continue;
		for (size_t a = r->arc_start[frame]; a < r->arc_start[frame + 1]; a++) {
			const struct pc_arc *arc = pc_model_arc(r->src, r->frame_arcs[a]);
			int64_t callee = callee_node(r, (uint32_t)n, arc->to);

			if (arc->count && callee >= 0 && (size_t)callee != n)
				called[callee] = true;
		}
	}
	return called;
}

/* ---- the walk ---- */

/* Adds a path: parent (index + 1, or 0) extended by node, with node's share. */
static uint32_t add_path(struct reconstruction *r, uint32_t parent, uint32_t node, double weight)
{
	const struct rc_node *leaf = &r->nodes[node];

	pc_grow(&r->paths, &r->paths_cap, r->npaths + 1, sizeof(*r->paths));
	r->paths[r->npaths] = (struct rc_path){
		.parent = parent,
		.node = node,
		.frame = r->copy.frame_map[leaf->frame],
		.labels = r->copy.labelset_map[leaf->labels],
		.weight = weight,
	};
	return (uint32_t)r->npaths++;
}

/* Puts node at the end of the path with its value there; false at the limit. */
static bool push(struct reconstruction *r, uint32_t node, double value)
{
	const struct rc_node *leaf = &r->nodes[node];
	uint32_t frame = leaf->frame;
	uint32_t parent = r->depth ? r->steps[r->depth - 1].path + 1 : 0;
	double weight = (double)leaf->self * value / (double)leaf->total;

	if (r->npaths == r->max_paths) {
		r->stopped = true;
		return false;
	}
	pc_grow(&r->steps, &r->steps_cap, r->depth + 1, sizeof(*r->steps));
	r->steps[r->depth++] = (struct rc_step){
		.node = node, .path = add_path(r, parent, node, weight), .value = value,
		.next_arc = r->arc_start[frame], .end_arc = r->arc_start[frame + 1],
	};
	r->nodes[node].on_path = r->nodes[node].reached = true;
	return true;
}

/* The next callee of the path's leaf to expand, or false when there is none. */
static bool next_callee(struct reconstruction *r, uint32_t *node, double *value)
{
	struct rc_step *at = &r->steps[r->depth - 1];
	const struct rc_node *parent = &r->nodes[at->node];

	while (at->next_arc < at->end_arc) {
		const struct pc_arc *arc = pc_model_arc(r->src, r->frame_arcs[at->next_arc++]);
		int64_t callee = callee_node(r, at->node, arc->to);
		double share;

		if (callee < 0 || !arc->count || !r->nodes[callee].total ||
		    r->nodes[callee].on_path)
			continue;
		r->nodes[callee].reached = true;
		share = (double)arc->count * at->value / (double)parent->total;
		if (share > 0 && share >= r->min_value) {
			*node = (uint32_t)callee;
			*value = share;
			return true;
		}
	}
	return false;
}

/* Depth first from one entry point, without recursion: paths can be long. */
static void walk_from(struct reconstruction *r, uint32_t entry)
{
	uint32_t node;
	double value;

	if (!push(r, entry, (double)r->nodes[entry].total))
		return;
	while (r->depth) {
		if (!next_callee(r, &node, &value)) {
			r->nodes[r->steps[--r->depth].node].on_path = false;
		} else if (!push(r, node, value)) {
			while (r->depth)
				r->nodes[r->steps[--r->depth].node].on_path = false;
		}
	}
}

/* Entry points first, then whatever they did not reach; counts the latter. */
static size_t walk(struct reconstruction *r)
{
	bool *called = find_called(r);
	size_t orphans = 0;

	for (uint32_t n = 0; n < r->nnodes && !r->stopped; n++)
		if (r->nodes[n].total && !called[n])
			walk_from(r, n);
	for (uint32_t n = 0; n < r->nnodes && !r->stopped; n++)
		if (r->nodes[n].total && !r->nodes[n].reached) {
			orphans++;
			walk_from(r, n);
		}
	free(called);
	return orphans;
}

/* Functions with an exclusive but no inclusive count: stacks of their own. */
static size_t add_inconsistent(struct reconstruction *r)
{
	size_t count = 0;

	for (uint32_t n = 0; n < r->nnodes; n++) {
		if (r->nodes[n].total || !r->nodes[n].self)
			continue;
		add_path(r, 0, n, (double)r->nodes[n].self);
		count++;
	}
	return count;
}

static int warn_walk(struct reconstruction *r, size_t orphans, size_t inconsistent)
{
	if (r->stopped &&
	    pc_warn(r->ctx, RECONSTRUCT, "the call graph has more than %zu paths: stacks "
		    "reconstructed from the first %zu only", r->max_paths, r->max_paths))
		return -1;
	if (orphans &&
	    pc_warn(r->ctx, RECONSTRUCT, "no entry point reaches %zu function(s) (their "
		    "callers form a cycle): each became an entry point", orphans))
		return -1;
	if (inconsistent &&
	    pc_warn(r->ctx, RECONSTRUCT, "%zu function(s) have an exclusive count but an "
		    "inclusive count of 0: each is a stack of its own", inconsistent))
		return -1;
	return 0;
}

/* The stack of a path, leaf first, interned in dst. */
static uint32_t path_stack(struct reconstruction *r, uint32_t path, uint32_t **frames,
			   size_t *cap)
{
	size_t n = 0;

	for (uint32_t at = path + 1; at; at = r->paths[at - 1].parent) {
		pc_grow(frames, cap, n + 1, sizeof(**frames));
		(*frames)[n++] = r->paths[at - 1].frame;
	}
	return pc_model_add_stack(r->dst, *frames, n);
}

/*
 * The paths grouped by parent: the children of path p (index + 1; 0 = the
 * entry points) are child[child_start[p] .. child_start[p + 1]).
 */
struct rc_tree {
	size_t *child_start;
	uint32_t *child;
	double *subtree; /* a path's weight plus its children's subtrees */
	uint64_t *whole; /* a path's rounded subtree */
	uint64_t *share; /* a path's rounded own weight */
};

static void tree_build(const struct reconstruction *r, struct rc_tree *t)
{
	size_t n = r->npaths;

	t->child_start = pc_xcalloc(n + 2, sizeof(*t->child_start));
	t->child = pc_xmalloc((n ? n : 1) * sizeof(*t->child));
	t->subtree = pc_xmalloc((n ? n : 1) * sizeof(*t->subtree));
	t->whole = pc_xcalloc(n ? n : 1, sizeof(*t->whole));
	t->share = pc_xcalloc(n ? n : 1, sizeof(*t->share));
	for (size_t i = 0; i < n; i++)
		t->child_start[r->paths[i].parent + 1]++;
	for (size_t p = 1; p <= n + 1; p++)
		t->child_start[p] += t->child_start[p - 1];
	for (size_t i = 0; i < n; i++) {
		size_t *at = &t->child_start[r->paths[i].parent];

		t->child[(*at)++] = (uint32_t)i;
	}
	memmove(t->child_start + 1, t->child_start, (n + 1) * sizeof(*t->child_start));
	t->child_start[0] = 0;
	/* A child is walked after its parent: sum the subtrees backwards. */
	for (size_t i = 0; i < n; i++)
		t->subtree[i] = r->paths[i].weight;
	for (size_t i = n; i-- > 0;)
		if (r->paths[i].parent)
			t->subtree[r->paths[i].parent - 1] += t->subtree[i];
}

static void tree_release(struct rc_tree *t)
{
	free(t->child_start);
	free(t->child);
	free(t->subtree);
	free(t->whole);
	free(t->share);
}

/*
 * Splits whole among the path's own weight (self, when path is a path)
 * and its children's subtrees, by the largest remainder: every subtree's
 * rounded total stays within one of its real value.
 */
static void tree_split(struct rc_tree *t, size_t parent, double self, uint64_t whole,
		       uint64_t *self_share, double *weights, uint64_t *shares)
{
	size_t first = t->child_start[parent], n = t->child_start[parent + 1] - first;

	weights[0] = self;
	for (size_t k = 0; k < n; k++)
		weights[k + 1] = t->subtree[t->child[first + k]];
	pc_apportion(weights, n + 1, whole, shares);
	*self_share = shares[0];
	for (size_t k = 0; k < n; k++)
		t->whole[t->child[first + k]] = shares[k + 1];
}

/*
 * Rounds the paths' weights so that they add up to the total, top down:
 * the total is split among the entry points' subtrees, each path's
 * rounded subtree among its own weight and its children's subtrees.
 */
static int tree_round(const struct reconstruction *r, struct rc_tree *t)
{
	size_t n = r->npaths, roots = t->child_start[1];
	double *weights = pc_xmalloc((n + 1) * sizeof(*weights));
	uint64_t *shares = pc_xmalloc((n + 1) * sizeof(*shares)), unused;
	double sum = 0;

	for (size_t k = 0; k < roots; k++)
		sum += t->subtree[t->child[k]];
	if (!(sum > 0) && r->total) {
		free(weights);
		free(shares);
		return -1;
	}
	tree_split(t, 0, 0, r->total, &unused, weights, shares);
	for (size_t i = 0; i < n; i++)
		if (t->whole[i])
			tree_split(t, i + 1, r->paths[i].weight, t->whole[i], &t->share[i],
				   weights, shares);
	free(weights);
	free(shares);
	return 0;
}

/*
 * The functions whose exclusive count the stacks do not hold as it is, on
 * one path: split among several paths, or scaled by the method.
 */
static size_t approximated(const struct reconstruction *r, const uint64_t *share)
{
	uint64_t *sum = pc_xcalloc(r->nnodes ? r->nnodes : 1, sizeof(*sum));
	uint32_t *paths = pc_xcalloc(r->nnodes ? r->nnodes : 1, sizeof(*paths));
	size_t count = 0;

	for (size_t i = 0; i < r->npaths; i++) {
		if (!share[i])
			continue;
		sum[r->paths[i].node] += share[i]; /* shares add up to the total: no overflow */
		paths[r->paths[i].node]++;
	}
	for (size_t n = 0; n < r->nnodes; n++)
		count += paths[n] > 1 || sum[n] != r->nodes[n].self;
	free(sum);
	free(paths);
	return count;
}

/* Rounds the paths' weights to the total and adds them as dst's samples. */
static int add_samples(struct reconstruction *r)
{
	struct rc_tree tree;
	uint32_t *frames = NULL;
	size_t frames_cap = 0, approximate;
	int ret = 0;

	tree_build(r, &tree);
	if (tree_round(r, &tree))
		ret = pc_warn(r->ctx, RECONSTRUCT, "no stack could be reconstructed: the "
			      "output has no samples");
	for (size_t i = 0; i < r->npaths && !ret; i++) {
		struct pc_sample sample = { .labels = r->paths[i].labels };

		if (!tree.share[i])
			continue;
		sample.stack = path_stack(r, (uint32_t)i, &frames, &frames_cap);
		pc_model_add_sample(r->dst, &sample, 0, tree.share[i]);
	}
	if (!ret && r->say_approximate && (approximate = approximated(r, tree.share)))
		ret = pc_warn(r->ctx, RECONSTRUCT, "stacks reconstructed from caller/callee pairs "
			      "(VsPerfView method) are approximate: the exclusive counts of %zu "
			      "function(s) are split among call paths in proportion", approximate);
	tree_release(&tree);
	free(frames);
	return ret;
}

/* ---- the whole ---- */

static void release(struct reconstruction *r)
{
	free(r->nodes);
	free(r->frame_nodes);
	free(r->node_start);
	free(r->frame_arcs);
	free(r->arc_start);
	pc_model_copy_end(&r->copy);
	free(r->steps);
	free(r->paths);
}

static int add_column(struct reconstruction *r)
{
	const struct pc_column *type = pc_model_column(r->src, r->self_column);
	int column = pc_model_add_event_column(r->dst, pc_str(r->src, type->type),
					       pc_str(r->src, type->unit),
					       pc_str(r->src, type->event), type->role);

	pc_model_set_default_column(r->dst, column);
	return column;
}

static int reconstruct(struct pc_ctx *ctx, const struct pc_model *src, struct pc_model *dst,
		       size_t max_paths, bool say_approximate)
{
	struct reconstruction r = { .ctx = ctx, .src = src, .dst = dst, .max_paths = max_paths,
				    .say_approximate = say_approximate };
	size_t orphans, inconsistent;
	int ret = -1;

	if (!pc_model_has_arc_data(src) || !pc_model_is_finalized(src))
		return pc_fail(&ctx->err, PC_STATUS_INPUT, "%s: the model holds no finalized "
			       "caller/callee data", RECONSTRUCT);
	r.self_column = (size_t)pc_model_arc_self_column(src);
	r.total_column = (size_t)pc_model_arc_total_column(src);
	pc_model_copy_begin(&r.copy, src, dst);
	pc_model_copy_metadata(&r.copy, "stacks reconstructed from caller/callee pairs "
				       "(VsPerfView method): approximate");
	add_column(&r);
	if (find_nodes(&r))
		goto out;
	group_by_frame(&r, r.nnodes, node_frame, &r.frame_nodes, &r.node_start);
	group_by_frame(&r, pc_model_narcs(src), call_arc_caller, &r.frame_arcs, &r.arc_start);
	r.min_value = (double)r.total * PRUNE_FRACTION;
	orphans = r.total ? walk(&r) : 0;
	inconsistent = add_inconsistent(&r);
	if (warn_walk(&r, orphans, inconsistent) || add_samples(&r))
		goto out;
	ret = 0;
out:
	pc_model_finalize(dst);
	release(&r);
	return ret;
}

int pc_model_reconstruct_stacks_limited(struct pc_ctx *ctx, const struct pc_model *src,
					struct pc_model *dst, size_t max_paths)
{
	return reconstruct(ctx, src, dst, max_paths, false);
}

int pc_model_reconstruct_stacks(struct pc_ctx *ctx, const struct pc_model *src,
				struct pc_model *dst)
{
	return reconstruct(ctx, src, dst, PC_RECONSTRUCT_MAX_PATHS, true);
}
