/* options.c - options as data: lookup, checks and recording into a run. */
#include "pipeline/options.h"
#include "pipeline/filter.h"

const struct pc_option_spec pc_pipeline_options[] = {
	{ "strict", PC_OPTION_FLAG, NULL, "treat warnings about lost data as errors", 0 },
	{ "skip-bad", PC_OPTION_FLAG, NULL,
	  "skip unparseable lines of text input (counted warning)", 0 },
	{ "event", PC_OPTION_TEXT, "NAME", "the event a one-value output counts", 0 },
	{ "threads", PC_OPTION_COUNT, "N", "threads a conversion may use (default: one per CPU)",
	  64 },
	{ "progress", PC_OPTION_FLAG, NULL,
	  "a progress bar on standard error for inputs over 50 MB (default: on a terminal)", 0 },
	/* the symbolizer's (symbols/symbolize.h), kept as settings */
	{ "symbols", PC_OPTION_TEXT, "PATH[:PATH...]",
	  "name frames from the binaries in these directories (or files)", 0 },
	{ "kallsyms", PC_OPTION_TEXT, "FILE", "name kernel frames from this /proc/kallsyms copy", 0 },
	{ "inline", PC_OPTION_FLAG, NULL, "with --symbols: inlined frames and file:line too", 0 },
	{ "no-demangle", PC_OPTION_FLAG, NULL, "with --symbols: keep C++ and Rust names mangled", 0 },
	/* what the filters keep (pipeline/filter.h), in the order they apply */
	{ "pids", PC_OPTION_TEXT, "PID[,PID...]", "only the samples of these processes", 0 },
	{ "tids", PC_OPTION_TEXT, "TID[,TID...]", "only the samples of these threads", 0 },
	{ "comms", PC_OPTION_TEXT, "COMM[,COMM...]", "only the samples of these commands", 0 },
	{ "modules", PC_OPTION_TEXT, "NAME[,NAME...]",
	  "only the samples taken in these modules (path or file name; perf's --dsos)", 0 },
	{ "kernel-only", PC_OPTION_FLAG, NULL, "only the samples taken in the kernel", 0 },
	{ "user-only", PC_OPTION_FLAG, NULL, "only the samples taken in user space", 0 },
	{ "focus", PC_OPTION_TEXT, "RE", "only the samples with a frame that RE matches", 0 },
	{ "ignore", PC_OPTION_TEXT, "RE", "drop the samples with a frame that RE matches", 0 },
	{ "hide", PC_OPTION_TEXT, "RE", "take the frames that RE matches out of the stacks", 0 },
	{ "time", PC_OPTION_TEXT, "START,END",
	  "only the samples in these seconds from the first (or perf's A%/N, A%-B%)", 0 },
	{ "times", PC_OPTION_FLAG, NULL,
	  "keep each sample's time (for --time and .cpuprofile time deltas; implied by both)", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

static const struct pc_option_spec *find_in(const struct pc_option_spec *specs,
					    const char *name)
{
	for (size_t i = 0; specs && specs[i].name; i++)
		if (!strcmp(specs[i].name, name))
			return &specs[i];
	return NULL;
}

static const struct pc_option_spec *find_in_readers(const char *name)
{
	const struct pc_option_spec *spec = NULL;

	for (size_t i = 0; pc_readers[i] && !spec; i++)
		spec = find_in(pc_readers[i]->options, name);
	return spec;
}

const struct pc_option_spec *pc_option_find(const char *name, const struct pc_reader *reader,
					    const struct pc_writer *writer)
{
	const struct pc_option_spec *spec = find_in(pc_pipeline_options, name);

	if (!spec)
		spec = reader ? find_in(reader->options, name) : find_in_readers(name);
	if (!spec && writer)
		spec = find_in(writer->options, name);
	return spec;
}

/* "folded, report" for the writers that declare name. */
static void writers_taking(const char *name, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; pc_writers[i] && used < size; i++)
		if (find_in(pc_writers[i]->options, name))
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? ", " : "", pc_writers[i]->name);
}

static int not_for_this_run(struct pc_ctx *ctx, const struct pc_writer *writer,
			    const char *name)
{
	char takers[200];

	writers_taking(name, takers, sizeof(takers));
	if (!*takers && !find_in_readers(name))
		return pc_fail(&ctx->err, PC_STATUS_USAGE, "unknown option '--%s'", name);
	if (!*takers)
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "option '--%s' is an input format's, not of this input", name);
	if (!writer)
		return pc_fail(&ctx->err, PC_STATUS_USAGE, "option '--%s' is for %s output only",
			       name, takers);
	return pc_fail(&ctx->err, PC_STATUS_USAGE,
		       "option '--%s' does not apply to %s output (it is for %s output)", name,
		       writer->name, takers);
}

/* Sets one of the options every stage reads; false if name is not one. */
static bool set_pipeline_option(struct pc_options *opt, const char *name, const char *value)
{
	if (!strcmp(name, "strict"))
		opt->strict = true;
	else if (!strcmp(name, "skip-bad"))
		opt->skip_bad = true;
	else if (!strcmp(name, "event"))
		opt->event = value;
	else if (!strcmp(name, "threads"))
		opt->threads = (unsigned)strtoul(value, NULL, 10);
	else if (!strcmp(name, "progress"))
		opt->progress = true;
	else
		return false;
	return true;
}

int pc_option_apply(struct pc_ctx *ctx, const struct pc_reader *reader,
		    const struct pc_writer *writer, const char *name, const char *value)
{
	const struct pc_option_spec *spec = pc_option_find(name, reader, writer);

	if (!spec)
		return not_for_this_run(ctx, writer, name);
	if (pc_option_check(spec, value, &ctx->err))
		return -1;
	if (find_in(pc_pipeline_options, name) && set_pipeline_option(&ctx->opt, name, value))
		return 0;
	if (pc_ctx_set(ctx, spec->name, value))
		return pc_fail(&ctx->err, PC_STATUS_USAGE, "more than %d format options given",
			       PC_MAX_SETTINGS);
	return pc_filter_check(ctx, spec->name, value);
}
