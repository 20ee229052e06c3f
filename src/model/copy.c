/* copy.c - one model's content into another: id maps, metadata, merging. */
#include "model/copy.h"

#include <sched.h>
#include <stdatomic.h>

#include "base/threads.h"

#define COPY_BATCH 256  /* frames added at once (pc_model_add_frames) */
#define APPEND_BATCH 16 /* appending: stacks whose index slots are asked for together */
#define APPEND_AHEAD 8  /* appending: how far ahead a sample's index slot is asked for */

/*
 * pc_model_append runs in two lanes, on two threads when it may. Lane one
 * maps the strings, then the columns, metadata and label sets, then the
 * stacks and branch stacks; lane two maps the modules and frames, then
 * adds the samples and arcs. Each table is added to by one lane in from's
 * order, so the result is the one of a single thread; a lane waits only
 * for the entries of the other's maps it is about to read, published
 * batch by batch. On one thread the four parts run one after another and
 * never wait. Each index is made room in when its lane gets to it, and
 * each of from's tables freed when copied, so that less is held at once.
 */
struct pc_copy_lanes {
	/* from's string, frame and stack ids below these are mapped */
	atomic_size_t strings, frames, stacks;
	atomic_bool tables;   /* columns, metadata and label sets mapped (or failed) */
	atomic_bool branches; /* branch stacks mapped */
	size_t nstrings, nframes; /* from's, read before the lanes free them */
	bool columns_failed;  /* set before tables */
};

static void publish(atomic_size_t *done, size_t end)
{
	atomic_store_explicit(done, end, memory_order_release);
}

static bool is_mapped(const atomic_size_t *done, size_t id)
{
	return atomic_load_explicit(done, memory_order_acquire) > id;
}

/* Waits until the other lane has mapped id (at once without lanes). */
static void await_id(const struct pc_copy_lanes *lanes, const atomic_size_t *done, size_t id)
{
	if (lanes)
		while (!is_mapped(done, id))
			sched_yield();
}

static void await_flag(const struct pc_copy_lanes *lanes, const atomic_bool *flag)
{
	if (lanes)
		while (!atomic_load_explicit(flag, memory_order_acquire))
			sched_yield();
}

static void await_string(const struct pc_model_copy *copy, pc_str_id id)
{
	await_id(copy->lanes, copy->lanes ? &copy->lanes->strings : NULL, id);
}

pc_str_id pc_model_copy_str(const struct pc_model_copy *copy, pc_str_id id)
{
	if (copy->string_map)
		return copy->string_map[id];
	return pc_model_intern(copy->dst, pc_str(copy->src, id), pc_str_len(copy->src, id));
}

static void copy_modules(struct pc_model_copy *copy, const struct pc_expansion *expansion)
{
	const struct pc_model *src = copy->src;

	copy->module_map = pc_xcalloc(pc_model_nmodules(src) + 1, sizeof(*copy->module_map));
	for (size_t i = 0; i < pc_model_nmodules(src); i++) {
		struct pc_module module = *pc_model_module(src, i + 1);

		await_string(copy, module.name > module.build_id ? module.name : module.build_id);
		module.name = pc_model_copy_str(copy, module.name);
		module.build_id = pc_model_copy_str(copy, module.build_id);
		if (expansion && expansion->module)
			expansion->module(expansion->data, copy, (uint32_t)i + 1, &module);
		copy->module_map[i + 1] = pc_model_add_module(copy->dst, &module);
	}
}

/* src's string id as an id of dst's, or 0 when dst does not have that string. */
static pc_str_id found_str(const struct pc_model_copy *copy, pc_str_id id)
{
	if (copy->string_map)
		return copy->string_map[id];
	return pc_model_find_string(copy->dst, pc_str(copy->src, id), pc_str_len(copy->src, id));
}

/*
 * The system names of src's frames, onto the dst frames they became when
 * those keep the function's name (a frame that expansion named anew has
 * no system name).
 */
static void copy_system_names(struct pc_model_copy *copy)
{
	if (copy->lanes && copy->lanes->nstrings)
		await_string(copy, copy->lanes->nstrings - 1);
	for (uint32_t f = 1; f <= pc_model_nframes(copy->src); f++) {
		uint32_t to = copy->frame_map[f];
		pc_str_id function = pc_model_frame(copy->src, f)->function, name;

		if (!pc_model_system_name(copy->src, f, &name) ||
		    (copy->chain_at && copy->chain_at[f + 1] - copy->chain_at[f] != 1) ||
		    pc_model_frame(copy->dst, to)->function != found_str(copy, function))
			continue;
		pc_model_set_system_name(copy->dst, to, pc_model_copy_str(copy, name));
	}
}

static void copy_frames(struct pc_model_copy *copy)
{
	const struct pc_model *src = copy->src;
	struct pc_frame batch[COPY_BATCH];
	size_t n = pc_model_nframes(src);

	if (!copy->frame_map) /* appending: lane one reads it from the start (append_init) */
		copy->frame_map = pc_xcalloc(n + 1, sizeof(*copy->frame_map));
	for (size_t start = 0; start < n; start += COPY_BATCH) {
		size_t k = n - start < COPY_BATCH ? n - start : COPY_BATCH;

		pc_str_id last = 0;

		for (size_t i = 0; i < k; i++) {
			batch[i] = *pc_model_frame(src, (uint32_t)(start + i + 1));
			last = batch[i].function > last ? batch[i].function : last;
			last = batch[i].file > last ? batch[i].file : last;
		}
		await_string(copy, last);
		for (size_t i = 0; i < k; i++) {
			batch[i].module = copy->module_map[batch[i].module];
			batch[i].function = pc_model_copy_str(copy, batch[i].function);
			batch[i].file = pc_model_copy_str(copy, batch[i].file);
		}
		pc_model_add_frames(copy->dst, batch, k, &copy->frame_map[start + 1]);
		if (copy->lanes)
			publish(&copy->lanes->frames, start + k + 1);
	}
	copy_system_names(copy);
}

/* src's frames through expand: chains of dst frames (see copy.h). */
static void expand_frames(struct pc_model_copy *copy, const struct pc_expansion *expansion)
{
	size_t nframes = pc_model_nframes(copy->src), used = 0, cap = 0;
	struct pc_frame out[PC_MAX_EXPANSION];

	copy->frame_map = pc_xcalloc(nframes + 1, sizeof(*copy->frame_map));
	copy->chain_at = pc_xcalloc(nframes + 2, sizeof(*copy->chain_at));
	for (uint32_t f = 1; f <= nframes; f++) {
		size_t n = expansion->frame(expansion->data, copy, f, out, PC_MAX_EXPANSION);

		copy->chain_at[f] = (uint32_t)used;
		pc_grow(&copy->chain, &cap, used + n, sizeof(*copy->chain));
		for (size_t i = 0; i < n; i++)
			copy->chain[used++] = pc_model_add_frame(copy->dst, &out[i]);
		copy->frame_map[f] = copy->chain[used - 1];
	}
	copy->chain_at[nframes + 1] = (uint32_t)used;
	copy_system_names(copy);
}

static void copy_labelsets(struct pc_model_copy *copy)
{
	const struct pc_model *src = copy->src;
	struct pc_label *labels = NULL;
	size_t labels_cap = 0;

	copy->labelset_map = pc_xcalloc((pc_model_nlabelsets(src) + 1), sizeof(*copy->labelset_map));
	for (uint32_t set = 1; set < (pc_model_nlabelsets(src) + 1); set++) {
		size_t n;
		const uint32_t *ids = pc_model_labelset(src, set, &n);

		pc_grow(&labels, &labels_cap, n, sizeof(*labels));
		for (size_t i = 0; i < n; i++) {
			labels[i] = *pc_model_label(src, ids[i]);
			labels[i].key = pc_model_copy_str(copy, labels[i].key);
			labels[i].str = pc_model_copy_str(copy, labels[i].str);
			labels[i].unit = pc_model_copy_str(copy, labels[i].unit);
		}
		copy->labelset_map[set] = pc_model_add_labels(copy->dst, labels, n);
	}
	free(labels);
}

void pc_model_copy_begin(struct pc_model_copy *copy, const struct pc_model *src,
			 struct pc_model *dst)
{
	copy->src = src;
	copy->dst = dst;
	copy_modules(copy, NULL);
	copy_frames(copy);
	copy_labelsets(copy);
}

void pc_model_copy_end(struct pc_model_copy *copy)
{
	free(copy->string_map);
	copy->string_map = NULL;
	free(copy->module_map);
	free(copy->frame_map);
	free(copy->labelset_map);
	free(copy->chain_at);
	free(copy->chain);
	copy->module_map = copy->frame_map = copy->labelset_map = NULL;
	copy->chain_at = copy->chain = NULL;
}

void pc_model_copy_metadata(const struct pc_model_copy *copy, const char *comment)
{
	const struct pc_model *src = copy->src;
	struct pc_model *dst = copy->dst;

	for (size_t i = 0; i < pc_model_nsources(src); i++)
		pc_model_add_source(dst, pc_str(src, pc_model_source(src, i)));
	for (size_t i = 0; i < pc_model_ncomments(src); i++)
		pc_model_add_comment(dst, "%s", pc_str(src, pc_model_comment(src, i)));
	if (comment)
		pc_model_add_comment(dst, "%s", comment);
	for (size_t i = 0; i < pc_model_nfacts(src); i++)
		pc_model_add_fact(dst, pc_str(src, pc_model_fact(src, i)->key),
				  pc_str(src, pc_model_fact(src, i)->value));
	pc_model_set_time(dst, pc_model_time_nanos(dst) ? pc_model_time_nanos(dst)
						      : pc_model_time_nanos(src),
			  pc_model_duration_nanos(dst) ? pc_model_duration_nanos(dst)
						       : pc_model_duration_nanos(src));
	if (pc_model_wants_names(src))
		pc_model_want_names(dst);
	if (!pc_model_period_type(dst)->type && !pc_model_period_type(dst)->unit)
		pc_model_set_period(dst, pc_model_copy_str(copy, pc_model_period_type(src)->type),
				    pc_model_copy_str(copy, pc_model_period_type(src)->unit),
				    pc_model_period(src));
}

/* ---- merging ---- */

/* One merge: the copy, from's columns in into, and what the filter keeps (or NULL). */
struct merge {
	struct pc_model_copy copy;
	int column_map[PC_MAX_COLUMNS];
	const struct pc_merge_filter *filter;
	uint32_t *stack;
	size_t stack_cap;
	struct pc_branch *branches;
	size_t branches_cap;
	size_t *sample_map; /* from's sample index -> into's, for the timed samples */
	uint32_t *stack_map, *branches_map; /* from's ids -> into's, when mapped first (append) */
	bool distinct_columns; /* no two of from's columns map to one of into's (append) */
};

static bool frame_hidden(const struct merge *mg, uint32_t frame)
{
	return mg->filter && mg->filter->frame_hidden && mg->filter->frame_hidden[frame];
}

/* from's stack id as an id of into, through the frame map, without hidden frames. */
static uint32_t map_stack(struct merge *mg, uint32_t id)
{
	const struct pc_model_copy *copy = &mg->copy;
	size_t n, used = 0;
	const uint32_t *frames = pc_model_stack(copy->src, id, &n);

	if (!id)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t at = copy->chain_at ? copy->chain_at[frames[i]] : 0;
		size_t len = copy->chain_at ? copy->chain_at[frames[i] + 1] - at : 1;

		if (frame_hidden(mg, frames[i]))
			continue;
		pc_grow(&mg->stack, &mg->stack_cap, used + len, sizeof(*mg->stack));
		if (copy->chain_at)
			memcpy(mg->stack + used, copy->chain + at, len * sizeof(*mg->stack));
		else
			mg->stack[used] = copy->frame_map[frames[i]];
		used += len;
	}
	return pc_model_add_stack(copy->dst, mg->stack, used);
}

/* from's branch stack id as an id of into, through the frame map. */
static uint32_t map_branches(struct merge *mg, uint32_t id)
{
	size_t n;
	const uint32_t *pairs = pc_model_branch_stack(mg->copy.src, id, &n);

	if (!id)
		return 0;
	pc_grow(&mg->branches, &mg->branches_cap, n, sizeof(*mg->branches));
	for (size_t i = 0; i < n; i++) {
		mg->branches[i].from = mg->copy.frame_map[pairs[2 * i]];
		mg->branches[i].to = mg->copy.frame_map[pairs[2 * i + 1]];
	}
	return pc_model_add_branches(mg->copy.dst, mg->branches, n);
}

/*
 * A column of samples of no named event: folded stacks and Sampler traces
 * make "samples" (event "samples"), as they cannot say what was sampled.
 */
static bool is_unnamed_samples(const struct pc_model *m, const struct pc_column *column)
{
	return column->role == PC_ROLE_SAMPLES && column->event == column->type &&
	       !strcmp(pc_str(m, column->type), "samples");
}

/*
 * The column of into that unnamed samples join: the samples column of
 * into's default event, else its first samples column of a named event;
 * -1 when it has none.
 */
static int named_samples_column(const struct pc_model *into)
{
	size_t counted = pc_model_default_count_column(into);

	if (counted < pc_model_ncolumns(into) &&
	    pc_model_column(into, counted)->role == PC_ROLE_SAMPLES &&
	    !is_unnamed_samples(into, pc_model_column(into, counted)))
		return (int)counted;
	for (size_t c = 0; c < pc_model_ncolumns(into); c++)
		if (pc_model_column(into, c)->role == PC_ROLE_SAMPLES &&
		    !is_unnamed_samples(into, pc_model_column(into, c)))
			return (int)c;
	return -1;
}

static int add_column_of(struct pc_model *into, const struct pc_model *from, size_t c)
{
	const struct pc_column *column = pc_model_column(from, c);

	return pc_model_add_event_column(into, pc_str(from, column->type),
					  pc_str(from, column->unit), pc_str(from, column->event),
					  column->role);
}

/*
 * Maps from's columns onto into's, by name (new ones added), but for
 * unnamed samples (is_unnamed_samples): those share the samples column of
 * a named event when either model has one (merged inputs share the column
 * of the same meaning), which then becomes the default, as the one column
 * that holds every input's counts.
 */
static int map_columns(struct pc_model *into, const struct pc_model *from, int *column_map)
{
	int shared = -1;

	for (size_t c = 0; c < pc_model_ncolumns(from); c++)
		if (!is_unnamed_samples(from, pc_model_column(from, c)) &&
		    (column_map[c] = add_column_of(into, from, c)) < 0)
			return -1;
	for (size_t c = 0; c < pc_model_ncolumns(from); c++) {
		if (!is_unnamed_samples(from, pc_model_column(from, c)))
			continue;
		column_map[c] = shared = named_samples_column(into);
		if (shared < 0 && (column_map[c] = add_column_of(into, from, c)) < 0)
			return -1;
	}
	if (shared >= 0)
		pc_model_set_default_column(into, shared);
	else if (pc_model_default_column(into) < 0 && pc_model_default_column(from) >= 0)
		pc_model_set_default_column(into, column_map[pc_model_default_column(from)]);
	if (pc_model_arc_self_column(into) < 0 && pc_model_arc_self_column(from) >= 0)
		pc_model_set_arc_columns(into, column_map[pc_model_arc_self_column(from)],
					 column_map[pc_model_arc_total_column(from)]);
	return 0;
}

static bool sample_kept(const struct merge *mg, size_t i)
{
	return !mg->filter || !mg->filter->sample_kept || mg->filter->sample_kept[i];
}

/* Only the kept timed samples count (a time filter). */
static bool counts_by_time(const struct merge *mg)
{
	return mg->filter && mg->filter->timed_kept;
}

/* from's sample i as a sample of into. */
static struct pc_sample map_sample(struct merge *mg, size_t i)
{
	const struct pc_sample *s = pc_model_sample(mg->copy.src, i);

	if (mg->stack_map)
		return (struct pc_sample){
			.stack = mg->stack_map[s->stack],
			.labels = mg->copy.labelset_map[s->labels],
			.branches = mg->branches_map[s->branches],
		};
	return (struct pc_sample){
		.stack = map_stack(mg, s->stack),
		.labels = mg->copy.labelset_map[s->labels],
		.branches = map_branches(mg, s->branches),
	};
}

/* Whether the maps of from's sample i are there (appending: lane one maps its stacks). */
static bool sample_mapped(const struct merge *mg, size_t i)
{
	const struct pc_copy_lanes *lanes = mg->copy.lanes;
	const struct pc_sample *s;

	if (!lanes)
		return true;
	s = pc_model_sample(mg->copy.src, i);
	return is_mapped(&lanes->stacks, s->stack) &&
	       (!s->branches || atomic_load_explicit(&lanes->branches, memory_order_acquire));
}

/* Waits until the maps of from's sample i are there. */
static void await_sample(const struct merge *mg, size_t i)
{
	while (!sample_mapped(mg, i))
		sched_yield();
}

static void prefetch_sample(struct merge *mg, size_t i)
{
	struct pc_sample sample = map_sample(mg, i);

	pc_model_prefetch_sample(mg->copy.dst, &sample);
}

/* Adds from's sample i with its counts; its index in into goes to sample_map. */
static int merge_counts(struct merge *mg, size_t i, const struct pc_sample *sample)
{
	const struct pc_model *from = mg->copy.src;
	const uint64_t *values = pc_model_values(from, i);
	size_t at = 0;
	int status = 0;

	if (mg->distinct_columns && !mg->sample_map) { /* one lookup of the sample */
		struct pc_column_count counts[PC_MAX_COLUMNS];
		size_t n = 0;

		for (size_t c = 0; c < pc_model_ncolumns(from); c++)
			if (values[c] || c == 0)
				counts[n++] = (struct pc_column_count){ (size_t)mg->column_map[c],
									values[c] };
		return pc_model_add_sample_counts(mg->copy.dst, sample, counts, n, NULL);
	}
	/* column 0 even when zero, so a sample of all-zero counts is kept too */
	for (size_t c = 0; c < pc_model_ncolumns(from) && !status; c++)
		if (values[c] || c == 0)
			status = pc_model_add_sample_index(mg->copy.dst, sample,
							   (size_t)mg->column_map[c], values[c], &at);
	if (mg->sample_map)
		mg->sample_map[i] = at;
	return status;
}

/* Adds from's kept timed samples to into's (and with a time filter, their counts). */
static int merge_times(struct merge *mg, const struct pc_sample *samples)
{
	const struct pc_model *from = mg->copy.src;

	pc_model_keep_times(mg->copy.dst);
	for (size_t i = 0; i < pc_model_ntimed(from); i++) {
		const struct pc_timed_sample *t = pc_model_timed(from, i);
		size_t column = (size_t)mg->column_map[t->column];

		if (!sample_kept(mg, t->sample))
			continue;
		if (!counts_by_time(mg))
			pc_model_add_time(mg->copy.dst, mg->sample_map[t->sample], column, t->count,
					  t->time);
		else if (mg->filter->timed_kept[i] &&
			 pc_model_add_timed_sample(mg->copy.dst, &samples[t->sample], column,
						   t->count, t->time))
			return -1;
	}
	return 0;
}

static int merge_samples(struct merge *mg)
{
	const struct pc_model *from = mg->copy.src;
	size_t n = pc_model_nsamples(from);
	struct pc_sample *samples = NULL; /* with a time filter: from's samples in into */
	int status = 0;

	if (counts_by_time(mg))
		samples = pc_xmalloc((n ? n : 1) * sizeof(*samples));
	else if (pc_model_ntimed(from))
		mg->sample_map = pc_xmalloc((n ? n : 1) * sizeof(*mg->sample_map));
	for (size_t i = 0; i < n && !status; i++) {
		struct pc_sample sample;

		if (!sample_kept(mg, i))
			continue;
		/* appending: the next samples' index slots are asked for ahead */
		if (mg->stack_map && i + APPEND_AHEAD < n && sample_mapped(mg, i + APPEND_AHEAD))
			prefetch_sample(mg, i + APPEND_AHEAD);
		await_sample(mg, i);
		sample = map_sample(mg, i);
		if (samples)
			samples[i] = sample;
		else
			status = merge_counts(mg, i, &sample);
	}
	if (!status && pc_model_ntimed(from))
		status = merge_times(mg, samples);
	free(samples);
	free(mg->sample_map);
	return status;
}

static int merge_arcs(const struct pc_model_copy *copy)
{
	const struct pc_model *from = copy->src;

	for (size_t i = 0; i < pc_model_narcs(from); i++) {
		const struct pc_arc *arc = pc_model_arc(from, i);

		if (pc_model_add_arc(copy->dst, copy->frame_map[arc->from],
				     copy->frame_map[arc->to], arc->kind, arc->count))
			return -1;
	}
	return 0;
}

static bool maps_distinct(const int *column_map, size_t n)
{
	for (size_t c = 0; c < n; c++)
		for (size_t d = c + 1; d < n; d++)
			if (column_map[c] == column_map[d])
				return false;
	return true;
}

/*
 * Stacks first .. first + n - 1 of from (no frame hidden or expanded), in
 * order, into mg->stack_map: their frames mapped (once lane two has), then
 * their index slots asked for together, then each added.
 */
static void map_stack_batch(struct merge *mg, uint32_t first, size_t n)
{
	const struct pc_model_copy *copy = &mg->copy;
	size_t at[APPEND_BATCH + 1] = { 0 };

	for (size_t k = 0; k < n; k++) {
		size_t len;
		const uint32_t *frames = pc_model_stack(copy->src, first + (uint32_t)k, &len);
		uint32_t last = 0;

		for (size_t i = 0; i < len; i++)
			last = frames[i] > last ? frames[i] : last;
		await_id(copy->lanes, copy->lanes ? &copy->lanes->frames : NULL, last);
		pc_grow(&mg->stack, &mg->stack_cap, at[k] + len, sizeof(*mg->stack));
		for (size_t i = 0; i < len; i++)
			mg->stack[at[k] + i] = copy->frame_map[frames[i]];
		at[k + 1] = at[k] + len;
	}
	for (size_t k = 0; k < n; k++)
		pc_model_prefetch_stack(copy->dst, mg->stack + at[k], at[k + 1] - at[k]);
	for (size_t k = 0; k < n; k++)
		mg->stack_map[first + k] =
			pc_model_add_stack(copy->dst, mg->stack + at[k], at[k + 1] - at[k]);
}

/*
 * Every stack and branch stack of from, in from's order, into mg's maps
 * (allocated by the caller), each batch published to lane two.
 */
static void map_all_stacks(struct merge *mg, struct pc_copy_lanes *lanes)
{
	size_t nstacks = pc_model_nstacks(mg->copy.src);
	size_t nbranches = pc_model_nbranch_stacks(mg->copy.src);

	for (uint32_t first = 1; first <= nstacks; first += APPEND_BATCH) {
		size_t n = nstacks - first + 1 < APPEND_BATCH ? nstacks - first + 1 : APPEND_BATCH;

		map_stack_batch(mg, first, n);
		publish(&lanes->stacks, first + n);
	}
	if (nbranches)
		await_id(lanes, &lanes->frames, lanes->nframes);
	for (uint32_t id = 1; id <= nbranches; id++)
		mg->branches_map[id] = map_branches(mg, id);
	atomic_store_explicit(&lanes->branches, true, memory_order_release);
}

/* The copy of columns, modules, frames and label sets, with metadata; -1 past the columns. */
static int copy_tables(struct merge *mg, const struct pc_expansion *expansion)
{
	if (map_columns(mg->copy.dst, mg->copy.src, mg->column_map))
		return -1;
	if (expansion) {
		copy_modules(&mg->copy, expansion);
		expand_frames(&mg->copy, expansion);
	} else {
		copy_modules(&mg->copy, NULL);
		copy_frames(&mg->copy);
	}
	copy_labelsets(&mg->copy);
	pc_model_copy_metadata(&mg->copy, NULL);
	return 0;
}

/* The samples and arcs, once the tables are copied; -1 when a count would overflow. */
static int merge_counted(struct merge *mg, char *err_text, size_t err_size)
{
	int status = merge_samples(mg);

	if (!status && !mg->filter)
		status = merge_arcs(&mg->copy);
	if (status)
		snprintf(err_text, err_size, "a merged count would pass %llu",
			 (unsigned long long)PC_COUNT_MAX);
	return status;
}

static void merge_release(struct merge *mg)
{
	free(mg->stack);
	free(mg->branches);
	free(mg->branches_map);
	pc_model_copy_end(&mg->copy);
}

static int merge(struct pc_model *into, const struct pc_model *from,
		 const struct pc_expansion *expansion, const struct pc_merge_filter *filter,
		 char *err_text, size_t err_size)
{
	struct merge mg = { .copy = { .src = from, .dst = into }, .filter = filter };
	int status = -1;

	if (copy_tables(&mg, expansion))
		snprintf(err_text, err_size, "the merged profile would have more than %d columns",
			 PC_MAX_COLUMNS);
	else
		status = merge_counted(&mg, err_text, err_size);
	merge_release(&mg);
	return status;
}

/* ---- appending ---- */

#define STRING_STEP 1024 /* strings lane one maps between two publications */

struct append {
	struct merge mg;
	struct pc_model *from;
	struct pc_copy_lanes lanes;
	int status; /* lane two's */
	char *err_text;
	size_t err_size;
};

/* Lane one, first: the strings, then the columns, metadata and label sets. */
static void lane_one_tables(struct append *a)
{
	struct merge *mg = &a->mg;
	struct pc_copy_lanes *lanes = &a->lanes;

	pc_model_reserve_for(mg->copy.dst, a->from, PC_TABLE_STRINGS);
	for (size_t first = 1, end; first < lanes->nstrings; first = end) {
		end = lanes->nstrings - first < STRING_STEP ? lanes->nstrings : first + STRING_STEP;
		pc_model_intern_strings_of(mg->copy.dst, a->from, mg->copy.string_map, first, end);
		publish(&lanes->strings, end);
	}
	lanes->columns_failed = map_columns(mg->copy.dst, a->from, mg->column_map) != 0;
	if (!lanes->columns_failed) {
		pc_model_copy_metadata(&mg->copy, NULL);
		copy_labelsets(&mg->copy);
		mg->distinct_columns = maps_distinct(mg->column_map, pc_model_ncolumns(a->from));
	}
	pc_model_free_tables(a->from, PC_TABLE_STRINGS);
	atomic_store_explicit(&lanes->tables, true, memory_order_release);
}

/* Lane one, then: the stacks and branch stacks. */
static void lane_one_stacks(struct append *a)
{
	if (!a->lanes.columns_failed) {
		pc_model_reserve_for(a->mg.copy.dst, a->from, PC_TABLE_STACKS);
		map_all_stacks(&a->mg, &a->lanes);
	}
	pc_model_free_tables(a->from, PC_TABLE_STACKS);
}

/*
 * Lane two, first: the modules and frames. into's frame index goes then:
 * finalize would drop it, and a frame added before rebuilds it.
 */
static void lane_two_frames(struct append *a)
{
	pc_model_reserve_for(a->mg.copy.dst, a->from, PC_TABLE_FRAMES);
	copy_modules(&a->mg.copy, NULL);
	copy_frames(&a->mg.copy);
	pc_model_drop_indexes(a->mg.copy.dst, PC_TABLE_FRAMES);
	pc_model_free_tables(a->from, PC_TABLE_FRAMES);
}

/* Lane two, then: the samples and arcs, once lane one has mapped the columns. */
static void lane_two_samples(struct append *a)
{
	await_flag(&a->lanes, &a->lanes.tables);
	if (a->lanes.columns_failed)
		snprintf(a->err_text, a->err_size,
			 "the merged profile would have more than %d columns", PC_MAX_COLUMNS);
	else {
		pc_model_reserve_for(a->mg.copy.dst, a->from, PC_TABLE_SAMPLES);
		a->status = merge_counted(&a->mg, a->err_text, a->err_size);
	}
}

static void *lane_two(void *arg)
{
	lane_two_frames(arg);
	lane_two_samples(arg);
	return NULL;
}

static void append_init(struct append *a, struct pc_model *into, struct pc_model *from)
{
	a->mg.copy.src = a->from = from;
	a->mg.copy.dst = into;
	a->mg.copy.lanes = &a->lanes;
	a->lanes.nstrings = pc_model_nstrings(from);
	a->lanes.nframes = pc_model_nframes(from);
	/* id 0 (none) maps to 0 */
	atomic_init(&a->lanes.strings, 1);
	atomic_init(&a->lanes.frames, 1);
	atomic_init(&a->lanes.stacks, 1);
	atomic_init(&a->lanes.tables, false);
	atomic_init(&a->lanes.branches, false);
	a->mg.copy.string_map = pc_xcalloc(a->lanes.nstrings + 1, sizeof(*a->mg.copy.string_map));
	/* frame id 0 maps to 0 without waiting: lane one may read it before lane two starts */
	a->mg.copy.frame_map = pc_xcalloc(a->lanes.nframes + 1, sizeof(*a->mg.copy.frame_map));
	a->mg.stack_map = pc_xcalloc(pc_model_nstacks(from) + 1, sizeof(*a->mg.stack_map));
	a->mg.branches_map = pc_xcalloc(pc_model_nbranch_stacks(from) + 1,
					sizeof(*a->mg.branches_map));
	a->status = -1;
}

int pc_model_append(struct pc_model *into, struct pc_model *from, int *column_map,
		    uint32_t **stack_map, unsigned threads, char *err_text, size_t err_size)
{
	struct append *a = pc_xcalloc(1, sizeof(*a));
	struct pc_threads *second;
	int status;

	a->err_text = err_text;
	a->err_size = err_size;
	append_init(a, into, from);
	pc_model_drop_indexes(from, PC_TABLE_INDEXED);
	pc_model_free_tables(from, PC_TABLE_STRING_INDEX); /* its strings are read by id */
	second = pc_threads_start(threads >= 2, lane_two, (void *const[]){ a }, false);
	if (pc_threads_count(second)) {
		lane_one_tables(a);
		lane_one_stacks(a);
		pc_threads_join(second);
	} else { /* one thread: the lanes' parts in an order that never waits */
		pc_threads_join(second);
		lane_one_tables(a);
		lane_two_frames(a);
		lane_one_stacks(a);
		lane_two_samples(a);
	}
	memcpy(column_map, a->mg.column_map, sizeof(a->mg.column_map));
	*stack_map = a->mg.stack_map;
	status = a->status;
	merge_release(&a->mg);
	free(a);
	return status;
}

int pc_model_merge(struct pc_model *into, const struct pc_model *from, char *err_text,
		   size_t err_size)
{
	return merge(into, from, NULL, NULL, err_text, err_size);
}

int pc_model_merge_expanded(struct pc_model *into, const struct pc_model *from,
			    const struct pc_expansion *expansion, char *err_text, size_t err_size)
{
	return merge(into, from, expansion, NULL, err_text, err_size);
}

int pc_model_merge_filtered(struct pc_model *into, const struct pc_model *from,
			    const struct pc_merge_filter *filter, char *err_text, size_t err_size)
{
	return merge(into, from, NULL, filter, err_text, err_size);
}
