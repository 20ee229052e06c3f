/*
 * flamegraph_svg.h - the flame graph SVG writer's second entry: a
 * differential flame graph (`profconv diff -t svg`) drawn from two-count
 * folded stacks with the writer's own layout, script and options (title,
 * width, minwidth, inverted), as flamegraph.pl draws difffolded.pl's
 * output. flamegraph_svg_writer.c's head comment says what is drawn.
 */
#ifndef PC_FLAMEGRAPH_SVG_H
#define PC_FLAMEGRAPH_SVG_H

#include "base/ctx.h"

/* A frame's name: bytes (borrowed), no NUL needed. */
struct pc_flamegraph_name {
	const char *text;
	size_t len;
};

/* A folded stack: its frames' name ids, root first, and its counts in BASE and NEW. */
struct pc_flamegraph_diff_stack {
	const uint32_t *frames;
	size_t nframes;
	uint64_t count[2];
};

struct pc_flamegraph_diff {
	const struct pc_flamegraph_name *names; /* by id, each name once */
	size_t nnames;
	const struct pc_flamegraph_diff_stack *stacks;
	size_t nstacks;
	const char *labels[2]; /* BASE and NEW in the subtitle; NULL: "BASE", "NEW" */
	bool normalize;        /* compare with BASE's counts scaled to NEW's total */
};

/*
 * Writes the differential flame graph of diff to out, with the svg
 * writer's options set in ctx: boxes as wide as NEW's counts, coloured by
 * the change from BASE. 0, or -1 with ctx->err set.
 */
int pc_flamegraph_svg_write_diff(struct pc_ctx *ctx, const struct pc_flamegraph_diff *diff,
				 FILE *out);

#endif
