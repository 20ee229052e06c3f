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
 *       dropped from names holding a '/'. A function that starts with '('
 *       is skipped, as the script skips such "process names";
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
 * What is lost, each with one warning: labels other than comm, pid and tid;
 * the other events' columns; samples without a root or frames. Addresses
 * (but for --addrs), modules and branch stacks are reported by the
 * conversion as parts this format cannot keep.
 */
#include "model/format.h"
#include "base/sort.h"

#define FOLDED "folded"

/*
 * Folded frames are interned names (text without ';'); a folded stack is
 * the sequence of its names' ids, interned too, so memory follows the
 * distinct names and stacks, not the text of every line.
 */
struct fw_name {
	uint32_t off, len; /* in text */
};

/* A name looked up in the index: bytes not yet (or already) in text. */
struct fw_name_key {
	const char *bytes;
	size_t len;
};

/* A model frame's folded frames: name ids ids[off, off + n). */
struct fw_frame {
	uint32_t off, n;
	bool done;
};

/* A label set's root frame and java-ness. */
struct fw_root {
	uint32_t name; /* name id + 1, 0: no root */
	bool java, done;
};

struct fw_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	size_t column;

	char *text; /* the names' bytes */
	size_t text_len, text_cap;
	struct fw_name *names;
	size_t nnames, names_cap;
	struct pc_index name_index; /* name id + 1 by content */

	uint32_t *ids; /* the folded frames of the model's frames */
	size_t nids, ids_cap;
	struct fw_frame *frames[2]; /* [java] by frame id */
	struct fw_root *roots;      /* by label set id */

	struct pc_tally stacks; /* of name ids, root first */
	uint32_t *line;        /* the stack being built */
	size_t line_cap;

	pc_str_id key_comm, key_pid, key_tid;
	uint64_t rootless;
	bool lost_labels;
};

/* ---- bytes ---- */

static void put_bytes(struct fw_writer *w, const char *s, size_t n)
{
	pc_grow(&w->text, &w->text_cap, w->text_len + n + 1, 1);
	memcpy(w->text + w->text_len, s, n);
	w->text_len += n;
}

static bool contains(const char *s, size_t n, const char *text)
{
	size_t t = strlen(text);

	for (size_t i = 0; i + t <= n; i++)
		if (!memcmp(s + i, text, t))
			return true;
	return false;
}

static bool ends_with(const char *s, size_t n, const char *text)
{
	size_t t = strlen(text);

	return n >= t && !memcmp(s + n - t, text, t);
}

static const char *base_name(const char *path, size_t *n)
{
	size_t len = *n, at = len;

	while (at > 0 && path[at - 1] != '/')
		at--;
	*n = len - at;
	return path + at;
}

/* ---- stackcollapse-perf.pl's rules ---- */

/* "vmlinux" possibly followed by a version ("vmlinux-5.4.14-cloudflare"). */
static bool is_vmlinux(const char *s, size_t n)
{
	size_t at = n;

	while (at >= 7 && memcmp(s + at - 7, "vmlinux", 7))
		at--;
	if (at < 7)
		return false;
	for (size_t i = at; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '-' || c == '.' || c == '_'))
			return false;
	}
	return true;
}

static bool is_kernel_module(const char *s, size_t n)
{
	return n && (s[0] == '[' || ends_with(s, n, ".ko") || is_vmlinux(s, n)) &&
	       !contains(s, n, "unknown");
}

/* /tmp/perf-PID.map, or a perf-inject jitdump object .../jitted-PID-N.so */
static bool is_jit_module(const char *s, size_t n)
{
	for (size_t i = 0; i + 10 <= n; i++) {
		size_t d = i + 10;

		if (memcmp(s + i, "/tmp/perf-", 10))
			continue;
		while (d < n && s[d] >= '0' && s[d] <= '9')
			d++;
		if (d > i + 10 && d + 4 <= n && !memcmp(s + d, ".map", 4))
			return true;
	}
	return contains(s, n, "/jitted-") && ends_with(s, n, ".so");
}

/* Go method names like "net/http.(*Client).Do" keep their parentheses. */
static bool looks_like_go(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '.' && s[i + 1] == '(')
			return contains(s + i + 2, n - i - 2, ").");
	return false;
}

/* The length of s once an argument list from the first '(' is cut. */
static size_t cut_arguments(const char *s, size_t n)
{
	static const char anon[] = "(anonymous namespace)";

	if (looks_like_go(s, n))
		return n;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '(' && !(n - i >= sizeof(anon) - 1 && !memcmp(s + i, anon, sizeof(anon) - 1)))
			return i;
	return n;
}

/* Appends a name with ';' made ':' (the folded separator) and its annotation. */
static void put_plain(struct fw_writer *w, const char *s, size_t n, const char *annotation)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i] == ';' ? ':' : s[i];

		put_bytes(w, &c, 1);
	}
	put_bytes(w, annotation, strlen(annotation));
}

/* Appends one tidied name part (and its annotation) to the names buffer. */
static void put_tidy(struct fw_writer *w, const char *s, size_t n, bool java,
		     const char *annotation)
{
	n = cut_arguments(s, n);
	if (java && n > 1 && s[0] == 'L' && memchr(s, '/', n)) {
		s++;
		n--;
	}
	for (size_t i = 0; i < n; i++) {
		char c = s[i] == ';' ? ':' : s[i];

		if (c == '"' || c == '\'')
			continue;
		put_bytes(w, &c, 1);
	}
	put_bytes(w, annotation, strlen(annotation));
}

static const char *annotation_for(const struct fw_writer *w, const struct pc_frame *frame)
{
	const char *name;
	size_t n;

	if (!frame->module)
		return "";
	name = pc_str(w->m, pc_model_module(w->m, frame->module)->name);
	n = pc_str_len(w->m, pc_model_module(w->m, frame->module)->name);
	if (pc_option_flag(w->ctx, "kernel") && is_kernel_module(name, n))
		return "_[k]";
	if (pc_option_flag(w->ctx, "jit") && is_jit_module(name, n))
		return "_[j]";
	return "";
}

/*
 * "[BASENAME]", "[unknown]", or with --addrs "[BASENAME <ADDR>]"; a dso
 * name is not a signature, so only ';' is tidied ("[memfd:jit (deleted)]").
 */
static void put_fallback(struct fw_writer *w, const struct pc_frame *frame)
{
	char text[600];
	const char *name = "unknown";
	size_t n = strlen(name);
	int used;

	if (frame->module && pc_str_len(w->m, pc_model_module(w->m, frame->module)->name)) {
		pc_str_id id = pc_model_module(w->m, frame->module)->name;

		n = pc_str_len(w->m, id);
		name = base_name(pc_str(w->m, id), &n);
		if (n > 500)
			n = 500;
	}
	if (pc_option_flag(w->ctx, "addrs") && (frame->flags & PC_FRAME_HAS_ADDRESS))
		used = snprintf(text, sizeof(text), "[%.*s <%llx>]", (int)n, name,
				(unsigned long long)frame->address);
	else
		used = snprintf(text, sizeof(text), "[%.*s]", (int)n, name);
	put_plain(w, text, (size_t)used, annotation_for(w, frame));
}

/*
 * Appends the name of a frame as stackcollapse-perf.pl gives it: one or
 * more folded frames separated by ';'. False when the frame is skipped.
 */
static bool put_frame_name(struct fw_writer *w, const struct pc_frame *frame, bool java)
{
	const char *s = pc_str(w->m, frame->function);
	size_t n = pc_str_len(w->m, frame->function);

	/*
	 * stackcollapse-perf.pl's rules are for perf's symbols, which come
	 * with addresses; names without one (folded, Sampler) are kept as
	 * they are.
	 */
	if (!(frame->flags & PC_FRAME_HAS_ADDRESS) && frame->function) {
		put_plain(w, s, n, "");
		return true;
	}
	if (!frame->function) {
		put_fallback(w, frame);
		return true;
	}
	if (s[0] == '(')
		return false;
	for (size_t part = 0, at = 0; at <= n; part++) {
		const char *arrow = NULL;
		size_t end;

		for (size_t i = at; i + 1 < n; i++)
			if (s[i] == '-' && s[i + 1] == '>') {
				arrow = s + i;
				break;
			}
		end = arrow ? (size_t)(arrow - s) : n;
		if (part)
			put_bytes(w, ";", 1);
		put_tidy(w, s + at, end - at, java, part ? "_[i]" : annotation_for(w, frame));
		at = end + 2;
	}
	return true;
}
/* ---- interned names ---- */

static bool name_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct fw_writer *w = ctx;
	const struct fw_name_key *key = key_ptr;
	const struct fw_name *name = &w->names[id - 1];

	return name->len == key->len && !memcmp(w->text + name->off, key->bytes, key->len);
}

/* The id of the name text[off, off + len); *added says it is new (its bytes stay). */
static uint32_t intern_name(struct fw_writer *w, size_t off, size_t len, bool *added)
{
	struct fw_name_key key = { w->text + off, len };
	uint64_t hash = pc_hash_bytes(key.bytes, len, 0xf01d);
	uint32_t id = pc_index_find(&w->name_index, hash, name_equal, w, &key);

	if (id)
		return id - 1;
	if (w->nnames >= UINT32_MAX - 1 || off > UINT32_MAX || len > UINT32_MAX)
		pc_die_oom(w->nnames);
	pc_grow(&w->names, &w->names_cap, w->nnames + 1, sizeof(*w->names));
	w->names[w->nnames] = (struct fw_name){ .off = (uint32_t)off, .len = (uint32_t)len };
	pc_index_add(&w->name_index, hash, (uint32_t)(w->nnames + 1));
	*added = true;
	return (uint32_t)w->nnames++;
}

static void push_id(struct fw_writer *w, uint32_t id)
{
	pc_grow(&w->ids, &w->ids_cap, w->nids + 1, sizeof(*w->ids));
	w->ids[w->nids++] = id;
}

/* The folded frames of a model frame (computed once per java-ness). */
static const struct fw_frame *frame_names(struct fw_writer *w, uint32_t id, bool java)
{
	struct fw_frame *frame = &w->frames[java][id - 1];
	size_t start = w->text_len, part = start;
	bool added = false;

	if (frame->done)
		return frame;
	frame->done = true;
	frame->off = (uint32_t)w->nids;
	if (!put_frame_name(w, pc_model_frame(w->m, id), java)) {
		w->text_len = start;
		return frame;
	}
	/* split at the ';' of inline chains; each part is a name */
	for (size_t end = start, stop = w->text_len;; end++) {
		if (end < stop && w->text[end] != ';')
			continue;
		push_id(w, intern_name(w, part, end - part, &added));
		if (end == stop)
			break;
		part = end + 1;
	}
	if (!added)
		w->text_len = start; /* every name was known: drop the copy */
	frame->n = (uint32_t)(w->nids - frame->off);
	return frame;
}

/* ---- labels and the root frame ---- */

struct fw_labels {
	const struct pc_label *comm, *pid, *tid;
};

static void find_labels(struct fw_writer *w, uint32_t set, struct fw_labels *out)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(w->m, set, &n);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(w->m, ids[i]);

		if (label->key == w->key_comm && label->str)
			out->comm = label;
		else if (label->key == w->key_pid && !label->str)
			out->pid = label;
		else if (label->key == w->key_tid && !label->str)
			out->tid = label;
		else
			w->lost_labels = true;
	}
}

static void put_id(struct fw_writer *w, const struct pc_label *label)
{
	char text[32];
	int n = label ? snprintf(text, sizeof(text), "%lld", (long long)label->num)
		      : snprintf(text, sizeof(text), "?");

	put_bytes(w, text, (size_t)n);
}

/* The root frame of a label set: comm[-PID[/TID]], or none without a comm. */
static const struct fw_root *root_of(struct fw_writer *w, uint32_t set)
{
	struct fw_root *root = &w->roots[set];
	struct fw_labels labels;
	size_t start = w->text_len;
	bool added = false;
	const char *s;
	size_t n;

	if (root->done)
		return root;
	root->done = true;
	find_labels(w, set, &labels);
	if (!labels.comm)
		return root;
	s = pc_str(w->m, labels.comm->str);
	n = pc_str_len(w->m, labels.comm->str);
	root->java = n == 4 && !memcmp(s, "java", 4);
	for (size_t i = 0; i < n; i++) {
		char c = s[i] == ' ' ? '_' : s[i] == ';' ? ':' : s[i];

		put_bytes(w, &c, 1);
	}
	if (pc_option_flag(w->ctx, "tid") || pc_option_flag(w->ctx, "pid")) {
		put_bytes(w, "-", 1);
		put_id(w, labels.pid);
	}
	if (pc_option_flag(w->ctx, "tid")) {
		put_bytes(w, "/", 1);
		put_id(w, labels.tid);
	}
	root->name = intern_name(w, start, w->text_len - start, &added) + 1;
	if (!added)
		w->text_len = start;
	return root;
}

/* ---- distinct stacks ---- */

/* Adds a sample's folded stack with its count; rootless when it is empty. */
static int add_sample(struct fw_writer *w, const struct pc_sample *sample, uint64_t count)
{
	const struct fw_root *root = root_of(w, sample->labels);
	size_t n, len = 0;
	const uint32_t *frames = pc_model_stack(w->m, sample->stack, &n);

	pc_grow(&w->line, &w->line_cap, 1, sizeof(*w->line));
	if (root->name)
		w->line[len++] = root->name - 1;
	for (size_t i = n; i > 0; i--) {
		const struct fw_frame *frame = frame_names(w, frames[i - 1], root->java);

		if (!frame->n)
			continue; /* a skipped frame */
		pc_grow(&w->line, &w->line_cap, len + frame->n, sizeof(*w->line));
		memcpy(w->line + len, w->ids + frame->off, frame->n * sizeof(*w->line));
		len += frame->n;
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

/* ---- the column and the output ---- */

static int pick_column(struct fw_writer *w)
{
	const struct pc_model *m = w->m;
	const char *event = w->ctx->opt.event;
	int column;

	if (!pc_model_ncolumns(m) && !event)
		return 0; /* nothing to count: no lines */
	if (!event) {
		w->column = pc_model_default_column(m) >= 0 ? (size_t)pc_model_default_column(m) : 0;
		return 0;
	}
	column = pc_model_pick_column(m, event, PC_ROLE_WEIGHT);
	if (column < 0 && !pc_model_ncolumns(m))
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT, "no event '%s': the input has no values",
			       event);
	if (column < 0)
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "no event '%s' in the input (its first column is '%s')", event,
			       pc_str(m, pc_model_column(m, 0)->type));
	w->column = (size_t)column;
	return 0;
}

/* True when column c counts the samples of the event whose weight is written. */
static bool is_twin(const struct fw_writer *w, size_t c)
{
	const struct pc_column *kept = pc_model_column(w->m, w->column);
	const struct pc_column *other = pc_model_column(w->m, c);

	return kept->role == PC_ROLE_WEIGHT && other->role == PC_ROLE_SAMPLES &&
	       kept->event == other->event;
}

static int warn_lost(struct fw_writer *w)
{
	const struct pc_model *m = w->m;
	size_t other = pc_model_ncolumns(m);

	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		bool used = false;

		if (c == w->column || is_twin(w, c))
			continue;
		for (size_t i = 0; i < pc_model_nsamples(m) && !used; i++)
			used = pc_model_values(m, i)[c] != 0;
		if (used && other == pc_model_ncolumns(m))
			other = c;
	}
	if (other < pc_model_ncolumns(m) &&
	    pc_warn(w->ctx, FOLDED, "only column '%s' is written; others such as '%s' are lost "
		    "(pick one with --event)", pc_str(m, pc_model_column(m, w->column)->type),
		    pc_str(m, pc_model_column(m, other)->type)))
		return -1;
	if (w->lost_labels &&
	    pc_warn(w->ctx, FOLDED, "labels other than comm, pid and tid are lost"))
		return -1;
	if (w->rootless &&
	    pc_warn(w->ctx, FOLDED, "%llu samples with neither a comm nor frames are not written",
		    (unsigned long long)w->rootless))
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
		const struct fw_name *x = &w->names[ia[i]], *y = &w->names[ib[i]];
		size_t common = x->len < y->len ? x->len : y->len;
		int diff;

		if (ia[i] == ib[i])
			continue;
		diff = memcmp(w->text + x->off, w->text + y->off, common);
		if (diff)
			return diff;
		/* names differ, so one is a proper prefix of the other */
		if (x->len < y->len)
			return i + 1 == na ? -1 : ';' - (unsigned char)w->text[y->off + common];
		return i + 1 == nb ? 1 : (unsigned char)w->text[x->off + common] - ';';
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
			const struct fw_name *name = &w->names[ids[k]];

			if (k)
				fputc(';', out);
			fwrite(w->text + name->off, 1, name->len, out);
		}
		fprintf(out, " %llu\n", (unsigned long long)w->stacks.counts[order[i] + 1]);
	}
	free(order);
}

static void writer_release(struct fw_writer *w)
{
	free(w->text);
	free(w->names);
	pc_index_release(&w->name_index);
	free(w->ids);
	free(w->frames[0]);
	free(w->frames[1]);
	free(w->roots);
	pc_tally_release(&w->stacks);
	free(w->line);
}

static int folded_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct fw_writer w = { .ctx = ctx, .m = m };
	int ret = -1;

	for (size_t i = 0; i < pc_model_nstrings(m); i++) {
		if (!strcmp(pc_str(m, (pc_str_id)i), "comm"))
			w.key_comm = (pc_str_id)i;
		else if (!strcmp(pc_str(m, (pc_str_id)i), "pid"))
			w.key_pid = (pc_str_id)i;
		else if (!strcmp(pc_str(m, (pc_str_id)i), "tid"))
			w.key_tid = (pc_str_id)i;
	}
	pc_tally_init(&w.stacks);
	w.frames[0] = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*w.frames[0]));
	w.frames[1] = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*w.frames[1]));
	w.roots = pc_xcalloc((pc_model_nlabelsets(m) + 1) + 1, sizeof(*w.roots));
	if (pick_column(&w))
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
	writer_release(&w);
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
