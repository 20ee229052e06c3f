/*
 * model.c - interning and aggregation for the common model. Every table
 * is a growable array plus a pc_index keyed by content, so adding what
 * already exists returns the existing id at the cost of one hash probe.
 * Bulk appends skip the index of frames, stacks and samples, which is
 * then caught up by the next lookup; finalize frees those indexes.
 */
#include "model/model.h"

#include "base/sort.h"
#include "base/strtab.h"

#include <stdarg.h>

struct pc_model {
	struct pc_strtab strings;

	struct pc_module *modules; /* module id i is modules[i - 1] */
	size_t nmodules, modules_cap;
	struct pc_index module_index;

	struct pc_frame *frames; /* frame id i is frames[i - 1] */
	size_t nframes, frames_cap;
	struct pc_index frame_index; /* of the first frames_indexed frames */
	size_t frames_indexed;
	/* frame id -> its system name + 1 (0 = none of its own); NULL until one is set */
	uint32_t *system_names;
	size_t system_names_cap;

	struct pc_label *labels; /* label id i is labels[i - 1] */
	size_t nlabels, labels_cap;
	struct pc_index label_index;

	struct pc_seqs stacks;    /* of frame ids */
	struct pc_seqs labelsets; /* of label ids */
	struct pc_seqs branches;  /* of (from, to) frame id pairs */

	struct pc_column columns[PC_MAX_COLUMNS];
	size_t ncolumns;
	int default_column; /* -1 until set; finalize picks 0 */

	/*
	 * Sample i's counts are the row sample_rows[i] of values (read them
	 * with pc_model_values). A row belongs to one sample, or, marked
	 * PC_ROW_SHARED in sample_rows, is shared by samples of equal counts
	 * (pc_model_append_sample): millions of samples then cost a few rows.
	 */
	struct pc_sample *samples;
	uint32_t *sample_rows;
	size_t nsamples, samples_cap;
	struct pc_index sample_index; /* of the first samples_indexed samples */
	size_t samples_indexed;
	uint64_t *values; /* nrows rows of value_stride counts */
	size_t nrows, rows_cap, value_stride;
	struct pc_index row_index; /* the shared rows */

	struct pc_arc *arcs;
	size_t narcs, arcs_cap;
	struct pc_index arc_index;
	/*
	 * Flat per-function data with call arcs (Visual Studio CallerCallee
	 * and Function summaries): each function is a one-frame sample whose
	 * value in arc_self_column is its exclusive count and in
	 * arc_total_column its inclusive count, and a call arc's count is the
	 * callee's inclusive count through that caller, in the unit of
	 * arc_total_column. Both -1 when the model has no such data.
	 * pc_model_reconstruct_stacks (reconstruct.h) turns it into stacks.
	 */
	int arc_self_column, arc_total_column;

	/*
	 * Each sample as it was taken, when keep_times: its time, index and
	 * the count added to one column (pc_model_add_timed_sample); in time
	 * order, with finalized indexes, after finalize.
	 */
	struct pc_timed_sample *timed;
	size_t ntimed, timed_cap;
	bool keep_times;

	/* metadata */
	pc_str_id *sources; /* formats read, in order (e.g. "spt") */
	size_t nsources, sources_cap;
	pc_str_id *comments;
	size_t ncomments, comments_cap;
	struct pc_fact *facts; /* per-format header facts, in order */
	size_t nfacts, facts_cap;
	int64_t time_nanos, duration_nanos; /* 0 = unknown */
	struct pc_value_type period_type;
	int64_t period;
	bool wants_names; /* its frames are addresses to name from their binaries */

	bool finalized;
};


/* ---- life cycle ---- */

void pc_model_init(struct pc_model *m)
{
	memset(m, 0, sizeof(*m));
	pc_strtab_init(&m->strings);
	pc_seqs_init(&m->stacks);
	pc_seqs_init(&m->labelsets);
	pc_seqs_init(&m->branches);
	m->default_column = -1;
	m->arc_self_column = m->arc_total_column = -1;
}

struct pc_model *pc_model_new(void)
{
	struct pc_model *m = pc_xmalloc(sizeof(*m));

	pc_model_init(m);
	return m;
}

void pc_model_free(struct pc_model *m)
{
	if (m) {
		pc_model_release(m);
		free(m);
	}
}

void pc_model_release(struct pc_model *m)
{
	pc_strtab_release(&m->strings);
	free(m->modules);
	pc_index_release(&m->module_index);
	free(m->frames);
	pc_index_release(&m->frame_index);
	free(m->system_names);
	free(m->labels);
	pc_index_release(&m->label_index);
	pc_seqs_release(&m->stacks);
	pc_seqs_release(&m->labelsets);
	pc_seqs_release(&m->branches);
	free(m->samples);
	free(m->sample_rows);
	free(m->values);
	pc_index_release(&m->sample_index);
	pc_index_release(&m->row_index);
	free(m->arcs);
	free(m->timed);
	pc_index_release(&m->arc_index);
	free(m->sources);
	free(m->comments);
	free(m->facts);
	memset(m, 0, sizeof(*m));
}

/* ---- strings ---- */

pc_str_id pc_model_intern(struct pc_model *m, const void *text, size_t len)
{
	return pc_strtab_intern(&m->strings, text, len);
}

void pc_model_intern_strings_of(struct pc_model *m, const struct pc_model *from, pc_str_id *map,
				size_t first, size_t end)
{
	pc_strtab_intern_range(&m->strings, &from->strings, map, first, end);
}

pc_str_id pc_model_find_string(const struct pc_model *m, const void *text, size_t len)
{
	return pc_strtab_find(&m->strings, text, len);
}

pc_str_id pc_model_intern_cstr(struct pc_model *m, const char *text)
{
	return pc_model_intern(m, text, strlen(text));
}

/* ---- modules, frames, labels ---- */

static bool module_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const struct pc_module *a = &m->modules[id - 1], *b = key;

	return a->name == b->name && a->build_id == b->build_id && a->space == b->space;
}

uint32_t pc_model_add_module(struct pc_model *m, const struct pc_module *module)
{
	uint64_t hash = pc_hash_u64((((uint64_t)module->name << 32) | module->build_id) ^
				    pc_hash_u64(module->space));
	uint32_t id = pc_index_find(&m->module_index, hash, module_equal, m, module);

	if (id) {
		struct pc_module *known = &m->modules[id - 1];

		if (module->has_range && !known->has_range) {
			*known = *module;
		} else if (module->has_range) {
			if (module->start < known->start) {
				known->start = module->start;
				known->file_offset = module->file_offset;
			}
			if (module->limit > known->limit)
				known->limit = module->limit;
		}
		return id;
	}
	pc_grow(&m->modules, &m->modules_cap, m->nmodules + 1, sizeof(*m->modules));
	m->modules[m->nmodules] = *module;
	id = (uint32_t)++m->nmodules;
	pc_index_add(&m->module_index, hash, id);
	return id;
}

static uint64_t frame_hash(const struct pc_frame *f)
{
	uint64_t h = pc_hash_u64(((uint64_t)f->module << 32) ^ f->flags);

	h = pc_hash_u64(h ^ f->address);
	h = pc_hash_u64(h ^ (((uint64_t)f->function << 32) | f->file));
	return pc_hash_u64(h ^ f->line ^ ((uint64_t)f->start_line << 32));
}

static bool frame_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const struct pc_frame *a = &m->frames[id - 1], *b = key;

	return a->module == b->module && a->flags == b->flags && a->address == b->address &&
	       a->function == b->function && a->file == b->file && a->line == b->line &&
	       a->start_line == b->start_line;
}

void pc_model_reserve(struct pc_model *m, size_t frames, size_t stacks, size_t stack_frames,
		      size_t samples)
{
	size_t rows_cap = m->samples_cap;

	pc_grow(&m->frames, &m->frames_cap, m->nframes + frames, sizeof(*m->frames));
	pc_grow(&m->stacks.starts, &m->stacks.starts_cap, m->stacks.count + stacks + 1,
		sizeof(*m->stacks.starts));
	pc_grow(&m->stacks.items, &m->stacks.items_cap, m->stacks.nitems + stack_frames,
		sizeof(*m->stacks.items));
	pc_grow(&m->samples, &m->samples_cap, m->nsamples + samples, sizeof(*m->samples));
	pc_grow(&m->sample_rows, &rows_cap, m->samples_cap, sizeof(*m->sample_rows));
}

uint32_t pc_model_append_frame(struct pc_model *m, const struct pc_frame *frame)
{
	if (m->nframes >= UINT32_MAX)
		pc_die_oom(m->nframes);
	pc_grow(&m->frames, &m->frames_cap, m->nframes + 1, sizeof(*m->frames));
	m->frames[m->nframes] = *frame;
	return (uint32_t)++m->nframes;
}

/* Indexes the frames appended since the last lookup (pc_model_append_frame). */
static void index_appended_frames(struct pc_model *m)
{
	if (m->frames_indexed < m->nframes) {
		pc_index_reserve(&m->frame_index, m->nframes);
		for (size_t i = m->frames_indexed; i < m->nframes; i++)
			pc_index_add(&m->frame_index, frame_hash(&m->frames[i]), (uint32_t)(i + 1));
		m->frames_indexed = m->nframes;
	}
}

static uint32_t add_hashed_frame(struct pc_model *m, const struct pc_frame *frame, uint64_t hash)
{
	uint32_t id = pc_index_find(&m->frame_index, hash, frame_equal, m, frame);

	if (!id) {
		id = pc_model_append_frame(m, frame);
		pc_index_add(&m->frame_index, hash, id);
		m->frames_indexed = m->nframes;
	}
	return id;
}

uint32_t pc_model_add_frame(struct pc_model *m, const struct pc_frame *frame)
{
	index_appended_frames(m);
	return add_hashed_frame(m, frame, frame_hash(frame));
}

#define FRAME_BATCH 32

/*
 * In three passes over each batch: the index slots are fetched together,
 * then the frames they name, then each frame is looked up as
 * pc_model_add_frame does (the fetches are only hints: a frame added by
 * the batch itself is found all the same).
 */
void pc_model_add_frames(struct pc_model *m, const struct pc_frame *frames, size_t n,
			 uint32_t *ids)
{
	uint64_t hashes[FRAME_BATCH];

	index_appended_frames(m);
	for (size_t start = 0; start < n; start += FRAME_BATCH) {
		size_t k = n - start < FRAME_BATCH ? n - start : FRAME_BATCH;

		for (size_t i = 0; i < k; i++) {
			hashes[i] = frame_hash(&frames[start + i]);
			pc_index_prefetch(&m->frame_index, hashes[i]);
		}
		for (size_t i = 0; i < k; i++) {
			uint32_t candidate = pc_index_candidate(&m->frame_index, hashes[i]);

			if (candidate)
				PC_PREFETCH(&m->frames[candidate - 1]);
		}
		for (size_t i = 0; i < k; i++)
			ids[start + i] = add_hashed_frame(m, &frames[start + i], hashes[i]);
	}
}

void pc_model_reserve_for(struct pc_model *m, const struct pc_model *from, unsigned tables)
{
	if (tables & PC_TABLE_STRINGS)
		pc_strtab_reserve(&m->strings, m->strings.count + from->strings.count);
	if (tables & PC_TABLE_FRAMES) {
		index_appended_frames(m);
		pc_index_reserve(&m->frame_index, m->nframes + from->nframes);
	}
	if (tables & PC_TABLE_STACKS)
		pc_seqs_reserve(&m->stacks, m->stacks.count + from->stacks.count);
	if ((tables & PC_TABLE_SAMPLES) && m->samples_indexed == m->nsamples)
		pc_index_reserve(&m->sample_index, m->nsamples + from->nsamples);
}

void pc_model_drop_indexes(struct pc_model *m, unsigned tables)
{
	if (tables & PC_TABLE_FRAMES) {
		pc_index_release(&m->frame_index);
		m->frames_indexed = 0;
	}
	if (tables & PC_TABLE_STACKS)
		pc_seqs_drop_index(&m->stacks);
	if (tables & PC_TABLE_SAMPLES) {
		pc_index_release(&m->sample_index);
		m->samples_indexed = 0;
	}
}

void pc_model_free_tables(struct pc_model *m, unsigned tables)
{
	if (tables & PC_TABLE_STRINGS) {
		pc_strtab_release(&m->strings);
		pc_strtab_init(&m->strings);
	}
	if (tables & PC_TABLE_STRING_INDEX)
		pc_index_release(&m->strings.index);
	if (tables & PC_TABLE_FRAMES) {
		free(m->frames);
		m->frames = NULL;
		m->nframes = m->frames_cap = m->frames_indexed = 0;
		pc_index_release(&m->frame_index);
		free(m->system_names);
		m->system_names = NULL;
		m->system_names_cap = 0;
	}
	if (tables & PC_TABLE_STACKS) {
		pc_seqs_release(&m->stacks);
		pc_seqs_init(&m->stacks);
	}
}

void pc_model_prefetch_stack(const struct pc_model *m, const uint32_t *frames, size_t n)
{
	pc_seqs_prefetch(&m->stacks, frames, n);
}

uint32_t pc_model_add_stack(struct pc_model *m, const uint32_t *frames, size_t n)
{
	return pc_seqs_add(&m->stacks, frames, n);
}

uint32_t pc_model_append_stack(struct pc_model *m, const uint32_t *frames, size_t n)
{
	return pc_seqs_append(&m->stacks, frames, n);
}

static bool label_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const struct pc_label *a = &m->labels[id - 1], *b = key;

	return a->key == b->key && a->str == b->str && a->num == b->num && a->unit == b->unit;
}

static uint32_t add_label(struct pc_model *m, const struct pc_label *label)
{
	uint64_t hash = pc_hash_u64(((uint64_t)label->key << 32) | label->str);
	uint32_t id;

	hash = pc_hash_u64(hash ^ (uint64_t)label->num ^ ((uint64_t)label->unit << 48));
	id = pc_index_find(&m->label_index, hash, label_equal, m, label);
	if (id)
		return id;
	pc_grow(&m->labels, &m->labels_cap, m->nlabels + 1, sizeof(*m->labels));
	m->labels[m->nlabels] = *label;
	id = (uint32_t)++m->nlabels;
	pc_index_add(&m->label_index, hash, id);
	return id;
}

static int compare_str(const struct pc_model *m, pc_str_id a, pc_str_id b)
{
	uint32_t la = pc_str_len(m, a), lb = pc_str_len(m, b);
	int diff;

	if (a == b)
		return 0;
	diff = memcmp(pc_str(m, a), pc_str(m, b), la < lb ? la : lb);
	if (diff)
		return diff;
	return la < lb ? -1 : la > lb;
}

uint32_t pc_model_add_labels(struct pc_model *m, const struct pc_label *labels, size_t n)
{
	uint32_t stack_ids[16] = { 0 };
	uint32_t *ids = n <= PC_ARRAY_SIZE(stack_ids) ? stack_ids : pc_xmalloc(n * sizeof(*ids));
	uint32_t set;

	for (size_t i = 0; i < n; i++) {
		uint32_t id = add_label(m, &labels[i]);
		size_t at = i;

		/* insertion sort by key text: label sets are small */
		while (at > 0 && compare_str(m, m->labels[ids[at - 1] - 1].key, labels[i].key) > 0) {
			ids[at] = ids[at - 1];
			at--;
		}
		ids[at] = id;
	}
	set = pc_seqs_add(&m->labelsets, ids, n);
	if (ids != stack_ids)
		free(ids);
	return set;
}

uint32_t pc_model_add_branches(struct pc_model *m, const struct pc_branch *branches,
			       size_t n)
{
	uint32_t stack_words[64] = { 0 };
	uint32_t *words = 2 * n <= PC_ARRAY_SIZE(stack_words) ? stack_words
							     : pc_xmalloc(2 * n * sizeof(*words));
	uint32_t id;

	for (size_t i = 0; i < n; i++) {
		words[2 * i] = branches[i].from;
		words[2 * i + 1] = branches[i].to;
	}
	id = pc_seqs_add(&m->branches, words, 2 * n);
	if (words != stack_words)
		free(words);
	return id;
}

/* ---- columns, value rows and samples ---- */

/* Widens every value row to stride counts, keeping the values. */
static void restride_values(struct pc_model *m, size_t stride)
{
	uint64_t *values = pc_xcalloc(m->rows_cap ? m->rows_cap : 1, stride * sizeof(*values));

	for (size_t i = 0; i < m->nrows; i++)
		memcpy(values + i * stride, m->values + i * m->value_stride,
		       m->value_stride * sizeof(*values));
	free(m->values);
	m->values = values;
	m->value_stride = stride;
	/* shared rows stay shared, but new ones no longer find them */
	pc_index_release(&m->row_index);
}

int pc_model_add_column(struct pc_model *m, const char *type, const char *unit)
{
	return pc_model_add_event_column(m, type, unit, type, PC_ROLE_VALUE);
}

int pc_model_add_event_column(struct pc_model *m, const char *type, const char *unit,
			      const char *event, enum pc_column_role role)
{
	pc_str_id type_id = pc_model_intern_cstr(m, type);

	for (size_t i = 0; i < m->ncolumns; i++)
		if (m->columns[i].type == type_id)
			return (int)i;
	if (m->ncolumns == PC_MAX_COLUMNS)
		return -1;
	m->columns[m->ncolumns].type = type_id;
	m->columns[m->ncolumns].unit = pc_model_intern_cstr(m, unit);
	m->columns[m->ncolumns].event = pc_model_intern_cstr(m, event);
	m->columns[m->ncolumns].role = role;
	if (m->ncolumns + 1 > m->value_stride) {
		size_t stride = m->value_stride ? m->value_stride * 2 : 2;

		restride_values(m, stride < PC_MAX_COLUMNS ? stride : PC_MAX_COLUMNS);
	}
	return (int)m->ncolumns++;
}

int pc_model_find_column(const struct pc_model *m, enum pc_column_role role, pc_str_id event)
{
	for (size_t c = 0; c < m->ncolumns; c++)
		if (m->columns[c].role == role && (!event || m->columns[c].event == event))
			return (int)c;
	return -1;
}

void pc_model_set_column_unit(struct pc_model *m, size_t c, const char *unit)
{
	m->columns[c].unit = pc_model_intern_cstr(m, unit);
}

size_t pc_event_base_len(const char *event, size_t len)
{
	static const char modifiers[] = "ukhIGHpPSDWebR";
	size_t at = len;

	while (at > 0 && event[at - 1] && strchr(modifiers, event[at - 1]))
		at--;
	return at > 1 && at < len && event[at - 1] == ':' ? at - 1 : len;
}

bool pc_event_is_clock(const char *event, size_t len)
{
	size_t base = pc_event_base_len(event, len);

	return (base == strlen("cpu-clock") && !memcmp(event, "cpu-clock", base)) ||
	       (base == strlen("task-clock") && !memcmp(event, "task-clock", base));
}

/* The id of text if the model has interned it, else 0. */
static pc_str_id find_str(const struct pc_model *m, const char *text)
{
	for (size_t c = 0; c < m->ncolumns; c++) {
		if (!strcmp(pc_str(m, m->columns[c].event), text))
			return m->columns[c].event;
		if (!strcmp(pc_str(m, m->columns[c].type), text))
			return m->columns[c].type;
	}
	return 0;
}

int pc_model_pick_column(const struct pc_model *m, const char *event,
			 enum pc_column_role prefer)
{
	pc_str_id id;
	int column;

	if (!event)
		return m->ncolumns ? m->default_column : -1;
	if (!(id = find_str(m, event)))
		return -1;
	if ((column = pc_model_find_column(m, prefer, id)) >= 0)
		return column;
	for (size_t c = 0; c < m->ncolumns; c++)
		if (m->columns[c].type == id)
			return (int)c;
	for (size_t c = 0; c < m->ncolumns; c++)
		if (m->columns[c].event == id)
			return (int)c;
	return -1;
}

void pc_model_set_default_column(struct pc_model *m, int column)
{
	m->default_column = column;
}

/* A new row of zeros (or a copy of from's counts); returns its index. */
/* A new row of counts, a copy of from (which may be a row of m's: it is copied first). */
static uint32_t new_row(struct pc_model *m, const uint64_t *from)
{
	uint64_t copy[PC_MAX_COLUMNS], *row;

	if (m->nrows >= PC_ROW_SHARED)
		pc_die_oom(m->nrows);
	if (from) /* pc_grow may move m->values, and from with it */
		from = memcpy(copy, from, m->value_stride * sizeof(*copy));
	pc_grow(&m->values, &m->rows_cap, m->nrows + 1,
		(m->value_stride ? m->value_stride : 1) * sizeof(*m->values));
	row = m->values + m->nrows * m->value_stride;
	if (from)
		memcpy(row, from, m->value_stride * sizeof(*row));
	else
		memset(row, 0, m->value_stride * sizeof(*row));
	return (uint32_t)m->nrows++;
}

static bool row_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const uint64_t *row = m->values + (size_t)(id - 1) * m->value_stride, *counts = key;

	for (size_t c = 0; c < m->value_stride; c++)
		if (row[c] != counts[c])
			return false;
	return true;
}

/*
 * The shared row of these counts (value_stride of them), added if new.
 * Rows are hashed with one multiply per count: a bulk reader looks one up
 * per sample.
 */
static uint32_t shared_row(struct pc_model *m, const uint64_t *counts)
{
	uint64_t hash = m->value_stride;
	uint32_t id;

	for (size_t c = 0; c < m->value_stride; c++)
		hash = (hash ^ counts[c]) * 0x9e3779b97f4a7c15ULL;
	hash = pc_hash_u64(hash);
	id = pc_index_find(&m->row_index, hash, row_equal, m, counts);

	if (id)
		return id - 1;
	id = new_row(m, counts);
	pc_index_add(&m->row_index, hash, id + 1);
	return id;
}

static uint64_t sample_hash(const struct pc_sample *s)
{
	return pc_hash_u64((((uint64_t)s->stack << 32) | s->labels) ^
			   pc_hash_u64(s->branches + 0x9e37ULL));
}

static bool sample_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const struct pc_sample *a = &m->samples[id - 1], *b = key;

	return a->stack == b->stack && a->labels == b->labels && a->branches == b->branches;
}

/* Appends a sample with the given row; returns its index. */
static size_t append_sample(struct pc_model *m, const struct pc_sample *sample, uint32_t row)
{
	if (m->nsamples >= UINT32_MAX)
		pc_die_oom(m->nsamples);
	if (m->nsamples == m->samples_cap) {
		size_t rows_cap = m->samples_cap;

		pc_grow(&m->samples, &m->samples_cap, m->nsamples + 1, sizeof(*m->samples));
		pc_grow(&m->sample_rows, &rows_cap, m->samples_cap, sizeof(*m->sample_rows));
	}
	m->samples[m->nsamples] = *sample;
	m->sample_rows[m->nsamples] = row;
	return m->nsamples++;
}

void pc_model_prefetch_sample(const struct pc_model *m, const struct pc_sample *sample)
{
	if (m->samples_indexed == m->nsamples)
		pc_index_prefetch(&m->sample_index, sample_hash(sample));
}

static size_t find_or_add_sample(struct pc_model *m, const struct pc_sample *sample)
{
	uint64_t hash = sample_hash(sample);
	uint32_t id;
	size_t at;

	if (m->samples_indexed < m->nsamples) {
		pc_index_reserve(&m->sample_index, m->nsamples);
		for (size_t i = m->samples_indexed; i < m->nsamples; i++)
			pc_index_add(&m->sample_index, sample_hash(&m->samples[i]), (uint32_t)(i + 1));
		m->samples_indexed = m->nsamples;
	}
	id = pc_index_find(&m->sample_index, hash, sample_equal, m, sample);
	if (id)
		return id - 1;
	at = append_sample(m, sample, new_row(m, NULL));
	pc_index_add(&m->sample_index, hash, (uint32_t)(at + 1));
	m->samples_indexed = m->nsamples;
	return at;
}

int pc_model_add_sample(struct pc_model *m, const struct pc_sample *sample,
			size_t column, uint64_t count)
{
	size_t at;

	return pc_model_add_sample_index(m, sample, column, count, &at);
}

/* Adds count to one column (in range) of sample at; -1 when the sum would pass PC_COUNT_MAX. */
static int add_to_sample(struct pc_model *m, size_t at, size_t column, uint64_t count)
{
	uint64_t *value = (uint64_t *)pc_model_values(m, at) + column;

	if (count > PC_COUNT_MAX - *value)
		return -1;
	if (m->sample_rows[at] & PC_ROW_SHARED) { /* copy on write */
		m->sample_rows[at] = new_row(m, pc_model_values(m, at));
		value = (uint64_t *)pc_model_values(m, at) + column;
	}
	*value += count;
	return 0;
}

int pc_model_add_sample_index(struct pc_model *m, const struct pc_sample *sample,
			      size_t column, uint64_t count, size_t *index)
{
	if (column >= m->ncolumns)
		return -1;
	*index = find_or_add_sample(m, sample);
	return add_to_sample(m, *index, column, count);
}

int pc_model_add_sample_counts(struct pc_model *m, const struct pc_sample *sample,
			       const struct pc_column_count *counts, size_t n,
			       const int64_t *time_nanos)
{
	const uint64_t *values;
	size_t at;

	for (size_t i = 0; i < n; i++)
		if (counts[i].column >= m->ncolumns)
			return -1;
	at = find_or_add_sample(m, sample);
	values = pc_model_values(m, at);
	for (size_t i = 0; i < n; i++)
		if (counts[i].count > PC_COUNT_MAX - values[counts[i].column])
			return -1;
	for (size_t i = 0; i < n; i++) {
		add_to_sample(m, at, counts[i].column, counts[i].count);
		if (time_nanos)
			pc_model_add_time(m, at, counts[i].column, counts[i].count, *time_nanos);
	}
	return 0;
}

void pc_model_keep_times(struct pc_model *m)
{
	m->keep_times = true;
}

bool pc_model_keeps_times(const struct pc_model *m)
{
	return m->keep_times;
}

void pc_model_add_time(struct pc_model *m, size_t index, size_t column, uint64_t count,
		       int64_t time_nanos)
{
	if (!m->keep_times)
		return;
	pc_grow(&m->timed, &m->timed_cap, m->ntimed + 1, sizeof(*m->timed));
	m->timed[m->ntimed++] = (struct pc_timed_sample){
		.time = time_nanos, .sample = (uint32_t)index, .column = (uint32_t)column,
		.count = count,
	};
}

int pc_model_add_timed_sample(struct pc_model *m, const struct pc_sample *sample,
			      size_t column, uint64_t count, int64_t time_nanos)
{
	size_t at;

	if (pc_model_add_sample_index(m, sample, column, count, &at))
		return -1;
	pc_model_add_time(m, at, column, count, time_nanos);
	return 0;
}

void pc_model_append_sample(struct pc_model *m, const struct pc_sample *sample,
			    const uint64_t *row)
{
	uint64_t counts[PC_MAX_COLUMNS];

	memcpy(counts, row, m->ncolumns * sizeof(*row));
	memset(counts + m->ncolumns, 0, (m->value_stride - m->ncolumns) * sizeof(*counts));
	append_sample(m, sample, shared_row(m, counts) | PC_ROW_SHARED);
}

static uint64_t arc_hash(uint32_t from, uint32_t to, enum pc_arc_kind kind)
{
	return pc_hash_u64((((uint64_t)from << 32) | to) ^ ((uint64_t)kind << 61));
}

static bool arc_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pc_model *m = ctx;
	const struct pc_arc *a = &m->arcs[id - 1], *b = key;

	return a->from == b->from && a->to == b->to && a->kind == b->kind;
}

int pc_model_add_arc(struct pc_model *m, uint32_t from, uint32_t to,
		     enum pc_arc_kind kind, uint64_t count)
{
	struct pc_arc key = { .from = from, .to = to, .kind = kind };
	uint64_t hash = arc_hash(from, to, kind);
	uint32_t id = pc_index_find(&m->arc_index, hash, arc_equal, m, &key);

	if (!id) {
		pc_grow(&m->arcs, &m->arcs_cap, m->narcs + 1, sizeof(*m->arcs));
		m->arcs[m->narcs] = key;
		id = (uint32_t)++m->narcs;
		pc_index_add(&m->arc_index, hash, id);
	}
	if (count > PC_COUNT_MAX - m->arcs[id - 1].count)
		return -1;
	m->arcs[id - 1].count += count;
	return 0;
}

/* ---- metadata ---- */

static void append_str(pc_str_id **items, size_t *n, size_t *cap, pc_str_id id)
{
	pc_grow(items, cap, *n + 1, sizeof(**items));
	(*items)[(*n)++] = id;
}

void pc_model_add_source(struct pc_model *m, const char *format)
{
	pc_str_id id = pc_model_intern_cstr(m, format);

	for (size_t i = 0; i < m->nsources; i++)
		if (m->sources[i] == id)
			return;
	append_str(&m->sources, &m->nsources, &m->sources_cap, id);
}

void pc_model_add_comment(struct pc_model *m, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	append_str(&m->comments, &m->ncomments, &m->comments_cap,
		   pc_model_intern_cstr(m, text));
}

void pc_model_add_comment_text(struct pc_model *m, const void *text, size_t len)
{
	append_str(&m->comments, &m->ncomments, &m->comments_cap, pc_model_intern(m, text, len));
}

void pc_model_set_system_name(struct pc_model *m, uint32_t frame, pc_str_id name)
{
	size_t had = m->system_names_cap;

	if (!frame || frame > m->nframes)
		return;
	if (frame >= had) {
		pc_grow(&m->system_names, &m->system_names_cap, (size_t)frame + 1,
			sizeof(*m->system_names));
		memset(m->system_names + had, 0,
		       (m->system_names_cap - had) * sizeof(*m->system_names));
	}
	m->system_names[frame] = name + 1;
}

bool pc_model_system_name(const struct pc_model *m, uint32_t frame, pc_str_id *name)
{
	if (frame >= m->system_names_cap || !m->system_names[frame])
		return false;
	*name = m->system_names[frame] - 1;
	return true;
}

void pc_model_add_fact(struct pc_model *m, const char *key, const char *value)
{
	pc_grow(&m->facts, &m->facts_cap, m->nfacts + 1, sizeof(*m->facts));
	m->facts[m->nfacts].key = pc_model_intern_cstr(m, key);
	m->facts[m->nfacts].value = pc_model_intern_cstr(m, value);
	m->nfacts++;
}

/*
 * ---- finalize: content order ----
 *
 * Samples and arcs are ordered by what they hold, not by ids, so that the
 * order does not depend on the order of reading. Modules, frames and
 * labels are ranked by content once (string compares there only), then
 * samples compare as sequences of integer ranks.
 */

struct content_order {
	const struct pc_model *m;
	uint32_t *module_rank, *frame_rank, *label_rank; /* by id; [0] = 0 = none */
	unsigned threads; /* the radix sorts' */
};

static int compare_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static int order_modules(const void *ctx, uint32_t a, uint32_t b)
{
	const struct pc_model *m = ((const struct content_order *)ctx)->m;
	const struct pc_module *ma = &m->modules[a - 1], *mb = &m->modules[b - 1];
	int diff;

	if ((diff = compare_str(m, ma->name, mb->name)) ||
	    (diff = compare_str(m, ma->build_id, mb->build_id)))
		return diff;
	return compare_u64(ma->space, mb->space);
}

static int order_frames(const void *ctx, uint32_t a, uint32_t b)
{
	const struct content_order *o = ctx;
	const struct pc_frame *fa = &o->m->frames[a - 1], *fb = &o->m->frames[b - 1];
	int diff;

	if ((diff = compare_u64(o->module_rank[fa->module], o->module_rank[fb->module])) ||
	    (diff = compare_u64(fa->address, fb->address)) ||
	    (diff = compare_str(o->m, fa->function, fb->function)) ||
	    (diff = compare_str(o->m, fa->file, fb->file)) ||
	    (diff = compare_u64(fa->line, fb->line)) ||
	    (diff = compare_u64(fa->flags, fb->flags)))
		return diff;
	return compare_u64(fa->start_line, fb->start_line);
}

static int order_labels(const void *ctx, uint32_t a, uint32_t b)
{
	const struct pc_model *m = ((const struct content_order *)ctx)->m;
	const struct pc_label *la = &m->labels[a - 1], *lb = &m->labels[b - 1];
	int diff;

	if ((diff = compare_str(m, la->key, lb->key)) || (diff = compare_str(m, la->str, lb->str)) ||
	    (diff = compare_u64((uint64_t)la->num ^ (1ULL << 63), (uint64_t)lb->num ^ (1ULL << 63))))
		return diff;
	return compare_str(m, la->unit, lb->unit);
}

/* Sorts a run of order stably by compare: in place when it is short. */
static void sort_run(const void *ctx, uint32_t *order, size_t n, pc_index_compare_fn compare)
{
	if (n > 16) {
		pc_sort_indices(ctx, order, n, compare);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		uint32_t id = order[i];
		size_t at = i;

		for (; at > 0 && compare(ctx, id, order[at - 1]) < 0; at--)
			order[at] = order[at - 1];
		order[at] = id;
	}
}

/* rank[id] for ids 1..n in the order given; rank[0] = 0. */
static uint32_t *ranks_of(const uint32_t *order, size_t n)
{
	uint32_t *rank = pc_xcalloc(n + 1, sizeof(*rank));

	for (size_t i = 0; i < n; i++)
		rank[order[i]] = (uint32_t)(i + 1);
	return rank;
}

/* rank[id] for ids 1..n in the order of compare; rank[0] = 0. */
static uint32_t *rank_ids(const struct content_order *o, size_t n, pc_index_compare_fn compare)
{
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));
	uint32_t *rank;

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)(i + 1);
	pc_sort_indices(o, order, n, compare);
	rank = ranks_of(order, n);
	free(order);
	return rank;
}

/*
 * Frame ranks, as rank_ids with order_frames gives them but faster for
 * millions of frames: radix sorts by address, then by module rank, and
 * order_frames only within runs of one module and address.
 */
static uint32_t *rank_frames(const struct content_order *o)
{
	const struct pc_model *m = o->m;
	size_t n = m->nframes;
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order)), *rank;
	uint64_t *keys = pc_xmalloc((n ? n : 1) * sizeof(*keys));

	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)(i + 1);
		keys[i] = m->frames[i].address;
	}
	pc_sort_by_keys_on(order, keys, n, o->threads);
	for (size_t i = 0; i < n; i++)
		keys[i] = o->module_rank[m->frames[order[i] - 1].module];
	pc_sort_by_keys_on(order, keys, n, o->threads);
	for (size_t i = 0, end; i < n; i = end) {
		uint64_t address = m->frames[order[i] - 1].address;

		for (end = i + 1; end < n && keys[end] == keys[i] &&
				  m->frames[order[end] - 1].address == address; end++)
			;
		sort_run(o, order + i, end - i, order_frames);
	}
	free(keys);
	rank = ranks_of(order, n);
	free(order);
	return rank;
}

static int compare_ranked(const struct pc_seqs *seqs, uint32_t a, uint32_t b,
			  const uint32_t *rank)
{
	size_t na, nb;
	const uint32_t *ia = pc_seq(seqs, a, &na), *ib = pc_seq(seqs, b, &nb);

	if (a == b)
		return 0;
	for (size_t i = 0; i < na && i < nb; i++)
		if (ia[i] != ib[i])
			return compare_u64(rank[ia[i]], rank[ib[i]]);
	return compare_u64(na, nb);
}

/*
 * The ranks of the two leaf-most frames in one integer, which orders
 * samples as their whole stacks do whenever it differs (a missing frame
 * ranks 0, before any frame).
 */
static uint64_t stack_prefix(const struct content_order *o, uint32_t stack)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(o->m, stack, &n);

	return (uint64_t)(n > 0 ? o->frame_rank[frames[0]] : 0) << 32 |
	       (n > 1 ? o->frame_rank[frames[1]] : 0);
}

static int order_samples(const void *ctx, uint32_t a, uint32_t b)
{
	const struct content_order *o = ctx;
	const struct pc_sample *sa = &o->m->samples[a], *sb = &o->m->samples[b];
	int diff;

	if ((diff = compare_ranked(&o->m->stacks, sa->stack, sb->stack, o->frame_rank)) ||
	    (diff = compare_ranked(&o->m->labelsets, sa->labels, sb->labels, o->label_rank)))
		return diff;
	return compare_ranked(&o->m->branches, sa->branches, sb->branches, o->frame_rank);
}

static int order_arcs(const void *ctx, uint32_t a, uint32_t b)
{
	const struct content_order *o = ctx;
	const struct pc_arc *aa = &o->m->arcs[a], *ab = &o->m->arcs[b];
	int diff;

	if ((diff = compare_u64(o->frame_rank[aa->from], o->frame_rank[ab->from])) ||
	    (diff = compare_u64(o->frame_rank[aa->to], o->frame_rank[ab->to])))
		return diff;
	return compare_u64(aa->kind, ab->kind);
}

static uint32_t *identity_order(size_t n)
{
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	return order;
}

/* The timed samples' indexes after samples moved: sample order[i] is now i. */
static void renumber_timed(struct pc_model *m, const uint32_t *order)
{
	uint32_t *now;

	if (!m->ntimed)
		return;
	now = pc_xmalloc(m->nsamples * sizeof(*now));
	for (size_t i = 0; i < m->nsamples; i++)
		now[order[i]] = (uint32_t)i;
	for (size_t i = 0; i < m->ntimed; i++)
		m->timed[i].sample = now[m->timed[i].sample];
	free(now);
}

/* The timed samples in time order (stable: a tie keeps the order of adding). */
static void sort_timed(struct pc_model *m)
{
	uint32_t *order;
	uint64_t *keys;
	struct pc_timed_sample *sorted;
	bool in_order = true;

	for (size_t i = 1; i < m->ntimed && in_order; i++)
		in_order = m->timed[i - 1].time <= m->timed[i].time;
	if (in_order)
		return;
	order = identity_order(m->ntimed);
	keys = pc_xmalloc(m->ntimed * sizeof(*keys));
	for (size_t i = 0; i < m->ntimed; i++) /* signed to unsigned order */
		keys[i] = (uint64_t)m->timed[i].time ^ (1ULL << 63);
	pc_sort_by_keys(order, keys, m->ntimed);
	sorted = pc_xmalloc(m->timed_cap * sizeof(*sorted));
	for (size_t i = 0; i < m->ntimed; i++)
		sorted[i] = m->timed[order[i]];
	free(m->timed);
	m->timed = sorted;
	free(keys);
	free(order);
}

/*
 * Numbers the stacks again in the order the (sorted) samples first use
 * them, the others after them in their order: a writer that goes through
 * the samples then reads the stacks' frames in memory order, instead of
 * one cache miss per stack on a big profile. The stacks stay the same,
 * and are left where they are when they nearly follow that order already
 * (the SPT reader's do).
 */
static void renumber_stacks(struct pc_model *m)
{
	uint32_t *new_id = pc_xcalloc(m->stacks.count + 1, sizeof(*new_id)), *old_id;
	uint32_t next = 0, last = 0;
	size_t jumps = 0; /* first uses that do not follow the one before in memory */
	struct pc_seqs stacks;

	for (size_t i = 0; i < m->nsamples; i++) {
		uint32_t stack = m->samples[i].stack;

		if (stack && !new_id[stack]) {
			new_id[stack] = ++next;
			jumps += stack != last + 1;
			last = stack;
		}
	}
	if (jumps * 4 <= next) { /* at most one in four jumps: a copy would not pay */
		free(new_id);
		return;
	}
	for (uint32_t id = 1; id < m->stacks.count; id++)
		if (!new_id[id])
			new_id[id] = ++next;
	old_id = pc_xmalloc((m->stacks.count + 1) * sizeof(*old_id));
	for (uint32_t id = 1; id < m->stacks.count; id++)
		old_id[new_id[id]] = id;
	pc_seqs_init(&stacks);
	pc_grow(&stacks.items, &stacks.items_cap, m->stacks.nitems + 1, sizeof(*stacks.items));
	pc_grow(&stacks.starts, &stacks.starts_cap, m->stacks.count + 1, sizeof(*stacks.starts));
	for (uint32_t id = 1; id < m->stacks.count; id++) {
		size_t n;
		const uint32_t *frames = pc_seq(&m->stacks, old_id[id], &n);

		pc_seqs_append(&stacks, frames, n);
	}
	for (size_t i = 0; i < m->nsamples; i++)
		m->samples[i].stack = new_id[m->samples[i].stack];
	free(new_id);
	free(old_id);
	pc_seqs_release(&m->stacks);
	m->stacks = stacks;
}

/*
 * Samples in the order of order_samples: a radix sort by stack_prefix,
 * then order_samples within runs of one prefix. Rows do not move; stacks
 * are then numbered in that order (renumber_stacks).
 */
static void sort_samples(struct pc_model *m, const struct content_order *o)
{
	size_t n = m->nsamples;
	uint32_t *order = identity_order(n), *rows;
	uint64_t *keys = pc_xmalloc((n ? n : 1) * sizeof(*keys));
	struct pc_sample *samples;

	for (size_t i = 0; i < n; i++)
		keys[i] = stack_prefix(o, m->samples[i].stack);
	pc_sort_by_keys_on(order, keys, n, o->threads);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && keys[end] == keys[i]; end++)
			;
		sort_run(o, order + i, end - i, order_samples);
	}
	free(keys);
	/* gathered in order (in place, cycle by cycle, was slower), one array at a time */
	samples = pc_xmalloc((m->samples_cap ? m->samples_cap : 1) * sizeof(*samples));
	for (size_t i = 0; i < n; i++)
		samples[i] = m->samples[order[i]];
	free(m->samples);
	m->samples = samples;
	rows = pc_xmalloc((m->samples_cap ? m->samples_cap : 1) * sizeof(*rows));
	for (size_t i = 0; i < n; i++)
		rows[i] = m->sample_rows[order[i]];
	free(m->sample_rows);
	m->sample_rows = rows;
	pc_index_release(&m->sample_index);
	m->samples_indexed = 0;
	renumber_timed(m, order);
	free(order);
	renumber_stacks(m);
}

static void sort_arcs(struct pc_model *m, const struct content_order *o)
{
	uint32_t *order = identity_order(m->narcs);
	struct pc_arc *arcs = pc_xmalloc((m->arcs_cap ? m->arcs_cap : 1) * sizeof(*arcs));

	pc_sort_indices(o, order, m->narcs, order_arcs);
	pc_index_release(&m->arc_index);
	for (size_t i = 0; i < m->narcs; i++) {
		arcs[i] = m->arcs[order[i]];
		pc_index_add(&m->arc_index, arc_hash(arcs[i].from, arcs[i].to, arcs[i].kind),
			     (uint32_t)(i + 1));
	}
	free(m->arcs);
	m->arcs = arcs;
	free(order);
}

void pc_model_finalize_on(struct pc_model *m, unsigned threads)
{
	struct content_order o = { .m = m, .threads = threads };

	pc_model_drop_indexes(m, PC_TABLE_INDEXED); /* writers need none; an add rebuilds them */
	o.module_rank = rank_ids(&o, m->nmodules, order_modules);
	o.frame_rank = rank_frames(&o);
	o.label_rank = rank_ids(&o, m->nlabels, order_labels);
	sort_samples(m, &o);
	sort_timed(m);
	sort_arcs(m, &o);
	free(o.module_rank);
	free(o.frame_rank);
	free(o.label_rank);
	if (m->default_column < 0 || (size_t)m->default_column >= m->ncolumns)
		m->default_column = m->ncolumns ? 0 : -1;
	m->finalized = true;
}

/* ---- the view and the metadata setters ---- */

size_t pc_model_ntimed(const struct pc_model *m)
{
	return m->ntimed;
}

const struct pc_timed_sample *pc_model_timed(const struct pc_model *m, size_t i)
{
	return &m->timed[i];
}

size_t pc_model_nstrings(const struct pc_model *m)
{
	return m->strings.count;
}

size_t pc_model_nmodules(const struct pc_model *m)
{
	return m->nmodules;
}

size_t pc_model_nframes(const struct pc_model *m)
{
	return m->nframes;
}

size_t pc_model_nlabels(const struct pc_model *m)
{
	return m->nlabels;
}

size_t pc_model_nsamples(const struct pc_model *m)
{
	return m->nsamples;
}

size_t pc_model_ncolumns(const struct pc_model *m)
{
	return m->ncolumns;
}

size_t pc_model_narcs(const struct pc_model *m)
{
	return m->narcs;
}

size_t pc_model_nstacks(const struct pc_model *m)
{
	return m->stacks.count - 1;
}

bool pc_model_is_finalized(const struct pc_model *m)
{
	return m->finalized;
}

size_t pc_model_nsources(const struct pc_model *m)
{
	return m->nsources;
}

size_t pc_model_ncomments(const struct pc_model *m)
{
	return m->ncomments;
}

size_t pc_model_nfacts(const struct pc_model *m)
{
	return m->nfacts;
}

int64_t pc_model_time_nanos(const struct pc_model *m)
{
	return m->time_nanos;
}

int64_t pc_model_period(const struct pc_model *m)
{
	return m->period;
}

const char *pc_str(const struct pc_model *m, pc_str_id id)
{
	return pc_strtab_text(&m->strings, id);
}

uint32_t pc_str_len(const struct pc_model *m, pc_str_id id)
{
	return pc_strtab_len(&m->strings, id);
}

const struct pc_module *pc_model_module(const struct pc_model *m,
						      uint32_t id)
{
	return &m->modules[id - 1];}

static bool has_prefix(const char *text, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(text, prefix, n);
}

bool pc_model_module_is_file(const struct pc_model *m, uint32_t id)
{
	const char *name = pc_str(m, m->modules[id - 1].name);
	size_t len = pc_str_len(m, m->modules[id - 1].name);

	if (!len || name[0] == '[' || has_prefix(name, len, "//anon") ||
	    has_prefix(name, len, "/memfd:"))
		return false;
	return !(has_prefix(name, len, "/tmp/perf-") && len > 4 &&
		 !memcmp(name + len - 4, ".map", 4));
}

const struct pc_frame *pc_model_frame(const struct pc_model *m,
						    uint32_t id)
{
	return &m->frames[id - 1];}

const struct pc_label *pc_model_label(const struct pc_model *m,
						    uint32_t id)
{
	return &m->labels[id - 1];}

const uint32_t *pc_model_stack(const struct pc_model *m,
					     uint32_t id, size_t *n)
{
	return pc_seq(&m->stacks, id, n);}

const uint32_t *pc_model_labelset(const struct pc_model *m,
						uint32_t id, size_t *n)
{
	return pc_seq(&m->labelsets, id, n);}

const uint32_t *pc_model_branch_stack(const struct pc_model *m,
						    uint32_t id, size_t *n)
{
	size_t words;
	const uint32_t *pairs = pc_seq(&m->branches, id, &words);

	*n = words / 2;
	return pairs;}

const uint64_t *pc_model_values(const struct pc_model *m, size_t sample)
{
	return m->values + (size_t)(m->sample_rows[sample] & ~PC_ROW_SHARED) * m->value_stride;}

size_t pc_model_nlabelsets(const struct pc_model *m)
{
	return m->labelsets.count - 1;}

size_t pc_model_nbranch_stacks(const struct pc_model *m)
{
	return m->branches.count - 1;}

const struct pc_sample *pc_model_sample(const struct pc_model *m, size_t index)
{
	return &m->samples[index];}

const struct pc_column *pc_model_column(const struct pc_model *m, size_t c)
{
	return &m->columns[c];}

int pc_model_default_column(const struct pc_model *m)
{
	return m->default_column;}

size_t pc_model_default_count_column(const struct pc_model *m)
{
	const struct pc_column *picked;
	int column;

	if (m->default_column < 0)
		return 0;
	picked = pc_model_column(m, (size_t)m->default_column);
	if (picked->role == PC_ROLE_WEIGHT &&
	    (column = pc_model_find_column(m, PC_ROLE_SAMPLES, picked->event)) >= 0)
		return (size_t)column;
	return (size_t)m->default_column;
}

int pc_model_arc_self_column(const struct pc_model *m)
{
	return m->arc_self_column;}

int pc_model_arc_total_column(const struct pc_model *m)
{
	return m->arc_total_column;}

const struct pc_arc *pc_model_arc(const struct pc_model *m, size_t index)
{
	return &m->arcs[index];}

pc_str_id pc_model_source(const struct pc_model *m, size_t i)
{
	return m->sources[i];}

pc_str_id pc_model_comment(const struct pc_model *m, size_t i)
{
	return m->comments[i];}

const struct pc_fact *pc_model_fact(const struct pc_model *m, size_t i)
{
	return &m->facts[i];}

int64_t pc_model_duration_nanos(const struct pc_model *m)
{
	return m->duration_nanos;}

const struct pc_value_type *pc_model_period_type(const struct pc_model *m)
{
	return &m->period_type;}

void pc_pdb_id_key(const struct pc_pdb_id *id, char *buf, size_t size)
{
	const uint8_t *d4 = id->data4;

	snprintf(buf, size, "%08x%04x%04x%02x%02x%02x%02x%02x%02x%02x%02x%x", id->data1, id->data2,
		 id->data3, d4[0], d4[1], d4[2], d4[3], d4[4], d4[5], d4[6], d4[7], id->age);
}

void pc_model_want_names(struct pc_model *m)
{
	m->wants_names = true;
}

bool pc_model_wants_names(const struct pc_model *m)
{
	return m->wants_names;
}

void pc_model_set_time(struct pc_model *m, int64_t time_nanos,
				     int64_t duration_nanos)
{
	m->time_nanos = time_nanos;
	m->duration_nanos = duration_nanos;}

void pc_model_set_period(struct pc_model *m, pc_str_id type, pc_str_id unit,
				       int64_t period)
{
	m->period_type.type = type;
	m->period_type.unit = unit;
	m->period = period;}

void pc_model_set_arc_columns(struct pc_model *m, int self, int total)
{
	m->arc_self_column = self;
	m->arc_total_column = total;}

size_t pc_model_nvalue_rows(const struct pc_model *m)
{
	return m->nrows;
}
