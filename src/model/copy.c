/* copy.c - one model's content into another: id maps, metadata, merging. */
#include "model/copy.h"

pc_str_id pc_model_copy_str(const struct pc_model_copy *copy, pc_str_id id)
{
	return pc_model_intern(copy->dst, pc_str(copy->src, id), pc_str_len(copy->src, id));
}

static void copy_modules(struct pc_model_copy *copy)
{
	const struct pc_model *src = copy->src;

	copy->module_map = pc_xcalloc(src->nmodules + 1, sizeof(*copy->module_map));
	for (size_t i = 0; i < src->nmodules; i++) {
		struct pc_module module = src->modules[i];

		module.name = pc_model_copy_str(copy, module.name);
		module.build_id = pc_model_copy_str(copy, module.build_id);
		copy->module_map[i + 1] = pc_model_add_module(copy->dst, &module);
	}
}

static void copy_frames(struct pc_model_copy *copy)
{
	const struct pc_model *src = copy->src;

	copy->frame_map = pc_xcalloc(src->nframes + 1, sizeof(*copy->frame_map));
	for (size_t i = 0; i < src->nframes; i++) {
		struct pc_frame frame = src->frames[i];

		frame.module = copy->module_map[frame.module];
		frame.function = pc_model_copy_str(copy, frame.function);
		frame.file = pc_model_copy_str(copy, frame.file);
		copy->frame_map[i + 1] = pc_model_add_frame(copy->dst, &frame);
	}
}

static void copy_labelsets(struct pc_model_copy *copy)
{
	const struct pc_model *src = copy->src;
	struct pc_label *labels = NULL;
	size_t labels_cap = 0;

	copy->labelset_map = pc_xcalloc(src->labelsets.count, sizeof(*copy->labelset_map));
	for (uint32_t set = 1; set < src->labelsets.count; set++) {
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
	copy_modules(copy);
	copy_frames(copy);
	copy_labelsets(copy);
}

void pc_model_copy_end(struct pc_model_copy *copy)
{
	free(copy->module_map);
	free(copy->frame_map);
	free(copy->labelset_map);
	copy->module_map = copy->frame_map = copy->labelset_map = NULL;
}

void pc_model_copy_metadata(const struct pc_model_copy *copy, const char *comment)
{
	const struct pc_model *src = copy->src;
	struct pc_model *dst = copy->dst;

	for (size_t i = 0; i < src->nsources; i++)
		pc_model_add_source(dst, pc_str(src, src->sources[i]));
	for (size_t i = 0; i < src->ncomments; i++)
		pc_model_add_comment(dst, "%s", pc_str(src, src->comments[i]));
	if (comment)
		pc_model_add_comment(dst, "%s", comment);
	for (size_t i = 0; i < src->nfacts; i++)
		pc_model_add_fact(dst, pc_str(src, src->facts[i].key),
				  pc_str(src, src->facts[i].value));
	if (!dst->time_nanos)
		dst->time_nanos = src->time_nanos;
	if (!dst->duration_nanos)
		dst->duration_nanos = src->duration_nanos;
	if (!dst->period_type.type && !dst->period_type.unit) {
		dst->period_type.type = pc_model_copy_str(copy, src->period_type.type);
		dst->period_type.unit = pc_model_copy_str(copy, src->period_type.unit);
		dst->period = src->period;
	}
}

/* ---- merging ---- */

/* from's stack (or branch stack) id as an id of into, through the frame map. */
static uint32_t map_frames(const struct pc_model_copy *copy, const struct pc_seqs *seqs,
			   uint32_t id, struct pc_seqs *into_seqs, uint32_t **buf, size_t *cap)
{
	size_t n;
	const uint32_t *items = pc_seq(seqs, id, &n);

	if (!id)
		return 0;
	pc_grow(buf, cap, n ? n : 1, sizeof(**buf));
	for (size_t i = 0; i < n; i++)
		(*buf)[i] = copy->frame_map[items[i]];
	return pc_seqs_add(into_seqs, *buf, n);
}

static int map_columns(struct pc_model *into, const struct pc_model *from, int *column_map)
{
	for (size_t c = 0; c < from->ncolumns; c++) {
		column_map[c] = pc_model_add_column(into, pc_str(from, from->columns[c].type),
						    pc_str(from, from->columns[c].unit));
		if (column_map[c] < 0)
			return -1;
	}
	if (into->default_column < 0 && from->default_column >= 0)
		into->default_column = column_map[from->default_column];
	if (into->arc_self_column < 0 && from->arc_self_column >= 0) {
		into->arc_self_column = column_map[from->arc_self_column];
		into->arc_total_column = column_map[from->arc_total_column];
	}
	return 0;
}

static int merge_samples(const struct pc_model_copy *copy, const int *column_map)
{
	const struct pc_model *from = copy->src;
	uint32_t *buf = NULL;
	size_t cap = 0;
	int status = 0;

	for (size_t i = 0; i < from->nsamples && !status; i++) {
		const struct pc_sample *s = &from->samples[i];
		const uint64_t *values = pc_model_values(from, i);
		struct pc_sample sample = {
			.stack = map_frames(copy, &from->stacks, s->stack, &copy->dst->stacks, &buf,
					    &cap),
			.labels = copy->labelset_map[s->labels],
			.branches = map_frames(copy, &from->branches, s->branches,
					       &copy->dst->branches, &buf, &cap),
		};

		for (size_t c = 0; c < from->ncolumns && !status; c++)
			if (values[c])
				status = pc_model_add_sample(copy->dst, &sample, (size_t)column_map[c],
							     values[c]);
	}
	free(buf);
	return status;
}

static int merge_arcs(const struct pc_model_copy *copy)
{
	const struct pc_model *from = copy->src;

	for (size_t i = 0; i < from->narcs; i++) {
		const struct pc_arc *arc = &from->arcs[i];

		if (pc_model_add_arc(copy->dst, copy->frame_map[arc->from],
				     copy->frame_map[arc->to], arc->kind, arc->count))
			return -1;
	}
	return 0;
}

int pc_model_merge(struct pc_model *into, const struct pc_model *from, char *err_text,
		   size_t err_size)
{
	struct pc_model_copy copy;
	int column_map[PC_MAX_COLUMNS];
	int status;

	if (map_columns(into, from, column_map)) {
		snprintf(err_text, err_size, "the merged profile would have more than %d columns",
			 PC_MAX_COLUMNS);
		return -1;
	}
	pc_model_copy_begin(&copy, from, into);
	pc_model_copy_metadata(&copy, NULL);
	status = merge_samples(&copy, column_map);
	if (!status)
		status = merge_arcs(&copy);
	if (status)
		snprintf(err_text, err_size, "a merged count would pass %llu",
			 (unsigned long long)PC_COUNT_MAX);
	pc_model_copy_end(&copy);
	return status;
}
