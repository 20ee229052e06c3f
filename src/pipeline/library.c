/*
 * library.c - the public C API (include/profconv.h) over the pipeline: a
 * profile is a finalized model with the warnings of what was done to it.
 */
#include "pipeline/convert.h"
#include "pipeline/options.h"
#include "model/copy.h"

#include "profconv.h"

#define MAX_OPTION_NAME 64

struct profconv_profile {
	struct pc_model model;
	struct pc_ctx log; /* only its warnings: of reads, merges and writes */
};

const char *profconv_version(void)
{
	return PC_VERSION;
}

void profconv_free(void *p)
{
	free(p);
}

void profconv_profile_free(profconv_profile *p)
{
	if (!p)
		return;
	pc_model_release(&p->model);
	free(p);
}

/* A copy of text for *error (NULL when error is NULL); returns -1. */
static int give_error(char **error, const char *text)
{
	if (error)
		*error = strdup(text);
	return -1;
}

static int give_ctx_error(char **error, const struct pc_ctx *ctx)
{
	char message[1200];

	pc_error_format(&ctx->err, message, sizeof(message));
	return give_error(error, message);
}

/* Applies "name=value" / "name" strings to ctx for a reader or writer. */
static int apply_options(struct pc_ctx *ctx, const struct pc_reader *reader,
			 const struct pc_writer *writer, const char *const *options)
{
	for (size_t i = 0; options && options[i]; i++) {
		const char *equals = strchr(options[i], '=');
		size_t len = equals ? (size_t)(equals - options[i]) : strlen(options[i]);
		char name[MAX_OPTION_NAME];

		if (len == 0 || len >= sizeof(name))
			return pc_fail(&ctx->err, PC_STATUS_USAGE, "bad option '%s'", options[i]);
		memcpy(name, options[i], len);
		name[len] = '\0';
		if (pc_option_apply(ctx, reader, writer, name, equals ? equals + 1 : NULL))
			return -1;
	}
	return 0;
}

static int find_reader(struct pc_ctx *ctx, const char *format, const struct pc_reader **reader)
{
	*reader = NULL;
	if (format && !(*reader = pc_reader_find(format)))
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "unknown input format '%s' (see 'profconv formats')", format);
	return 0;
}

static profconv_profile *new_profile(void)
{
	profconv_profile *p = calloc(1, sizeof(*p));

	if (p) {
		pc_model_init(&p->model);
		pc_ctx_init(&p->log);
	}
	return p;
}

/* Reads one input (a path, or memory when path is NULL) into a new profile. */
static int read_profile(const char *path, const void *data, size_t size, const char *name,
			const char *format, const char *const *options,
			profconv_profile **out, char **error)
{
	const struct pc_reader *reader;
	struct pc_ctx ctx;
	profconv_profile *p;
	int status;

	*out = NULL;
	pc_ctx_init(&ctx);
	if (find_reader(&ctx, format, &reader) || apply_options(&ctx, reader, NULL, options))
		return give_ctx_error(error, &ctx);
	if (!(p = new_profile()))
		return give_error(error, "out of memory");
	if (path) {
		status = pc_read_input(&ctx, path, reader, &p->model);
	} else {
		struct pc_input in;

		pc_input_from_memory(&in, name ? name : "(memory)", data, size);
		status = pc_read_opened(&ctx, &in, reader, &p->model);
		pc_input_close(&in);
	}
	if (status) {
		profconv_profile_free(p);
		return give_ctx_error(error, &ctx);
	}
	pc_model_finalize(&p->model);
	pc_ctx_add_warnings(&p->log, &ctx);
	*out = p;
	return 0;
}

int profconv_read_file(const char *path, const char *format, const char *const *options,
		       profconv_profile **out, char **error)
{
	if (!path) {
		*out = NULL;
		return give_error(error, "no input path given");
	}
	return read_profile(path, NULL, 0, NULL, format, options, out, error);
}

int profconv_read_memory(const void *data, size_t size, const char *name, const char *format,
			 const char *const *options, profconv_profile **out, char **error)
{
	static const char empty[1];

	return read_profile(NULL, data ? data : empty, data ? size : 0, name, format, options,
			    out, error);
}

int profconv_merge(profconv_profile *into, const profconv_profile *from, char **error)
{
	char message[200];

	if (into == from)
		return give_error(error, "cannot merge a profile into itself");
	if (pc_model_merge(&into->model, &from->model, message, sizeof(message)))
		return give_error(error, message);
	pc_model_finalize(&into->model);
	pc_ctx_add_warnings(&into->log, &from->log);
	return 0;
}

/* The writer for format, or for path's name when format is NULL. */
static int find_writer(struct pc_ctx *ctx, const char *format, const char *path,
		       const struct pc_writer **writer)
{
	*writer = format ? pc_writer_find(format) : path ? pc_writer_for_path(path) : NULL;
	if (*writer)
		return 0;
	if (format)
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "unknown output format '%s' (see 'profconv formats')", format);
	return pc_fail(&ctx->err, PC_STATUS_USAGE, "cannot tell the output format from '%s'",
		       path ? path : "memory");
}

/* Writes to path, or to memory when path is NULL. */
static int write_profile(const profconv_profile *p, const char *path, const char *format,
			 const char *const *options, char **data, size_t *size, char **error)
{
	const struct pc_writer *writer;
	struct pc_ctx ctx;
	struct pc_output out;
	int status;

	pc_ctx_init(&ctx);
	if (find_writer(&ctx, format, path, &writer) ||
	    apply_options(&ctx, NULL, writer, options))
		return give_ctx_error(error, &ctx);
	if (path) {
		status = pc_write_path(&ctx, writer, &p->model, path);
	} else {
		status = pc_output_to_memory(&out, data, size, &ctx.err);
		if (!status && (status = pc_write_model(&ctx, writer, &p->model, &out)))
			pc_output_abort(&out);
		else if (!status)
			status = pc_output_commit(&out, &ctx.err);
	}
	/* a profile records the warnings of its writes (see profconv.h) */
	pc_ctx_add_warnings((struct pc_ctx *)&p->log, &ctx);
	return status ? give_ctx_error(error, &ctx) : 0;
}

int profconv_write_file(const profconv_profile *p, const char *path, const char *format,
			const char *const *options, char **error)
{
	if (!path)
		return give_error(error, "no output path given");
	return write_profile(p, path, format, options, NULL, NULL, error);
}

int profconv_write_memory(const profconv_profile *p, const char *format,
			  const char *const *options, void **data, size_t *size, char **error)
{
	char *bytes = NULL;
	size_t n = 0;
	int status;

	*data = NULL;
	*size = 0;
	if (!format)
		return give_error(error, "no output format given");
	status = write_profile(p, NULL, format, options, &bytes, &n, error);
	if (!status) {
		*data = bytes;
		*size = n;
	}
	return status;
}

size_t profconv_profile_samples(const profconv_profile *p)
{
	return p->model.nsamples;
}

size_t profconv_profile_stacks(const profconv_profile *p)
{
	return p->model.stacks.count - 1;
}

size_t profconv_profile_frames(const profconv_profile *p)
{
	return p->model.nframes;
}

size_t profconv_profile_modules(const profconv_profile *p)
{
	return p->model.nmodules;
}

size_t profconv_profile_columns(const profconv_profile *p)
{
	return p->model.ncolumns;
}

const char *profconv_warning(const profconv_profile *p, size_t i, unsigned long long *times)
{
	if (i >= p->log.nwarnings)
		return NULL;
	if (times)
		*times = (unsigned long long)p->log.warnings[i].count;
	return p->log.warnings[i].text;
}

static bool reads(const char *name)
{
	return pc_reader_find(name) != NULL;
}

const char *profconv_format(size_t i, int *can_read, int *can_write)
{
	size_t nreaders = 0;
	const char *name;

	while (pc_readers[nreaders])
		nreaders++;
	if (i < nreaders) {
		name = pc_readers[i]->name;
	} else {
		/* then the writers that no reader of the same name covers */
		size_t k = 0;

		name = NULL;
		for (size_t w = 0; pc_writers[w] && !name; w++)
			if (!reads(pc_writers[w]->name) && k++ == i - nreaders)
				name = pc_writers[w]->name;
		if (!name)
			return NULL;
	}
	if (can_read)
		*can_read = reads(name);
	if (can_write)
		*can_write = pc_writer_find(name) != NULL;
	return name;
}
