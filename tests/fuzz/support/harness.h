/*
 * harness.h - what the libFuzzer targets in tests/fuzz share: reading an
 * input as a file or as a pipe, a text buffer, running the report writer
 * into /dev/null, and checks of JSON and XML outputs. Linked into every
 * target by the Makefile.
 */
#ifndef PC_FUZZ_HARNESS_H
#define PC_FUZZ_HARNESS_H

#include "model/format.h"

/* A growing byte buffer, always NUL-terminated once anything is added. */
struct fuzz_text {
	char *buf;
	size_t len, cap;
};

void fuzz_text_add(struct fuzz_text *t, const void *bytes, size_t len);

/* /dev/null, opened once. */
FILE *fuzz_null_output(void);

/*
 * Reads size bytes at data with reader into m, as a file of that size or,
 * with unknown_size, as from a pipe (name names the input). Finalizes m on
 * success. A failure must say why: an error without a status or message
 * aborts. ctx is the caller's (initialized, options set) and keeps the error.
 */
int fuzz_read(struct pc_ctx *ctx, const struct pc_reader *reader, const char *name,
	      const uint8_t *data, size_t size, bool unknown_size, struct pc_model *m);

/*
 * Writes m with writer into memory and drops it; a failure must say why
 * (an error without a message aborts), and is then cleared.
 */
void fuzz_write(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m);

/*
 * Writes m with a JSON writer (speedscope, cpuprofile) into memory, with
 * the run options of ctx and --max-samples 4096, and checks the text: it
 * is valid UTF-8 with no control byte but '\n' (strings escaped), and its
 * brackets, outside strings, balance. A failure must say why.
 */
void fuzz_write_json(const struct pc_ctx *ctx, const struct pc_writer *writer,
		     const struct pc_model *m);

/* Aborts unless text is UTF-8 JSON text whose brackets balance outside strings. */
void fuzz_check_json(const char *text, size_t size);

/* Aborts unless text is well-formed XML (libxml2: no network, no external entities). */
void fuzz_check_xml(const char *text, size_t size);

/* Runs `report --tree --top 5` on m into /dev/null; ctx keeps any error. */
int fuzz_report(struct pc_ctx *ctx, const struct pc_model *m);

#endif
