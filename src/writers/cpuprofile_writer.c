/*
 * cpuprofile_writer.c - writes Chrome DevTools' CPU profile JSON
 * (`-t cpuprofile`, .cpuprofile): the Profiler.Profile object that
 * Chrome DevTools (Performance panel: "Load profile"), VS Code, speedscope
 * and `node --cpu-prof` consumers read.
 *
 * Source: the Chrome DevTools Protocol's Profiler domain (types Profile,
 * ProfileNode, CallFrame; chromedevtools.github.io/devtools-protocol/tot/
 * Profiler), and the files `node --cpu-prof` writes (Node 20, V8 11.3),
 * whose keys and types tests/e2e/viewers_json.sh compares with ours:
 *
 *   {"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0",
 *     "url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,
 *     "children":[2,...]},...],
 *    "startTime":US,"endTime":US,"samples":[ID,...],"timeDeltas":[US,...]}
 *
 * No version: the format has none. Times are in microseconds.
 *
 * What maps where:
 *   call tree        -> nodes: one per distinct path of call frames from the
 *                       root (writers/call_frames.h: frames that differ only
 *                       by address are one), id 1 the "(root)" node; ids in
 *                       depth-first pre-order, children in the order they
 *                       are first met in the finalized model's samples;
 *                       "children" left out of leaves, as V8 does
 *   threads          -> with comm, pid or tid labels, one node per thread
 *                       under the root (writers/thread_split.h), named
 *                       "COMM PID/TID", before the thread's frames (a
 *                       .cpuprofile holds one thread; this keeps them apart)
 *   frame            -> callFrame: functionName = the function, else
 *                       MODULE+0xRVA, MODULE@0xADDR, 0xADDR, [MODULE] or
 *                       [unknown] (writers/frame_name.h); url = the source
 *                       file, else the module's path, else ""; scriptId = a
 *                       number per distinct url, as a string ("0" for "");
 *                       lineNumber = line - 1 (0-based), -1 when unknown;
 *                       columnNumber -1 (the model has no columns)
 *   a sample without a call stack (branch-only LBR records) -> the node
 *                       "(no stack)"
 *   the counted column -> --event NAME picks the samples column of event
 *                       NAME, else the column named NAME; by default the
 *                       default column, or its event's samples column when
 *                       the default is a weight (a .cpuprofile lists
 *                       samples, not weighted values)
 *   samples          -> a sample counted N times is N entries of "samples"
 *                       (the id of its leaf node) and hitCount adds N, so
 *                       the hitCounts add up to the length of "samples",
 *                       which equals the column's total
 *   timeDeltas       -> with the time of each sample (perf script's time
 *                       field, perf.data, ETL: the model keeps them when
 *                       asked, model.h pc_model_keep_times, which the CLI
 *                       does for this output), the samples in the order
 *                       they were taken, each delta the microseconds since
 *                       the one before (the first 0); startTime the first
 *                       sample's time on the input's clock, endTime the
 *                       last's plus one tick. Otherwise (SPT, Visual
 *                       Studio reports, folded, pprof: no per-sample times)
 *                       the samples are evenly spaced: one tick apart, the
 *                       tick being the
 *                       profile's period when its unit is a time (perf.data
 *                       cpu-clock, a VSP session's interval), else 1 ms
 *                       (1000 us). They follow the call tree in depth-first
 *                       order (each node's samples together), so DevTools'
 *                       chart reads like a flame graph. The first delta is
 *                       0; the last sample lasts until endTime. A warning
 *                       says so when the input had times
 *   a time column    -> (--event naming a column in nanoseconds,
 *                       microseconds, milliseconds or seconds) its total
 *                       time divided into ticks, one sample each, the
 *                       ticks shared among the stacks in proportion to
 *                       their values (largest remainders, base/apportion.h)
 *   startTime        -> the profile's start time (microseconds since the
 *                       epoch) when known, else 0; endTime = startTime +
 *                       the samples' span
 * More than --max-samples samples (default 10,000,000, about 100 MB) are
 * thinned: that many are written, each node's share in proportion to its
 * count (largest remainders), each sample lasting total / max ticks, so
 * the span and proportions stay (a warning). Output is deterministic.
 *
 * Limits: a column total past 2^63-1, or a span past 2^53 microseconds
 * (285 years, what a JavaScript number holds exactly), is refused.
 *
 * Caller/callee data (Visual Studio CallerCallee summaries, which have no
 * stacks) reaches this writer as the stacks that model/reconstruct.h
 * rebuilds from it (pipeline/convert.c does that for stack-only writers):
 * approximate, with counts that add up to the exclusive total exactly.
 *
 * What the format holds not, each said in one notice (never an error with
 * --strict): sample times when the model holds none (evenly spaced
 * samples), labels other than comm, pid and tid; the other columns;
 * samples without a stack (under the node "(no stack)"). Addresses (but
 * in the names of frames without a function), branch stacks and arcs are
 * noticed by the conversion as parts this format cannot keep; comments
 * and facts are not written. What is lost, each with one warning (an
 * error with --strict): exact counts past --max-samples; invalid UTF-8 in
 * names (U+FFFD).
 */
#include "model/format.h"
#include "base/apportion.h"
#include "writers/call_frames.h"
#include "writers/json_text.h"
#include "writers/thread_split.h"

#define CPUPROFILE "cpuprofile"
#define DEFAULT_MAX_SAMPLES 10000000ul
#define MAX_SAMPLES_LIMIT 1000000000ul
#define DEFAULT_TICK_NS UINT64_C(1000000)
#define JS_EXACT_MAX (UINT64_C(1) << 53)
#define NO_STACK "(no stack)"

/* What a tree node stands for: a call frame, a thread or the "(no stack)" node. */
enum cp_kind { CP_ROOT, CP_FRAME, CP_THREAD, CP_NO_STACK };

struct cp_node {
	uint32_t parent;
	uint32_t first_child, last_child, next_sibling; /* node + 1, 0 = none */
	enum cp_kind kind;
	uint32_t item; /* call frame or thread */
	uint32_t id;   /* in pre-order, from 1 */
	uint64_t hits;
};

struct cp_node_key {
	uint32_t parent;
	enum cp_kind kind;
	uint32_t item;
};

struct cpuprofile {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	FILE *fp;
	size_t column;

	struct pc_call_frames frames;
	struct pc_threads threads;
	bool by_thread;

	struct cp_node *nodes; /* node 0 is the root */
	size_t nnodes, nodes_cap;
	struct pc_index node_index;
	uint32_t *order;       /* nodes in pre-order */
	uint32_t *leaf;        /* the node of each model sample */
	uint32_t *script_ids;  /* url string id -> script id, 0 = not yet */
	uint32_t nscripts;

	uint64_t total;        /* the column's total */
	uint64_t *shares;      /* samples written per model sample */
	uint64_t nwritten;     /* samples written */
	uint64_t span_us, tick_ns;
	int64_t start_us;
	bool time_column, thinned, replaced;
	bool timeline;         /* the samples as they were taken, at their times */
	uint64_t stackless;    /* samples written under "(no stack)" */
};

/* ---- the column and the samples' times ---- */

static int pick_column(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	const char *event = w->ctx->opt.event;
	int column;

	if (event) {
		column = pc_model_pick_column(m, event, PC_ROLE_SAMPLES);
		if (column < 0)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
				       "%s: no event '%s' in the input", CPUPROFILE, event);
		w->column = (size_t)column;
		return 0;
	}
	/* a weight (period sum) by default: its event's samples are what a .cpuprofile lists */
	w->column = pc_model_default_count_column(m);
	return 0;
}

/* Nanoseconds in one unit of a time unit, 0 for other units. */
static uint64_t unit_nanos(const char *unit)
{
	static const struct {
		const char *name;
		uint64_t nanos;
	} units[] = {
		{ "nanoseconds", 1 },
		{ "microseconds", 1000 },
		{ "milliseconds", 1000000 },
		{ "seconds", 1000000000 },
	};

	for (size_t i = 0; i < PC_ARRAY_SIZE(units); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].nanos;
	return 0;
}

/* One sample's time: the period when it is a time, else 1 ms. */
static uint64_t tick_nanos(const struct pc_model *m)
{
	uint64_t per_unit = unit_nanos(pc_str(m, pc_model_period_type(m)->unit));
	int64_t period = pc_model_period(m);

	if (!per_unit || period <= 0 || (uint64_t)period > UINT64_MAX / per_unit ||
	    (uint64_t)period * per_unit > JS_EXACT_MAX)
		return DEFAULT_TICK_NS;
	return (uint64_t)period * per_unit;
}

static int fail_span(struct cpuprofile *w)
{
	return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
		       "%s: the samples of column '%s' span more than 2^53 microseconds",
		       CPUPROFILE, pc_str(w->m, pc_model_column(w->m, w->column)->type));
}

/* The column's total, and from it the samples to write and their span. */
static int plan_samples(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	unsigned long max = pc_option_count(w->ctx, "max-samples");
	uint64_t per_unit, span_ns;

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		uint64_t value = pc_model_values(m, i)[w->column];

		if (value > PC_COUNT_MAX - w->total)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
				       "%s: the values of column '%s' add up to more than 2^63-1",
				       CPUPROFILE, pc_str(m, pc_model_column(m, w->column)->type));
		w->total += value;
	}
	max = max ? max : DEFAULT_MAX_SAMPLES;
	w->tick_ns = tick_nanos(m);
	per_unit = unit_nanos(pc_str(m, pc_model_column(m, w->column)->unit));
	w->time_column = per_unit != 0;
	if (!w->time_column) {
		w->nwritten = w->total;
		if (w->total > UINT64_MAX / w->tick_ns)
			return fail_span(w);
		span_ns = w->total * w->tick_ns;
	} else {
		if (w->total > UINT64_MAX / per_unit)
			return fail_span(w);
		span_ns = w->total * per_unit;
		w->nwritten = span_ns / w->tick_ns + (span_ns % w->tick_ns != 0);
	}
	w->span_us = span_ns / 1000 + (span_ns % 1000 >= 500);
	if (w->span_us > JS_EXACT_MAX)
		return fail_span(w);
	if (w->nwritten > max) {
		w->nwritten = max;
		w->thinned = true;
	}
	if (w->time_column && w->total && !w->nwritten)
		w->nwritten = 1;
	return 0;
}

/* Samples written per model sample: its count, or its share of nwritten. */
static void share_samples(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	size_t n = pc_model_nsamples(m);
	double *weights;

	w->shares = pc_xcalloc(n ? n : 1, sizeof(*w->shares));
	if (!w->time_column && !w->thinned) {
		for (size_t i = 0; i < n; i++)
			w->shares[i] = pc_model_values(m, i)[w->column];
		return;
	}
	weights = pc_xmalloc((n ? n : 1) * sizeof(*weights));
	for (size_t i = 0; i < n; i++)
		weights[i] = (double)pc_model_values(m, i)[w->column];
	if (pc_apportion(weights, n, w->nwritten, w->shares))
		w->nwritten = 0; /* every value is 0 */
	free(weights);
}

/*
 * Whether the model's sample times cover the column (each sample of it
 * was taken at a known time, from the start of the input's clock): then
 * the samples are written in time order with their real time deltas.
 */
static bool times_cover(const struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	size_t n = pc_model_ntimed(m);
	uint64_t timed = 0;

	if (w->time_column || w->thinned || !n || !w->total || pc_model_timed(m, 0)->time < 0)
		return false;
	for (size_t i = 0; i < n && timed <= w->total; i++) {
		const struct pc_timed_sample *t = pc_model_timed(m, i);

		if (t->column == w->column)
			timed += t->count > w->total ? w->total + 1 : t->count;
	}
	return timed == w->total;
}

/* startTime and span from the column's first and last sample times, the last lasting a tick. */
static int plan_timeline(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	uint64_t first = 0, last = 0;
	bool any = false;

	for (size_t i = 0; i < pc_model_ntimed(m); i++) {
		const struct pc_timed_sample *t = pc_model_timed(m, i);

		if (t->column != w->column)
			continue;
		last = (uint64_t)t->time / 1000;
		first = any ? first : last;
		any = true;
	}
	w->start_us = (int64_t)first;
	w->span_us = last - first + (w->tick_ns + 500) / 1000;
	if (last + w->span_us > JS_EXACT_MAX)
		return fail_span(w);
	return 0;
}

/* ---- the call tree ---- */

static bool node_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct cpuprofile *w = ctx;
	const struct cp_node *node = &w->nodes[id - 1];
	const struct cp_node_key *key = key_ptr;

	return node->parent == key->parent && node->kind == key->kind && node->item == key->item;
}

static uint32_t child_of(struct cpuprofile *w, uint32_t parent, enum cp_kind kind, uint32_t item)
{
	struct cp_node_key key = { .parent = parent, .kind = kind, .item = item };
	uint64_t hash = pc_hash_u64((uint64_t)parent << 32 ^ (uint64_t)kind << 30 ^ item);
	uint32_t id = pc_index_find(&w->node_index, hash, node_equal, w, &key);
	struct cp_node *up;

	if (id)
		return id - 1;
	if (w->nnodes >= UINT32_MAX - 1)
		pc_die_oom(w->nnodes);
	pc_grow(&w->nodes, &w->nodes_cap, w->nnodes + 1, sizeof(*w->nodes));
	w->nodes[w->nnodes] = (struct cp_node){ .parent = parent, .kind = kind, .item = item };
	up = &w->nodes[parent];
	if (up->last_child)
		w->nodes[up->last_child - 1].next_sibling = (uint32_t)w->nnodes + 1;
	else
		up->first_child = (uint32_t)w->nnodes + 1;
	up->last_child = (uint32_t)w->nnodes + 1;
	pc_index_add(&w->node_index, hash, (uint32_t)++w->nnodes);
	return (uint32_t)w->nnodes - 1;
}

static void build_tree(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;

	pc_grow(&w->nodes, &w->nodes_cap, 1, sizeof(*w->nodes));
	w->nodes[0] = (struct cp_node){ .kind = CP_ROOT };
	w->nnodes = 1;
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const struct pc_sample *sample = pc_model_sample(m, i);
		size_t n;
		const uint32_t *frames = pc_model_stack(m, sample->stack, &n);
		uint32_t node = 0;

		if (!w->shares[i])
			continue;
		if (w->by_thread)
			node = child_of(w, node, CP_THREAD, pc_threads_of(&w->threads, sample->labels));
		else if (sample->labels)
			pc_threads_of(&w->threads, sample->labels); /* notes lost labels */
		for (size_t f = n; f > 0; f--)
			node = child_of(w, node, CP_FRAME, pc_call_frames_of(&w->frames, frames[f - 1]));
		if (!n) {
			node = child_of(w, node, CP_NO_STACK, 0);
			w->stackless += w->shares[i];
		}
		w->nodes[node].hits += w->shares[i];
		w->leaf[i] = node;
	}
}

/* Numbers the nodes in depth-first pre-order, without recursion. */
static void number_nodes(struct cpuprofile *w)
{
	uint32_t node = 0, count = 0;

	w->order = pc_xmalloc(w->nnodes * sizeof(*w->order));
	for (;;) {
		w->order[count] = node;
		w->nodes[node].id = ++count;
		if (w->nodes[node].first_child) {
			node = w->nodes[node].first_child - 1;
			continue;
		}
		while (node && !w->nodes[node].next_sibling)
			node = w->nodes[node].parent;
		if (!node)
			break;
		node = w->nodes[node].next_sibling - 1;
	}
}

/* ---- the output ---- */

static void put_string(struct cpuprofile *w, const char *s, size_t len)
{
	if (pc_json_put_string(w->fp, s, len))
		w->replaced = true;
}

/* The url of a call frame: its file, else its module's path; 0 for "". */
static pc_str_id frame_url(const struct cpuprofile *w, const struct pc_call_frame *frame)
{
	if (frame->file)
		return frame->file;
	return frame->module ? pc_model_module(w->m, frame->module)->name : 0;
}

static void put_call_frame(struct cpuprofile *w, const struct cp_node *node)
{
	const struct pc_call_frame *frame = NULL;
	char name[600];
	pc_str_id url = 0;

	fputs("\"callFrame\":{\"functionName\":", w->fp);
	if (node->kind == CP_FRAME) {
		frame = &w->frames.items[node->item];
		put_string(w, frame->name, frame->name_len);
		url = frame_url(w, frame);
	} else if (node->kind == CP_THREAD) {
		put_string(w, name, pc_threads_name(&w->threads, node->item, name, sizeof(name)));
	} else {
		fputs(node->kind == CP_ROOT ? "\"(root)\"" : "\"" NO_STACK "\"", w->fp);
	}
	if (url && !w->script_ids[url])
		w->script_ids[url] = ++w->nscripts;
	fprintf(w->fp, ",\"scriptId\":\"%lu\",\"url\":", (unsigned long)(url ? w->script_ids[url] : 0));
	put_string(w, pc_str(w->m, url), pc_str_len(w->m, url));
	fprintf(w->fp, ",\"lineNumber\":%ld,\"columnNumber\":-1}",
		frame && frame->line ? (long)frame->line - 1 : -1L);
}

static void put_nodes(struct cpuprofile *w)
{
	fputs("{\"nodes\":[", w->fp);
	for (size_t i = 0; i < w->nnodes; i++) {
		const struct cp_node *node = &w->nodes[w->order[i]];

		fprintf(w->fp, "%s{\"id\":%lu,", i ? ",\n" : "\n", (unsigned long)node->id);
		put_call_frame(w, node);
		fprintf(w->fp, ",\"hitCount\":%llu", (unsigned long long)node->hits);
		for (uint32_t child = node->first_child; child;
		     child = w->nodes[child - 1].next_sibling)
			fprintf(w->fp, "%s%lu", child == node->first_child ? ",\"children\":[" : ",",
				(unsigned long)w->nodes[child - 1].id);
		fputs(node->first_child ? "]}" : "}", w->fp);
	}
	fputs("],\n", w->fp);
}

/* Sample j's time from the start: j * span / nwritten, rounded down, without overflow. */
static uint64_t sample_time(const struct cpuprofile *w, uint64_t j)
{
	uint64_t step = w->span_us / w->nwritten, rest = w->span_us % w->nwritten;

	return j * step + j * rest / w->nwritten;
}

/* The samples in time order, each delta the microseconds since the one before. */
static void put_timeline(struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	uint64_t j = 0, before = (uint64_t)w->start_us;

	fprintf(w->fp, "\"startTime\":%lld,\"endTime\":%lld,\n\"samples\":[",
		(long long)w->start_us, (long long)(w->start_us + (int64_t)w->span_us));
	for (size_t i = 0; i < pc_model_ntimed(m); i++) {
		const struct pc_timed_sample *t = pc_model_timed(m, i);

		for (uint64_t k = 0; t->column == w->column && k < t->count; k++, j++)
			fprintf(w->fp, j ? ",%lu" : "%lu", (unsigned long)w->nodes[w->leaf[t->sample]].id);
	}
	fputs("],\n\"timeDeltas\":[", w->fp);
	j = 0;
	for (size_t i = 0; i < pc_model_ntimed(m); i++) {
		const struct pc_timed_sample *t = pc_model_timed(m, i);
		uint64_t at = (uint64_t)t->time / 1000;

		for (uint64_t k = 0; t->column == w->column && k < t->count; k++, j++) {
			fprintf(w->fp, j ? ",%llu" : "%llu", (unsigned long long)(at - before));
			before = at;
		}
	}
	fputs("]}\n", w->fp);
}

static void put_samples(struct cpuprofile *w)
{
	uint64_t j = 0;

	fprintf(w->fp, "\"startTime\":%lld,\"endTime\":%lld,\n\"samples\":[",
		(long long)w->start_us, (long long)(w->start_us + (int64_t)w->span_us));
	for (size_t i = 0; i < w->nnodes; i++) {
		const struct cp_node *node = &w->nodes[w->order[i]];

		for (uint64_t k = 0; k < node->hits; k++, j++)
			fprintf(w->fp, j ? ",%lu" : "%lu", (unsigned long)node->id);
	}
	fputs("],\n\"timeDeltas\":[", w->fp);
	for (j = 0; j < w->nwritten; j++)
		fprintf(w->fp, j ? ",%llu" : "%llu",
			(unsigned long long)(j ? sample_time(w, j) - sample_time(w, j - 1) : 0));
	fputs("]}\n", w->fp);
}

/* ---- warnings ---- */

/* A column with values other than the written one and its event's other columns. */
static const char *lost_column(const struct cpuprofile *w)
{
	const struct pc_model *m = w->m;
	pc_str_id event = pc_model_column(m, w->column)->event;

	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		if (c == w->column || (event && pc_model_column(m, c)->event == event))
			continue;
		for (size_t i = 0; i < pc_model_nsamples(m); i++)
			if (pc_model_values(m, i)[c])
				return pc_str(m, pc_model_column(m, c)->type);
	}
	return NULL;
}

/* Thinning past --max-samples is a loss; evenly spaced samples are the model's nature. */
static int warn_times(struct cpuprofile *w)
{
	double tick_ms = (double)w->span_us / (double)w->nwritten / 1000.0;

	if (w->thinned)
		return pc_warn(w->ctx, CPUPROFILE, "%llu%s samples are more than --max-samples: "
			       "%llu written, evenly spaced %.6g ms apart, in proportion",
			       (unsigned long long)(w->time_column ? w->span_us * 1000 / w->tick_ns
								   : w->total),
			       w->time_column ? " ticks of" : "",
			       (unsigned long long)w->nwritten, tick_ms);
	pc_notice(w->ctx, CPUPROFILE, "the model keeps no sample times: samples are evenly "
		  "spaced %.6g ms apart (%s), in call-tree order", tick_ms,
		  w->tick_ns == DEFAULT_TICK_NS ? "the input has no period in time units"
						: "the profile's period");
	return 0;
}

/* Notices for what the format holds not; warnings (errors with --strict) for losses. */
static int warn_lost(struct cpuprofile *w)
{
	const char *column = pc_model_ncolumns(w->m) ? lost_column(w) : NULL;

	/* sample times are lost only where the input had them (a start or a duration) */
	if (w->nwritten && !w->timeline &&
	    (w->thinned || pc_model_time_nanos(w->m) || pc_model_duration_nanos(w->m)) &&
	    warn_times(w))
		return -1;
	if (column)
		pc_notice(w->ctx, CPUPROFILE, "only column '%s' is written; others such as '%s' "
			  "are lost (pick one with --event)",
			  pc_str(w->m, pc_model_column(w->m, w->column)->type), column);
	if (w->threads.lost_labels)
		pc_notice(w->ctx, CPUPROFILE, "labels other than comm, pid and tid are lost");
	if (w->stackless)
		pc_notice(w->ctx, CPUPROFILE, "%llu samples without a call stack are written "
			  "under the node \"" NO_STACK "\"", (unsigned long long)w->stackless);
	if (w->replaced &&
	    pc_warn(w->ctx, CPUPROFILE, "invalid UTF-8 in names is written as U+FFFD"))
		return -1;
	return 0;
}

static void writer_release(struct cpuprofile *w)
{
	pc_call_frames_release(&w->frames);
	pc_threads_release(&w->threads);
	free(w->nodes);
	pc_index_release(&w->node_index);
	free(w->order);
	free(w->leaf);
	free(w->script_ids);
	free(w->shares);
}

static int cpuprofile_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct cpuprofile w = { .ctx = ctx, .m = m, .fp = out->fp };
	int ret = -1;

	pc_call_frames_init(&w.frames, m);
	pc_threads_init(&w.threads, m);
	pc_index_init(&w.node_index);
	w.script_ids = pc_xcalloc(pc_model_nstrings(m) + 1, sizeof(*w.script_ids));
	w.start_us = pc_model_time_nanos(m) > 0 ? pc_model_time_nanos(m) / 1000 : 0;
	if (pick_column(&w))
		goto out;
	if (pc_model_ncolumns(m)) {
		if (plan_samples(&w))
			goto out;
		share_samples(&w);
		w.timeline = times_cover(&w);
		if (w.timeline && plan_timeline(&w))
			goto out;
	} else {
		w.shares = pc_xcalloc(pc_model_nsamples(m) + 1, sizeof(*w.shares));
	}
	w.leaf = pc_xcalloc(pc_model_nsamples(m) + 1, sizeof(*w.leaf));
	w.by_thread = pc_threads_any(m);
	build_tree(&w);
	number_nodes(&w);
	put_nodes(&w);
	if (w.timeline)
		put_timeline(&w);
	else
		put_samples(&w);
	if (warn_lost(&w))
		goto out;
	ret = 0;
out:
	writer_release(&w);
	return ret;
}

static const char *const cpuprofile_extensions[] = { ".cpuprofile", NULL };

static const struct pc_option_spec cpuprofile_options[] = {
	{ "max-samples", PC_OPTION_COUNT, "N",
	  "write at most N samples (default 10000000), thinned in proportion",
	  MAX_SAMPLES_LIMIT },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_cpuprofile_writer = {
	.name = "cpuprofile",
	.extensions = cpuprofile_extensions,
	.summary = "Chrome DevTools' CPU profile JSON (nodes, samples, timeDeltas), as "
		   "node --cpu-prof writes",
	.needs = 0,
	.keeps = PC_PART_STACKS | PC_PART_SYMBOLS,
	.write = cpuprofile_write,
	.options = cpuprofile_options,
};
