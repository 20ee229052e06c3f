/*
 * vsperf_model.c - the row builder shared by the Visual Studio report
 * readers (CSV: vsperf_reader.c, XML: vsperf_xml_reader.c), and the
 * number syntax they share (vsperf_parse_*, at the end). What maps
 * where, and the numbers' syntax, are documented in vsperf_model.h; this
 * file follows it. Sources: research/vsperf.md sections 3-7,
 * research/pprof.md section 7.4, DESIGN.md section 3.3.
 *
 * Decisions the header leaves to the implementation:
 *   - A function's frame is made from the first row that names it (a
 *     Caller row may come before the function's own Root row); later rows
 *     with the same key reuse it, whatever their Source File or line say.
 *     The unknown frame is keyed by its name and process like the others.
 *   - CallerCallee and Function summaries: every Root (Function) row gives
 *     a sample, even when all its values are 0, so that every function is
 *     in the model; two Root rows of one function add up (a counted
 *     warning). CallTree rows give a sample only where a value is not 0.
 *   - A CallTree's first row is at Level 0 or 1. The exclusive values of a
 *     Level 0 row (0 in every known file) go to a sample without frames.
 *   - IDE call trees with only percentages and averages: when all the
 *     exclusive percentages of a subtree are 0, its top function gets the
 *     whole total (a counted warning).
 * Counted warnings (consistency): a Root Function Name that is not the
 * group's Root row's name, a function with two Root rows, a Root row whose
 * exclusive value passes its inclusive one, Caller and Callee rows that
 * disagree about an edge (the Caller rows are used), a CallTree node
 * whose exclusive value plus its children's inclusive values pass its
 * inclusive value.
 * What is lost: the fractions of times (the readers round them to whole
 * ticks with vsperf_parse_time, and warn), percentages (recomputed by
 * writers from the counts), the
 * instrumentation Min/Avg/Max columns and probe overheads (the readers
 * do not pass them; the averages only serve IDE call trees without
 * times), Callee rows and Root Function Name (only checked), the order
 * of the rows.
 */
#include "vsperf_model.h"
#include "base/apportion.h"

#include <math.h>
#include <stdarg.h>

#define SOURCE "vsperf"
#define QUOTE_MAX 48
#define UNKNOWN_FRAME_NAME "Unknown Frame(s)"
#define UNKNOWN_ADDRESS 0xBAADF00Du
#define MAX_WEIGHT 1e12

enum flavour {
	FLAVOUR_SAMPLING,
	FLAVOUR_INSTRUMENTATION,
};

/* What identifies a function: (process, module, address) or, without an address, name. */
struct vsperf_key {
	uint32_t module; /* model module id (its space holds the pid), 0 = none */
	bool has_pid, has_address;
	int64_t pid;
	uint64_t address; /* 0 without an address */
	pc_str_id name;   /* 0 with an address */
	uint32_t frame;   /* the model frame */
	bool rooted;      /* a Root or Function row was seen */
};

/* A call edge as Caller rows and Callee rows give it, for the cross-check. */
struct vsperf_edge {
	uint32_t from, to;
	uint64_t caller_count, callee_count;
	bool from_caller, from_callee;
};

/* An open CallTree node (one per level), for the inclusive check. */
struct vsperf_node {
	pc_str_id name;
	uint64_t inclusive, exclusive, children;
	uint32_t line;
	bool virtual_node; /* stands for a missing Level 0: not checked */
};

/* An IDE call tree row waiting for its subtree's total. */
struct vsperf_pending {
	uint32_t stack, labels, frame, line;
	double weight;
};

struct vsperf_state {
	pc_str_id key_comm, key_pid, unit_pid;
	enum flavour flavour;
	bool apportion;             /* IDE call tree: percentages and averages only */
	bool check_inclusive;       /* CallTree: inclusive counts are given */
	int column[VSPERF_NCOUNTS]; /* model column of each count, -1 = not kept */
	enum vsperf_count exclusive, inclusive; /* the pair of the flavour */
	int self_column;            /* model column of the exclusive value */

	struct vsperf_key *keys;
	size_t nkeys, keys_cap;
	struct pc_index key_index;

	/* CallerCallee */
	bool has_root;
	uint32_t root_frame;
	pc_str_id root_name;
	struct vsperf_edge *edges;
	size_t nedges, edges_cap;
	uint64_t callee_rows;
	struct pc_index edge_index;

	/* CallTree */
	struct vsperf_node *nodes; /* by level */
	size_t nodes_cap, open;    /* open = levels open (the last row's Level + 1) */
	uint32_t *path;            /* frames of Levels 1.. of the last row */
	size_t path_cap;
	uint32_t *leaf_first;
	size_t leaf_first_cap;
	pc_str_id process; /* name of the last Level 0 row */
	struct vsperf_pending *pending;
	size_t npending, pending_cap;
	uint64_t subtree_total;
	double *weights;
	uint64_t *shares;
	size_t shares_cap;
};

static const char *const count_names[VSPERF_NCOUNTS] = {
	[VSPERF_INCLUSIVE_SAMPLES] = "Inclusive Samples",
	[VSPERF_EXCLUSIVE_SAMPLES] = "Exclusive Samples",
	[VSPERF_ELAPSED_INCLUSIVE] = "Elapsed Inclusive Time",
	[VSPERF_ELAPSED_EXCLUSIVE] = "Elapsed Exclusive Time",
	[VSPERF_APPLICATION_INCLUSIVE] = "Application Inclusive Time",
	[VSPERF_APPLICATION_EXCLUSIVE] = "Application Exclusive Time",
	[VSPERF_CALLS] = "Number of Calls",
};

static const char *const real_names[VSPERF_NREALS] = {
	[VSPERF_AVG_ELAPSED_INCLUSIVE] = "Avg Elapsed Inclusive Time",
	[VSPERF_AVG_ELAPSED_EXCLUSIVE] = "Avg Elapsed Exclusive Time",
	[VSPERF_ELAPSED_INCLUSIVE_PCT] = "Elapsed Inclusive Time %",
	[VSPERF_ELAPSED_EXCLUSIVE_PCT] = "Elapsed Exclusive Time %",
};

static const char *const report_names[] = {
	[VSPERF_CALLER_CALLEE] = "CallerCallee",
	[VSPERF_CALL_TREE] = "CallTree",
	[VSPERF_FUNCTIONS] = "Function",
};

/* Model columns: (count, type, unit, event, role). */
struct column_spec {
	enum vsperf_count count;
	const char *type, *unit, *event;
	enum pc_column_role role;
};

static const struct column_spec sampling_columns[] = {
	{ VSPERF_EXCLUSIVE_SAMPLES, "samples", "count", "samples", PC_ROLE_EXCLUSIVE },
	{ VSPERF_INCLUSIVE_SAMPLES, "inclusive_samples", "count", "samples", PC_ROLE_INCLUSIVE },
};

static const struct column_spec instrumentation_columns[] = {
	{ VSPERF_ELAPSED_EXCLUSIVE, "elapsed_exclusive", "ticks", "elapsed", PC_ROLE_EXCLUSIVE },
	{ VSPERF_ELAPSED_INCLUSIVE, "elapsed_inclusive", "ticks", "elapsed", PC_ROLE_INCLUSIVE },
	{ VSPERF_APPLICATION_EXCLUSIVE, "application_exclusive", "ticks", "application",
	  PC_ROLE_EXCLUSIVE },
	{ VSPERF_APPLICATION_INCLUSIVE, "application_inclusive", "ticks", "application",
	  PC_ROLE_INCLUSIVE },
	{ VSPERF_CALLS, "calls", "count", "calls", PC_ROLE_CALLS },
};

#define COUNT_BIT(c) (1u << (c))
#define REAL_BIT(r) (1u << (r))
#define SAMPLING_PAIR (COUNT_BIT(VSPERF_INCLUSIVE_SAMPLES) | COUNT_BIT(VSPERF_EXCLUSIVE_SAMPLES))
#define ELAPSED_PAIR (COUNT_BIT(VSPERF_ELAPSED_INCLUSIVE) | COUNT_BIT(VSPERF_ELAPSED_EXCLUSIVE))
#define INSTRUMENTATION_COUNTS (ELAPSED_PAIR | COUNT_BIT(VSPERF_APPLICATION_INCLUSIVE) | \
				COUNT_BIT(VSPERF_APPLICATION_EXCLUSIVE))
#define APPORTION_REALS (REAL_BIT(VSPERF_AVG_ELAPSED_INCLUSIVE) | \
			 REAL_BIT(VSPERF_ELAPSED_EXCLUSIVE_PCT))

/* --- small helpers --- */

static bool text_is(const struct vsperf_text *t, const char *s)
{
	size_t len = strlen(s);

	return t->len == len && !memcmp(t->p, s, len);
}

static pc_str_id intern(struct vsperf_builder *b, const struct vsperf_text *t)
{
	return pc_model_intern(b->m, t->p, t->len);
}

/* The model string id as a quoted, shortened text for messages. */
static const char *quote_id(const struct pc_model *m, pc_str_id id, char *buf, size_t size)
{
	pc_quote(buf, size, pc_str(m, id), pc_str_len(m, id), QUOTE_MAX);
	return buf;
}

static const char *quote_text(const struct vsperf_text *t, char *buf, size_t size)
{
	pc_quote(buf, size, t->p, t->len, QUOTE_MAX);
	return buf;
}

static uint64_t add_saturated(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static int fail_row(struct vsperf_builder *b, const struct vsperf_row *row,
		    const char *fmt, ...) PC_PRINTF(3, 4);

static int fail_row(struct vsperf_builder *b, const struct vsperf_row *row,
		    const char *fmt, ...)
{
	char message[sizeof(b->ctx->err.message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return pc_fail_line(&b->ctx->err, b->format, row->at_line, row->at_column, "%s",
			    message);
}

/* --- functions: modules, frames, labels --- */

static uint32_t pid_space(const struct vsperf_row *row)
{
	if (!row->has_pid || row->pid < 0 || row->pid >= (int64_t)UINT32_MAX)
		return 0;
	return (uint32_t)row->pid + 1;
}

static bool is_unknown_frame(const struct vsperf_row *row)
{
	return text_is(&row->name, UNKNOWN_FRAME_NAME) ||
	       (row->has_address && row->address == UNKNOWN_ADDRESS) ||
	       text_is(&row->module_name, "UNKNOWN") || text_is(&row->module_path, "UNKNOWN");
}

static uint32_t row_module(struct vsperf_builder *b, const struct vsperf_row *row)
{
	const struct vsperf_text *name = row->module_path.len ? &row->module_path :
							       &row->module_name;
	struct pc_module module = { .space = pid_space(row) };

	if (!name->len)
		return 0;
	module.name = intern(b, name);
	if (row->has_address) {
		module.has_range = true;
		module.start = row->address;
		module.limit = row->address < UINT64_MAX ? row->address + 1 : row->address;
	}
	return pc_model_add_module(b->m, &module);
}

static uint64_t key_hash(const struct vsperf_key *k)
{
	uint64_t h = pc_hash_u64(((uint64_t)k->module << 32) ^ k->name ^
				 ((uint64_t)k->has_pid << 62) ^ ((uint64_t)k->has_address << 63));

	h = pc_hash_u64(h ^ (uint64_t)k->pid);
	return pc_hash_u64(h ^ k->address);
}

static bool key_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct vsperf_state *s = ctx;
	const struct vsperf_key *a = &s->keys[id - 1], *b = key;

	return a->module == b->module && a->has_pid == b->has_pid && a->pid == b->pid &&
	       a->has_address == b->has_address && a->address == b->address &&
	       a->name == b->name;
}

static uint32_t new_frame(struct vsperf_builder *b, const struct vsperf_row *row,
			  const struct vsperf_key *key, pc_str_id name)
{
	struct pc_frame frame = { .module = key->module, .function = name };

	if (key->has_address) {
		frame.flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE;
		frame.address = key->address;
	}
	if (row->source_file.len && !text_is(&row->source_file, "<Unknown>"))
		frame.file = intern(b, &row->source_file);
	frame.line = row->line;
	return pc_model_add_frame(b->m, &frame);
}

/* The row's function: its key entry, made (with its frame) on first sight. */
static struct vsperf_key *row_function(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;
	struct vsperf_key key = { .has_pid = row->has_pid, .pid = row->has_pid ? row->pid : 0 };
	pc_str_id name = intern(b, &row->name);
	uint64_t hash;
	uint32_t id;

	if (is_unknown_frame(row)) {
		key.name = name;
	} else {
		key.module = row_module(b, row);
		key.has_address = row->has_address;
		key.address = row->has_address ? row->address : 0;
		key.name = row->has_address ? 0 : name;
	}
	hash = key_hash(&key);
	id = pc_index_find(&s->key_index, hash, key_equal, s, &key);
	if (id)
		return &s->keys[id - 1];
	key.frame = is_unknown_frame(row) ?
		pc_model_add_frame(b->m, &(struct pc_frame){ .function = name }) :
		new_frame(b, row, &key, name);
	pc_grow(&s->keys, &s->keys_cap, s->nkeys + 1, sizeof(*s->keys));
	s->keys[s->nkeys] = key;
	pc_index_add(&s->key_index, hash, (uint32_t)++s->nkeys);
	return &s->keys[s->nkeys - 1];
}

/* Labels comm (Process Name, else process) and pid of a row; 0 when none. */
static uint32_t row_labels(struct vsperf_builder *b, const struct vsperf_row *row,
			   pc_str_id process)
{
	struct vsperf_state *s = b->state;
	struct pc_label labels[2];
	pc_str_id comm = row->process_name.len ? intern(b, &row->process_name) : process;
	size_t n = 0;

	if (comm)
		labels[n++] = (struct pc_label){ .key = s->key_comm, .str = comm };
	if (row->has_pid)
		labels[n++] = (struct pc_label){ .key = s->key_pid, .num = row->pid,
						 .unit = s->unit_pid };
	return n ? pc_model_add_labels(b->m, labels, n) : 0;
}

/* --- values --- */

static int overflow(struct vsperf_builder *b, const struct vsperf_row *row, int column)
{
	char quoted[4 * QUOTE_MAX + 8];

	return fail_row(b, row, "the %s values of \"%s\" add up to more than %llu",
			pc_str(b->m, pc_model_column(b->m, column)->type),
			quote_text(&row->name, quoted, sizeof(quoted)),
			(unsigned long long)PC_COUNT_MAX);
}

/* Adds the row's kept counts (selected by mask) to the sample. */
static int add_counts(struct vsperf_builder *b, const struct vsperf_row *row,
		      const struct pc_sample *sample, unsigned mask)
{
	struct vsperf_state *s = b->state;

	for (int c = 0; c < VSPERF_NCOUNTS; c++) {
		if (s->column[c] < 0 || !(mask & COUNT_BIT(c)) || !row->counts[c])
			continue;
		if (pc_model_add_sample(b->m, sample, (size_t)s->column[c], row->counts[c]))
			return overflow(b, row, s->column[c]);
	}
	return 0;
}

/* --- CallerCallee and Function summaries --- */

static int warn_exclusive_passes_inclusive(struct vsperf_builder *b,
					   const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;
	char quoted[4 * QUOTE_MAX + 8];

	if (row->counts[s->exclusive] <= row->counts[s->inclusive])
		return 0;
	/* the input's inconsistency, its values kept: a notice */
	pc_notice(b->ctx, b->format, "the exclusive value of \"%s\" (%llu, line %u) "
		  "passes its inclusive value (%llu)",
		  quote_text(&row->name, quoted, sizeof(quoted)),
		  (unsigned long long)row->counts[s->exclusive], row->at_line,
		  (unsigned long long)row->counts[s->inclusive]);
	return 0;
}

/* A Root or Function row: a one-frame sample holding the function's values. */
static int add_function_sample(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;
	struct vsperf_key *key = row_function(b, row);
	uint32_t frame = key->frame;
	struct pc_sample sample = { .stack = pc_model_add_stack(b->m, &frame, 1),
				    .labels = row_labels(b, row, 0) };
	char quoted[4 * QUOTE_MAX + 8];

	if (key->rooted &&
	    pc_warn(b->ctx, b->format, "function \"%s\" has more than one %s row (again at "
		    "line %u); their values add up",
		    quote_text(&row->name, quoted, sizeof(quoted)),
		    b->layout.report == VSPERF_FUNCTIONS ? "Function" : "Root", row->at_line))
		return -1;
	key->rooted = true;
	/* the sample exists even when every value is 0: the function is known */
	if (pc_model_add_sample(b->m, &sample, (size_t)s->self_column, 0))
		return overflow(b, row, s->self_column);
	if (add_counts(b, row, &sample, ~0u))
		return -1;
	s->has_root = true;
	s->root_frame = frame;
	s->root_name = intern(b, &row->name);
	return warn_exclusive_passes_inclusive(b, row);
}

/* Warns when the row's Root Function Name (if any) is not want, the group's Root's name. */
static int check_root_name(struct vsperf_builder *b, const struct vsperf_row *row,
			   pc_str_id want)
{
	char got[4 * QUOTE_MAX + 8], wanted[4 * QUOTE_MAX + 8];

	if (!row->root_name.len || (pc_str_len(b->m, want) == row->root_name.len &&
				    !memcmp(pc_str(b->m, want), row->root_name.p,
					    row->root_name.len)))
		return 0;
	pc_notice(b->ctx, b->format, "the Root Function Name \"%s\" at line %u is not "
		  "the name of its group's Root row, \"%s\"",
		  quote_text(&row->root_name, got, sizeof(got)), row->at_line,
		  quote_id(b->m, want, wanted, sizeof(wanted)));
	return 0;
}

static uint64_t edge_hash(uint32_t from, uint32_t to)
{
	return pc_hash_u64(((uint64_t)from << 32) | to);
}

static bool edge_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct vsperf_state *s = ctx;
	const struct vsperf_edge *a = &s->edges[id - 1], *b = key;

	return a->from == b->from && a->to == b->to;
}

static struct vsperf_edge *find_edge(struct vsperf_state *s, uint32_t from, uint32_t to)
{
	struct vsperf_edge key = { .from = from, .to = to };
	uint64_t hash = edge_hash(from, to);
	uint32_t id = pc_index_find(&s->edge_index, hash, edge_equal, s, &key);

	if (!id) {
		pc_grow(&s->edges, &s->edges_cap, s->nedges + 1, sizeof(*s->edges));
		s->edges[s->nedges] = key;
		id = (uint32_t)++s->nedges;
		pc_index_add(&s->edge_index, hash, id);
	}
	return &s->edges[id - 1];
}

static const char *const row_type_names[] = {
	[VSPERF_ROOT] = "Root",
	[VSPERF_CALLER] = "Caller",
	[VSPERF_CALLEE] = "Callee",
};

static int add_caller_callee_row(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;
	uint64_t count = row->counts[s->inclusive];
	struct vsperf_edge *edge;
	uint32_t frame;

	if (row->type < VSPERF_ROOT || row->type > VSPERF_CALLEE)
		return fail_row(b, row, "unknown row type %d (expected Root, Caller or Callee)",
				row->type);
	if (row->type == VSPERF_ROOT) {
		if (check_root_name(b, row, intern(b, &row->name)))
			return -1;
		return add_function_sample(b, row);
	}
	if (!s->has_root)
		return fail_row(b, row, "a %s row before any Root row (each group of rows "
				"starts with its Root row)", row_type_names[row->type]);
	if (check_root_name(b, row, s->root_name))
		return -1;
	frame = row_function(b, row)->frame;
	if (row->type == VSPERF_CALLEE) {
		s->callee_rows++;
		edge = find_edge(s, s->root_frame, frame);
		edge->from_callee = true;
		edge->callee_count = add_saturated(edge->callee_count, count);
		return 0;
	}
	edge = find_edge(s, frame, s->root_frame);
	edge->from_caller = true;
	edge->caller_count = add_saturated(edge->caller_count, count);
	if (pc_model_add_arc(b->m, frame, s->root_frame, PC_ARC_CALL, count)) {
		char quoted[4 * QUOTE_MAX + 8];

		return fail_row(b, row, "the calls from \"%s\" add up to more than %llu",
				quote_text(&row->name, quoted, sizeof(quoted)),
				(unsigned long long)PC_COUNT_MAX);
	}
	return 0;
}

/* Warns about the edges that Caller and Callee rows give differently. */
static int cross_check_edges(struct vsperf_builder *b)
{
	struct vsperf_state *s = b->state;
	const struct vsperf_edge *first = NULL;
	char from[4 * QUOTE_MAX + 8], to[4 * QUOTE_MAX + 8], caller[32], callee[32];
	size_t differ = 0;

	if (!s->callee_rows)
		return 0; /* nothing to check against */
	for (size_t i = 0; i < s->nedges; i++) {
		const struct vsperf_edge *e = &s->edges[i];

		if (e->from_caller == e->from_callee && e->caller_count == e->callee_count)
			continue;
		if (!differ++)
			first = e;
	}
	if (!differ)
		return 0;
	snprintf(caller, sizeof(caller), "%llu", (unsigned long long)first->caller_count);
	snprintf(callee, sizeof(callee), "%llu", (unsigned long long)first->callee_count);
	return pc_warn(b->ctx, b->format, "Caller and Callee rows disagree about %zu call "
		       "edge%s (the Caller rows are used), e.g. \"%s\" -> \"%s\": %s in Caller "
		       "rows, %s in Callee rows", differ, differ == 1 ? "" : "s",
		       quote_id(b->m, pc_model_frame(b->m, first->from)->function, from,
				sizeof(from)),
		       quote_id(b->m, pc_model_frame(b->m, first->to)->function, to, sizeof(to)),
		       first->from_caller ? caller : "none", first->from_callee ? callee : "none");
}

/* --- CallTree --- */

static void open_node(struct vsperf_state *s, const struct vsperf_node *node)
{
	pc_grow(&s->nodes, &s->nodes_cap, s->open + 1, sizeof(*s->nodes));
	s->nodes[s->open++] = *node;
}

/* Closes the open nodes at level and below (deeper), checking their inclusive values. */
static int close_levels(struct vsperf_builder *b, size_t level)
{
	struct vsperf_state *s = b->state;
	char quoted[4 * QUOTE_MAX + 8];

	while (s->open > level) {
		const struct vsperf_node *node = &s->nodes[--s->open];
		uint64_t inner = add_saturated(node->exclusive, node->children);

		if (!s->check_inclusive || node->virtual_node || inner <= node->inclusive)
			continue;
		pc_notice(b->ctx, b->format, "the exclusive value of \"%s\" (line %u) plus its "
			  "children's inclusive values (%llu) pass its inclusive value (%llu)",
			  quote_id(b->m, node->name, quoted, sizeof(quoted)), node->line,
			  (unsigned long long)inner, (unsigned long long)node->inclusive);
	}
	return 0;
}

static int check_level(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;

	if (row->type < 0)
		return fail_row(b, row, "Level %d is negative (expected 0 or more)", row->type);
	if (!s->open)
		return row->type > 1 ? fail_row(b, row, "the first row is at Level %d (expected "
						"Level 0 or 1)", row->type) : 0;
	if ((size_t)row->type > s->open)
		return fail_row(b, row, "Level %d skips a level: the row before is at Level %zu "
				"(expected at most Level %zu)", row->type, s->open - 1, s->open);
	return 0;
}

static int overflow_at(struct vsperf_builder *b, uint32_t line, uint32_t frame, int column)
{
	char quoted[4 * QUOTE_MAX + 8];

	return pc_fail_line(&b->ctx->err, b->format, line, 1,
			    "the %s values of \"%s\" add up to more than %llu",
			    pc_str(b->m, pc_model_column(b->m, column)->type),
			    quote_id(b->m, pc_model_frame(b->m, frame)->function, quoted,
				     sizeof(quoted)),
			    (unsigned long long)PC_COUNT_MAX);
}

/*
 * IDE call trees without times: the subtree's total (Number of Calls x Avg
 * Elapsed Inclusive Time of its Level 1 row) is shared among its rows by
 * their Elapsed Exclusive Time %, the largest remainder method making the
 * shares integers that add up exactly to the total.
 */
static int flush_subtree(struct vsperf_builder *b)
{
	struct vsperf_state *s = b->state;
	int column = s->column[VSPERF_ELAPSED_EXCLUSIVE];
	size_t n = s->npending, cap = s->shares_cap;

	if (!n)
		return 0;
	pc_grow(&s->weights, &s->shares_cap, n, sizeof(*s->weights));
	if (cap != s->shares_cap)
		s->shares = pc_xrealloc(s->shares, s->shares_cap * sizeof(*s->shares));
	for (size_t i = 0; i < n; i++)
		s->weights[i] = s->pending[i].weight;
	if (pc_apportion(s->weights, n, s->subtree_total, s->shares)) {
		char quoted[4 * QUOTE_MAX + 8];

		if (pc_warn(b->ctx, b->format, "the rows below \"%s\" (line %u) have no exclusive "
			    "percentages: its whole time goes to it",
			    quote_id(b->m, pc_model_frame(b->m, s->pending[0].frame)->function,
				     quoted, sizeof(quoted)), s->pending[0].line))
			return -1;
		s->shares[0] = s->subtree_total;
	}
	s->npending = 0;
	for (size_t i = 0; i < n; i++) {
		const struct vsperf_pending *p = &s->pending[i];
		struct pc_sample sample = { .stack = p->stack, .labels = p->labels };

		if (s->shares[i] && pc_model_add_sample(b->m, &sample, (size_t)column, s->shares[i]))
			return overflow_at(b, p->line, p->frame, column);
	}
	return 0;
}

static int start_subtree(struct vsperf_builder *b, const struct vsperf_row *row)
{
	long double total = (long double)row->counts[VSPERF_CALLS] *
			    (long double)row->reals[VSPERF_AVG_ELAPSED_INCLUSIVE];
	char quoted[4 * QUOTE_MAX + 8];

	if (!(total >= 0) || total > (long double)PC_COUNT_MAX)
		return fail_row(b, row, "Number of Calls x Avg Elapsed Inclusive Time of \"%s\" "
				"is not a time from 0 to %llu",
				quote_text(&row->name, quoted, sizeof(quoted)),
				(unsigned long long)PC_COUNT_MAX);
	b->state->subtree_total = (uint64_t)floorl(total + 0.5L);
	return 0;
}

static double row_weight(const struct vsperf_row *row)
{
	double weight = row->reals[VSPERF_ELAPSED_EXCLUSIVE_PCT];

	if (!(weight >= 0))
		return 0;
	return weight > MAX_WEIGHT ? MAX_WEIGHT : weight;
}

static int queue_pending(struct vsperf_builder *b, const struct vsperf_row *row,
			 const struct pc_sample *sample, uint32_t frame)
{
	struct vsperf_state *s = b->state;

	if (row->type == 1 && (flush_subtree(b) || start_subtree(b, row)))
		return -1;
	pc_grow(&s->pending, &s->pending_cap, s->npending + 1, sizeof(*s->pending));
	s->pending[s->npending++] = (struct vsperf_pending){
		.stack = sample->stack, .labels = sample->labels, .frame = frame,
		.line = row->at_line, .weight = row_weight(row),
	};
	return 0;
}

static struct vsperf_node row_node(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;

	return (struct vsperf_node){
		.name = intern(b, &row->name), .line = row->at_line,
		.inclusive = row->counts[s->inclusive], .exclusive = row->counts[s->exclusive],
	};
}

/* Level 0: the process node of IDE exports, not a frame. */
static int add_process_row(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;
	struct vsperf_node node = row_node(b, row);
	struct pc_sample sample = { 0 };

	if (s->apportion && flush_subtree(b))
		return -1;
	s->process = node.name;
	open_node(s, &node);
	if (s->apportion)
		return 0;
	sample.labels = row_labels(b, row, s->process);
	return add_counts(b, row, &sample, ~0u);
}

/* Level 1 and deeper: a sample whose stack is the row's path. */
static int add_tree_node(struct vsperf_builder *b, const struct vsperf_row *row, size_t level)
{
	struct vsperf_state *s = b->state;
	uint32_t frame = row_function(b, row)->frame;
	struct vsperf_node node = row_node(b, row);
	struct pc_sample sample = { .labels = row_labels(b, row, s->process) };

	pc_grow(&s->path, &s->path_cap, level, sizeof(*s->path));
	pc_grow(&s->leaf_first, &s->leaf_first_cap, level, sizeof(*s->leaf_first));
	s->path[level - 1] = frame;
	for (size_t i = 0; i < level; i++)
		s->leaf_first[i] = s->path[level - 1 - i];
	sample.stack = pc_model_add_stack(b->m, s->leaf_first, level);
	s->nodes[level - 1].children = add_saturated(s->nodes[level - 1].children,
						     node.inclusive);
	open_node(s, &node);
	if (add_counts(b, row, &sample, ~0u))
		return -1;
	return s->apportion ? queue_pending(b, row, &sample, frame) : 0;
}

static int add_call_tree_row(struct vsperf_builder *b, const struct vsperf_row *row)
{
	struct vsperf_state *s = b->state;

	if (check_level(b, row))
		return -1;
	if (!s->open && row->type == 1)
		open_node(s, &(struct vsperf_node){ .virtual_node = true });
	if (close_levels(b, (size_t)row->type))
		return -1;
	if (row->type == 0)
		return add_process_row(b, row);
	return add_tree_node(b, row, (size_t)row->type);
}

/* --- begin: the layout decides the flavour and the columns --- */

static int add_column(struct vsperf_builder *b, const struct column_spec *spec)
{
	int column = pc_model_add_event_column(b->m, spec->type, spec->unit, spec->event,
					       spec->role);

	if (column < 0)
		return pc_fail(&b->ctx->err, PC_STATUS_INPUT, "too many columns: the profile "
			       "already has %d", PC_MAX_COLUMNS);
	b->state->column[spec->count] = column;
	return 0;
}

/* Adds the flavour's columns that the layout has and that keep (a mask) selects. */
static int add_columns(struct vsperf_builder *b, unsigned have, unsigned keep)
{
	const struct column_spec *specs = b->state->flavour == FLAVOUR_SAMPLING ?
		sampling_columns : instrumentation_columns;
	size_t n = b->state->flavour == FLAVOUR_SAMPLING ? PC_ARRAY_SIZE(sampling_columns) :
		PC_ARRAY_SIZE(instrumentation_columns);

	for (size_t i = 0; i < n; i++)
		if ((have & keep & COUNT_BIT(specs[i].count)) && add_column(b, &specs[i]))
			return -1;
	return 0;
}

/* "missing columns "A" and "B"": the wanted columns (counts, reals) the layout lacks. */
static void name_missing(const struct vsperf_layout *layout, unsigned counts,
			 unsigned reals, char *buf, size_t size)
{
	const char *names[VSPERF_NCOUNTS + VSPERF_NREALS];
	size_t n = 0, used = 0;

	for (int c = 0; c < VSPERF_NCOUNTS; c++)
		if ((counts & COUNT_BIT(c)) && !(layout->counts & COUNT_BIT(c)))
			names[n++] = count_names[c];
	for (int r = 0; r < VSPERF_NREALS; r++)
		if ((reals & REAL_BIT(r)) && !(layout->reals & REAL_BIT(r)))
			names[n++] = real_names[r];
	used = (size_t)snprintf(buf, size, "missing column%s ", n == 1 ? "" : "s");
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s\"%s\"",
					 !i ? "" : i + 1 == n ? " and " : ", ", names[i]);
}

static int begin_functions(struct vsperf_builder *b, uint32_t line, uint32_t column)
{
	struct vsperf_state *s = b->state;
	unsigned have = b->layout.counts;
	char missing[256];

	if ((have & SAMPLING_PAIR) == SAMPLING_PAIR) {
		s->flavour = FLAVOUR_SAMPLING;
		s->exclusive = VSPERF_EXCLUSIVE_SAMPLES;
		s->inclusive = VSPERF_INCLUSIVE_SAMPLES;
	} else if ((have & ELAPSED_PAIR) == ELAPSED_PAIR) {
		s->flavour = FLAVOUR_INSTRUMENTATION;
		s->exclusive = VSPERF_ELAPSED_EXCLUSIVE;
		s->inclusive = VSPERF_ELAPSED_INCLUSIVE;
	} else {
		bool timed = (have & INSTRUMENTATION_COUNTS) && !(have & SAMPLING_PAIR);

		name_missing(&b->layout, timed ? ELAPSED_PAIR : SAMPLING_PAIR, 0, missing,
			     sizeof(missing));
		return pc_fail_line(&b->ctx->err, b->format, line, column, "%s (a %s report "
				    "needs Inclusive Samples and Exclusive Samples, or Elapsed "
				    "Inclusive Time and Elapsed Exclusive Time)", missing,
				    report_names[b->layout.report]);
	}
	if (add_columns(b, have, ~0u))
		return -1;
	s->self_column = s->column[s->exclusive];
	pc_model_set_arc_columns(b->m, s->self_column, s->column[s->inclusive]);
	return 0;
}

static int begin_call_tree(struct vsperf_builder *b, uint32_t line, uint32_t column)
{
	struct vsperf_state *s = b->state;
	unsigned have = b->layout.counts;
	char missing[256];

	if (have & COUNT_BIT(VSPERF_EXCLUSIVE_SAMPLES)) {
		s->flavour = FLAVOUR_SAMPLING;
		s->exclusive = VSPERF_EXCLUSIVE_SAMPLES;
		s->inclusive = VSPERF_INCLUSIVE_SAMPLES;
	} else if (have & COUNT_BIT(VSPERF_ELAPSED_EXCLUSIVE)) {
		s->flavour = FLAVOUR_INSTRUMENTATION;
		s->exclusive = VSPERF_ELAPSED_EXCLUSIVE;
		s->inclusive = VSPERF_ELAPSED_INCLUSIVE;
	} else if ((have & COUNT_BIT(VSPERF_CALLS)) &&
		   (b->layout.reals & APPORTION_REALS) == APPORTION_REALS) {
		s->flavour = FLAVOUR_INSTRUMENTATION;
		s->apportion = true;
		s->exclusive = VSPERF_ELAPSED_EXCLUSIVE; /* absent: 0 in every row */
		s->inclusive = VSPERF_ELAPSED_INCLUSIVE;
		have |= COUNT_BIT(VSPERF_ELAPSED_EXCLUSIVE);
	} else {
		bool ide = (have & COUNT_BIT(VSPERF_CALLS)) || b->layout.reals;

		name_missing(&b->layout, COUNT_BIT(ide ? VSPERF_CALLS : VSPERF_EXCLUSIVE_SAMPLES),
			     ide ? APPORTION_REALS : 0, missing, sizeof(missing));
		return pc_fail_line(&b->ctx->err, b->format, line, column, "%s (a CallTree "
				    "report needs Exclusive Samples, or Elapsed Exclusive Time, or "
				    "Number of Calls with Avg Elapsed Inclusive Time and Elapsed "
				    "Exclusive Time %%)", missing);
	}
	s->check_inclusive = !s->apportion && (have & COUNT_BIT(s->inclusive));
	/* a call tree's samples hold exclusive values (and calls) only */
	if (add_columns(b, have, COUNT_BIT(s->exclusive) |
			COUNT_BIT(VSPERF_APPLICATION_EXCLUSIVE) | COUNT_BIT(VSPERF_CALLS)))
		return -1;
	s->self_column = s->column[s->exclusive];
	return 0;
}

/* --- the API --- */

void vsperf_builder_init(struct vsperf_builder *b, struct pc_ctx *ctx,
			 struct pc_model *m, const char *format)
{
	struct vsperf_state *s = pc_xcalloc(1, sizeof(*s));

	memset(b, 0, sizeof(*b));
	b->ctx = ctx;
	b->m = m;
	b->format = format;
	b->state = s;
	s->key_comm = pc_model_intern_cstr(m, "comm");
	s->key_pid = pc_model_intern_cstr(m, "pid");
	s->unit_pid = s->key_pid;
	for (int c = 0; c < VSPERF_NCOUNTS; c++)
		s->column[c] = -1;
	s->self_column = -1;
	pc_index_init(&s->key_index);
	pc_index_init(&s->edge_index);
}

int vsperf_builder_begin(struct vsperf_builder *b, const struct vsperf_layout *layout,
			 uint32_t line, uint32_t column)
{
	int rc;

	b->layout = *layout;
	rc = layout->report == VSPERF_CALL_TREE ? begin_call_tree(b, line, column) :
						  begin_functions(b, line, column);
	if (rc)
		return -1;
	if (pc_model_default_column(b->m) < 0)
		pc_model_set_default_column(b->m, b->state->self_column);
	b->begun = true;
	return 0;
}

int vsperf_builder_add(struct vsperf_builder *b, const struct vsperf_row *row)
{
	if (!b->begun)
		return fail_row(b, row, "a row before the report's header");
	switch (b->layout.report) {
	case VSPERF_CALLER_CALLEE:
		return add_caller_callee_row(b, row);
	case VSPERF_CALL_TREE:
		return add_call_tree_row(b, row);
	case VSPERF_FUNCTIONS:
		break;
	}
	return add_function_sample(b, row);
}

static void add_metadata(struct vsperf_builder *b)
{
	const char *report = report_names[b->layout.report];

	pc_model_add_source(b->m, SOURCE);
	if (b->layout.report != VSPERF_CALL_TREE)
		pc_model_add_comment(b->m, "Visual Studio %s summary: no call stacks; inclusive "
				     "values are per function and do not add up", report);
	if (b->state->apportion)
		pc_model_add_comment(b->m, "Visual Studio CallTree export without times: each "
				     "top-level function's elapsed time is its Number of Calls x "
				     "Avg Elapsed Inclusive Time, shared among the functions below "
				     "it by their Elapsed Exclusive Time %% (largest remainder); "
				     "these times are approximate, the calls are exact");
	pc_model_add_fact(b->m, "vsperf.report", report);
	pc_model_add_fact(b->m, "vsperf.flavour", b->state->flavour == FLAVOUR_SAMPLING ?
			  "sampling" : "instrumentation");
}

int vsperf_builder_finish(struct vsperf_builder *b, uint32_t line)
{
	if (!b->begun)
		return pc_fail_line(&b->ctx->err, b->format, line, 1, "the input ends before "
				    "the report's header");
	if (b->layout.report == VSPERF_CALL_TREE &&
	    ((b->state->apportion && flush_subtree(b)) || close_levels(b, 0)))
		return -1;
	if (b->layout.report == VSPERF_CALLER_CALLEE && cross_check_edges(b))
		return -1;
	add_metadata(b);
	return 0;
}

void vsperf_builder_release(struct vsperf_builder *b)
{
	struct vsperf_state *s = b->state;

	if (!s)
		return;
	free(s->keys);
	pc_index_release(&s->key_index);
	free(s->edges);
	pc_index_release(&s->edge_index);
	free(s->nodes);
	free(s->path);
	free(s->leaf_first);
	free(s->pending);
	free(s->weights);
	free(s->shares);
	free(s);
	b->state = NULL;
}

/* --- numbers as Visual Studio writes them --- */

static bool is_number_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void trim_blanks(const char **p, size_t *len)
{
	while (*len && is_number_blank(**p))
		(*p)++, (*len)--;
	while (*len && is_number_blank((*p)[*len - 1]))
		(*len)--;
}

/* Bytes of a group separator at p: , . ' space U+00A0 U+202F; 0 if none. */
static size_t group_separator(const char *p, size_t len)
{
	if (*p == ',' || *p == '.' || *p == '\'' || *p == ' ')
		return 1;
	if (len >= 2 && !memcmp(p, "\xc2\xa0", 2)) /* U+00A0 no-break space */
		return 2;
	if (len >= 3 && !memcmp(p, "\xe2\x80\xaf", 3)) /* U+202F narrow no-break space */
		return 3;
	return 0;
}

/* Grouped digits (see vsperf_model.h), no blanks around them. */
static enum vsperf_number parse_grouped(const char *p, size_t len, uint64_t max,
					uint64_t *out)
{
	const char *separator = NULL;
	size_t separator_len = 0, groups = 0, digits = 0; /* digits of the current group */
	uint64_t value = 0;
	bool too_large = false;

	for (size_t i = 0; i < len;) {
		size_t n;

		if (is_digit(p[i])) {
			unsigned digit = (unsigned)(p[i++] - '0');

			if (digit > max || value > (max - digit) / 10)
				too_large = true;
			else
				value = value * 10 + digit;
			digits++;
			continue;
		}
		n = group_separator(p + i, len - i);
		if (!n || !digits || digits > 3 || (groups && digits < 2) ||
		    (separator && (n != separator_len || memcmp(separator, p + i, n))))
			return VSPERF_NUMBER_BAD;
		separator = p + i;
		separator_len = n;
		groups++;
		digits = 0;
		i += n;
	}
	if (!digits || (groups && digits != 3))
		return VSPERF_NUMBER_BAD;
	if (too_large)
		return VSPERF_NUMBER_TOO_LARGE;
	*out = value;
	return VSPERF_NUMBER_OK;
}

enum vsperf_number vsperf_parse_count(const char *p, size_t len, uint64_t max,
				      uint64_t *out)
{
	trim_blanks(&p, &len);
	if (!len)
		return VSPERF_NUMBER_EMPTY;
	return parse_grouped(p, len, max, out);
}

/* The decimal point of a decimal: of '.' and ',' the last; a lone ',' or '.' is one. */
static const char *decimal_point(const char *p, size_t len)
{
	const char *dot = NULL, *comma = NULL;
	size_t dots = 0, commas = 0;

	for (size_t i = 0; i < len; i++) {
		if (p[i] == '.')
			dot = p + i, dots++;
		else if (p[i] == ',')
			comma = p + i, commas++;
	}
	if (dots && commas)
		return dot > comma ? dot : comma;
	if (commas == 1)
		return comma;
	return dots == 1 ? dot : NULL;
}

enum vsperf_number vsperf_parse_real(const char *p, size_t len, double *out)
{
	const char *point;
	uint64_t whole = 0, fraction = 0;
	long double scale = 1;
	enum vsperf_number status;

	trim_blanks(&p, &len);
	if (!len)
		return VSPERF_NUMBER_EMPTY;
	point = decimal_point(p, len);
	status = vsperf_parse_count(p, point ? (size_t)(point - p) : len, UINT64_MAX, &whole);
	if (status == VSPERF_NUMBER_EMPTY || status == VSPERF_NUMBER_BAD)
		return VSPERF_NUMBER_BAD;
	if (point) {
		const char *digits = point + 1;
		size_t n = len - (size_t)(digits - p);

		if (!n)
			return VSPERF_NUMBER_BAD;
		for (size_t i = 0; i < n; i++) {
			if (!is_digit(digits[i]))
				return VSPERF_NUMBER_BAD;
			if (i < 18) { /* beyond, digits pass a double's precision */
				fraction = fraction * 10 + (uint64_t)(digits[i] - '0');
				scale *= 10;
			}
		}
	}
	if (status != VSPERF_NUMBER_OK)
		return status;
	*out = (double)((long double)whole + (long double)fraction / scale);
	return VSPERF_NUMBER_OK;
}

/* Digits after a decimal point: whether all are digits, and whether one is not 0. */
static bool fraction_digits(const char *p, size_t len, bool *nonzero)
{
	*nonzero = false;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(p[i]))
			return false;
		*nonzero |= p[i] != '0';
	}
	return len > 0;
}

enum vsperf_number vsperf_parse_time(const char *p, size_t len, uint64_t max, uint64_t *out,
				     bool *rounded)
{
	enum vsperf_number status = vsperf_parse_count(p, len, max, out);
	const char *point;
	bool nonzero;

	*rounded = false;
	if (status != VSPERF_NUMBER_BAD)
		return status; /* a count, exactly as counts are read */
	trim_blanks(&p, &len);
	point = decimal_point(p, len);
	if (!point)
		return VSPERF_NUMBER_BAD;
	status = vsperf_parse_count(p, (size_t)(point - p), max, out);
	if (status == VSPERF_NUMBER_EMPTY ||
	    !fraction_digits(point + 1, len - (size_t)(point + 1 - p), &nonzero))
		return VSPERF_NUMBER_BAD;
	if (status != VSPERF_NUMBER_OK || !nonzero)
		return status;
	*rounded = true;
	if (point[1] < '5')
		return VSPERF_NUMBER_OK;
	if (*out == max)
		return VSPERF_NUMBER_TOO_LARGE;
	(*out)++;
	return VSPERF_NUMBER_OK;
}

enum vsperf_number vsperf_parse_level(const char *p, size_t len, int *out)
{
	bool negative;
	uint64_t value = 0;
	enum vsperf_number status;

	trim_blanks(&p, &len);
	if (!len)
		return VSPERF_NUMBER_EMPTY;
	negative = *p == '-';
	if (negative)
		p++, len--;
	status = vsperf_parse_count(p, len, (uint64_t)INT32_MAX, &value);
	if (status == VSPERF_NUMBER_EMPTY)
		return VSPERF_NUMBER_BAD;
	if (status == VSPERF_NUMBER_OK)
		*out = negative ? -(int)value : (int)value;
	return status;
}

enum vsperf_number vsperf_parse_address(const char *p, size_t len, uint64_t *out)
{
	uint64_t value = 0;
	bool too_large = false;

	trim_blanks(&p, &len);
	if (!len)
		return VSPERF_NUMBER_EMPTY;
	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2, len -= 2;
	for (size_t i = 0; i < len; i++) {
		int digit = pc_hex_digit((unsigned char)p[i]);

		if (digit < 0)
			return VSPERF_NUMBER_BAD;
		too_large |= value >> 60 != 0;
		value = value << 4 | (uint64_t)digit;
	}
	if (too_large)
		return VSPERF_NUMBER_TOO_LARGE;
	*out = value;
	return VSPERF_NUMBER_OK;
}
