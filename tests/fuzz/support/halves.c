/* halves.c - a reader's two halves against one (see halves.h). */
#include "halves.h"
#include "convert.h"

extern const struct pc_writer pc_dump_writer;

struct outcome {
	struct pc_ctx ctx; /* the error and the warnings */
	int rc;
	char *dump;        /* the model's dump when it read */
	size_t dump_size;
};

static void read_file(const struct pc_reader *reader, const char *path, unsigned threads,
		      struct outcome *o)
{
	struct pc_model *m = pc_model_new();
	struct pc_input in;
	struct pc_ctx run;

	pc_ctx_init(&o->ctx);
	o->ctx.opt.threads = threads;
	if (pc_input_open(&in, path, &o->ctx.err))
		abort();
	o->rc = reader->read(&o->ctx, &in, m);
	pc_input_close(&in);
	o->dump = NULL;
	o->dump_size = 0;
	if (o->rc) {
		if (o->ctx.err.status == PC_STATUS_OK || !o->ctx.err.message[0])
			abort(); /* a failure must say why */
	} else {
		pc_model_finalize(m);
		pc_ctx_init(&run);
		/* the dump writer writes every model whose totals fit in int64 */
		if (fuzz_write_model(&run, &pc_dump_writer, m, &o->dump, &o->dump_size) &&
		    !strstr(run.err.message, "add up to more than 2^63-1"))
			abort();
	}
	pc_model_free(m);
}

static bool same_warnings(const struct pc_ctx *a, const struct pc_ctx *b)
{
	if (a->nwarnings != b->nwarnings || a->dropped_warnings != b->dropped_warnings)
		return false;
	for (size_t i = 0; i < a->nwarnings; i++)
		if (a->warnings[i].count != b->warnings[i].count ||
		    strcmp(a->warnings[i].text, b->warnings[i].text))
			return false;
	return true;
}

void fuzz_check_halves(const struct pc_reader *reader, const uint8_t *data, size_t size)
{
	const char *path = fuzz_temp_file(0, data, size);
	struct outcome halves, one;

	read_file(reader, path, 2, &halves);
	read_file(reader, path, 1, &one);
	if (halves.rc != one.rc || !same_warnings(&halves.ctx, &one.ctx))
		abort();
	if (halves.rc && (strcmp(halves.ctx.err.message, one.ctx.err.message) ||
			  halves.ctx.err.offset != one.ctx.err.offset ||
			  halves.ctx.err.line != one.ctx.err.line ||
			  halves.ctx.err.column != one.ctx.err.column ||
			  halves.ctx.err.where != one.ctx.err.where))
		abort();
	if (!halves.rc && (halves.dump_size != one.dump_size ||
			   (one.dump_size && memcmp(halves.dump, one.dump, one.dump_size))))
		abort();
	free(halves.dump);
	free(one.dump);
}
