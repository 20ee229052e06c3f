/* read_memory.c - see read_memory.h. */
#include "read_memory.h"

int pct_read_memory(struct pc_ctx *ctx, struct pc_model *m, const struct pc_reader *reader,
		    const char *name, const void *data, size_t size, bool unknown_size)
{
	struct pc_input in;
	int rc;

	pc_input_from_memory(&in, name, data, size);
	if (unknown_size)
		in.size = PC_SIZE_UNKNOWN;
	rc = reader->read(ctx, &in, m);
	pc_input_close(&in);
	if (!rc)
		pc_model_finalize(m);
	return rc;
}
