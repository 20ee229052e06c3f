/*
 * read_memory.h - reads bytes in memory with a reader into a model, as the
 * CLI reads a file: then finalizes the model, or leaves the error.
 */
#ifndef TESTS_READ_MEMORY_H
#define TESTS_READ_MEMORY_H

#include "model/format.h"

/*
 * Reads size bytes at data with reader into m, as the input called name
 * (of unknown size, as a pipe is, when unknown_size), and finalizes m on
 * success. Returns the reader's status; ctx->err says why it failed.
 */
int pct_read_memory(struct pc_ctx *ctx, struct pc_model *m, const struct pc_reader *reader,
		    const char *name, const void *data, size_t size, bool unknown_size);

#endif
