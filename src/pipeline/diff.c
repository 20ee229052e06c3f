/*
 * diff.c - two profiles compared (profconv_diff_file, `profconv diff`):
 * both are folded as the folded writer folds them (the same frame names,
 * options and --event column), then joined by stack.
 *
 *   folded   FlameGraph's two-count folded lines, as difffolded.pl writes
 *            them: "STACK BASE NEW", sorted by stack; a stack missing from
 *            one side counts 0 there. Counts as they are (no scaling).
 *   report   both totals, then the functions whose self count changed
 *            most (by the size of the change, as pprof -diff_base orders
 *            them; then by name): self share (of each side's total) in base
 *            and new, the change in points, the factor of the self counts
 *            (new / base) and of the shares, and the inclusive shares.
 *            --top N rows (default 20).
 *   svg      a differential flame graph (writers/flamegraph_svg.h: red
 *            grew, blue shrank, as flamegraph.pl draws difffolded.pl's
 *            lines): widths by NEW's counts, changes against BASE's
 *            scaled to NEW's total unless "no-normalize" is given; the svg
 *            writer's own options (title, width, minwidth, inverted) go to
 *            it, the others to the folding.
 *
 * What is lost: everything the folded writer loses (labels other than its
 * root options, other columns, addresses of named frames).
 */
#include "profconv.h"
#include "pipeline/options.h"
#include "writers/flamegraph_svg.h"
#include "base/index.h"
#include "base/output.h"
#include "base/sort.h"

#include <inttypes.h>

#define DEFAULT_TOP 20

/* A stack or a function: text borrowed from a folded buffer, a count per side. */
struct diff_entry {
	const char *text;
	size_t len;
	uint64_t count[2];     /* stacks: the counts; functions: self counts */
	uint64_t inclusive[2]; /* functions: counts of the stacks holding them */
	uint64_t last_stack;   /* functions: the last stack counted into inclusive */
	size_t first, depth;   /* stacks: their functions, frames[first, first + depth) */
};

struct diff_table {
	struct diff_entry *entries;
	size_t count, cap;
	struct pc_index index;
};

struct diff_key {
	const char *text;
	size_t len;
};

static bool entry_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct diff_entry *e = &((const struct diff_table *)ctx)->entries[id - 1];
	const struct diff_key *k = key;

	return e->len == k->len && !memcmp(e->text, k->text, k->len);
}

/* The entry for text, added with zero counts when new. */
static struct diff_entry *table_entry(struct diff_table *t, const char *text, size_t len)
{
	struct diff_key key = { text, len };
	uint64_t hash = pc_hash_bytes(text, len, 0xd1ff);
	uint32_t id = pc_index_find(&t->index, hash, entry_equal, t, &key);

	if (id)
		return &t->entries[id - 1];
	pc_grow(&t->entries, &t->cap, t->count + 1, sizeof(*t->entries));
	t->entries[t->count] = (struct diff_entry){ .text = text, .len = len };
	pc_index_add(&t->index, hash, (uint32_t)++t->count);
	return &t->entries[t->count - 1];
}

static uint64_t add_capped(uint64_t a, uint64_t b)
{
	return a > (uint64_t)INT64_MAX - b ? (uint64_t)INT64_MAX : a + b;
}

enum diff_output { DIFF_REPORT, DIFF_FOLDED, DIFF_SVG };

struct diff {
	struct diff_table stacks, functions;
	uint32_t *frames; /* each stack's functions (ids), root first, stack after stack */
	size_t nframes, frames_cap;
	char *folded[2];
	size_t size[2];
	uint64_t total[2];
	enum diff_output output;
	const char **fold_options; /* NULL-ended: the folded writer's and the pipeline's */
	bool normalize;
	struct pc_ctx ctx; /* the svg writer's options, the error of the write */
};

/* Counts one side's folded lines "STACK COUNT" into the stack table. */
static int add_side(struct diff *d, int side, char **error)
{
	const char *text = d->folded[side], *end = text + d->size[side];

	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		const char *line_end = eol ? eol : end, *space = line_end;
		uint64_t count = 0;

		while (space > text && space[-1] != ' ')
			space--;
		if (space <= text + 1) {
			*error = strdup("diff: a folded line without a count");
			return -1;
		}
		for (const char *p = space; p < line_end; p++)
			count = count > ((uint64_t)INT64_MAX - 9) / 10 ? (uint64_t)INT64_MAX :
									count * 10 + (uint64_t)(*p - '0');
		struct diff_entry *e = table_entry(&d->stacks, text, (size_t)(space - 1 - text));
		e->count[side] = add_capped(e->count[side], count);
		d->total[side] = add_capped(d->total[side], count);
		text = line_end + 1;
	}
	return 0;
}

/* Adds function id to the frames of the stack being split. */
static void add_frame(struct diff *d, struct diff_entry *stack, size_t id)
{
	pc_grow(&d->frames, &d->frames_cap, d->nframes + 1, sizeof(*d->frames));
	d->frames[d->nframes++] = (uint32_t)id;
	stack->depth++;
}

/* Self and inclusive counts per function, and each stack's functions, from the stacks. */
static void count_functions(struct diff *d)
{
	for (size_t s = 0; s < d->stacks.count; s++) {
		struct diff_entry *stack = &d->stacks.entries[s];
		const char *frame = stack->text, *end = stack->text + stack->len;

		stack->first = d->nframes;
		while (frame < end) {
			const char *semi = memchr(frame, ';', (size_t)(end - frame));
			const char *frame_end = semi ? semi : end;
			struct diff_entry *f = table_entry(&d->functions, frame,
							   (size_t)(frame_end - frame));

			add_frame(d, stack, (size_t)(f - d->functions.entries));
			if (f->last_stack != s + 1) { /* recursion counts once per stack */
				f->last_stack = s + 1;
				for (int side = 0; side < 2; side++)
					f->inclusive[side] = add_capped(f->inclusive[side],
									stack->count[side]);
			}
			if (!semi)
				for (int side = 0; side < 2; side++)
					f->count[side] = add_capped(f->count[side], stack->count[side]);
			frame = frame_end + 1;
		}
	}
}

static double share(uint64_t count, uint64_t total)
{
	return total ? 100.0 * (double)count / (double)total : 0.0;
}

static int compare_stacks(const void *ctx, uint32_t a, uint32_t b)
{
	const struct diff_entry *x = &((const struct diff_table *)ctx)->entries[a];
	const struct diff_entry *y = &((const struct diff_table *)ctx)->entries[b];
	int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static uint64_t change(const struct diff_entry *e)
{
	return e->count[1] > e->count[0] ? e->count[1] - e->count[0] : e->count[0] - e->count[1];
}

/* The change of self count, largest first (pprof -diff_base's order); then by name. */
static int compare_changes(const void *ctx, uint32_t a, uint32_t b)
{
	const struct diff *d = ctx;
	uint64_t x = change(&d->functions.entries[a]), y = change(&d->functions.entries[b]);

	if (x != y)
		return x > y ? -1 : 1;
	return compare_stacks(&d->functions, a, b);
}

static uint32_t *sorted(const void *ctx, size_t n, pc_index_compare_fn compare)
{
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	pc_sort_indices(ctx, order, n, compare);
	return order;
}

static void write_folded(const struct diff *d, FILE *out)
{
	uint32_t *order = sorted(&d->stacks, d->stacks.count, compare_stacks);

	for (size_t i = 0; i < d->stacks.count; i++) {
		const struct diff_entry *e = &d->stacks.entries[order[i]];

		fprintf(out, "%.*s %" PRIu64 " %" PRIu64 "\n", (int)e->len, e->text, e->count[0],
			e->count[1]);
	}
	free(order);
}

/* "2.00x", or "new" / "gone" when one side is 0. */
static void format_factor(char *buf, size_t size, double base, double now)
{
	if (base == 0 && now == 0)
		snprintf(buf, size, "-");
	else if (base == 0)
		snprintf(buf, size, "new");
	else if (now == 0)
		snprintf(buf, size, "gone");
	else
		snprintf(buf, size, "%.2fx", now / base);
}

static void write_report(const struct diff *d, const char *const names[2], size_t top,
			 FILE *out)
{
	uint32_t *order = sorted(d, d->functions.count, compare_changes);

	fprintf(out, "base: %s, total %" PRIu64 "\nnew:  %s, total %" PRIu64 "\n\n", names[0],
		d->total[0], names[1], d->total[1]);
	fprintf(out, "%8s %8s %9s %8s %8s %8s %8s  %s\n", "base%", "new%", "change", "count",
		"share", "base-inc", "new-inc", "function");
	for (size_t i = 0; i < d->functions.count && i < top; i++) {
		const struct diff_entry *f = &d->functions.entries[order[i]];
		double base = share(f->count[0], d->total[0]), now = share(f->count[1], d->total[1]);
		char counts[16], shares[16];

		format_factor(counts, sizeof(counts), (double)f->count[0], (double)f->count[1]);
		format_factor(shares, sizeof(shares), base, now);
		fprintf(out, "%7.2f%% %7.2f%% %+8.2fpt %8s %8s %7.2f%% %7.2f%%  %.*s\n", base, now,
			now - base, counts, shares, share(f->inclusive[0], d->total[0]),
			share(f->inclusive[1], d->total[1]), (int)f->len, f->text);
	}
	free(order);
}

/* The flame graph's view of the stacks: names are the functions' texts. */
static int write_svg(struct diff *d, const char *const labels[2], FILE *out)
{
	size_t nnames = d->functions.count, nstacks = d->stacks.count;
	struct pc_flamegraph_name *names = pc_xmalloc((nnames ? nnames : 1) * sizeof(*names));
	struct pc_flamegraph_diff_stack *stacks =
		pc_xmalloc((nstacks ? nstacks : 1) * sizeof(*stacks));
	struct pc_flamegraph_diff graph = {
		.names = names, .nnames = nnames, .stacks = stacks, .nstacks = nstacks,
		.labels = { labels[0], labels[1] }, .normalize = d->normalize,
	};
	int status;

	for (size_t i = 0; i < nnames; i++)
		names[i] = (struct pc_flamegraph_name){ d->functions.entries[i].text,
							d->functions.entries[i].len };
	for (size_t i = 0; i < nstacks; i++) {
		const struct diff_entry *e = &d->stacks.entries[i];

		stacks[i] = (struct pc_flamegraph_diff_stack){
			d->frames + e->first, e->depth, { e->count[0], e->count[1] },
		};
	}
	status = pc_flamegraph_svg_write_diff(&d->ctx, &graph, out);
	free(names);
	free(stacks);
	return status;
}

static void diff_release(struct diff *d)
{
	free(d->stacks.entries);
	free(d->functions.entries);
	free(d->frames);
	free(d->fold_options);
	pc_index_release(&d->stacks.index);
	pc_index_release(&d->functions.index);
	profconv_free(d->folded[0]);
	profconv_free(d->folded[1]);
}

static int write_output(struct diff *d, const char *const names[2], size_t top, FILE *out)
{
	switch (d->output) {
	case DIFF_REPORT:
		write_report(d, names, top, out);
		return 0;
	case DIFF_FOLDED:
		write_folded(d, out);
		return 0;
	case DIFF_SVG:
	default:
		return write_svg(d, names, out);
	}
}

/* Writes path whole or not at all; -1 with the error in d->ctx.err. */
static int write_out(struct diff *d, const char *path, const char *const names[2], size_t top)
{
	struct pc_output out;

	if (pc_output_open(&out, path, &d->ctx.err))
		return -1;
	if (write_output(d, names, top, out.fp)) {
		pc_output_abort(&out);
		return -1;
	}
	return pc_output_commit(&out, &d->ctx.err);
}

static int parse_format(struct diff *d, const char *format)
{
	if (!format || !strcmp(format, "report"))
		d->output = DIFF_REPORT;
	else if (!strcmp(format, "folded"))
		d->output = DIFF_FOLDED;
	else if (!strcmp(format, "svg"))
		d->output = DIFF_SVG;
	else
		return pc_fail(&d->ctx.err, PC_STATUS_USAGE,
			       "diff: writes folded, report or svg (-t folded, -t report, -t svg)");
	return 0;
}

/* Whether writer declares option name (len bytes, no NUL after them). */
static bool declares(const struct pc_writer *writer, const char *name, size_t len)
{
	for (const struct pc_option_spec *spec = writer->options; spec && spec->name; spec++)
		if (strlen(spec->name) == len && !memcmp(spec->name, name, len))
			return true;
	return false;
}

/* Whether option "name[=value]" is the picture's: the svg writer's, not the folded writer's. */
static bool is_svg_own(const char *option)
{
	size_t len = strcspn(option, "=");

	return declares(pc_writer_find("svg"), option, len) &&
	       !declares(pc_writer_find("folded"), option, len);
}

/* Sets option "name[=value]" of the svg writer in d->ctx (checked). */
static int take_svg_option(struct diff *d, const char *option)
{
	char name[64];
	size_t len = strcspn(option, "=");

	snprintf(name, sizeof(name), "%.*s", (int)len, option);
	return pc_option_apply(&d->ctx, NULL, pc_writer_find("svg"), name,
			       option[len] ? option + len + 1 : NULL);
}

/*
 * Sorts the caller's options: "no-normalize" (svg only) and the svg
 * writer's own into d; the rest, for folding both sides, into
 * d->fold_options (the folded writer refuses what it does not know).
 */
static int split_options(struct diff *d, const char *const *options)
{
	bool svg = d->output == DIFF_SVG;
	size_t n = 0, kept = 0;

	while (options && options[n])
		n++;
	d->fold_options = pc_xmalloc((n + 1) * sizeof(*d->fold_options));
	for (size_t i = 0; i < n; i++) {
		bool no_normalize = !strcmp(options[i], "no-normalize");

		if (no_normalize && !svg)
			return pc_fail(&d->ctx.err, PC_STATUS_USAGE,
				       "diff: --no-normalize is for the flame graph (-t svg)");
		if (no_normalize)
			d->normalize = false;
		else if (!svg || !is_svg_own(options[i]))
			d->fold_options[kept++] = options[i];
		else if (take_svg_option(d, options[i]))
			return -1;
	}
	d->fold_options[kept] = NULL;
	return 0;
}

/* Folds both sides as the folded writer does, joins their stacks, counts functions. */
static int fold_sides(struct diff *d, const profconv_profile *const sides[2], char **error)
{
	for (int side = 0; side < 2; side++)
		if (profconv_write_memory(sides[side], "folded", d->fold_options,
					  (void **)&d->folded[side], &d->size[side], error) ||
		    add_side(d, side, error))
			return -1;
	count_functions(d);
	return 0;
}

/* The message of d->ctx.err for *error; returns -1. */
static int give_error(const struct diff *d, char **error)
{
	char message[PC_ERROR_TEXT];

	pc_error_format(&d->ctx.err, message, sizeof(message));
	*error = strdup(message);
	return -1;
}

int profconv_diff_file(const profconv_profile *base, const profconv_profile *now,
		       const char *const names[2], const char *path, const char *format,
		       const char *const *options, size_t top, char **error)
{
	const profconv_profile *sides[2] = { base, now };
	struct diff d = { .normalize = true };
	int status = -1;

	*error = NULL;
	pc_ctx_init(&d.ctx);
	pc_index_init(&d.stacks.index);
	pc_index_init(&d.functions.index);
	if (parse_format(&d, format) || split_options(&d, options))
		status = give_error(&d, error);
	else if (fold_sides(&d, sides, error))
		status = -1;
	else if (write_out(&d, path, names, top ? top : DEFAULT_TOP))
		status = give_error(&d, error);
	else
		status = 0;
	diff_release(&d);
	return status;
}
