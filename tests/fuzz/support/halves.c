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

/* Reads path with reader on threads threads, with option name=value (name NULL: none). */
static void read_file(const struct pc_reader *reader, const char *path, unsigned threads,
		      const char *name, const char *value, struct outcome *o)
{
	struct pc_model *m = pc_model_new();
	struct pc_input in;
	struct pc_ctx run;

	pc_ctx_init(&o->ctx);
	o->ctx.opt.threads = threads;
	if (name && pc_ctx_set(&o->ctx, name, value))
		abort();
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

/* Aborts unless a and b read alike: the same error or model, the same warnings. */
static void check_same(const struct outcome *a, const struct outcome *b)
{
	if (a->rc != b->rc || !same_warnings(&a->ctx, &b->ctx))
		abort();
	if (a->rc && (strcmp(a->ctx.err.message, b->ctx.err.message) ||
		      a->ctx.err.offset != b->ctx.err.offset || a->ctx.err.line != b->ctx.err.line ||
		      a->ctx.err.column != b->ctx.err.column || a->ctx.err.where != b->ctx.err.where))
		abort();
	if (!a->rc && (a->dump_size != b->dump_size ||
		       (b->dump_size && memcmp(a->dump, b->dump, b->dump_size))))
		abort();
}

void fuzz_check_halves(const struct pc_reader *reader, const uint8_t *data, size_t size)
{
	const char *path = fuzz_temp_file(0, data, size);
	struct outcome halves, one;

	read_file(reader, path, 2, NULL, NULL, &halves);
	read_file(reader, path, 1, NULL, NULL, &one);
	check_same(&halves, &one);
	free(halves.dump);
	free(one.dump);
}

void fuzz_check_option(const struct pc_reader *reader, const uint8_t *data, size_t size,
		       const char *name, const char *value)
{
	const char *path = fuzz_temp_file(0, data, size);
	struct outcome plain, two, one;

	read_file(reader, path, 2, NULL, NULL, &plain);
	read_file(reader, path, 2, name, value, &two);
	read_file(reader, path, 1, name, value, &one);
	check_same(&plain, &two);
	check_same(&plain, &one);
	free(plain.dump);
	free(two.dump);
	free(one.dump);
}
