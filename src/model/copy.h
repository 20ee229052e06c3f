/*
 * copy.h - copying what one model's samples refer to into another model:
 * strings, modules, frames, label sets and metadata, with maps from the
 * source's ids to the destination's. Reconstruction (reconstruct.h) and
 * merging (pc_model_merge) both build on it.
 */
#ifndef PC_COPY_H
#define PC_COPY_H

#include "model/model.h"

struct pc_model_copy {
	const struct pc_model *src;
	struct pc_model *dst;
	uint32_t *module_map, *frame_map, *labelset_map; /* src id -> dst id */
	pc_str_id *string_map; /* src string id -> dst's, when every string is copied first */
	/*
	 * With an expansion (pc_model_copy_expanded): src frame f stands for
	 * dst frames chain[chain_at[f] .. chain_at[f + 1]), leaf first, and
	 * frame_map[f] is the last of them (the physical frame).
	 */
	uint32_t *chain_at, *chain;
	struct pc_copy_lanes *lanes; /* NULL, or the two lanes of pc_model_append (copy.c) */
};

/*
 * What a frame of src becomes in dst, for symbolization: up to max frames
 * with dst's module and string ids (copy->module_map, pc_model_copy_str),
 * the inlined ones first (PC_FRAME_INLINE), the physical frame last; their
 * count, at least 1.
 */
typedef size_t (*pc_frame_expand_fn)(void *data, const struct pc_model_copy *copy,
				     uint32_t src_frame, struct pc_frame *out, size_t max);
#define PC_MAX_EXPANSION 64

/*
 * What a module of src becomes in dst: module holds src's, its strings
 * already dst's; the function may complete it (a build id read from the
 * binary) before it is added.
 */
typedef void (*pc_module_complete_fn)(void *data, const struct pc_model_copy *copy,
				      uint32_t src_module, struct pc_module *module);

struct pc_expansion {
	pc_frame_expand_fn frame;
	pc_module_complete_fn module; /* or NULL */
	void *data;
};

/* Copies src's modules, frames and label sets into dst and maps their ids. */
void pc_model_copy_begin(struct pc_model_copy *copy, const struct pc_model *src,
			 struct pc_model *dst);
void pc_model_copy_end(struct pc_model_copy *copy);
pc_str_id pc_model_copy_str(const struct pc_model_copy *copy, pc_str_id id);
/*
 * Adds src's sources, comments (then comment, unless NULL) and facts to
 * dst's; dst keeps its own time, duration and period type when it has
 * them, else takes src's.
 */
void pc_model_copy_metadata(const struct pc_model_copy *copy, const char *comment);

/*
 * Adds every sample and arc of from (finalized) to into, columns matched
 * by name (new ones added); -1 with a message in err_text (of err_size
 * bytes) when a sum would pass PC_COUNT_MAX or the columns would pass
 * PC_MAX_COLUMNS. Finalize into again before writing it.
 */
int pc_model_merge(struct pc_model *into, const struct pc_model *from, char *err_text,
		   size_t err_size);

/*
 * pc_model_merge of from (finalized or not) as though from's input had been
 * read into into right after what into holds: every string of from is
 * interned first, then every module, frame, label set, stack and branch
 * stack, each in from's order, so that every table of into gains its new
 * entries in the order reading that input would have added them. from is
 * used up: its strings, frames and stacks are freed once copied, and it
 * is then only to be freed. Where from's columns went is put in
 * column_map (PC_MAX_COLUMNS entries), and where its stacks went in
 * *stack_map (as many entries as from had stacks, + 1; freed by the
 * caller; 0 stays 0). -1 as pc_model_merge, into then holding part of from.
 * With threads >= 2 the work runs in two lanes at once (copy.c says how);
 * the result does not depend on threads.
 */
int pc_model_append(struct pc_model *into, struct pc_model *from, int *column_map,
		    uint32_t **stack_map, unsigned threads, char *err_text, size_t err_size);

/*
 * pc_model_merge with every frame of from replaced by what
 * expansion->frame makes of it (and each module completed by
 * expansion->module): stacks take the whole chains, branches and arcs the
 * physical frames. into is a new model (its metadata are from's).
 */
int pc_model_merge_expanded(struct pc_model *into, const struct pc_model *from,
			    const struct pc_expansion *expansion, char *err_text, size_t err_size);

/*
 * What a filtered merge keeps of from (finalized), as masks by from's ids
 * (NULL: everything): sample_kept[i] for sample index i; frame_hidden[f]
 * for frame id f, left out of every stack (branches keep it); with
 * timed_kept, the counts are those of the timed samples i kept
 * (timed_kept[i]) and the samples without any are left out. Arcs, which
 * are not per sample, are not merged.
 */
struct pc_merge_filter {
	const uint8_t *sample_kept;
	const uint8_t *frame_hidden;
	const uint8_t *timed_kept;
};

int pc_model_merge_filtered(struct pc_model *into, const struct pc_model *from,
			    const struct pc_merge_filter *filter, char *err_text, size_t err_size);

#endif
