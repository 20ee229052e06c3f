/*
 * folded_writer.c - writes folded ("collapsed") stacks, one line per
 * distinct stack, root first:
 *
 *   comm;root_function;...;leaf_function COUNT
 *
 * Source: FlameGraph's stackcollapse-perf.pl (github.com/brendangregg/
 * FlameGraph, its conventions as its test/results files show them at
 * commit 41fee1f9, 2024) and inferno's collapse-perf where they agree;
 * DESIGN.md section 4.5. No version: the format has none. The lines are
 * sorted bytewise by stack (as the Perl script's `sort keys`), one per
 * distinct folded stack.
 *
 * The naming below lives in writers/folded_names.c, which the flame graph
 * SVG writer shares, so that both name every frame alike.
 *
 * What maps where:
 *   label comm           -> the root frame, blanks turned into '_' (and ';'
 *                           into ':'); --pid: "comm-PID", --tid:
 *                           "comm-PID/TID", with "?" for a pid or tid the
 *                           sample lacks. A sample without a comm label gets
 *                           no root frame (whatever --pid/--tid say)
 *   frames, leaf first   -> the frames after the root, root to leaf, named
 *                           as stackcollapse-perf.pl names them:
 *     - a frame with a function: the function (the perf reader has already
 *       stripped "+0x..."), split at "->" (perf-map-agent's inline chains)
 *       into several frames, all but the first with "_[i]"; each part
 *       tidied: ';' -> ':', the text from the first '(' cut unless it is
 *       "(anonymous namespace)" or the name looks like a Go method
 *       (".(...)."), '"' and '\'' dropped; with comm "java" a leading 'L'
 *       dropped from names holding a '/'. A part that tidies to nothing
 *       (quotes alone, "a->") is named as a frame without a function (the
 *       script would write an empty frame, which no folded reader takes
 *       back). A function that starts with '(' is skipped, as the script
 *       skips such "process names";
 *     - a frame without a function: "[BASENAME]" of its module (so an
 *       unknown kernel symbol is "[[kernel.kallsyms]]", as the script
 *       writes it), or "[unknown]" without one; --addrs:
 *       "[BASENAME <ADDR>]" or "[unknown <ADDR>]" with the address in
 *       lowercase hex as perf printed it; only ';' is tidied there (a dso
 *       name is no signature: "[memfd:jit code (deleted)]" stays whole);
 *     - --kernel: "_[k]" after frames whose module starts with '[', ends in
 *       ".ko" or is a vmlinux ("vmlinux", "vmlinux-5.4.14-..."), but not a
 *       module named "...unknown..."; --jit: "_[j]" after frames of a
 *       perf map ("/tmp/perf-PID.map") or a perf-inject jitdump object
 *       (".../jitted-PID-N.so"). Inline parts get "_[i]" instead;
 *     - inline frames (perf's "(inlined)") are named like any other: the
 *       script takes "inlined" for their dso;
 *     - frames that carry only a name (no module, no address: the folded
 *       reader's) are written as they are but for ';' -> ':', so folded ->
 *       folded gives its input back, merged and sorted.
 *   the counted column   -> COUNT: --event NAME picks the weight (period)
 *                           column of event NAME if there is one, else the
 *                           column named NAME (pc_model_pick_column); by default the
 *                           model's default column (for perf script: the
 *                           first event's period sum, as the script counts).
 *                           Stacks that add up to 0 are not written.
 * A sample with neither a root nor frames is not written (one warning).
 * stackcollapse-perf.pl's own limits are not copied: the last sample of a
 * file without a final blank line and single-line samples count, and a comm
 * with a number in it keeps it (the perf reader anchors on the time).
 *
 * Caller/callee data (Visual Studio CallerCallee summaries, which have no
 * stacks) reaches this writer as the stacks that model/reconstruct.h
 * rebuilds from it (pipeline/convert.c does that for stack-only writers):
 * approximate, with counts that add up to the exclusive total exactly.
 *
 * What the format holds not, each said in one notice (never an error with
 * --strict): labels other than comm, pid and tid; the other events'
 * columns. Addresses (but for --addrs), modules and branch stacks are
 * noticed by the conversion as parts this format cannot keep; the naming
 * rules above (';' as ':', arguments cut) are the format's own. What is
 * lost, each with one warning (an error with --strict): samples without a
 * root or frames; control bytes but TAB in names (written as U+FFFD).
 */
#include "writers/folded_names.h"
#include "base/sort.h"

#define FOLDED "folded"

/*
 * Folded frames are interned names (writers/folded_names.h: text without
 * ';'); a folded stack is the sequence of its names' ids, interned too, so
 * memory follows the distinct names and stacks, not the text of every line.
 */
struct fw_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	size_t column;
	struct pc_folded_names names;

	struct pc_tally stacks; /* of name ids, root first */
	uint32_t *line;        /* the stack being built */
	size_t line_cap;

	uint64_t rootless;
};

/* ---- distinct stacks ---- */

/* Adds a sample's folded stack with its count; rootless when it is empty. */
static int add_sample(struct fw_writer *w, const struct pc_sample *sample, uint64_t count)
{
	bool java;
	uint32_t root = pc_folded_names_root(&w->names, sample->labels, &java);
	size_t n, len = 0;
	const uint32_t *frames = pc_model_stack(w->m, sample->stack, &n);

	pc_grow(&w->line, &w->line_cap, 1, sizeof(*w->line));
	if (root)
		w->line[len++] = root - 1;
	for (size_t i = n; i > 0; i--) {
		size_t nnames;
		const uint32_t *names = pc_folded_names_frame(&w->names, frames[i - 1], java, &nnames);

		if (!nnames)
			continue; /* a skipped frame */
		pc_grow(&w->line, &w->line_cap, len + nnames, sizeof(*w->line));
		memcpy(w->line + len, names, nnames * sizeof(*w->line));
		len += nnames;
	}
	if (!len) {
		w->rootless++;
		return 0;
	}
	if (pc_tally_add(&w->stacks, w->line, len, count))
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "the count of a folded stack passes 2^63-1");
	return 0;
}

/* ---- the output ---- */

/* Notices for what the format holds not; warnings (errors with --strict) for losses. */
static int warn_lost(struct fw_writer *w)
{
	const struct pc_model *m = w->m;
	size_t other = pc_model_ncolumns(m) ? pc_folded_lost_column(m, w->column) : 0;

	if (other < pc_model_ncolumns(m))
		pc_notice(w->ctx, FOLDED, "only column '%s' is written; others such as '%s' are "
			  "lost (pick one with --event)",
			  pc_str(m, pc_model_column(m, w->column)->type),
			  pc_str(m, pc_model_column(m, other)->type));
	if (w->names.lost_labels)
		pc_notice(w->ctx, FOLDED, "labels other than comm, pid and tid are lost");
	if (w->rootless &&
	    pc_warn(w->ctx, FOLDED, "%llu samples with neither a comm nor frames are not written",
		    (unsigned long long)w->rootless))
		return -1;
	if (w->names.replaced &&
	    pc_warn(w->ctx, FOLDED, "control bytes in names are written as U+FFFD"))
		return -1;
	return 0;
}

/*
 * Orders two folded stacks as their lines compare bytewise (names joined
 * by ';'), without making the lines: where one name is a prefix of the
 * other, the shorter line goes on with ';' or ends.
 */
static int compare_stacks(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fw_writer *w = ctx;
	size_t na, nb, i;
	const uint32_t *ia = pc_seq(&w->stacks.keys, a + 1, &na), *ib = pc_seq(&w->stacks.keys, b + 1, &nb);

	for (i = 0; i < na && i < nb; i++) {
		size_t xlen, ylen, common;
		const char *x, *y;
		int diff;

		if (ia[i] == ib[i])
			continue;
		x = pc_folded_name(&w->names, ia[i], &xlen);
		y = pc_folded_name(&w->names, ib[i], &ylen);
		common = xlen < ylen ? xlen : ylen;
		diff = memcmp(x, y, common);
		if (diff)
			return diff;
		/* names differ, so one is a proper prefix of the other */
		if (xlen < ylen)
			return i + 1 == na ? -1 : ';' - (unsigned char)y[common];
		return i + 1 == nb ? 1 : (unsigned char)x[common] - ';';
	}
	return na < nb ? -1 : na > nb;
}

static void write_sorted(struct fw_writer *w, FILE *out)
{
	size_t n = w->stacks.keys.count - 1;
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	pc_sort_indices(w, order, n, compare_stacks);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const uint32_t *ids = pc_seq(&w->stacks.keys, order[i] + 1, &len);

		if (!w->stacks.counts[order[i] + 1])
			continue;
		for (size_t k = 0; k < len; k++) {
			size_t name_len;
			const char *name = pc_folded_name(&w->names, ids[k], &name_len);

			if (k)
				fputc(';', out);
			fwrite(name, 1, name_len, out);
		}
		fprintf(out, " %llu\n", (unsigned long long)w->stacks.counts[order[i] + 1]);
	}
	free(order);
}

static int folded_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct fw_writer w = { .ctx = ctx, .m = m };
	struct pc_folded_names_options names = {
		.kernel = pc_option_flag(ctx, "kernel"),
		.jit = pc_option_flag(ctx, "jit"),
		.addrs = pc_option_flag(ctx, "addrs"),
		.pid = pc_option_flag(ctx, "pid"),
		.tid = pc_option_flag(ctx, "tid"),
	};
	int ret = -1;

	pc_folded_names_init(&w.names, m, &names);
	pc_tally_init(&w.stacks);
	if (pc_folded_pick_column(ctx, m, &w.column))
		goto out;
	for (size_t i = 0; i < pc_model_nsamples(m) && pc_model_ncolumns(m); i++) {
		uint64_t count = pc_model_values(m, i)[w.column];

		if (count && add_sample(&w, pc_model_sample(m, i), count))
			goto out;
	}
	if (warn_lost(&w))
		goto out;
	write_sorted(&w, out->fp);
	ret = 0;
out:
	pc_folded_names_release(&w.names);
	pc_tally_release(&w.stacks);
	free(w.line);
	return ret;
}

static const char *const folded_extensions[] = { ".folded", ".collapsed", NULL };

/* stackcollapse-perf.pl's options */
static const struct pc_option_spec folded_options[] = {
	{ "pid", PC_OPTION_FLAG, NULL, "root frame comm-PID", 0 },
	{ "tid", PC_OPTION_FLAG, NULL, "root frame comm-PID/TID", 0 },
	{ "kernel", PC_OPTION_FLAG, NULL, "_[k] after kernel frames", 0 },
	{ "jit", PC_OPTION_FLAG, NULL, "_[j] after JIT frames", 0 },
	{ "addrs", PC_OPTION_FLAG, NULL, "addresses of unknown symbols", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_folded_writer = {
	.name = "folded",
	.extensions = folded_extensions,
	.summary = "folded stacks (root;...;leaf COUNT), stackcollapse-perf.pl's conventions",
	.needs = 0, /* no stacks: roots alone, or nothing */
	.keeps = PC_PART_STACKS | PC_PART_SYMBOLS,
	.write = folded_write,
	.options = folded_options,
};
