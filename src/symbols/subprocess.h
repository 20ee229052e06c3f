/*
 * subprocess.h - a helper program run as a filter: its input written to
 * its standard input (a socket: a child that dies gives EPIPE, not
 * SIGPIPE) while its output is read line by line, through poll(), so that
 * neither side blocks on a full buffer. llvm-symbolizer and addr2line are
 * run this way, once per batch.
 */
#ifndef PC_SUBPROCESS_H
#define PC_SUBPROCESS_H

#include "base/pc.h"

/* Takes one line of output (without its newline); false: the output is not what was expected. */
typedef bool (*pc_line_fn)(void *data, const char *line, size_t len);

/*
 * Runs the first of programs (NULL-terminated, looked up on PATH) that
 * exists, with arguments args (NULL-terminated; argv[0] is the program),
 * standard error to /dev/null; writes input[0, len), closes its standard
 * input, and hands every line it prints to fn until it ends. 0, or -1
 * with a message in err (err_size bytes) naming what (the program that
 * was run, or the first of programs when none exists) and why; package
 * names the Debian package to mention when none exists.
 */
int pc_run_filter(const char *const *programs, const char *package, char *const *args,
		  const char *input, size_t len, pc_line_fn fn, void *data, char *err,
		  size_t err_size);

#endif
