/*
 * ctx.h - the context of one profconv run: options that readers and
 * writers may consult, counted warnings, and the error of the run. The CLI
 * makes one; tests and fuzzers make their own. Deep code never prints:
 * warnings are counted here and the CLI summarises them.
 */
#ifndef PC_CTX_H
#define PC_CTX_H

#include "base/error.h"

#define PC_MAX_WARNINGS 32
#define PC_MAX_NOTES 16
/* The longest warning kept, its format's name included (room for long paths). */
#define PC_WARNING_TEXT 1024

struct pc_warning {
	const char *key;   /* the format string: identical kinds are counted */
	char text[PC_WARNING_TEXT]; /* the first occurrence, formatted */
	uint64_t count;
	bool notice;       /* recorded by pc_notice: never an error (see below) */
};

/*
 * An option a reader or writer declares in its descriptor (the CLI builds
 * its parser and --help from these tables; the library takes them as
 * "name=value" strings). Values are checked against the kind before any
 * input is read.
 */
enum pc_option_kind {
	PC_OPTION_FLAG,    /* no value */
	PC_OPTION_TEXT,    /* any non-empty text */
	PC_OPTION_COUNT,   /* a decimal number from 1 to max */
	PC_OPTION_ADDRESS, /* an unsigned number, 0x for hexadecimal */
};

struct pc_option_spec {
	const char *name; /* the long option without dashes */
	enum pc_option_kind kind;
	const char *arg;  /* the value's name in help ("N", "ADDR"); NULL for flags */
	const char *help; /* one line */
	unsigned long max; /* PC_OPTION_COUNT: the largest value */
};

/* Options of the run that every stage may consult (the pipeline's own). */
struct pc_options {
	bool strict;   /* warnings about lost data (pc_warn) become errors */
	bool quiet;    /* print nothing but errors */
	bool verbose;  /* print a one-line summary */
	bool progress; /* draw a progress bar on stderr for large inputs */
	bool skip_bad; /* text readers skip unparseable lines, counted as a warning */
	/* the event (column) a writer with one value per stack uses; NULL = default */
	const char *event;
	/* --threads N: the threads a reader or writer may use; 0 = one per online CPU */
	unsigned threads;
};

#define PC_MAX_SETTINGS 32

/* A format's option as given ("pid", "top" = "5"); value "" for flags. */
struct pc_setting {
	const char *name, *value; /* borrowed from the caller for the run */
};

struct pc_ctx {
	struct pc_options opt;
	struct pc_setting settings[PC_MAX_SETTINGS]; /* formats' options, checked */
	size_t nsettings;
	struct pc_error err;
	struct pc_warning warnings[PC_MAX_WARNINGS];
	size_t nwarnings;
	uint64_t dropped_warnings; /* kinds beyond PC_MAX_WARNINGS */
	unsigned threads_used;     /* the most threads a read used (for -v), 0 = 1 */
	/* what the run did that -v tells (the filters: what each kept), in order */
	char notes[PC_MAX_NOTES][160];
	size_t nnotes;
};

void pc_ctx_init(struct pc_ctx *ctx);

/*
 * Two kinds of counted message, printed alike ("profconv: warning: FMT:
 * TEXT"):
 *
 * pc_warn says that data is lost: content of the input that the output
 * format could hold is dropped, clipped, altered or approximated
 * ("3 samples without a call stack are lost", "invalid UTF-8 in names is
 * written as U+FFFD", stacks reconstructed from caller/callee pairs).
 * It records the warning and returns 0; with --strict it records nothing
 * and returns -1 with ctx->err set to the message (so the message is said
 * once, as the error).
 *
 * pc_notice says what the user chose by choosing the output format or an
 * option (the parts or columns a format cannot hold by its nature, sample
 * times it has no field for) or gives information and advice ("no
 * --binary given: writing 'app'"). It is recorded like a warning, and
 * never an error, --strict or not.
 *
 * format names the reader or writer (e.g. "spt"), NULL for none. Messages
 * of one fmt are one kind: counted, with the text of the first kept.
 */
int pc_warn(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
	PC_PRINTF(3, 4);
void pc_notice(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
	PC_PRINTF(3, 4);

/*
 * Formats' options, as declared in their descriptors. pc_ctx_set records
 * one (value NULL or "" for a flag; a later value replaces an earlier
 * one); -1 when more than PC_MAX_SETTINGS are given. The getters return
 * the value, or NULL / false / 0 when the option was not given; count and
 * address values were checked when they were set (pc_option_check).
 */
int pc_ctx_set(struct pc_ctx *ctx, const char *name, const char *value);
const char *pc_option_text(const struct pc_ctx *ctx, const char *name);
bool pc_option_flag(const struct pc_ctx *ctx, const char *name);
unsigned long pc_option_count(const struct pc_ctx *ctx, const char *name);
bool pc_option_address(const struct pc_ctx *ctx, const char *name, uint64_t *value);
/*
 * Checks value against spec; 0, or -1 with a usage error in err
 * ("--top takes a number from 1 to 1000000, not 'x'").
 */
int pc_option_check(const struct pc_option_spec *spec, const char *value,
		    struct pc_error *err);

/* Records a note for -v (those past PC_MAX_NOTES are left out). */
void pc_note(struct pc_ctx *ctx, const char *fmt, ...) PC_PRINTF(2, 3);

/* Forgets ctx's warnings (once they were added elsewhere). */
void pc_ctx_clear_warnings(struct pc_ctx *ctx);
/* Adds from's warnings (counts, and the first text of each kind) to ctx. */
void pc_ctx_add_warnings(struct pc_ctx *ctx, const struct pc_ctx *from);

/* The threads a reader or writer may use: --threads, or the online CPUs; >= 1. */
unsigned pc_ctx_threads(const struct pc_ctx *ctx);

/* Prints "profconv: warning: TEXT (N times)" lines to fp. */
void pc_ctx_print_warnings(const struct pc_ctx *ctx, FILE *fp);

#endif
