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

struct pc_warning {
	const char *key;   /* the format string: identical kinds are counted */
	char text[256];    /* the first occurrence, formatted */
	uint64_t count;
};

struct pc_options {
	bool strict;   /* warnings about lost data become errors */
	bool quiet;    /* print nothing but errors */
	bool verbose;  /* print a one-line summary */
	bool progress; /* draw a progress bar on stderr for large inputs */
	bool skip_bad; /* text readers skip unparseable lines, counted as a warning */
	/* stackcollapse-perf.pl's options, for the folded writer */
	bool folded_pid;    /* root frame comm-PID */
	bool folded_tid;    /* root frame comm-PID/TID */
	bool folded_kernel; /* _[k] after kernel frames */
	bool folded_jit;    /* _[j] after JIT frames */
	bool folded_addrs;  /* addresses of unknown symbols */
	/* the binary (path or basename) a per-binary writer keeps; NULL = all or its default */
	const char *binary;
	/* --base ADDR: the load base to subtract from runtime addresses (AutoFDO) */
	bool has_base;
	uint64_t base;
	/* --lbr-ranges: make AutoFDO ranges from SPT LBR records too */
	bool lbr_ranges;
	/* the event (column) a writer with one value per stack uses; NULL = default */
	const char *event;
	/* the report writer */
	unsigned top; /* functions in the top table; 0 = the default (20) */
	bool tree;    /* print the call tree too */
	/* --threads N: the threads a reader may use; 0 = one per online CPU */
	unsigned threads;
};

struct pc_ctx {
	struct pc_options opt;
	struct pc_error err;
	struct pc_warning warnings[PC_MAX_WARNINGS];
	size_t nwarnings;
	uint64_t dropped_warnings; /* kinds beyond PC_MAX_WARNINGS */
	unsigned threads_used;     /* the most threads a read used (for -v), 0 = 1 */
};

void pc_ctx_init(struct pc_ctx *ctx);

/*
 * Records a warning of the given format (e.g. "spt"). Returns 0, or -1
 * with ctx->err set when --strict turns warnings into errors.
 */
int pc_warn(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
	PC_PRINTF(3, 4);

/* Adds from's warnings (counts, and the first text of each kind) to ctx. */
void pc_ctx_add_warnings(struct pc_ctx *ctx, const struct pc_ctx *from);

/* The threads a reader may use: --threads, or the online CPUs; >= 1. */
unsigned pc_ctx_threads(const struct pc_ctx *ctx);

/* Prints "profconv: warning: TEXT (N times)" lines to fp. */
void pc_ctx_print_warnings(const struct pc_ctx *ctx, FILE *fp);

#endif
