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

#endif
