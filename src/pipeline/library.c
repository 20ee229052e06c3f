/*
 * library.c - the public C API (include/profconv.h) over the pipeline: a
 * profile is a finalized model with the warnings and figures of what was
 * done to it. The command line (src/cli) is built on this API alone.
 */
#include "pipeline/convert.h"
#include "pipeline/options.h"
#include "pipeline/filter.h"
#include "model/copy.h"
#include "symbols/symbolize.h"

#include "profconv.h"

#include <time.h>

#define MAX_OPTION_NAME 64

struct profconv_profile {
	struct pc_model *model;
	struct pc_ctx log;   /* only its warnings: of reads, merges and writes; notes of the last write */
	char read_notes[PC_MAX_NOTES][160]; /* what the readers noted (-v) */
	size_t nread_notes;
	char dropped[80];    /* the text of the "more warnings" line */
	bool broken;         /* a read failed halfway: it holds part of that input */
	uint64_t read_bytes;
	double read_seconds, finalize_seconds, symbolize_seconds, write_seconds;
	unsigned threads;
};

static const char *const info_views[] = { "header", "progid", "strtab", "events", "all" };
static const unsigned info_view_bits[] = {
	PC_INFO_HEADER, PC_INFO_PROGID, PC_INFO_STRTAB, PC_INFO_EVENTS, PC_INFO_ALL,
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
	pc_model_free(p->model);
	free(p);
}

profconv_profile *profconv_profile_new(void)
{
	profconv_profile *p = calloc(1, sizeof(*p));

	if (p) {
		p->model = pc_model_new();
		pc_model_finalize(p->model); /* an empty profile can be written as it is */
		pc_ctx_init(&p->log);
	}
	return p;
}

static double seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* A copy of text for *error (nothing when error is NULL); returns -1. */
static int give_error(char **error, const char *text)
{
	if (error)
		*error = strdup(text);
	return -1;
}

static int give_ctx_error(char **error, const struct pc_ctx *ctx)
{
	char message[PC_ERROR_TEXT];

	pc_error_format(&ctx->err, message, sizeof(message));
	return give_error(error, message);
}

/* name of a "name=value" / "name" string into buf; NULL when it does not fit. */
static const char *option_name(const char *option, char *buf, size_t size)
{
	const char *equals = strchr(option, '=');
	size_t len = equals ? (size_t)(equals - option) : strlen(option);

	if (len == 0 || len >= size)
		return NULL;
	memcpy(buf, option, len);
	buf[len] = '\0';
	return buf;
}

static bool is_info_view(const char *name, unsigned *bit)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(info_views); i++)
		if (!strcmp(name, info_views[i])) {
			*bit = info_view_bits[i];
			return true;
		}
	return false;
}

/* Applies "name=value" / "name" strings to ctx for a reader or writer. */
static int apply_options(struct pc_ctx *ctx, const struct pc_reader *reader,
			 const struct pc_writer *writer, const char *const *options,
			 unsigned *views)
{
	for (size_t i = 0; options && options[i]; i++) {
		const char *equals = strchr(options[i], '=');
		char buf[MAX_OPTION_NAME];
		const char *name = option_name(options[i], buf, sizeof(buf));
		unsigned bit;

		if (!name)
			return pc_fail(&ctx->err, PC_STATUS_USAGE, "bad option '%s'", options[i]);
		if (views && is_info_view(name, &bit) && !equals)
			*views |= bit;
		else if (pc_option_apply(ctx, reader, writer, name, equals ? equals + 1 : NULL))
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

static int refuse_broken(const profconv_profile *p, char **error)
{
	return p->broken ? give_error(error, "this profile holds part of an input whose read "
				      "failed; free it") : 0;
}

/*
 * Reads a path, or memory when path is NULL, into p and finalizes p. The
 * reader adds to p's model as it goes (a later input's reader sees the
 * earlier ones, as the command line merges them), so a read that fails
 * halfway leaves p broken.
 */
static int read_into(profconv_profile *p, const char *path, const void *data, size_t size,
		     const char *name, const char *format, const char *const *options,
		     char **error)
{
	const struct pc_reader *reader;
	struct pc_ctx ctx;
	double start, end;
	int status;

	if (refuse_broken(p, error))
		return -1;
	pc_ctx_init(&ctx);
	if (find_reader(&ctx, format, &reader) || apply_options(&ctx, reader, NULL, options, NULL))
		return give_ctx_error(error, &ctx);
	if (pc_option_flag(&ctx, "times") || pc_filters_need_times(&ctx))
		pc_model_keep_times(p->model);
	start = seconds_now();
	if (path) {
		status = pc_read_input(&ctx, path, reader, p->model, &p->read_bytes);
	} else {
		struct pc_input in;

		pc_input_from_memory(&in, name ? name : "(memory)", data, size);
		status = pc_read_opened(&ctx, &in, reader, p->model);
		p->read_bytes += pc_input_offset(&in);
		pc_input_close(&in);
	}
	end = seconds_now();
	p->read_seconds += end - start;
	if (ctx.threads_used > p->threads)
		p->threads = ctx.threads_used;
	pc_ctx_add_warnings(&p->log, &ctx);
	for (size_t i = 0; i < ctx.nnotes && p->nread_notes < PC_MAX_NOTES; i++)
		memcpy(p->read_notes[p->nread_notes++], ctx.notes[i], sizeof(ctx.notes[i]));
	if (status) {
		p->broken = true;
		return give_ctx_error(error, &ctx);
	}
	pc_model_finalize_on(p->model, pc_ctx_threads(&ctx));
	pc_release_free_memory(); /* finalize's sorting space, before a writer's */
	p->finalize_seconds += seconds_now() - end;
	if (pc_symbolize_wanted(&ctx) || pc_model_wants_names(p->model)) {
		pc_ctx_clear_warnings(&ctx); /* the read's are in p->log */
		start = seconds_now();
		status = pc_symbolize(&ctx, &p->model);
		p->symbolize_seconds += seconds_now() - start;
		pc_ctx_add_warnings(&p->log, &ctx);
		if (status)
			return give_ctx_error(error, &ctx);
	}
	return 0;
}

int profconv_read_more(profconv_profile *p, const char *path, const char *format,
		       const char *const *options, char **error)
{
	if (!path)
		return give_error(error, "no input path given");
	return read_into(p, path, NULL, 0, NULL, format, options, error);
}

/* A new profile read from path, or from memory when path is NULL. */
static int read_new(const char *path, const void *data, size_t size, const char *name,
		    const char *format, const char *const *options, profconv_profile **out,
		    char **error)
{
	profconv_profile *p = profconv_profile_new();

	*out = NULL;
	if (!p)
		return give_error(error, "out of memory");
	if (read_into(p, path, data, size, name, format, options, error)) {
		profconv_profile_free(p);
		return -1;
	}
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
	return read_new(path, NULL, 0, NULL, format, options, out, error);
}

int profconv_read_memory(const void *data, size_t size, const char *name, const char *format,
			 const char *const *options, profconv_profile **out, char **error)
{
	static const char empty[1];

	if (!data && size) {
		*out = NULL;
		return give_error(error, "no data given for a non-empty input");
	}
	return read_new(NULL, data ? data : empty, size, name, format, options, out, error);
}

int profconv_merge(profconv_profile *into, const profconv_profile *from, char **error)
{
	char message[200];
	struct pc_model *merged;
	struct pc_ctx ctx;

	if (into == from)
		return give_error(error, "cannot merge a profile into itself");
	if (refuse_broken(into, error) || refuse_broken(from, error))
		return -1;
	/* all or nothing: both into a new model, which replaces into's on success */
	merged = pc_model_new();
	if (pc_model_merge(merged, into->model, message, sizeof(message)) ||
	    pc_model_merge(merged, from->model, message, sizeof(message))) {
		pc_model_free(merged);
		return give_error(error, message);
	}
	pc_ctx_init(&ctx);
	if (pc_share_samples_columns(&ctx, merged)) { /* in either order, as reads do */
		pc_model_free(merged);
		return give_ctx_error(error, &ctx);
	}
	pc_model_finalize(merged);
	pc_model_free(into->model);
	into->model = merged;
	pc_ctx_add_warnings(&into->log, &from->log);
	return 0;
}

/* Writes to path, or to memory when path is NULL. */
static int write_profile(const profconv_profile *p, const char *path, const char *format,
			 const char *const *options, char **data, size_t *size, char **error)
{
	/* a profile records the warnings and time of its writes (see profconv.h) */
	profconv_profile *log = (profconv_profile *)p;
	const struct pc_writer *writer;
	struct pc_ctx ctx;
	struct pc_output out;
	double start = seconds_now();
	int status;

	if (refuse_broken(p, error))
		return -1;
	pc_ctx_init(&ctx);
	if (find_writer(&ctx, format, path, &writer) ||
	    apply_options(&ctx, NULL, writer, options, NULL))
		return give_ctx_error(error, &ctx);
	if (path) {
		status = pc_write_path(&ctx, writer, p->model, path);
	} else {
		status = pc_output_to_memory(&out, data, size, &ctx.err);
		if (!status && (status = pc_write_model(&ctx, writer, p->model, &out)))
			pc_output_abort(&out);
		else if (!status)
			status = pc_output_commit(&out, &ctx.err);
	}
	pc_ctx_add_warnings(&log->log, &ctx);
	memcpy(log->log.notes, ctx.notes, sizeof(ctx.notes));
	log->log.nnotes = ctx.nnotes;
	log->write_seconds = seconds_now() - start;
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
	} else {
		free(bytes); /* what a failed commit of the memory stream left */
	}
	return status;
}

size_t profconv_profile_samples(const profconv_profile *p)
{
	return pc_model_nsamples(p->model);
}

size_t profconv_profile_stacks(const profconv_profile *p)
{
	return pc_model_nstacks(p->model);
}

size_t profconv_profile_frames(const profconv_profile *p)
{
	return pc_model_nframes(p->model);
}

size_t profconv_profile_modules(const profconv_profile *p)
{
	return pc_model_nmodules(p->model);
}

size_t profconv_profile_columns(const profconv_profile *p)
{
	return pc_model_ncolumns(p->model);
}

/* The samples taken: the total of the column a sample-listing output counts. */
static double samples_taken(const struct pc_model *m)
{
	size_t column = pc_model_default_count_column(m);
	double total = 0;

	for (size_t i = 0; column < pc_model_ncolumns(m) && i < pc_model_nsamples(m); i++)
		total += (double)pc_model_values(m, i)[column];
	return total;
}

double profconv_profile_stat(const profconv_profile *p, const char *name)
{
	if (!strcmp(name, "samples"))
		return samples_taken(p->model);
	if (!strcmp(name, "read_bytes"))
		return (double)p->read_bytes;
	if (!strcmp(name, "read_seconds"))
		return p->read_seconds;
	if (!strcmp(name, "finalize_seconds"))
		return p->finalize_seconds;
	if (!strcmp(name, "symbolize_seconds"))
		return p->symbolize_seconds;
	if (!strcmp(name, "write_seconds"))
		return p->write_seconds;
	if (!strcmp(name, "threads"))
		return p->threads ? p->threads : 1;
	return 0;
}

const char *profconv_warning(const profconv_profile *p, size_t i, unsigned long long *times)
{
	const struct pc_ctx *log = &p->log;

	if (i < log->nwarnings) {
		if (times)
			*times = (unsigned long long)log->warnings[i].count;
		return log->warnings[i].text;
	}
	if (i > log->nwarnings || !log->dropped_warnings)
		return NULL;
	snprintf(((profconv_profile *)p)->dropped, sizeof(p->dropped),
		 "%llu more warnings of other kinds", (unsigned long long)log->dropped_warnings);
	if (times)
		*times = 1;
	return p->dropped;
}

void profconv_remove_temporaries(void)
{
	pc_output_remove_temporaries();
}

const char *profconv_note(const profconv_profile *p, size_t i)
{
	if (i < p->nread_notes)
		return p->read_notes[i];
	i -= p->nread_notes;
	return i < p->log.nnotes ? p->log.notes[i] : NULL;
}

/* ---- formats and options ---- */

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

const char *profconv_format_summary(const char *format, int writing)
{
	const struct pc_reader *reader = writing ? NULL : pc_reader_find(format);
	const struct pc_writer *writer = writing ? pc_writer_find(format) : NULL;

	return reader ? reader->summary : writer ? writer->summary : NULL;
}

const char *profconv_format_extension(const char *format, int writing, size_t i)
{
	const struct pc_reader *reader = writing ? NULL : pc_reader_find(format);
	const struct pc_writer *writer = writing ? pc_writer_find(format) : NULL;
	const char *const *extensions = reader ? reader->extensions :
					writer ? writer->extensions : NULL;

	for (size_t k = 0; extensions && extensions[k]; k++)
		if (k == i)
			return extensions[k];
	return NULL;
}

const char *profconv_format_for_path(const char *path)
{
	const struct pc_writer *writer = path ? pc_writer_for_path(path) : NULL;

	return writer ? writer->name : NULL;
}

const char *profconv_option(const char *format, int writing, size_t i, const char **value,
			    const char **help)
{
	const struct pc_option_spec *specs = pc_pipeline_options;
	const struct pc_reader *reader;
	const struct pc_writer *writer;

	if (format && writing)
		specs = (writer = pc_writer_find(format)) ? writer->options : NULL;
	else if (format)
		specs = (reader = pc_reader_find(format)) ? reader->options : NULL;
	for (size_t k = 0; specs && specs[k].name; k++) {
		if (k != i)
			continue;
		if (value)
			*value = specs[k].arg;
		if (help)
			*help = specs[k].help;
		return specs[k].name;
	}
	return NULL;
}

int profconv_check_options(const char *reader_name, const char *writer_name,
			   const char *const *options, char **error)
{
	const struct pc_reader *reader;
	const struct pc_writer *writer = NULL;
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	if (find_reader(&ctx, reader_name, &reader) ||
	    (writer_name && find_writer(&ctx, writer_name, NULL, &writer)) ||
	    apply_options(&ctx, reader, writer, options, NULL))
		return give_ctx_error(error, &ctx);
	return 0;
}

/* info --symbols: reads path and says what the symbolizer finds for it. */
static int info_symbols(struct pc_ctx *ctx, const char *path, const struct pc_reader *reader,
			FILE *out)
{
	struct pc_model *m;
	int status;

	if (!strcmp(path, "-"))
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "info --symbols reads its input twice: give a file, not standard input");
	m = pc_model_new();
	status = pc_read_input(ctx, path, reader, m, NULL);
	if (!status) {
		pc_model_finalize(m);
		status = pc_symbolize_report(ctx, m, out);
	}
	pc_model_free(m);
	return status;
}

int profconv_info(const char *path, const char *format, const char *const *options,
		  FILE *out, FILE *warnings, char **error)
{
	const struct pc_reader *reader;
	struct pc_input in;
	struct pc_ctx ctx;
	unsigned views = 0;
	int status = 0;

	pc_ctx_init(&ctx);
	if (find_reader(&ctx, format, &reader) ||
	    apply_options(&ctx, reader, NULL, options, &views) ||
	    pc_input_open(&in, path, &ctx.err))
		return give_ctx_error(error, &ctx);
	if (pc_refuse_empty(&ctx, &in))
		reader = NULL;
	else if (!reader)
		reader = pc_detect(&in, &ctx.err);
	if (reader && pc_symbolize_wanted(&ctx) && !views) {
		/* --symbols alone: that view only */
	} else if (reader && !reader->info) {
		pc_error_set_path(&ctx.err, in.name);
		pc_fail(&ctx.err, PC_STATUS_INPUT, "%s input has no info view", reader->name);
	} else if (reader) {
		status = reader->info(&ctx, &in, out, views ? views : PC_INFO_ALL);
		pc_error_set_path(&ctx.err, in.name);
	}
	pc_input_close(&in);
	if (reader && !status && !ctx.err.status && pc_symbolize_wanted(&ctx))
		status = info_symbols(&ctx, path, reader, out);
	fflush(out);
	if (warnings)
		pc_ctx_print_warnings(&ctx, warnings);
	return ctx.err.status || status ? give_ctx_error(error, &ctx) : 0;
}
