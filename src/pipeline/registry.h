/*
 * registry.h - every reader and writer descriptor, looked up by name, by
 * output file name, or by probing an input.
 */
#ifndef PC_REGISTRY_H
#define PC_REGISTRY_H

#include "model/format.h"

extern const struct pc_reader *const pc_readers[];
extern const struct pc_writer *const pc_writers[];

const struct pc_reader *pc_reader_find(const char *name);
const struct pc_writer *pc_writer_find(const char *name);
/* The writer whose extension ends path, or NULL. */
const struct pc_writer *pc_writer_for_path(const char *path);
/*
 * Picks the reader for an input by probing its first bytes (and its name).
 * A tie at the top or a weak best score is an error naming the candidates.
 */
const struct pc_reader *pc_detect(struct pc_input *in, struct pc_error *err);

#endif
