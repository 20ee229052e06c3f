/*
 * output.h - where a writer's bytes go. A file is written to a temporary
 * file in the target directory and renamed over the target only when the
 * whole conversion succeeded, so a failed run never leaves a partial or
 * clobbered output; a file replaced keeps its mode, and a symlink is
 * written through to its target. "-" writes to stdout. Tests write to
 * memory.
 */
#ifndef PC_OUTPUT_H
#define PC_OUTPUT_H

#include "base/error.h"

struct pc_output {
	char path[512];      /* the output as named, "-" for stdout */
	char target[512];    /* the file replaced: path with its symlinks followed */
	char tmp_path[600];  /* the temporary file, "" when none */
	FILE *fp;            /* writers write here */
	bool to_stdout;
	char **mem;          /* memory output: buffer and size */
	size_t *mem_size;
};

int pc_output_open(struct pc_output *out, const char *path, struct pc_error *err);
/* Collects the output in *buf (malloc'd, caller frees) of *size bytes. */
int pc_output_to_memory(struct pc_output *out, char **buf, size_t *size,
			struct pc_error *err);
/* Flushes, closes and renames the temporary file over the target. */
int pc_output_commit(struct pc_output *out, struct pc_error *err);
/* Closes and removes the temporary file; the target is left untouched. */
void pc_output_abort(struct pc_output *out);
/* Whether the output is a terminal (stdout or a tty device). */
bool pc_output_is_terminal(const struct pc_output *out);
/*
 * Removes the temporary files of the outputs being written, from a signal
 * handler (async-signal-safe; their outputs are then unusable).
 */
void pc_output_remove_temporaries(void);

#endif
