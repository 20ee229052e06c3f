/* write_model.c - a model through a writer into memory, for tests. */
#include "write_model.h"

int pct_write_model(struct pc_ctx *ctx, struct pc_model *m, const struct pc_writer *writer,
		    char **text, size_t *size)
{
	struct pc_output out;

	*text = NULL;
	*size = 0;
	pc_model_finalize(m);
	if (pc_output_to_memory(&out, text, size, &ctx->err))
		return -1;
	if (writer->write(ctx, m, &out)) {
		pc_output_abort(&out);
		return -1;
	}
	return pc_output_commit(&out, &ctx->err);
}
