/*
 * format.h - format descriptors. Each reader or writer is one source file
 * that ends in one exported const descriptor; pipeline/registry.c lists
 * them all. Adding a format = one new file + one line in registry.c.
 */
#ifndef PC_FORMAT_H
#define PC_FORMAT_H

#include "base/ctx.h"
#include "base/input.h"
#include "base/output.h"
#include "model/model.h"

/* What parts of the model a format carries (reader) or needs (writer). */
enum pc_part {
	PC_PART_ADDRESSES = 1u << 0, /* instruction addresses and modules */
	PC_PART_SYMBOLS = 1u << 1,   /* function names, files, lines */
	PC_PART_STACKS = 1u << 2,    /* call stacks */
	PC_PART_BRANCHES = 1u << 3,  /* branch stacks (LBR) */
	PC_PART_ARCS = 1u << 4,      /* caller -> callee arcs without stacks */
};

/* Probe scores, as FFmpeg's: a tie at the top or a best below WEAK is "unknown". */
enum pc_probe_score {
	PC_PROBE_NO = 0,
	PC_PROBE_EXTENSION = 10, /* only the file name matches */
	PC_PROBE_WEAK = 25,
	PC_PROBE_STRONG = 75,
	PC_PROBE_CERTAIN = 100,
};

/* Views of `profconv info`; a reader's info function ignores what it lacks. */
enum pc_info_view {
	PC_INFO_HEADER = 1u << 0,
	PC_INFO_PROGID = 1u << 1,
	PC_INFO_STRTAB = 1u << 2,
	PC_INFO_EVENTS = 1u << 3,
	PC_INFO_ALL = 0xfu,
};

struct pc_reader {
	const char *name;
	const char *const *aliases;    /* NULL-terminated, or NULL */
	const char *const *extensions; /* with the dot, NULL-terminated */
	const char *summary;
	unsigned provides;             /* enum pc_part */
	/* Scores how surely head (the first bytes of the input) is this format. */
	int (*probe)(const uint8_t *head, size_t len);
	/* Adds the whole input to m; -1 with ctx->err set on failure. */
	int (*read)(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m);
	/* Prints the views of `profconv info`; NULL when the format has none. */
	int (*info)(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views);
	/* Its own options (read with pc_option_*), ended by a NULL name; or NULL. */
	const struct pc_option_spec *options;
};

struct pc_writer {
	const char *name;
	const char *const *aliases;
	const char *const *extensions; /* output names that select this writer */
	const char *summary;
	unsigned needs;                /* parts without which it cannot write */
	unsigned keeps;                /* parts it can represent */
	/* Renders the finalized model; -1 with ctx->err set on failure. */
	int (*write)(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out);
	/* Its own options (read with pc_option_*), ended by a NULL name; or NULL. */
	const struct pc_option_spec *options;
};

#endif
