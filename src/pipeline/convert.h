/*
 * convert.h - the stages of a conversion under the library (library.c):
 * open and detect each input and read it into a model; check what the
 * writer needs against what the model has, and write the output
 * atomically.
 */
#ifndef PC_CONVERT_H
#define PC_CONVERT_H

#include "pipeline/registry.h"

/* Parts (enum pc_part) that the model actually holds. */
unsigned pc_model_parts(const struct pc_model *m);
/* "addresses, call stacks" for the parts in mask. */
void pc_parts_describe(unsigned mask, char *buf, size_t size);

/*
 * Reads one input into m (detecting its format unless from is set), with a
 * progress bar when ctx->opt.progress; adds the bytes read to *bytes when
 * bytes is not NULL.
 */
int pc_read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		  struct pc_model *m, uint64_t *bytes);
/*
 * Reads an opened input into m (detecting its format unless from is set).
 * For every reader alike: an input of 0 bytes is an error ("empty
 * input", before detection); one that adds no samples warns once ("no
 * samples in the input", unless the reader warned so itself); and when a
 * folded or Sampler input's unnamed samples and another input's samples
 * of a named event are in columns apart, m is rebuilt with them in one
 * (model/copy.c).
 */
int pc_read_opened(struct pc_ctx *ctx, struct pc_input *in, const struct pc_reader *from,
		   struct pc_model *m);
/* -1 with ctx->err set ("NAME: empty input") when in has no byte (info too). */
int pc_refuse_empty(struct pc_ctx *ctx, struct pc_input *in);
/*
 * Merged inputs share the column of the same meaning: folded or Sampler
 * counts read before an input with named events join that event's samples
 * column (m is rebuilt when they are apart). -1 with ctx->err set on a count
 * overflow.
 */
int pc_share_samples_columns(struct pc_ctx *ctx, struct pc_model *m);
/*
 * Renders the finalized m with writer into out (opened; the caller commits
 * or aborts it): applies ctx's filters (filter.h) to a copy, checks the
 * parts the writer needs, and reconstructs stacks from caller/callee data
 * for writers that show only stacks.
 */
int pc_write_model(struct pc_ctx *ctx, const struct pc_writer *writer,
		   const struct pc_model *m, struct pc_output *out);
/* pc_write_model into path ("-" = stdout), replaced only on success. */
int pc_write_path(struct pc_ctx *ctx, const struct pc_writer *writer,
		  const struct pc_model *m, const char *path);
#endif
