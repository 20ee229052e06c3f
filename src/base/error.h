/*
 * error.h - errors as values. A failing function fills a caller's
 * struct pc_error and returns -1; nothing deep inside exits. The message
 * follows git's style: lower case, what failed, what was expected and what
 * was found. The CLI prints it as
 *   profconv: FILE: offset 0x1234: spt: message      (binary input)
 *   profconv: FILE:LINE:COL: perf-script: message     (text input)
 */
#ifndef PC_ERROR_H
#define PC_ERROR_H

#include "base/pc.h"

enum pc_status {
	PC_STATUS_OK = 0,
	PC_STATUS_INPUT = 1, /* bad input or impossible conversion */
	PC_STATUS_USAGE = 2, /* bad command line */
};

enum pc_where {
	PC_WHERE_NONE,   /* the whole file, or no file at all */
	PC_WHERE_OFFSET, /* byte offset into a binary input */
	PC_WHERE_LINE,   /* line and column of a text input */
};

/* A message's room: the longest warning text (base/ctx.h) fits, long paths included. */
#define PC_ERROR_MESSAGE 1100
/* Room for an error formatted with its path and place (pc_error_format). */
#define PC_ERROR_TEXT (512 + PC_ERROR_MESSAGE + 128)

struct pc_error {
	enum pc_status status; /* PC_STATUS_OK while no error is set */
	enum pc_where where;
	const char *format;    /* descriptor name, or NULL */
	char path[512];        /* file the error is about, or "" */
	uint64_t offset;
	uint32_t line, column;
	char message[PC_ERROR_MESSAGE];
};

/* Each returns -1 so that callers can write `return pc_fail_at(...)`. */
int pc_fail(struct pc_error *err, enum pc_status status, const char *fmt, ...)
	PC_PRINTF(3, 4);
int pc_fail_at(struct pc_error *err, const char *format, uint64_t offset,
	       const char *fmt, ...) PC_PRINTF(4, 5);
int pc_fail_line(struct pc_error *err, const char *format, uint32_t line,
		 uint32_t column, const char *fmt, ...) PC_PRINTF(5, 6);

/* Names the file the error is about unless a path is already set. */
void pc_error_set_path(struct pc_error *err, const char *path);
void pc_error_clear(struct pc_error *err);
/* "FILE: offset 0x1234: spt: message", without the "profconv: " prefix. */
void pc_error_format(const struct pc_error *err, char *buf, size_t size);

/*
 * Quotes up to max bytes of s for a message: printable ASCII as is,
 * anything else as \xNN, with "..." when cut.
 */
void pc_quote(char *buf, size_t size, const void *s, size_t len, size_t max);

#endif
