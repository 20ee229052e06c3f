/*
 * report_writer.c - a human-readable report for the terminal
 * (`profconv report`, or `-t report`): a header, the top functions by self
 * count, and with --tree the call tree, root first.
 *
 * Source: DESIGN.md section 4.5; the tree is the one Apple Sampler showed
 * and the seed's build-tree computes (seeds/001: one node per distinct
 * path of names from the root, a node's count = the samples whose stack
 * passes through it), weighted here by the counted column's values. The
 * top table follows `pprof -top` (flat = self, cum = total).
 *
 * Layout (deterministic: the same model gives the same bytes), e.g. for
 * `profconv report --tree --top 2 samples/folded/recursive.folded`:
 *
 *   profconv report
 *   source:   folded
 *   column:   samples (count), the default
 *   total:    1000 in 15 distinct stacks
 *   [left out: N samples without a call stack (M with only a branch stack): V, P%]
 *
 *   top functions by self (2 of 24):
 *    self    self%  total   total%  function
 *     500   50.00%    500   50.00%  fib
 *     240   24.00%    240   24.00%  lex
 *
 *   call tree, root first (nodes below 0.5% of the total are folded):
 *    900   90.00%  myapp
 *    899   89.90%    main
 *   ...
 *      1    0.10%    (1 more below 0.5%)
 *
 * Counts are right-aligned to the width of the total, percentages have two
 * decimals, the tree indents two spaces per level. From level 32 on (the
 * roots are level 0) the indentation stays at 64 spaces and the level is
 * printed before the name, "[32] f", so a line costs the same at any depth
 * and a 100,000-frame stack prints 100,000 short lines. Children below
 * 0.5% of the total (count < ceil(total / 200)) are replaced by one line
 * with their sum and number, after their kept siblings (marked with their
 * level too when that is 32 or more).
 *
 * What maps where:
 *   the counted column  -> --event NAME picks the weight (period) column
 *                          of event NAME if there is one (perf script's
 *                          NAME_event), else the column named NAME;
 *                          default: the model's default column. When the
 *                          event also has a samples column (NAME_sample),
 *                          the header adds its total (the number of samples)
 *   a frame's name      -> its function name; unsymbolized: MODULE+0xRVA
 *                          (module-relative), MODULE@0xADDR (absolute) or
 *                          0xADDR, with MODULE the file name without its
 *                          directory; no address: [MODULE] or [unknown].
 *                          Frames with the same name are one function
 *                          (inline frames have their own names)
 *   self                -> the sum of the stacks whose leaf is the function
 *   total               -> the sum of the stacks that hold the function,
 *                          once per stack even when it recurses
 *   tree node           -> a distinct path of names from the root; children
 *                          by count (descending), then name
 * Percentages are of the column's total over all samples, those left out
 * included. Sorting: self, then total (descending), then name (bytes).
 * Names are printed as UTF-8, with control bytes and invalid UTF-8 as \xNN.
 *
 * Caller/callee data (Visual Studio CallerCallee and Function summaries,
 * model.h arc_self_column) has no stacks, but exact per-function values:
 * the report shows those, as the Visual Studio profiler's function lists
 * do (seeds/003 "Top Functions": name, module, exclusive, inclusive, their
 * percentages of the total, address), e.g.
 *
 *   profconv report
 *   source:   vsperf
 *   column:   samples (count), the default; inclusive: inclusive_samples
 *   total:    117 in 107 functions, 138 call arcs (caller/callee data:
 *             exact per function, no call stacks)
 *
 *   top functions by exclusive (2 of 107):
 *   excl    excl%  incl    incl%  address     module        function
 *     16   13.68%    16   13.68%  0x7855ae20  MSVCR90.dll   _memcpy
 *     11    9.40%    34   29.06%  0x401ef0    perfplay.exe  boost::...
 *   ...
 *   top functions by inclusive (2 of 107):
 *   ...
 *   call tree, root first, reconstructed from caller/callee pairs
 *   (VsPerfView method): approximate (nodes below 0.5% ...):
 *
 * (the header lines are one line each in the output). A function is a
 * frame: exclusive and inclusive are the sums of its one-frame samples in
 * the two columns (the unknown frame of several processes adds up), the
 * total is the exclusive column's; the address is the function's ("-"
 * without one), the module its file name ("-" without one). When the
 * functions are of more than one process (pid labels), a pid column comes
 * before the function: its pid, "*" for a function of several processes
 * (the unknown frame), "-" without one. Sorting: by exclusive, then
 * inclusive, or the other way round, then name, module, address and
 * pid. The tree is the one above, drawn from the stacks that
 * model/reconstruct.h makes (as folded and Sampler outputs get them), so
 * its values are approximate. --event may name the exclusive or the
 * inclusive column only.
 *
 * The writer needs call stacks: an input without any (LBR records only,
 * or no samples at all) is refused before it runs (pipeline/convert.c).
 * Called with a profile without samples, it writes the header and
 * "total: 0", with "column: none (the input has no samples)" when the
 * input made no column.
 *
 * What is lost: labels (a stack's samples are added whatever their
 * threads or processes), the other columns, samples whose counted value
 * is 0, samples without a call stack (branch-only LBR records; the header
 * counts them), branch stacks and arcs (but those of caller/callee data,
 * which the tree follows), addresses of symbolized frames (but in the
 * caller/callee tables), source files and lines.
 */
#include "model/format.h"
#include "base/utf8.h"
#include "base/sort.h"
#include "model/reconstruct.h"
#include "writers/frame_name.h"

#define REPORT "report"
#define DEFAULT_TOP 20
#define PRUNE_PER_MILLE 5 /* tree nodes below 0.5% of the total are folded */
#define TREE_INDENT_LEVELS 32 /* deeper tree nodes print their level: [N] */

/* A function: a distinct name. */
struct report_name {
	const char *text;
	size_t len;
	uint64_t self, total;
	uint32_t last_stack; /* the last stack that added to total */
};

struct report_node {
	uint32_t parent, name; /* node 0 is the invisible root */
	uint64_t count;
};

/* A node among its siblings, for sorting and printing. */
struct report_child {
	uint64_t count;
	const struct report_name *name;
	uint32_t node;
};

struct report {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	FILE *out;
	size_t column;
	int partner;           /* the samples column of the counted weight's event, or -1 */

	uint64_t total;        /* the column over all samples */
	uint64_t *stack_values; /* per stack id, samples with a stack */
	size_t nstacks;        /* distinct stacks with a value */
	uint64_t partner_total;
	size_t left_out, branch_only;
	uint64_t left_out_value;

	struct report_name *names; /* name id i is names[i - 1] */
	size_t nnames, names_cap;
	struct pc_index name_index;
	struct pc_arena arena;  /* names made here */
	uint32_t *frame_names;  /* frame id -> name id, 0 = not yet */

	struct report_node *nodes;
	size_t nnodes, nodes_cap;
	struct pc_index node_index;
	uint32_t *child_start;     /* node -> first of its children in children */
	struct report_child *children;
};

/* --- the counted column --- */

static void list_columns(const struct pc_model *m, int skip, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pc_model_ncolumns(m) && used < size; i++)
		if ((int)i != skip)
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? ", " : "",
						 pc_str(m, pc_model_column(m, i)->type));
}

/* The column that counts the samples of the event whose weight column is counted, or -1. */
static int partner_column(const struct pc_model *m, size_t column)
{
	const struct pc_column *counted = pc_model_column(m, column);

	if (counted->role != PC_ROLE_WEIGHT)
		return -1;
	return pc_model_find_column(m, PC_ROLE_SAMPLES, counted->event);
}

static int pick_column(struct report *r)
{
	const char *event = r->ctx->opt.event;
	int column = pc_model_default_column(r->m);
	char names[300];

	if (event) {
		column = pc_model_pick_column(r->m, event, PC_ROLE_WEIGHT);
		if (column < 0) {
			list_columns(r->m, -1, names, sizeof(names));
			return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
				       "%s: no column '%s_event' or '%s' to count (the "
				       "profile has: %s)", REPORT, event, event, names);
		}
	}
	if (column < 0 || (size_t)column >= pc_model_ncolumns(r->m))
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
			       "%s: the profile has no column to count", REPORT);
	r->column = (size_t)column;
	r->partner = partner_column(r->m, r->column);
	return 0;
}

/* --- totals per stack --- */

static int add_checked_in(struct report *r, size_t column, uint64_t *sum, uint64_t value)
{
	if (value > PC_COUNT_MAX - *sum) /* every writer's total fits in int64 */
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
			       "%s: the values of column '%s' add up to more than 2^63-1",
			       REPORT, pc_str(r->m, pc_model_column(r->m, column)->type));
	*sum += value;
	return 0;
}

static int add_checked(struct report *r, uint64_t *sum, uint64_t value)
{
	return add_checked_in(r, r->column, sum, value);
}

static void leave_out(struct report *r, const struct pc_sample *sample, uint64_t value)
{
	r->left_out++;
	if (sample->branches)
		r->branch_only++;
	r->left_out_value += value;
}

/*
 * Sums the column per stack id. All sums are bounded by the total, so
 * checking the total is enough.
 */
static int sum_stacks(struct report *r)
{
	const struct pc_model *m = r->m;

	r->stack_values = pc_xcalloc((pc_model_nstacks(m) + 1), sizeof(*r->stack_values));
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const struct pc_sample *sample = pc_model_sample(m, i);
		const uint64_t *values = pc_model_values(m, i);
		uint64_t value = values[r->column];

		if (!value)
			continue;
		if (add_checked(r, &r->total, value))
			return -1;
		if (!sample->stack) {
			leave_out(r, sample, value);
			continue;
		}
		if (!r->stack_values[sample->stack])
			r->nstacks++;
		r->stack_values[sample->stack] += value;
		if (r->partner >= 0)
			r->partner_total += values[r->partner];
	}
	return 0;
}

/* --- names --- */

struct name_key {
	const char *text;
	size_t len;
};

static bool name_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct report *r = ctx;
	const struct name_key *key = key_ptr;
	const struct report_name *name = &r->names[id - 1];

	return name->len == key->len && !memcmp(name->text, key->text, key->len);
}

static uint32_t intern_name(struct report *r, const char *text, size_t len)
{
	struct name_key key = { .text = text, .len = len };
	uint64_t hash = pc_hash_bytes(text, len, 0x6e);
	uint32_t id = pc_index_find(&r->name_index, hash, name_equal, r, &key);

	if (id)
		return id;
	pc_grow(&r->names, &r->names_cap, r->nnames + 1, sizeof(*r->names));
	r->names[r->nnames] = (struct report_name){ .text = text, .len = len };
	id = (uint32_t)++r->nnames;
	pc_index_add(&r->name_index, hash, id);
	return id;
}

/* The name of an unsymbolized frame (writers/frame_name.h), made in the arena. */
static uint32_t make_name(struct report *r, const struct pc_frame *frame)
{
	char text[600];
	size_t len = pc_frame_fallback_name(r->m, frame, text, sizeof(text));
	char *copy = pc_arena_alloc(&r->arena, len + 1);

	memcpy(copy, text, len + 1);
	return intern_name(r, copy, len);
}

static uint32_t frame_name(struct report *r, uint32_t frame_id)
{
	const struct pc_frame *frame;

	if (r->frame_names[frame_id])
		return r->frame_names[frame_id];
	frame = pc_model_frame(r->m, frame_id);
	if (frame->function)
		r->frame_names[frame_id] = intern_name(r, pc_str(r->m, frame->function),
						       pc_str_len(r->m, frame->function));
	else
		r->frame_names[frame_id] = make_name(r, frame);
	return r->frame_names[frame_id];
}

/* --- self and total per function --- */

static void count_stack(struct report *r, uint32_t stack, uint64_t value)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(r->m, stack, &n);

	for (size_t i = 0; i < n; i++) {
		uint32_t id = frame_name(r, frames[i]); /* may move r->names */
		struct report_name *name = &r->names[id - 1];

		if (!i)
			name->self += value;
		if (name->last_stack != stack) {
			name->last_stack = stack;
			name->total += value;
		}
	}
}

static void count_functions(struct report *r)
{
	for (uint32_t s = 1; s < (pc_model_nstacks(r->m) + 1); s++)
		if (r->stack_values[s])
			count_stack(r, s, r->stack_values[s]);
}

/* --- the tree --- */

struct node_key {
	uint32_t parent, name;
};

static uint64_t node_hash(uint32_t parent, uint32_t name)
{
	return pc_hash_u64(((uint64_t)parent << 32) | name);
}

static bool node_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct report *r = ctx;
	const struct node_key *key = key_ptr;

	return r->nodes[id].parent == key->parent && r->nodes[id].name == key->name;
}

/* The child of parent named name, added if new; ids are node indices. */
static uint32_t child_node(struct report *r, uint32_t parent, uint32_t name)
{
	struct node_key key = { .parent = parent, .name = name };
	uint64_t hash = node_hash(parent, name);
	uint32_t id = pc_index_find(&r->node_index, hash, node_equal, r, &key);

	if (id)
		return id;
	if (r->nnodes >= UINT32_MAX)
		pc_die_oom(r->nnodes);
	pc_grow(&r->nodes, &r->nodes_cap, r->nnodes + 1, sizeof(*r->nodes));
	r->nodes[r->nnodes] = (struct report_node){ .parent = parent, .name = name };
	id = (uint32_t)r->nnodes++;
	pc_index_add(&r->node_index, hash, id);
	return id;
}

static void add_path(struct report *r, uint32_t stack, uint64_t value)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(r->m, stack, &n);
	uint32_t node = 0;

	r->nodes[0].count += value;
	for (size_t i = n; i-- > 0;) {
		node = child_node(r, node, frame_name(r, frames[i]));
		r->nodes[node].count += value;
	}
}

static int compare_text(const char *a, size_t a_len, const char *b, size_t b_len)
{
	int diff = memcmp(a, b, a_len < b_len ? a_len : b_len);

	if (diff)
		return diff;
	return a_len < b_len ? -1 : a_len > b_len;
}

static int compare_u64_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int compare_children(const void *a_ptr, const void *b_ptr)
{
	const struct report_child *a = a_ptr, *b = b_ptr;

	if (a->count != b->count)
		return compare_u64_desc(a->count, b->count);
	return compare_text(a->name->text, a->name->len, b->name->text, b->name->len);
}

/* Groups the nodes by parent (child_start[p] .. child_start[p + 1]) and sorts them. */
static void sort_children(struct report *r)
{
	size_t n = r->nnodes;
	uint32_t *fill = pc_xcalloc(n + 1, sizeof(*fill));

	r->child_start = pc_xcalloc(n + 1, sizeof(*r->child_start));
	r->children = pc_xcalloc(n ? n : 1, sizeof(*r->children));
	for (size_t i = 1; i < n; i++)
		r->child_start[r->nodes[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		r->child_start[i + 1] += r->child_start[i];
	memcpy(fill, r->child_start, (n + 1) * sizeof(*fill));
	for (size_t i = 1; i < n; i++) {
		const struct report_node *node = &r->nodes[i];

		r->children[fill[node->parent]++] = (struct report_child){
			.count = node->count, .name = &r->names[node->name - 1],
			.node = (uint32_t)i,
		};
	}
	for (size_t i = 0; i < n; i++)
		qsort(r->children + r->child_start[i], r->child_start[i + 1] - r->child_start[i],
		      sizeof(*r->children), compare_children);
	free(fill);
}

static void build_tree(struct report *r)
{
	pc_grow(&r->nodes, &r->nodes_cap, 1, sizeof(*r->nodes));
	r->nodes[0] = (struct report_node){ 0 };
	r->nnodes = 1;
	for (uint32_t s = 1; s < (pc_model_nstacks(r->m) + 1); s++)
		if (r->stack_values[s])
			add_path(r, s, r->stack_values[s]);
	sort_children(r);
}

/* --- printing --- */

/* Prints a name for a terminal: UTF-8 as is, other bytes as \xNN. */
static void put_name(FILE *out, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;

	for (size_t i = 0; i < len;) {
		size_t seq = pc_utf8_char_len(s + i, len - i);

		if (!seq || s[i] < 0x20 || s[i] == 0x7f) {
			fprintf(out, "\\x%02x", s[i]);
			i++;
		} else {
			fwrite(s + i, 1, seq, out);
			i += seq;
		}
	}
}

static int digits(uint64_t value)
{
	int n = 1;

	while (value >= 10) {
		value /= 10;
		n++;
	}
	return n;
}

static double percent(const struct report *r, uint64_t value)
{
	return r->total ? 100.0 * (double)value / (double)r->total : 0.0;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void put_header(const struct report *r)
{
	const struct pc_model *m = r->m;
	FILE *out = r->out;
	char others[300];

	fputs("profconv report\nsource:   ", out);
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		fprintf(out, "%s%s", i ? ", " : "", pc_str(m, pc_model_source(m, i)));
	fprintf(out, "\ncolumn:   %s (%s), %s", pc_str(m, pc_model_column(m, r->column)->type),
		pc_str(m, pc_model_column(m, r->column)->unit),
		r->ctx->opt.event ? "picked by --event" : "the default");
	list_columns(m, (int)r->column, others, sizeof(others));
	if (others[0])
		fprintf(out, "; others: %s", others);
	fprintf(out, "\ntotal:    %llu in %zu distinct stack%s", (unsigned long long)r->total,
		r->nstacks, plural(r->nstacks));
	if (r->partner >= 0)
		fprintf(out, ", %llu sample%s (%s)", (unsigned long long)r->partner_total,
			plural(r->partner_total), pc_str(m, pc_model_column(m, r->partner)->type));
	fputc('\n', out);
	if (r->left_out)
		fprintf(out, "left out: %zu sample%s without a call stack (%zu with only a "
			"branch stack): %llu, %.2f%%\n", r->left_out, plural(r->left_out),
			r->branch_only, (unsigned long long)r->left_out_value,
			percent(r, r->left_out_value));
}

static int compare_functions(const void *a_ptr, const void *b_ptr)
{
	const struct report_name *a = *(const struct report_name *const *)a_ptr;
	const struct report_name *b = *(const struct report_name *const *)b_ptr;

	if (a->self != b->self)
		return compare_u64_desc(a->self, b->self);
	if (a->total != b->total)
		return compare_u64_desc(a->total, b->total);
	return compare_text(a->text, a->len, b->text, b->len);
}

static void put_functions(const struct report *r)
{
	size_t top = pc_option_count(r->ctx, "top") ? pc_option_count(r->ctx, "top") : DEFAULT_TOP;
	const struct report_name **order = pc_xmalloc((r->nnames ? r->nnames : 1) *
						      sizeof(*order));
	int width = digits(r->total);

	if (width < 5)
		width = 5;
	for (size_t i = 0; i < r->nnames; i++)
		order[i] = &r->names[i];
	qsort(order, r->nnames, sizeof(*order), compare_functions);
	if (top > r->nnames)
		top = r->nnames;
	fprintf(r->out, "\ntop functions by self (%zu of %zu):\n", top, r->nnames);
	fprintf(r->out, "%*s  %7s  %*s  %7s  function\n", width, "self", "self%", width,
		"total", "total%");
	for (size_t i = 0; i < top; i++) {
		fprintf(r->out, "%*llu  %6.2f%%  %*llu  %6.2f%%  ", width,
			(unsigned long long)order[i]->self, percent(r, order[i]->self), width,
			(unsigned long long)order[i]->total, percent(r, order[i]->total));
		put_name(r->out, order[i]->text, order[i]->len);
		fputc('\n', r->out);
	}
	free(order);
}

static bool pruned(const struct report *r, uint64_t count)
{
	/* count < total * 0.5% without overflow: count < ceil(total / 200) */
	uint64_t per = 1000 / PRUNE_PER_MILLE;

	return count < r->total / per + (r->total % per != 0);
}

/*
 * Two spaces per level up to TREE_INDENT_LEVELS; deeper nodes stay at that
 * indentation and show their level instead: "[1234] ". One write per line,
 * so a line costs the same at any depth.
 */
static void put_indent(FILE *out, size_t depth)
{
	size_t levels = depth < TREE_INDENT_LEVELS ? depth : TREE_INDENT_LEVELS;

	fprintf(out, "%*s", (int)(2 * levels), "");
	if (depth >= TREE_INDENT_LEVELS)
		fprintf(out, "[%zu] ", depth);
}

static void put_tree_line(const struct report *r, int width, uint64_t count, size_t depth)
{
	fprintf(r->out, "%*llu  %6.2f%%  ", width, (unsigned long long)count,
		percent(r, count));
	put_indent(r->out, depth);
}

/* Prints the children [from, to) of one node that fall below the threshold. */
static void put_pruned(const struct report *r, int width, size_t from, size_t to,
		       size_t depth)
{
	uint64_t sum = 0;

	for (size_t i = from; i < to; i++)
		sum += r->children[i].count;
	put_tree_line(r, width, sum, depth);
	fprintf(r->out, "(%zu more below 0.5%%)\n", to - from);
}

struct tree_cursor {
	size_t next, end;
};

/* Depth first, without recursion: stacks can be very deep. */
static void put_tree(const struct report *r, const char *title)
{
	struct tree_cursor *path = NULL;
	size_t depth = 0, path_cap = 0;
	int width = digits(r->total);

	fprintf(r->out, "\ncall tree, root first%s (nodes below 0.5%% of the total are "
		"folded):\n", title);
	pc_grow(&path, &path_cap, 1, sizeof(*path));
	path[0] = (struct tree_cursor){ .next = r->child_start[0], .end = r->child_start[1] };
	for (depth = 1; depth > 0;) {
		struct tree_cursor *at = &path[depth - 1];
		const struct report_child *child;

		if (at->next == at->end || pruned(r, r->children[at->next].count)) {
			if (at->next < at->end)
				put_pruned(r, width, at->next, at->end, depth - 1);
			depth--;
			continue;
		}
		child = &r->children[at->next++];
		put_tree_line(r, width, child->count, depth - 1);
		put_name(r->out, child->name->text, child->name->len);
		fputc('\n', r->out);
		pc_grow(&path, &path_cap, depth + 1, sizeof(*path));
		path[depth++] = (struct tree_cursor){
			.next = r->child_start[child->node],
			.end = r->child_start[child->node + 1],
		};
	}
	free(path);
}

static void report_release(struct report *r)
{
	free(r->stack_values);
	free(r->names);
	pc_index_release(&r->name_index);
	pc_arena_release(&r->arena);
	free(r->frame_names);
	free(r->nodes);
	pc_index_release(&r->node_index);
	free(r->child_start);
	free(r->children);
}

/* --- caller/callee data --- */

/* A function of caller/callee data: a frame with one-frame samples. */
struct arc_function {
	uint32_t frame;
	uint64_t self, total;     /* exclusive, inclusive */
	const char *name, *module; /* module: its file name, "" without one */
	size_t name_len;
	int64_t pid;              /* its samples' pid label, when pids == PID_ONE */
	int pids;
};

enum { PID_NONE, PID_ONE, PID_SEVERAL };

struct arc_report {
	struct report *r;
	size_t total_column;
	struct arc_function *functions;
	size_t nfunctions, ncalls;
	bool by_total;            /* the order of the table being printed */
	bool any_pid, show_pids;  /* show_pids: functions of several processes */
	int64_t first_pid;
};

/* The exclusive column: the picked one, or the exclusive partner of the inclusive one. */
static int arc_columns(struct arc_report *a)
{
	struct report *r = a->r;
	const struct pc_model *m = r->m;
	size_t self = (size_t)pc_model_arc_self_column(m);

	a->total_column = (size_t)pc_model_arc_total_column(m);
	if (r->ctx->opt.event && r->column != self && r->column != a->total_column)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
			       "%s: caller/callee data is reported by its exclusive and "
			       "inclusive columns ('%s', '%s'), not '%s'", REPORT,
			       pc_str(m, pc_model_column(m, self)->type),
			       pc_str(m, pc_model_column(m, a->total_column)->type),
			       pc_str(m, pc_model_column(m, r->column)->type));
	r->column = self;
	r->partner = -1;
	return 0;
}

static struct arc_function *function_of(struct arc_report *a, uint32_t *slots, uint32_t frame_id)
{
	struct report *r = a->r;
	struct arc_function *fn;
	uint32_t name;

	if (slots[frame_id])
		return &a->functions[slots[frame_id] - 1];
	slots[frame_id] = (uint32_t)++a->nfunctions;
	fn = &a->functions[a->nfunctions - 1];
	name = frame_name(r, frame_id);
	*fn = (struct arc_function){
		.frame = frame_id,
		.name = r->names[name - 1].text,
		.name_len = r->names[name - 1].len,
		.module = pc_model_frame(r->m, frame_id)->module ?
			pc_module_base_name(r->m, pc_model_frame(r->m, frame_id)->module) : "",
	};
	return fn;
}

/* The pid label of a label set, if it has one. */
static bool labelset_pid(const struct pc_model *m, uint32_t set, int64_t *pid)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(m, set, &n);

	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(m, ids[i]);

		if (!label->str && pc_str_len(m, label->key) == 3 &&
		    !memcmp(pc_str(m, label->key), "pid", 3)) {
			*pid = label->num;
			return true;
		}
	}
	return false;
}

static void note_pid(struct arc_report *a, struct arc_function *fn, uint32_t labels)
{
	int64_t pid;

	if (!labelset_pid(a->r->m, labels, &pid))
		return;
	if (fn->pids == PID_NONE) {
		fn->pid = pid;
		fn->pids = PID_ONE;
	} else if (fn->pid != pid) {
		fn->pids = PID_SEVERAL;
	}
	if (!a->any_pid)
		a->first_pid = pid;
	a->show_pids |= a->any_pid && pid != a->first_pid;
	a->any_pid = true;
}

/* Sums each frame's one-frame samples; the total is the exclusive column's. */
static int sum_functions(struct arc_report *a)
{
	struct report *r = a->r;
	const struct pc_model *m = r->m;
	uint32_t *slots = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*slots));
	int ret = 0;

	a->functions = pc_xcalloc(pc_model_nframes(m) ? pc_model_nframes(m) : 1, sizeof(*a->functions));
	for (size_t i = 0; i < pc_model_nsamples(m) && !ret; i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
		const uint64_t *values = pc_model_values(m, i);
		struct arc_function *fn;

		if (n != 1)
			continue;
		fn = function_of(a, slots, frames[0]);
		note_pid(a, fn, pc_model_sample(m, i)->labels);
		ret = add_checked(r, &r->total, values[r->column]) ||
		      add_checked(r, &fn->self, values[r->column]) ||
		      add_checked_in(r, a->total_column, &fn->total, values[a->total_column]);
	}
	for (size_t i = 0; i < pc_model_narcs(m); i++)
		a->ncalls += pc_model_arc(m, i)->kind == PC_ARC_CALL;
	free(slots);
	return ret ? -1 : 0;
}

static void put_arc_header(const struct arc_report *a)
{
	const struct report *r = a->r;
	const struct pc_model *m = r->m;
	char others[300] = "";
	size_t used = 0;

	fputs("profconv report\nsource:   ", r->out);
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		fprintf(r->out, "%s%s", i ? ", " : "", pc_str(m, pc_model_source(m, i)));
	fprintf(r->out, "\ncolumn:   %s (%s), %s; inclusive: %s",
		pc_str(m, pc_model_column(m, r->column)->type), pc_str(m, pc_model_column(m, r->column)->unit),
		r->ctx->opt.event ? "picked by --event" : "the default",
		pc_str(m, pc_model_column(m, a->total_column)->type));
	for (size_t i = 0; i < pc_model_ncolumns(m) && used < sizeof(others); i++)
		if (i != r->column && i != a->total_column)
			used += (size_t)snprintf(others + used, sizeof(others) - used, "%s%s",
						 used ? ", " : "", pc_str(m, pc_model_column(m, i)->type));
	if (others[0])
		fprintf(r->out, "; others: %s", others);
	fprintf(r->out, "\ntotal:    %llu in %zu function%s, %zu call arc%s (caller/callee "
		"data: exact per function, no call stacks)\n", (unsigned long long)r->total,
		a->nfunctions, plural(a->nfunctions), a->ncalls, plural(a->ncalls));
}

static int compare_arc_functions(const void *ctx, uint32_t i, uint32_t j)
{
	const struct arc_report *a = ctx;
	const struct arc_function *x = &a->functions[i], *y = &a->functions[j];
	const struct pc_frame *fx = pc_model_frame(a->r->m, x->frame);
	const struct pc_frame *fy = pc_model_frame(a->r->m, y->frame);
	int diff;

	if ((diff = a->by_total ? compare_u64_desc(x->total, y->total) :
				  compare_u64_desc(x->self, y->self)) ||
	    (diff = a->by_total ? compare_u64_desc(x->self, y->self) :
				  compare_u64_desc(x->total, y->total)) ||
	    (diff = compare_text(x->name, x->name_len, y->name, y->name_len)) ||
	    (diff = strcmp(x->module, y->module)) ||
	    (diff = (fx->address > fy->address) - (fx->address < fy->address)) ||
	    (diff = x->pids - y->pids))
		return diff;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Columns a name takes on the terminal, as put_name prints it. */
static size_t name_width(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t width = 0;

	for (size_t i = 0; i < len;) {
		size_t seq = pc_utf8_char_len(s + i, len - i);

		if (!seq || s[i] < 0x20 || s[i] == 0x7f) {
			width += 4;
			i++;
		} else {
			width++;
			i += seq;
		}
	}
	return width;
}

static void put_padded(FILE *out, const char *text, size_t width)
{
	const char *shown = text[0] ? text : "-";
	size_t len = strlen(shown), used = name_width(shown, len);

	put_name(out, shown, len);
	for (; used < width; used++)
		fputc(' ', out);
}

static void format_pid(const struct arc_function *fn, char *buf, size_t size)
{
	if (fn->pids == PID_ONE)
		snprintf(buf, size, "%lld", (long long)fn->pid);
	else
		snprintf(buf, size, "%s", fn->pids == PID_SEVERAL ? "*" : "-");
}

static void format_address(const struct pc_model *m, uint32_t frame, char *buf, size_t size)
{
	const struct pc_frame *f = pc_model_frame(m, frame);

	if (f->flags & PC_FRAME_HAS_ADDRESS)
		snprintf(buf, size, "0x%llx", (unsigned long long)f->address);
	else
		snprintf(buf, size, "-");
}

/* Widths of the numbers, addresses, modules and pids of the first top rows. */
static void arc_widths(const struct arc_report *a, const uint32_t *order, size_t top,
		       int widths[4])
{
	uint64_t largest = a->r->total;
	char text[32];

	widths[0] = 4;
	widths[1] = (int)strlen("address");
	widths[2] = (int)strlen("module");
	widths[3] = (int)strlen("pid");
	for (size_t i = 0; i < top; i++) {
		const struct arc_function *fn = &a->functions[order[i]];
		int module = (int)name_width(fn->module[0] ? fn->module : "-",
					     fn->module[0] ? strlen(fn->module) : 1);

		if (fn->total > largest)
			largest = fn->total;
		format_address(a->r->m, fn->frame, text, sizeof(text));
		if ((int)strlen(text) > widths[1])
			widths[1] = (int)strlen(text);
		if (module > widths[2])
			widths[2] = module;
		format_pid(fn, text, sizeof(text));
		if ((int)strlen(text) > widths[3])
			widths[3] = (int)strlen(text);
	}
	if (digits(largest) > widths[0])
		widths[0] = digits(largest);
}

static void put_arc_table(struct arc_report *a, bool by_total)
{
	const struct report *r = a->r;
	size_t top = pc_option_count(r->ctx, "top") ? pc_option_count(r->ctx, "top") : DEFAULT_TOP;
	uint32_t *order = pc_xmalloc((a->nfunctions ? a->nfunctions : 1) * sizeof(*order));
	char address[32], pid[32];
	int widths[4];

	for (size_t i = 0; i < a->nfunctions; i++)
		order[i] = (uint32_t)i;
	a->by_total = by_total;
	pc_sort_indices(a, order, a->nfunctions, compare_arc_functions);
	if (top > a->nfunctions)
		top = a->nfunctions;
	arc_widths(a, order, top, widths);
	fprintf(r->out, "\ntop functions by %s (%zu of %zu):\n",
		by_total ? "inclusive" : "exclusive", top, a->nfunctions);
	fprintf(r->out, "%*s  %7s  %*s  %7s  %-*s  %-*s  ", widths[0], "excl", "excl%",
		widths[0], "incl", "incl%", widths[1], "address", widths[2], "module");
	if (a->show_pids)
		fprintf(r->out, "%-*s  ", widths[3], "pid");
	fputs("function\n", r->out);
	for (size_t i = 0; i < top; i++) {
		const struct arc_function *fn = &a->functions[order[i]];

		format_address(r->m, fn->frame, address, sizeof(address));
		fprintf(r->out, "%*llu  %6.2f%%  %*llu  %6.2f%%  %-*s  ", widths[0],
			(unsigned long long)fn->self, percent(r, fn->self), widths[0],
			(unsigned long long)fn->total, percent(r, fn->total), widths[1], address);
		put_padded(r->out, fn->module, (size_t)widths[2]);
		fputs("  ", r->out);
		format_pid(fn, pid, sizeof(pid));
		if (a->show_pids)
			fprintf(r->out, "%-*s  ", widths[3], pid);
		put_name(r->out, fn->name, fn->name_len);
		fputc('\n', r->out);
	}
	free(order);
}

/* The call tree of the stacks reconstructed from the arcs. */
static int put_arc_tree(const struct report *r)
{
	struct pc_model *stacks = pc_model_new();
	struct report t = { .ctx = r->ctx, .m = stacks, .out = r->out, .partner = -1 };
	int ret = -1;

	pc_index_init(&t.name_index);
	pc_index_init(&t.node_index);
	pc_arena_init(&t.arena);
	/* the tree's heading says it is approximate: no warning of it */
	if (pc_model_reconstruct_stacks_limited(r->ctx, r->m, stacks, PC_RECONSTRUCT_MAX_PATHS) ||
	    sum_stacks(&t))
		goto out;
	t.frame_names = pc_xcalloc(pc_model_nframes(stacks) + 1, sizeof(*t.frame_names));
	build_tree(&t);
	put_tree(&t, ", reconstructed from caller/callee pairs (VsPerfView method): "
		 "approximate");
	ret = 0;
out:
	report_release(&t);
	pc_model_free(stacks);
	return ret;
}

static int arc_report(struct report *r)
{
	struct arc_report a = { .r = r };
	int ret = -1;

	if (arc_columns(&a) || sum_functions(&a))
		goto out;
	put_arc_header(&a);
	if (!a.nfunctions) {
		fputs("\nno function in this profile\n", r->out);
	} else {
		put_arc_table(&a, false);
		put_arc_table(&a, true);
		if (pc_option_flag(r->ctx, "tree") && put_arc_tree(r))
			goto out;
	}
	ret = 0;
out:
	free(a.functions);
	return ret;
}

/* --- the writer --- */

/*
 * A profile without samples and without columns (perf script text of
 * comment lines only: no event was sampled) has nothing to count: its
 * report says so rather than failing.
 */
static bool put_nothing_to_count(const struct report *r)
{
	const struct pc_model *m = r->m;

	if (pc_model_ncolumns(m) || pc_model_nsamples(m) || pc_model_narcs(m) || r->ctx->opt.event)
		return false;
	fputs("profconv report\nsource:   ", r->out);
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		fprintf(r->out, "%s%s", i ? ", " : "", pc_str(m, pc_model_source(m, i)));
	fputs("\ncolumn:   none (the input has no samples)\ntotal:    0\n", r->out);
	return true;
}

static int report_write(struct pc_ctx *ctx, const struct pc_model *m,
			struct pc_output *out)
{
	struct report r = { .ctx = ctx, .m = m, .out = out->fp };
	int ret = -1;

	if (put_nothing_to_count(&r))
		return 0;
	pc_index_init(&r.name_index);
	pc_index_init(&r.node_index);
	pc_arena_init(&r.arena);
	if (pick_column(&r))
		goto out;
	if (pc_model_has_arc_data(m)) {
		r.frame_names = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*r.frame_names));
		ret = arc_report(&r);
		goto out;
	}
	if (sum_stacks(&r))
		goto out;
	r.frame_names = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*r.frame_names));
	count_functions(&r);
	put_header(&r);
	if (!r.nstacks) {
		fputs("\nno sample with a call stack has a value in this column\n", r.out);
	} else {
		put_functions(&r);
		if (pc_option_flag(ctx, "tree")) {
			build_tree(&r);
			put_tree(&r, "");
		}
	}
	ret = 0;
out:
	report_release(&r);
	return ret;
}

static const struct pc_option_spec report_options[] = {
	{ "top", PC_OPTION_COUNT, "N", "functions in the top table (default 20)", 1000000 },
	{ "tree", PC_OPTION_FLAG, NULL,
	  "print the call tree (root first) too; lines past level 32 show [LEVEL]", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_report_writer = {
	.name = "report",
	.summary = "a text report for the terminal: top functions and the call tree "
		   "(profconv report)",
	.needs = PC_PART_STACKS,
	/* branch-only samples are counted in the header; arcs: caller/callee data */
	.keeps = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS |
		 PC_PART_BRANCHES | PC_PART_ARCS,
	.write = report_write,
	.options = report_options,
};
