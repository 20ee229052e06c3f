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
 * A profile may be read by several threads at once, but written or
 * merged into by one thread at a time: writes record their warnings in it.
 */
#ifndef PROFCONV_H
#define PROFCONV_H

#include <stddef.h>

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
/* Adds every sample, arc and piece of metadata of from to into. */
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
 * The formats: the i-th name (NULL past the last) with can_read and
 * can_write set to 0 or 1 when not NULL.
 */
const char *profconv_format(size_t i, int *can_read, int *can_write);

#ifdef __cplusplus
}
#endif

#endif
