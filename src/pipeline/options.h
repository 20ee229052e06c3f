/*
 * options.h - the options of a conversion as data: the pipeline's own
 * (strict, skip-bad, event, threads) and those each reader and writer
 * declares in its descriptor. The CLI and the library both apply options
 * through here, so they accept the same names and say the same words.
 */
#ifndef PC_OPTIONS_H
#define PC_OPTIONS_H

#include "pipeline/registry.h"

/* The pipeline's own options, ended by a NULL name. */
extern const struct pc_option_spec pc_pipeline_options[];

/*
 * Finds the spec of option name among the pipeline's options and those of
 * reader and writer (either may be NULL: then among every reader's or
 * every writer's). Returns NULL when none declares it.
 */
const struct pc_option_spec *pc_option_find(const char *name, const struct pc_reader *reader,
					    const struct pc_writer *writer);

/*
 * Checks and records option name = value (NULL for a flag) for a run of
 * reader (NULL: still to be detected) and writer (NULL: none). Returns 0,
 * or -1 with a usage error in ctx->err naming what takes the option.
 */
int pc_option_apply(struct pc_ctx *ctx, const struct pc_reader *reader,
		    const struct pc_writer *writer, const char *name, const char *value);

#endif
