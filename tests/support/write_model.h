/*
 * write_model.h - renders a model with a writer into memory, as the CLI
 * does into a file: finalize, write, then commit, or abort on failure.
 */
#ifndef TESTS_WRITE_MODEL_H
#define TESTS_WRITE_MODEL_H

#include "model/format.h"

/*
 * Writes m with writer into *text (malloc'd, NUL-terminated, *size bytes;
 * the caller frees it). Returns the writer's status; on failure *text is
 * NULL and ctx->err says why.
 */
int pct_write_model(struct pc_ctx *ctx, struct pc_model *m, const struct pc_writer *writer,
		    char **text, size_t *size);

#endif
