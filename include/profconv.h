/*
 * profconv.h - the profconv library: read profiles of any format profconv
 * knows (detected or named), merge them, and write them in any output
 * format, in files or in memory. See profconv(3).
 *
 * Formats are the names `profconv formats` prints ("spt", "perf-script",
 * "pprof", "folded", ...). Options are NULL or a NULL-terminated array of
 * "name=value" or "name" strings: the command line's long options without
 * the dashes ("event=cycles", "binary=prog", "kernel", "strict"). A read
 * takes the pipeline's options and the reader's; a write the pipeline's
 * and the writer's; an option neither declares is an error.
 *
 * Every function that can fail returns 0, or -1 with *error set to a
 * message in the command line's words (release it with profconv_free);
 * error may be NULL. Nothing here exits or aborts on bad input.
 *
 * Different profiles may be used by different threads at once; one profile
 * by one thread at a time (writing a profile out records its warnings in
 * it).
 */
#ifndef PROFCONV_H
#define PROFCONV_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROFCONV_VERSION_MAJOR 0
#define PROFCONV_VERSION_MINOR 1

typedef struct profconv_profile profconv_profile; /* opaque */

/* The library's version, "0.1.0". */
const char *profconv_version(void);

int profconv_read_file(const char *path, const char *format, const char *const *options,
		       profconv_profile **out, char **error);
int profconv_read_memory(const void *data, size_t size, const char *name, const char *format,
			 const char *const *options, profconv_profile **out, char **error);
/* Adds every sample, arc and piece of metadata of from to into; all or nothing. */
int profconv_merge(profconv_profile *into, const profconv_profile *from, char **error);
/* Replaces path only when the whole write succeeds ("-" = standard output). */
int profconv_write_file(const profconv_profile *p, const char *path, const char *format,
			const char *const *options, char **error);
/* *data (release with profconv_free) holds *size bytes of output. */
int profconv_write_memory(const profconv_profile *p, const char *format,
			  const char *const *options, void **data, size_t *size, char **error);
void profconv_profile_free(profconv_profile *p);
void profconv_free(void *p);
/*
 * Removes the temporary files of the writes in progress (a file is written
 * beside its target and renamed over it when complete): for a signal
 * handler, which may call it (it is async-signal-safe) before the process
 * ends; those writes then fail.
 */
void profconv_remove_temporaries(void);

/*
 * Compares two profiles, each folded as the folded writer folds it with
 * options (its own and the pipeline's, e.g. "event=cycles"), and writes to
 * path ("-" = standard output; replaced only when the whole write succeeds)
 * format "folded" (difffolded.pl's "STACK BASE NEW" lines), "report"
 * (NULL: the functions whose self count changed most, top rows, 0 = 20; names
 * label the two sides) or "svg" (a differential flame graph: boxes as wide
 * as now's counts, red where a frame's count grew, blue where it shrank,
 * against base's counts scaled to now's total; options may add the svg
 * writer's own, such as "title=TEXT", "width=PX", "minwidth=PX",
 * "inverted", and "no-normalize" to compare the counts as they are).
 */
int profconv_diff_file(const profconv_profile *base, const profconv_profile *now,
		       const char *const names[2], const char *path, const char *format,
		       const char *const *options, size_t top, char **error);

/*
 * An empty profile (NULL when memory is short), for profconv_read_more.
 * profconv_read_more reads one more input into p, as the command line
 * merges its inputs (a reader sees what the earlier inputs set, such as
 * the period). A read that fails before reading (a bad option or format
 * name) leaves p as it was; one that fails while reading leaves p holding
 * part of that input, and every later call on p but profconv_warning and
 * profconv_profile_free then fails: free it.
 */
profconv_profile *profconv_profile_new(void);
int profconv_read_more(profconv_profile *p, const char *path, const char *format,
		       const char *const *options, char **error);

/*
 * What a profile holds: distinct samples (after merging equal ones),
 * distinct stacks, frames, modules and value columns (events).
 */
size_t profconv_profile_samples(const profconv_profile *p);
size_t profconv_profile_stacks(const profconv_profile *p);
size_t profconv_profile_frames(const profconv_profile *p);
size_t profconv_profile_modules(const profconv_profile *p);
size_t profconv_profile_columns(const profconv_profile *p);

/*
 * The warnings recorded by the reads, merges and writes of p, each kind
 * once: the i-th text (NULL past the last), and how often it happened in
 * *times when times is not NULL.
 */
const char *profconv_warning(const profconv_profile *p, size_t i, unsigned long long *times);

/*
 * What the reads of p and its last write did that the command line's -v
 * tells: how a reader took its input ("etl: read as a stream: ..."), then
 * one line per filter given to the write (--pids, --time, --focus, ...:
 * "--pids 12: kept 1200 of 5000 samples (24.0%)"), the i-th (NULL past the
 * last).
 */
const char *profconv_note(const profconv_profile *p, size_t i);

/*
 * Figures of p's reads and writes, by name: "samples" (the samples taken:
 * the total of the default column, or of its event's samples column when
 * the default is a weight), "read_bytes",
 * "read_seconds", "finalize_seconds", "write_seconds" (the last write),
 * "threads" (the most threads a read used); 0 for other names.
 */
double profconv_profile_stat(const profconv_profile *p, const char *name);

/*
 * The formats: the i-th name (NULL past the last) with can_read and
 * can_write set to 0 or 1 when not NULL.
 */
const char *profconv_format(size_t i, int *can_read, int *can_write);
/*
 * A format's reader (writing 0) or writer (writing 1): its one-line
 * summary, NULL when there is none; its i-th file name ending (".pb.gz"),
 * NULL past the last.
 */
const char *profconv_format_summary(const char *format, int writing);
const char *profconv_format_extension(const char *format, int writing, size_t i);
/* The output format an output file name selects (".folded": "folded"), or NULL. */
const char *profconv_format_for_path(const char *path);
/*
 * The i-th option of a format's reader or writer, or with format NULL the
 * options every read and write takes; NULL past the last. *value (when
 * value is not NULL) is the name of its value ("N"), NULL for a flag;
 * *help is one line.
 */
const char *profconv_option(const char *format, int writing, size_t i, const char **value,
			    const char **help);
/*
 * Checks options for reading with reader and writing with writer (format
 * names; reader NULL: to be detected, writer NULL: no write) without
 * reading anything: unknown options, options of other formats and values
 * of the wrong kind are errors.
 */
int profconv_check_options(const char *reader, const char *writer,
			   const char *const *options, char **error);
/*
 * Prints what `profconv info` prints of the input at path: options are
 * the pipeline's and the reader's, and the views "header", "progid",
 * "strtab", "events", "all" (none: all). Warnings go to warnings as
 * "profconv: warning: ..." lines when it is not NULL.
 */
int profconv_info(const char *path, const char *format, const char *const *options,
		  FILE *out, FILE *warnings, char **error);

#ifdef __cplusplus
}
#endif

#endif
