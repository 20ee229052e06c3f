/*
 * convert.h - the conversion pipeline shared by the CLI and the tests:
 * open and detect each input, read all of them into one model, finalize,
 * check what the writer needs against what the model has, and write the
 * output atomically.
 */
#ifndef PC_CONVERT_H
#define PC_CONVERT_H

#include "pipeline/registry.h"

/* Wall-clock time of each phase of a conversion, for `convert -v`. */
struct pc_convert_timing {
	uint64_t read_bytes;     /* input bytes the readers consumed */
	double read_seconds;     /* opening, detecting and reading every input */
	double finalize_seconds; /* pc_model_finalize */
	double write_seconds;    /* checking parts, writing and committing */
};

struct pc_convert_request {
	const char *const *inputs;  /* paths, "-" for stdin */
	size_t ninputs;
	const struct pc_reader *from; /* NULL: detect each input */
	const struct pc_writer *to;
	const char *output;         /* path, "-" for stdout */
	struct pc_convert_timing *timing; /* filled in when not NULL */
};

/* Parts (enum pc_part) that the model actually holds. */
unsigned pc_model_parts(const struct pc_model *m);
/* "addresses, call stacks" for the parts in mask. */
void pc_parts_describe(unsigned mask, char *buf, size_t size);

/* Reads one input into m (detecting its format unless from is set). */
int pc_read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		  struct pc_model *m);
/* Reads an opened input into m (detecting its format unless from is set). */
int pc_read_opened(struct pc_ctx *ctx, struct pc_input *in, const struct pc_reader *from,
		   struct pc_model *m);
/*
 * Renders the finalized m with writer into out (opened; the caller commits
 * or aborts it): checks the parts the writer needs, and reconstructs
 * stacks from caller/callee data for writers that show only stacks.
 */
int pc_write_model(struct pc_ctx *ctx, const struct pc_writer *writer,
		   const struct pc_model *m, struct pc_output *out);
/* pc_write_model into path ("-" = stdout), replaced only on success. */
int pc_write_path(struct pc_ctx *ctx, const struct pc_writer *writer,
		  const struct pc_model *m, const char *path);
/* Runs the whole conversion; m must be freshly initialised. */
int pc_convert(struct pc_ctx *ctx, const struct pc_convert_request *req,
	       struct pc_model *m);

#endif
