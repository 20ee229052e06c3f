/*
 * flamegraph_svg_writer.c - an interactive flame graph: one self-contained
 * SVG file (its style and a small script inside) that any browser opens.
 *
 * Source: the behaviour of Brendan Gregg's flamegraph.pl (FlameGraph's
 * README and --help, 2024) as its users know it: stacks merged root first
 * into a tree, one box per node as wide as its share of the total,
 * siblings sorted by name, names clipped to fit with "..", a tooltip
 * "NAME (N samples, P%)", click to zoom into a node (its ancestors drawn
 * full width and faded), "Reset Zoom", Ctrl-F or "Search" for a regular
 * expression that paints the matches and prints the share they cover
 * ("Matched: P%"), --title, --width, --minwidth (narrower nodes left out)
 * and --inverted (an icicle graph: roots at the top). No code of
 * flamegraph.pl or inferno is used: the layout, colours and script are
 * ours. There is no version: the output is SVG 1.1 with data-* attributes.
 *
 * What maps where:
 *   frames               -> the names the folded writer writes
 *                           (writers/folded_names.h: the function tidied
 *                           as stackcollapse-perf.pl does, else "[MODULE]",
 *                           with --addrs "[MODULE <ADDR>]"; an inline chain
 *                           "a->b" is two nodes), under a root frame with
 *                           the comm (--pid: comm-PID, --tid: comm-PID/TID)
 *                           when the sample has one, all under "all"; so
 *                           the graph is that of `profconv convert -t
 *                           folded | flamegraph.pl`
 *   the counted column   -> node widths: --event NAME as the folded writer
 *                           picks it, else the default column; the unit
 *                           in the tooltips is the column's unit, or for a
 *                           count "samples" (a samples column) or the event
 *                           name ("cycles" for perf's period sums)
 *   a node's colour      -> its kind, from the first frame that made the
 *                           node: JIT (a perf map /tmp/perf-PID.map, a
 *                           jitted-PID-N.so, a "[JIT]..." module; folded
 *                           names ending "_[j]") green; kernel (a kernel
 *                           module as the folded writer's --kernel sees it,
 *                           [kernel.kallsyms], *.ko, vmlinux; an address at
 *                           0xffff000000000000 or above; "_[k]") orange;
 *                           inlined (PC_FRAME_INLINE, the later parts of an
 *                           "a->b" chain, "_[i]") aqua; unknown (no
 *                           function; folded names "[...]") grey; anything
 *                           else warm, its hue a hash of the module's name
 *                           (of the frame's own name without a module), its
 *                           shade a hash of the name. Kinds are also the
 *                           class of each node's <g>: k, j, i, u, m, and r
 *                           for "all"
 * Each node is <g class data-x data-w> (data-x: its offset from the left
 * in the column's unit, data-w: its total) holding <title>, <rect> and
 * <text>; the script zooms and searches from those numbers, so zooming
 * loses no precision. Nodes narrower than --minwidth pixels (default 0.1;
 * "N%" for a share of the width) are left out with their descendants, and
 * counted in a comment; the picture is as tall as the deepest node drawn.
 *
 * A differential flame graph (writers/flamegraph_svg.h: `profconv diff
 * -t svg`, as flamegraph.pl draws difffolded.pl's "STACK BASE NEW" lines)
 * is drawn from folded stacks with a count in BASE and one in NEW, the
 * names as they are (kinds only from "_[k]"-style suffixes): each box as
 * wide as NEW's count (a node only in BASE is not drawn) and coloured by
 * its change, NEW's count less BASE's (BASE's scaled to NEW's total
 * unless normalize is off): white for none, towards red (grew) or blue
 * (shrank) in proportion to the largest change of a node but "all" (which
 * is coloured alike, at most full), a change under 1e-12 of NEW's total
 * counting as none. Unlike flamegraph.pl, which colours a frame by the
 * change of its self count, the change is that of the count its width
 * shows. Tooltips: "NAME (new N, P%; base B, Q%; +C%)", C the change
 * relative to BASE's (scaled) count, or "new"; without a unit, as folded
 * text carries none.
 *
 * Names are UTF-8 with invalid bytes, control characters and XML's
 * non-characters replaced by U+FFFD, then escaped (& < > " '). The output
 * is deterministic and depends only on the tree: nodes are written in
 * pre-order, children by name (bytewise).
 *
 * Memory follows the tree (at most the frames of the distinct samples);
 * every pass is linear but for two sorts, and none recurses, so a
 * 100,000-frame stack costs no C stack.
 *
 * What the format holds not, each said in one notice (never an error with
 * --strict): the other columns, labels other than comm, pid and tid.
 * Addresses, modules and branch stacks are noticed by the conversion as
 * parts this format cannot keep. What is lost, each with one warning (an
 * error with --strict): samples with neither a comm nor frames (not
 * drawn, nor counted in "all"); names with bytes written as U+FFFD
 * (invalid UTF-8, control characters, U+FFFE/FFFF; NUL, CR and LF as the
 * folded names have them).
 */
#include "writers/flamegraph_svg.h"
#include "writers/folded_names.h"
#include "base/sort.h"
#include "base/utf8.h"

#include <math.h>

#define SVG "svg"

/* Geometry, in pixels. */
#define XPAD 10                  /* left and right margins */
#define TOP_PAD 40               /* title and buttons */
#define BOTTOM_PAD 36            /* the details line */
#define FRAME_HEIGHT 16          /* a level, box and gap */
#define BOX_HEIGHT 15
#define FONT_SIZE 12
#define CHAR_WIDTH 7.08          /* the width assumed of a character: 0.59 em */
#define TEXT_PAD 3               /* text inset in its box */
#define DEFAULT_WIDTH 1200
#define MIN_WIDTH 100
#define DEFAULT_MINWIDTH 0.1

#define ROOT_NAME UINT32_MAX /* the name of "all" */

enum fg_kind {
	FG_ROOT,
	FG_MODULE,
	FG_KERNEL,
	FG_JIT,
	FG_INLINED,
	FG_UNKNOWN,
};

static const char *const kind_class[] = {
	[FG_ROOT] = "r", [FG_MODULE] = "m", [FG_KERNEL] = "k",
	[FG_JIT] = "j",  [FG_INLINED] = "i", [FG_UNKNOWN] = "u",
};

/* A distinct path of names from the root. Node 0 is "all". */
struct fg_node {
	uint64_t total; /* in the column's unit (a diff: NEW's count) */
	uint64_t base;  /* a diff: BASE's count */
	uint64_t x;     /* from the left, once laid out */
	uint32_t parent, name, depth;
	uint32_t hue; /* a hash of the module's name (FG_MODULE) */
	uint8_t kind;
};

/* A node looked up among its parent's children. */
struct fg_key {
	uint32_t parent, name;
};

struct fg_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m; /* NULL for a diff */
	size_t column;
	struct pc_folded_names names;
	const struct pc_flamegraph_diff *diff; /* NULL but for a differential graph */
	double max_change;                      /* a diff: the largest of a node but the root */

	struct fg_node *nodes;
	size_t nnodes, nodes_cap;
	struct pc_index children; /* node id + 1 by (parent, name) */
	uint64_t rootless;

	/* the picture */
	unsigned width;
	double minwidth, scale; /* scale: pixels per unit of the column */
	bool inverted;
	uint32_t max_depth; /* of the nodes drawn */
	FILE *out;
};

/* ---- the tree ---- */

static uint64_t key_hash(uint32_t parent, uint32_t name)
{
	return pc_hash_u64((uint64_t)parent << 32 | name);
}

static bool node_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct fg_writer *w = ctx;
	const struct fg_key *key = key_ptr;
	const struct fg_node *node = &w->nodes[id - 1];

	return node->parent == key->parent && node->name == key->name;
}

/* The bytes of name id (no NUL after them): a folded name, or a diff's. */
static const char *name_text(const struct fg_writer *w, uint32_t id, size_t *len)
{
	if (w->diff) {
		*len = w->diff->names[id].len;
		return w->diff->names[id].text;
	}
	return pc_folded_name(&w->names, id, len);
}

static size_t name_count(const struct fg_writer *w)
{
	return w->diff ? w->diff->nnames : w->names.nnames;
}

static bool has_suffix(const char *s, size_t n, const char *suffix)
{
	size_t len = strlen(suffix);

	return n >= len && !memcmp(s + n - len, suffix, len);
}

/* The kind of a name that carries no frame details (folded input, a comm). */
static enum fg_kind kind_of_name(const char *s, size_t n)
{
	if (has_suffix(s, n, "_[k]"))
		return FG_KERNEL;
	if (has_suffix(s, n, "_[j]"))
		return FG_JIT;
	if (has_suffix(s, n, "_[i]"))
		return FG_INLINED;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		return FG_UNKNOWN;
	return FG_MODULE;
}

/* Kind and hue of part `part` of model frame `frame` (0: a root frame). */
static enum fg_kind kind_of(const struct fg_writer *w, uint32_t frame_id, size_t part,
			    const char *name, size_t name_len, uint32_t *hue)
{
	const struct pc_frame *frame = frame_id ? pc_model_frame(w->m, frame_id) : NULL;
	const char *module = "";
	size_t module_len = 0;

	*hue = (uint32_t)pc_hash_bytes(name, name_len, 0xf1a3e);
	if (frame && frame->module) {
		pc_str_id id = pc_model_module(w->m, frame->module)->name;

		module = pc_str(w->m, id);
		module_len = pc_str_len(w->m, id);
	}
	if (module_len && (pc_folded_is_jit_module(module, module_len) ||
			   (module_len >= 5 && !memcmp(module, "[JIT]", 5))))
		return FG_JIT;
	if (module_len && pc_folded_is_kernel_module(module, module_len))
		return FG_KERNEL;
	if (frame && (frame->flags & PC_FRAME_HAS_ADDRESS) &&
	    frame->address >= 0xffff000000000000ull)
		return FG_KERNEL;
	if (frame && (part || (frame->flags & PC_FRAME_INLINE)))
		return FG_INLINED;
	if (frame && !frame->function)
		return FG_UNKNOWN;
	if (module_len) {
		*hue = (uint32_t)pc_hash_bytes(module, module_len, 0xf1a3e);
		return FG_MODULE;
	}
	return kind_of_name(name, name_len);
}

/* The child of parent named `name`, made (with its kind) when new. */
static uint32_t child_of(struct fg_writer *w, uint32_t parent, uint32_t name, uint32_t frame,
			 size_t part)
{
	struct fg_key key = { parent, name };
	uint64_t hash = key_hash(parent, name);
	uint32_t id = pc_index_find(&w->children, hash, node_equal, w, &key);
	struct fg_node *node;
	size_t name_len;
	const char *text;

	if (id)
		return id - 1;
	if (w->nnodes >= UINT32_MAX - 1)
		pc_die_oom(w->nnodes);
	pc_grow(&w->nodes, &w->nodes_cap, w->nnodes + 1, sizeof(*w->nodes));
	node = &w->nodes[w->nnodes];
	text = name_text(w, name, &name_len);
	*node = (struct fg_node){
		.parent = parent,
		.name = name,
		.depth = w->nodes[parent].depth + 1,
	};
	node->kind = (uint8_t)kind_of(w, frame, part, text, name_len, &node->hue);
	pc_index_add(&w->children, hash, (uint32_t)(w->nnodes + 1));
	return (uint32_t)w->nnodes++;
}

/* Adds a sample's count along its path, root first. */
static int add_sample(struct fg_writer *w, const struct pc_sample *sample, uint64_t count)
{
	bool java;
	uint32_t root = pc_folded_names_root(&w->names, sample->labels, &java);
	size_t n, depth = 0;
	const uint32_t *frames = pc_model_stack(w->m, sample->stack, &n);
	uint32_t at = 0;

	if (root) {
		at = child_of(w, at, root - 1, 0, 0);
		w->nodes[at].total += count;
		depth++;
	}
	for (size_t i = n; i > 0; i--) {
		size_t nnames;
		const uint32_t *names = pc_folded_names_frame(&w->names, frames[i - 1], java, &nnames);

		for (size_t part = 0; part < nnames; part++) {
			at = child_of(w, at, names[part], frames[i - 1], part);
			w->nodes[at].total += count;
			depth++;
		}
	}
	if (!depth) {
		w->rootless++;
		return 0;
	}
	/* every node's total is at most the root's */
	if (w->nodes[0].total > PC_COUNT_MAX - count) /* every writer's total fits in int64 */
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "the counts of column '%s' add up to more than 2^63-1",
			       pc_str(w->m, pc_model_column(w->m, w->column)->type));
	w->nodes[0].total += count;
	return 0;
}

/* The tree of "all" alone. */
static void plant_root(struct fg_writer *w)
{
	pc_grow(&w->nodes, &w->nodes_cap, 1, sizeof(*w->nodes));
	w->nodes[0] = (struct fg_node){ .name = ROOT_NAME, .kind = FG_ROOT };
	w->nnodes = 1;
}

static int build_tree(struct fg_writer *w)
{
	const struct pc_model *m = w->m;

	plant_root(w);
	for (size_t i = 0; i < pc_model_nsamples(m) && pc_model_ncolumns(m); i++) {
		uint64_t count = pc_model_values(m, i)[w->column];

		if (count && add_sample(w, pc_model_sample(m, i), count))
			return -1;
	}
	pc_index_release(&w->children);
	return 0;
}

/* Adds a diff's stack along its path, root first: NEW's count and BASE's. */
static int add_diff_stack(struct fg_writer *w, const struct pc_flamegraph_diff_stack *stack)
{
	struct fg_node *all = &w->nodes[0];
	uint32_t at = 0;

	if (!stack->nframes)
		return 0; /* drawn nowhere, so counted nowhere */
	/* every node's counts are at most the root's */
	if (all->total > PC_COUNT_MAX - stack->count[1] || all->base > PC_COUNT_MAX - stack->count[0])
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "the counts of a diff add up to more than 2^63-1");
	all->total += stack->count[1];
	all->base += stack->count[0];
	for (size_t i = 0; i < stack->nframes; i++) {
		at = child_of(w, at, stack->frames[i], 0, 0);
		w->nodes[at].total += stack->count[1];
		w->nodes[at].base += stack->count[0];
	}
	return 0;
}

static int build_diff_tree(struct fg_writer *w)
{
	plant_root(w);
	for (size_t i = 0; i < w->diff->nstacks; i++)
		if (add_diff_stack(w, &w->diff->stacks[i]))
			return -1;
	pc_index_release(&w->children);
	return 0;
}

/* ---- order: children by name ---- */

static int compare_names(const void *ctx, uint32_t a, uint32_t b)
{
	const struct fg_writer *w = ctx;
	size_t alen, blen;
	const char *x = name_text(w, a, &alen), *y = name_text(w, b, &blen);
	int diff = memcmp(x, y, alen < blen ? alen : blen);

	return diff ? diff : (alen > blen) - (alen < blen);
}

/*
 * The nodes but the root grouped by parent (ascending), each group in name
 * order; first[p] is where p's children start in it, count[p] how many.
 */
static uint32_t *order_children(const struct fg_writer *w, uint32_t *first, uint32_t *count)
{
	size_t n = w->nnodes - 1, nnames = name_count(w);
	uint32_t *by_name = pc_xmalloc((nnames ? nnames : 1) * sizeof(*by_name));
	uint32_t *rank = pc_xmalloc((nnames ? nnames : 1) * sizeof(*rank));
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));
	uint64_t *keys = pc_xmalloc((n ? n : 1) * sizeof(*keys));

	for (size_t i = 0; i < nnames; i++)
		by_name[i] = (uint32_t)i;
	pc_sort_indices(w, by_name, nnames, compare_names);
	for (size_t i = 0; i < nnames; i++)
		rank[by_name[i]] = (uint32_t)i;
	for (size_t i = 0; i < n; i++) {
		const struct fg_node *node = &w->nodes[i + 1];

		order[i] = (uint32_t)(i + 1);
		keys[i] = (uint64_t)node->parent << 32 | rank[node->name];
	}
	pc_sort_by_keys(order, keys, n);
	for (size_t i = n; i > 0; i--) {
		uint32_t parent = w->nodes[order[i - 1]].parent;

		first[parent] = (uint32_t)(i - 1);
		count[parent]++;
	}
	free(by_name);
	free(rank);
	free(keys);
	return order;
}

/* ---- text ---- */

/*
 * The bytes of the character at s (at least 1); *ok is false when it is
 * written as U+FFFD: a byte that starts no valid UTF-8 character (one
 * byte each), a control character (even tab and newline) or U+FFFE/FFFF,
 * which XML does not allow.
 */
static size_t xml_char(const unsigned char *s, size_t avail, bool *ok)
{
	size_t len = pc_utf8_char_len(s, avail);

	*ok = len && !(len == 1 && s[0] < 0x20) &&
	      !(len == 3 && s[0] == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf));
	return len ? len : 1;
}

/* Characters (repaired) in s[0, n). */
static size_t count_chars(const char *s, size_t n)
{
	size_t chars = 0;
	bool ok;

	for (size_t i = 0; i < n; chars++)
		i += xml_char((const unsigned char *)s + i, n - i, &ok);
	return chars;
}

/* Writes up to max characters of s[0, n), repaired and escaped for XML. */
static void put_xml(FILE *out, const char *s, size_t n, size_t max)
{
	for (size_t i = 0, chars = 0; i < n && chars < max; chars++) {
		bool ok;
		size_t len = xml_char((const unsigned char *)s + i, n - i, &ok);

		if (!ok) {
			fputs("\xef\xbf\xbd", out);
		} else {
			switch (s[i]) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&#39;", out); break;
			default: fwrite(s + i, 1, len, out); break;
			}
		}
		i += len;
	}
}

static void put_xml_cstr(FILE *out, const char *s)
{
	put_xml(out, s, strlen(s), SIZE_MAX);
}

/*
 * The name as it fits in a box `pixels` wide (the script's fit() does the
 * same after a zoom): whole, cut with "..", or nothing when fewer than 3
 * characters would fit.
 */
static void put_fitted(FILE *out, const char *s, size_t n, double pixels)
{
	double room = (pixels - 2 * TEXT_PAD) / CHAR_WIDTH;
	size_t fits = room > 0 ? (size_t)room : 0, chars = count_chars(s, n);

	if (chars <= fits) {
		put_xml(out, s, n, chars);
	} else if (fits >= 3) {
		put_xml(out, s, n, fits - 2);
		fputs("..", out);
	}
}

/* 1234567 as "1,234,567". */
static void put_count(FILE *out, uint64_t value)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)value);

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputc(',', out);
		fputc(digits[i], out);
	}
}

/* What the column's values are called in the tooltips; NULL for a diff (folded text has none). */
static const char *unit_word(const struct fg_writer *w)
{
	const struct pc_column *column;
	const char *unit;

	if (w->diff)
		return NULL;
	if (!pc_model_ncolumns(w->m))
		return "samples";
	column = pc_model_column(w->m, w->column);
	unit = pc_str(w->m, column->unit);
	if (*unit && strcmp(unit, "count"))
		return unit;
	if (column->role == PC_ROLE_SAMPLES || !strcmp(pc_str(w->m, column->type), "samples"))
		return "samples";
	if (column->event && pc_str_len(w->m, column->event))
		return pc_str(w->m, column->event);
	return pc_str(w->m, column->type);
}

/* ---- colours ---- */

static unsigned bits(uint32_t hash, unsigned shift, unsigned range)
{
	return (hash >> shift) % range;
}

/* rgb() of a node: by kind, warm by module hue, shaded by its name. */
static void put_colour(FILE *out, const struct fg_node *node, uint32_t shade)
{
	unsigned r, g, b;

	switch ((enum fg_kind)node->kind) {
	case FG_ROOT:
		r = 232, g = 208, b = 164;
		break;
	case FG_KERNEL: /* orange */
		r = 226 + bits(shade, 0, 28), g = 112 + bits(shade, 8, 28), b = 16 + bits(shade, 16, 32);
		break;
	case FG_JIT: /* green */
		r = 64 + bits(shade, 0, 56), g = 182 + bits(shade, 8, 56), b = 56 + bits(shade, 16, 48);
		break;
	case FG_INLINED: /* aqua */
		r = 64 + bits(shade, 0, 48), g = 192 + bits(shade, 8, 48), b = 192 + bits(shade, 16, 48);
		break;
	case FG_UNKNOWN: /* grey */
		r = g = b = 172 + bits(shade, 0, 32);
		break;
	case FG_MODULE:
	default: {
		/* red to yellow, skipping the kernel's orange (green 96-149) */
		unsigned hue = bits(node->hue, 0, 168);
		int green = (int)(hue < 96 ? hue : hue + 54) + (int)bits(shade, 8, 17) - 8;

		r = 206 + bits(node->hue, 8, 50);
		g = green < 0 ? 0 : (unsigned)green;
		b = bits(node->hue, 16, 40) + bits(shade, 16, 16);
		break;
	}
	}
	fprintf(out, "rgb(%u,%u,%u)", r, g, b);
}

/* ---- a differential graph's changes ---- */

/* BASE's count of node, scaled to NEW's total unless the diff says not to (or one is 0). */
static double scaled_base(const struct fg_writer *w, const struct fg_node *node)
{
	const struct fg_node *all = &w->nodes[0];

	if (!w->diff->normalize || !all->base || !all->total)
		return (double)node->base;
	return (double)node->base * (double)all->total / (double)all->base;
}

/* NEW's count less BASE's (scaled); none under 1e-12 of NEW's total (rounding). */
static double node_change(const struct fg_writer *w, const struct fg_node *node)
{
	double change = (double)node->total - scaled_base(w, node);

	return fabs(change) < 1e-12 * (double)w->nodes[0].total ? 0.0 : change;
}

/* The largest change of a node but the root: the full colours. */
static void measure_changes(struct fg_writer *w)
{
	for (size_t i = 1; i < w->nnodes; i++)
		w->max_change = fmax(w->max_change, fabs(node_change(w, &w->nodes[i])));
}

/*
 * rgb() of a change, as flamegraph.pl colours differential graphs: white
 * for none, red for growth, blue for shrinkage, saturated in proportion
 * to the largest change (full there).
 */
static void put_change_colour(FILE *out, double change, double largest)
{
	double ratio = largest > 0 ? fmin(fabs(change) / largest, 1.0) : 0.0;
	unsigned faded = 255 - (unsigned)lround(255.0 * ratio);

	if (change > 0)
		fprintf(out, "rgb(255,%u,%u)", faded, faded);
	else
		fprintf(out, "rgb(%u,%u,255)", faded, faded);
}

/* ---- the picture ---- */

static double node_pixels(const struct fg_writer *w, const struct fg_node *node)
{
	return (double)node->total * w->scale;
}

static unsigned picture_height(const struct fg_writer *w)
{
	return TOP_PAD + (w->max_depth + 1) * FRAME_HEIGHT + BOTTOM_PAD;
}

static double node_y(const struct fg_writer *w, uint32_t depth)
{
	if (w->inverted)
		return TOP_PAD + (double)depth * FRAME_HEIGHT;
	return picture_height(w) - BOTTOM_PAD - (double)(depth + 1) * FRAME_HEIGHT;
}

/* "N UNIT", or for a diff "N" */
static void put_amount(const struct fg_writer *w, uint64_t count)
{
	const char *unit = unit_word(w);

	put_count(w->out, count);
	if (unit) {
		fputc(' ', w->out);
		put_xml_cstr(w->out, unit);
	}
}

/* "N UNIT, P%": count and its share of total. */
static void put_share(const struct fg_writer *w, uint64_t count, uint64_t total)
{
	put_amount(w, count);
	fprintf(w->out, ", %.2f%%", total ? (double)count * 100.0 / (double)total : 0.0);
}

/* A diff's "; base B, Q%; +C%": C relative to BASE's scaled count, or "new". */
static void put_change(const struct fg_writer *w, const struct fg_node *node)
{
	double base = scaled_base(w, node);

	fputs("; base ", w->out);
	put_share(w, node->base, w->nodes[0].base);
	if (base > 0)
		fprintf(w->out, "; %+.2f%%", node_change(w, node) * 100.0 / base);
	else if (node->total)
		fputs("; new", w->out);
}

/* The tooltip: "NAME (N UNIT, P%)", for a diff "NAME (new N, P%; base B, Q%; +C%)". */
static void put_tooltip(const struct fg_writer *w, const struct fg_node *node, const char *name,
			size_t name_len)
{
	fputs("<title>", w->out);
	put_xml(w->out, name, name_len, SIZE_MAX);
	fputs(w->diff ? " (new " : " (", w->out);
	put_share(w, node->total, w->nodes[0].total);
	if (w->diff)
		put_change(w, node);
	fputs(")</title>", w->out);
}

static void put_node(struct fg_writer *w, const struct fg_node *node)
{
	const char *name = "all";
	size_t name_len = 3;
	double x = XPAD + (double)node->x * w->scale, width = node_pixels(w, node);
	double y = node_y(w, node->depth);
	FILE *out = w->out;

	if (node->name != ROOT_NAME)
		name = name_text(w, node->name, &name_len);
	fprintf(out, "<g class=\"%s\" data-x=\"%llu\" data-w=\"%llu\">", kind_class[node->kind],
		(unsigned long long)node->x, (unsigned long long)node->total);
	put_tooltip(w, node, name, name_len);
	fprintf(out, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"", x, y,
		width, BOX_HEIGHT);
	if (w->diff)
		put_change_colour(out, node_change(w, node), w->max_change);
	else
		put_colour(out, node, (uint32_t)pc_hash_bytes(name, name_len, 0x5ade));
	fprintf(out, "\" rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">", x + TEXT_PAD, y + 10.5);
	put_fitted(out, name, name_len, width);
	fputs("</text></g>\n", out);
}

/*
 * Whether a node is drawn: counted (a diff's may be BASE's alone) and at
 * least minwidth wide; the root always is.
 */
static bool is_drawn(const struct fg_writer *w, const struct fg_node *node)
{
	return node == w->nodes || (node->total && node_pixels(w, node) >= w->minwidth);
}

struct fg_visit {
	uint32_t node, next, end; /* children order[next, end) still to visit */
	uint64_t x;               /* where the next child starts */
};

/* Lays the nodes out and writes those drawn, in pre-order, without recursion. */
static void put_nodes(struct fg_writer *w, const uint32_t *order, const uint32_t *first,
		      const uint32_t *count)
{
	struct fg_visit *stack = pc_xmalloc((w->max_depth + 2) * sizeof(*stack));
	size_t depth = 1;

	w->nodes[0].x = 0;
	put_node(w, &w->nodes[0]);
	stack[0] = (struct fg_visit){ 0, first[0], first[0] + count[0], 0 };
	while (depth) {
		struct fg_visit *top = &stack[depth - 1];
		struct fg_node *child;

		if (top->next == top->end) {
			depth--;
			continue;
		}
		child = &w->nodes[order[top->next++]];
		child->x = top->x;
		top->x += child->total;
		if (!is_drawn(w, child))
			continue; /* nor are its descendants: none is wider */
		put_node(w, child);
		stack[depth++] = (struct fg_visit){ (uint32_t)(child - w->nodes), first[child - w->nodes],
						    first[child - w->nodes] + count[child - w->nodes],
						    child->x };
	}
	free(stack);
}

static const char style[] =
	"<style type=\"text/css\">\n"
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; }\n"
	"#fg-title { font-size: 17px; }\n"
	"#fg-subtitle, #fg-details, #fg-matched { fill: #444; }\n"
	"#fg-unzoom, #fg-search { cursor: pointer; fill: #338; }\n"
	"#fg-frames g { cursor: pointer; }\n"
	"#fg-frames g:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	"#fg-frames text { pointer-events: none; }\n"
	".fg-hide { display: none; }\n"
	".fg-parent { opacity: 0.5; }\n"
	"</style>\n";

/*
 * The script: zoom on click, search (Ctrl-F, "Search"), details on hover.
 * fg_zoom(g), fg_unzoom(), fg_search(re) and fg_clear() are global for
 * tests and for the page around an embedded graph.
 */
static const char *const script[] = {
	"(function () {\n",
	"\"use strict\";\n",
	"var doc = document, frames = doc.getElementById(\"fg-frames\");\n",
	"var details = doc.getElementById(\"fg-details\"), matched = doc.getElementById(\"fg-matched\");\n",
	"var unzoomButton = doc.getElementById(\"fg-unzoom\"), searchButton = doc.getElementById(\"fg-search\");\n",
	"var nodes = [], byGroup = new Map(), term = null;\n",
	"var groups = frames.getElementsByTagName(\"g\");\n",
	"for (var i = 0; i < groups.length; i++) {\n",
	"  var g = groups[i], rect = g.getElementsByTagName(\"rect\")[0];\n",
	"  var label = g.getElementsByTagName(\"title\")[0].textContent;\n",
	"  var node = { g: g, rect: rect, text: g.getElementsByTagName(\"text\")[0],\n",
	"    name: label.substring(0, label.lastIndexOf(\" (\")), label: label,\n",
	"    x: Number(g.getAttribute(\"data-x\")), w: Number(g.getAttribute(\"data-w\")),\n",
	"    y: Number(rect.getAttribute(\"y\")), fill: rect.getAttribute(\"fill\"),\n",
	"    root: g.getAttribute(\"class\") === \"r\" };\n",
	"  /* as written: put back by Reset Zoom */\n",
	"  node.drawn = [rect.getAttribute(\"x\"), rect.getAttribute(\"width\"),\n",
	"    node.text.getAttribute(\"x\"), node.text.textContent];\n",
	"  nodes.push(node);\n",
	"  byGroup.set(g, node);\n",
	"}\n",
	"var all = nodes.length ? nodes[0].w : 0;\n",
	"function deeper(a, b) { return FG.inverted ? a.y > b.y : a.y < b.y; }\n",
	"function fit(name, pixels) {\n",
	"  var room = Math.floor((pixels - 2 * FG.textPad) / FG.charWidth), chars = Array.from(name);\n",
	"  if (chars.length <= Math.max(room, 0)) return name;\n",
	"  return room >= 3 ? chars.slice(0, room - 2).join(\"\") + \"..\" : \"\";\n",
	"}\n",
	"function place(node, x, width) {\n",
	"  node.rect.setAttribute(\"x\", x.toFixed(2));\n",
	"  node.rect.setAttribute(\"width\", width.toFixed(2));\n",
	"  node.text.setAttribute(\"x\", (x + FG.textPad).toFixed(2));\n",
	"  node.text.textContent = fit(node.name, width);\n",
	"}\n",
	"function zoom(z) {\n",
	"  var scale = FG.usable / z.w;\n",
	"  nodes.forEach(function (n) {\n",
	"    var inside = n.x >= z.x && n.x + n.w <= z.x + z.w;\n",
	"    var around = n.x <= z.x && n.x + n.w >= z.x + z.w;\n",
	"    if (n === z || (around && deeper(z, n))) {\n",
	"      place(n, FG.xpad, FG.usable);\n",
	"      n.g.classList.remove(\"fg-hide\");\n",
	"      n.g.classList.toggle(\"fg-parent\", n !== z);\n",
	"    } else if (inside && deeper(n, z)) {\n",
	"      place(n, FG.xpad + (n.x - z.x) * scale, n.w * scale);\n",
	"      n.g.classList.remove(\"fg-hide\", \"fg-parent\");\n",
	"    } else {\n",
	"      n.g.classList.add(\"fg-hide\");\n",
	"    }\n",
	"  });\n",
	"  unzoomButton.classList.toggle(\"fg-hide\", z.root);\n",
	"}\n",
	"function unzoom() {\n",
	"  nodes.forEach(function (n) {\n",
	"    n.rect.setAttribute(\"x\", n.drawn[0]);\n",
	"    n.rect.setAttribute(\"width\", n.drawn[1]);\n",
	"    n.text.setAttribute(\"x\", n.drawn[2]);\n",
	"    n.text.textContent = n.drawn[3];\n",
	"    n.g.classList.remove(\"fg-hide\", \"fg-parent\");\n",
	"  });\n",
	"  unzoomButton.classList.add(\"fg-hide\");\n",
	"}\n",
	"function paint() {\n",
	"  var re = null, hits = [], covered = 0, end = -1;\n",
	"  if (term !== null) {\n",
	"    try { re = new RegExp(term); }\n",
	"    catch (e) { re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, \"\\\\$&\")); }\n",
	"  }\n",
	"  nodes.forEach(function (n) {\n",
	"    var hit = re !== null && !n.root && re.test(n.name);\n",
	"    n.rect.setAttribute(\"fill\", hit ? FG.highlight : n.fill);\n",
	"    n.g.classList.toggle(\"fg-match\", hit);\n",
	"    if (hit) hits.push(n);\n",
	"  });\n",
	"  hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });\n",
	"  hits.forEach(function (n) { if (n.x >= end) { covered += n.w; end = n.x + n.w; } });\n",
	"  matched.textContent = re === null ? \"\" : \"Matched: \" +\n",
	"    (all ? covered * 100 / all : 0).toFixed(2) + \"%\";\n",
	"  searchButton.textContent = re === null ? \"Search\" : \"Reset Search\";\n",
	"  return { nodes: hits.length, covered: covered, percent: all ? covered * 100 / all : 0 };\n",
	"}\n",
	"function search(expression) { term = expression === \"\" ? null : String(expression); return paint(); }\n",
	"function clear() { term = null; return paint(); }\n",
	"function ask() {\n",
	"  var answer = window.prompt(\"Search for (a regular expression):\", term === null ? \"\" : term);\n",
	"  if (answer !== null) search(answer);\n",
	"}\n",
	"frames.addEventListener(\"click\", function (e) {\n",
	"  var g = e.target.closest(\"g\"), node = g && byGroup.get(g);\n",
	"  if (node) zoom(node);\n",
	"});\n",
	"frames.addEventListener(\"mouseover\", function (e) {\n",
	"  var g = e.target.closest(\"g\"), node = g && byGroup.get(g);\n",
	"  details.textContent = node ? node.label : \" \";\n",
	"});\n",
	"frames.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n",
	"unzoomButton.addEventListener(\"click\", unzoom);\n",
	"searchButton.addEventListener(\"click\", function () { if (term === null) ask(); else clear(); });\n",
	"window.addEventListener(\"keydown\", function (e) {\n",
	"  if ((e.ctrlKey || e.metaKey) && (e.key === \"f\" || e.key === \"F\")) { e.preventDefault(); ask(); }\n",
	"  else if (e.key === \"Escape\") clear();\n",
	"});\n",
	"window.fg_zoom = function (g) { var node = byGroup.get(g); if (node) zoom(node); };\n",
	"window.fg_unzoom = unzoom;\n",
	"window.fg_search = search;\n",
	"window.fg_clear = clear;\n",
	"})();\n",
	NULL,
};

/* "[TYPE: ]N UNIT": the column and its total. */
static void put_column_total(const struct fg_writer *w)
{
	const struct pc_model *m = w->m;

	if (pc_model_ncolumns(m) && strcmp(pc_str(m, pc_model_column(m, w->column)->type),
					   unit_word(w))) {
		put_xml_cstr(w->out, pc_str(m, pc_model_column(m, w->column)->type));
		fputs(": ", w->out);
	}
	put_amount(w, w->nodes[0].total);
}

/* "NEW: N against BASE: B (scaled to N); red grew, blue shrank" */
static void put_diff_totals(const struct fg_writer *w)
{
	const struct fg_node *all = &w->nodes[0];
	FILE *out = w->out;

	put_xml_cstr(out, w->diff->labels[1] ? w->diff->labels[1] : "NEW");
	fputs(": ", out);
	put_count(out, all->total);
	fputs(" against ", out);
	put_xml_cstr(out, w->diff->labels[0] ? w->diff->labels[0] : "BASE");
	fputs(": ", out);
	put_count(out, all->base);
	if (w->diff->normalize && all->base && all->total) {
		fputs(" (scaled to ", out);
		put_count(out, all->total);
		fputc(')', out);
	}
	fputs("; red grew, blue shrank", out);
}

static const char *default_title(const struct fg_writer *w)
{
	if (w->diff)
		return w->inverted ? "Differential Icicle Graph" : "Differential Flame Graph";
	return w->inverted ? "Icicle Graph" : "Flame Graph";
}

static void put_header(struct fg_writer *w, size_t omitted)
{
	const char *title = pc_option_text(w->ctx, "title");
	unsigned height = picture_height(w);
	FILE *out = w->out;

	if (!title)
		title = default_title(w);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	fprintf(out, "<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", w->width, height, w->width, height);
	fputs("<!-- a flame graph written by profconv", out);
	if (omitted)
		fprintf(out, "; %zu nodes narrower than %g pixels are not drawn", omitted, w->minwidth);
	fputs(" -->\n<title>", out);
	put_xml_cstr(out, title);
	fputs("</title>\n", out);
	fputs(style, out);
	fputs("<defs><linearGradient id=\"fg-background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop offset=\"0%\" stop-color=\"#f6f6f6\"/><stop offset=\"100%\" "
	      "stop-color=\"#eeeed6\"/></linearGradient></defs>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"url(#fg-background)\"/>\n",
		w->width, height);
	fprintf(out, "<text id=\"fg-title\" x=\"%.1f\" y=\"20\" text-anchor=\"middle\">",
		w->width / 2.0);
	put_xml_cstr(out, title);
	fprintf(out, "</text>\n<text id=\"fg-subtitle\" x=\"%.1f\" y=\"34\" text-anchor=\"middle\">",
		w->width / 2.0);
	if (w->diff)
		put_diff_totals(w);
	else
		put_column_total(w);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"fg-unzoom\" class=\"fg-hide\" x=\"%d\" y=\"20\">Reset Zoom</text>\n",
		XPAD);
	fprintf(out, "<text id=\"fg-search\" x=\"%u\" y=\"20\" text-anchor=\"end\">Search</text>\n",
		w->width - XPAD);
	fprintf(out, "<text id=\"fg-details\" x=\"%d\" y=\"%u\"> </text>\n", XPAD, height - 14);
	fprintf(out, "<text id=\"fg-matched\" x=\"%u\" y=\"%u\" text-anchor=\"end\"> </text>\n",
		w->width - XPAD, height - 14);
}

static void put_script(struct fg_writer *w)
{
	fprintf(w->out, "<script type=\"text/ecmascript\"><![CDATA[\n"
		"var FG = { xpad: %d, usable: %u, textPad: %d, charWidth: %g, inverted: %s, "
		"highlight: \"rgb(230,0,230)\" };\n", XPAD, w->width - 2 * XPAD, TEXT_PAD,
		CHAR_WIDTH, w->inverted ? "true" : "false");
	for (size_t i = 0; script[i]; i++)
		fputs(script[i], w->out);
	fputs("]]></script>\n", w->out);
}

static void write_picture(struct fg_writer *w)
{
	uint32_t *first = pc_xcalloc(w->nnodes, sizeof(*first));
	uint32_t *count = pc_xcalloc(w->nnodes, sizeof(*count));
	uint32_t *order = order_children(w, first, count);
	uint64_t all = w->nodes[0].total;
	size_t drawable = 0;

	w->scale = all ? (double)(w->width - 2 * XPAD) / (double)all : 0;
	for (size_t i = 0; i < w->nnodes; i++) {
		if (!is_drawn(w, &w->nodes[i]))
			continue;
		drawable++;
		if (w->nodes[i].depth > w->max_depth)
			w->max_depth = w->nodes[i].depth;
	}
	put_header(w, w->nnodes - drawable);
	fputs("<g id=\"fg-frames\">\n", w->out);
	put_nodes(w, order, first, count);
	fputs("</g>\n", w->out);
	put_script(w);
	fputs("</svg>\n", w->out);
	free(first);
	free(count);
	free(order);
}

/* ---- options and the run ---- */

/* --minwidth PIXELS or PERCENT% (of the width drawn on). */
static int parse_minwidth(struct fg_writer *w)
{
	const char *text = pc_option_text(w->ctx, "minwidth");
	char *end;
	double value;

	w->minwidth = DEFAULT_MINWIDTH;
	if (!text)
		return 0;
	value = strtod(text, &end);
	if (end == text || value < 0 || value != value || value > 1e9 ||
	    (*end && strcmp(end, "%")))
		return pc_fail(&w->ctx->err, PC_STATUS_USAGE,
			       "--minwidth takes pixels (such as 0.1) or a percentage of the "
			       "width (such as 0.5%%), not '%s'", text);
	w->minwidth = *end == '%' ? value / 100.0 * (w->width - 2 * XPAD) : value;
	return 0;
}

static int parse_options(struct fg_writer *w)
{
	unsigned long width = pc_option_count(w->ctx, "width");

	w->width = width ? (unsigned)width : DEFAULT_WIDTH;
	if (w->width < MIN_WIDTH)
		return pc_fail(&w->ctx->err, PC_STATUS_USAGE,
			       "--width takes at least %d pixels, not %u", MIN_WIDTH, w->width);
	w->inverted = pc_option_flag(w->ctx, "inverted");
	return parse_minwidth(w);
}

/* Whether a name is drawn with U+FFFD for a character that XML cannot hold. */
static bool needs_repair(const char *s, size_t n)
{
	bool ok = true;

	for (size_t i = 0; i < n && ok;)
		i += xml_char((const unsigned char *)s + i, n - i, &ok);
	return !ok;
}

/* Whether a name of the tree was changed: NUL, CR, LF (folded), else for XML. */
static bool names_repaired(const struct fg_writer *w)
{
	bool repaired = !w->diff && w->names.replaced;

	for (uint32_t id = 1; id < w->nnodes && !repaired; id++) {
		size_t len;
		const char *name = name_text(w, w->nodes[id].name, &len);

		repaired = needs_repair(name, len);
	}
	return repaired;
}

/* Notices for what the format holds not; warnings (errors with --strict) for losses. */
static int warn_lost(struct fg_writer *w)
{
	const struct pc_model *m = w->m;
	size_t other = pc_model_ncolumns(m) ? pc_folded_lost_column(m, w->column) : 0;

	if (other < pc_model_ncolumns(m))
		pc_notice(w->ctx, SVG, "only column '%s' is drawn; others such as '%s' are lost "
			  "(pick one with --event)", pc_str(m, pc_model_column(m, w->column)->type),
			  pc_str(m, pc_model_column(m, other)->type));
	if (w->names.lost_labels)
		pc_notice(w->ctx, SVG, "labels other than comm, pid and tid are lost");
	if (w->rootless &&
	    pc_warn(w->ctx, SVG, "%llu samples with neither a comm nor frames are not drawn",
		    (unsigned long long)w->rootless))
		return -1;
	if (names_repaired(w) &&
	    pc_warn(w->ctx, SVG, "invalid UTF-8 and control characters in names are drawn as "
		    "U+FFFD"))
		return -1;
	return 0;
}

static int svg_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct fg_writer w = { .ctx = ctx, .m = m, .out = out->fp };
	struct pc_folded_names_options names = {
		.addrs = pc_option_flag(ctx, "addrs"),
		.pid = pc_option_flag(ctx, "pid"),
		.tid = pc_option_flag(ctx, "tid"),
	};
	int ret = -1;

	pc_folded_names_init(&w.names, m, &names);
	pc_index_init(&w.children);
	if (parse_options(&w) || pc_folded_pick_column(ctx, m, &w.column) || build_tree(&w) ||
	    warn_lost(&w))
		goto out;
	write_picture(&w);
	ret = 0;
out:
	pc_folded_names_release(&w.names);
	pc_index_release(&w.children);
	free(w.nodes);
	return ret;
}

int pc_flamegraph_svg_write_diff(struct pc_ctx *ctx, const struct pc_flamegraph_diff *diff,
				 FILE *out)
{
	struct fg_writer w = { .ctx = ctx, .diff = diff, .out = out };
	int ret = -1;

	pc_index_init(&w.children);
	if (!parse_options(&w) && !build_diff_tree(&w)) {
		measure_changes(&w);
		write_picture(&w);
		ret = 0;
	}
	pc_index_release(&w.children);
	free(w.nodes);
	return ret;
}

static const char *const svg_aliases[] = { "flamegraph", NULL };
static const char *const svg_extensions[] = { ".svg", NULL };

static const struct pc_option_spec svg_options[] = {
	{ "title", PC_OPTION_TEXT, "TEXT", "the title (default: Flame Graph, Icicle Graph)", 0 },
	{ "width", PC_OPTION_COUNT, "PX", "the width of the picture in pixels (default 1200)",
	  100000 },
	{ "minwidth", PC_OPTION_TEXT, "PX",
	  "leave out nodes narrower than PX pixels (default 0.1), or N% of the width", 0 },
	{ "inverted", PC_OPTION_FLAG, NULL, "an icicle graph: roots at the top", 0 },
	{ "pid", PC_OPTION_FLAG, NULL, "root frame comm-PID", 0 },
	{ "tid", PC_OPTION_FLAG, NULL, "root frame comm-PID/TID", 0 },
	{ "addrs", PC_OPTION_FLAG, NULL, "addresses of unknown symbols", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_flamegraph_svg_writer = {
	.name = "svg",
	.aliases = svg_aliases,
	.extensions = svg_extensions,
	.summary = "an interactive flame graph (SVG: zoom, search, tooltips), as flamegraph.pl draws",
	.needs = 0,
	.keeps = PC_PART_STACKS | PC_PART_SYMBOLS,
	.write = svg_write,
	.options = svg_options,
};
