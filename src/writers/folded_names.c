/*
 * folded_names.c - frames named as stackcollapse-perf.pl names them, and
 * the column a one-value writer counts (folded_names.h). The naming rules
 * are listed in folded_writer.c's head comment.
 */
#include "writers/folded_names.h"

/* A name looked up in the index: bytes not yet (or already) in text. */
struct fn_key {
	const char *bytes;
	size_t len;
};

/* A model frame's names: ids[off, off + n). */
struct pc_folded_frame {
	uint32_t off, n;
	bool done;
};

/* A label set's root frame and java-ness. */
struct pc_folded_root {
	uint32_t name; /* name id + 1, 0: no root */
	bool java, done;
};

/* ---- bytes ---- */

static void put_bytes(struct pc_folded_names *names, const char *s, size_t n)
{
	pc_grow(&names->text, &names->text_cap, names->text_len + n + 1, 1);
	memcpy(names->text + names->text_len, s, n);
	names->text_len += n;
}

/*
 * Appends one byte of a name: ';' (the folded separator) as ':', and the
 * bytes no folded line can hold (control bytes but TAB, which folded
 * readers refuse as binary data; CR and LF end the line) as U+FFFD, so
 * that every output reads back.
 */
static void put_name_byte(struct pc_folded_names *names, char c)
{
	if ((unsigned char)c < 0x20 && c != '\t') {
		put_bytes(names, "\xef\xbf\xbd", 3);
		names->replaced = true;
	} else {
		put_bytes(names, c == ';' ? ":" : &c, 1);
	}
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

bool pc_folded_is_kernel_module(const char *s, size_t n)
{
	return n && (s[0] == '[' || ends_with(s, n, ".ko") || is_vmlinux(s, n)) &&
	       !contains(s, n, "unknown");
}

bool pc_folded_is_jit_module(const char *s, size_t n)
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

/* Appends a name (see put_name_byte) and its annotation. */
static void put_plain(struct pc_folded_names *names, const char *s, size_t n,
		      const char *annotation)
{
	for (size_t i = 0; i < n; i++)
		put_name_byte(names, s[i]);
	put_bytes(names, annotation, strlen(annotation));
}

/*
 * "[BASENAME]", "[unknown]", or with addrs "[BASENAME <ADDR>]"; a dso
 * name is not a signature, so only ';' is tidied ("[memfd:jit (deleted)]").
 */
static void put_fallback_text(struct pc_folded_names *names, const struct pc_frame *frame)
{
	const struct pc_model *m = names->m;
	char text[600];
	const char *name = "unknown";
	size_t n = strlen(name);
	int used;

	if (frame->module && pc_str_len(m, pc_model_module(m, frame->module)->name)) {
		pc_str_id id = pc_model_module(m, frame->module)->name;

		n = pc_str_len(m, id);
		name = base_name(pc_str(m, id), &n);
		if (n > 500)
			n = 500;
	}
	if (names->opt.addrs && (frame->flags & PC_FRAME_HAS_ADDRESS))
		used = snprintf(text, sizeof(text), "[%.*s <%llx>]", (int)n, name,
				(unsigned long long)frame->address);
	else
		used = snprintf(text, sizeof(text), "[%.*s]", (int)n, name);
	put_plain(names, text, (size_t)used, "");
}

/*
 * Appends one tidied name part (and its annotation) to the names buffer; a
 * part that tidies to nothing (quotes alone, "a->") takes frame's fallback
 * name instead, so that no folded frame is empty.
 */
static void put_tidy(struct pc_folded_names *names, const struct pc_frame *frame, const char *s,
		     size_t n, bool java, const char *annotation)
{
	size_t before = names->text_len;

	n = cut_arguments(s, n);
	if (java && n > 1 && s[0] == 'L' && memchr(s, '/', n)) {
		s++;
		n--;
	}
	for (size_t i = 0; i < n; i++)
		if (s[i] != '"' && s[i] != '\'')
			put_name_byte(names, s[i]);
	if (names->text_len == before)
		put_fallback_text(names, frame);
	put_bytes(names, annotation, strlen(annotation));
}

static const char *annotation_for(const struct pc_folded_names *names,
				  const struct pc_frame *frame)
{
	const struct pc_model *m = names->m;
	const char *name;
	size_t n;

	if (!frame->module)
		return "";
	name = pc_str(m, pc_model_module(m, frame->module)->name);
	n = pc_str_len(m, pc_model_module(m, frame->module)->name);
	if (names->opt.kernel && pc_folded_is_kernel_module(name, n))
		return "_[k]";
	if (names->opt.jit && pc_folded_is_jit_module(name, n))
		return "_[j]";
	return "";
}

/*
 * Appends the name of a frame as stackcollapse-perf.pl gives it: one or
 * more folded frames separated by ';'. False when the frame is skipped.
 */
static bool put_frame_name(struct pc_folded_names *names, const struct pc_frame *frame, bool java)
{
	const char *s = pc_str(names->m, frame->function);
	size_t n = pc_str_len(names->m, frame->function);

	/*
	 * stackcollapse-perf.pl's rules are for perf's symbols, which come
	 * with addresses; names without one (folded, Sampler) are kept as
	 * they are.
	 */
	if (!(frame->flags & PC_FRAME_HAS_ADDRESS) && frame->function) {
		put_plain(names, s, n, "");
		return true;
	}
	if (!frame->function) {
		const char *annotation = annotation_for(names, frame);

		put_fallback_text(names, frame);
		put_bytes(names, annotation, strlen(annotation));
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
			put_bytes(names, ";", 1);
		put_tidy(names, frame, s + at, end - at, java,
			 part ? "_[i]" : annotation_for(names, frame));
		at = end + 2;
	}
	return true;
}

/* ---- interned names ---- */

static bool name_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct pc_folded_names *names = ctx;
	const struct fn_key *key = key_ptr;
	const struct pc_folded_name *name = &names->names[id - 1];

	return name->len == key->len && !memcmp(names->text + name->off, key->bytes, key->len);
}

/* The id of the name text[off, off + len); *added says it is new (its bytes stay). */
static uint32_t intern_name(struct pc_folded_names *names, size_t off, size_t len, bool *added)
{
	struct fn_key key = { names->text + off, len };
	uint64_t hash = pc_hash_bytes(key.bytes, len, 0xf01d);
	uint32_t id = pc_index_find(&names->name_index, hash, name_equal, names, &key);

	if (id)
		return id - 1;
	if (names->nnames >= UINT32_MAX - 1 || off > UINT32_MAX || len > UINT32_MAX)
		pc_die_oom(names->nnames);
	pc_grow(&names->names, &names->names_cap, names->nnames + 1, sizeof(*names->names));
	names->names[names->nnames] = (struct pc_folded_name){ .off = (uint32_t)off,
							       .len = (uint32_t)len };
	pc_index_add(&names->name_index, hash, (uint32_t)(names->nnames + 1));
	*added = true;
	return (uint32_t)names->nnames++;
}

static void push_id(struct pc_folded_names *names, uint32_t id)
{
	pc_grow(&names->ids, &names->ids_cap, names->nids + 1, sizeof(*names->ids));
	names->ids[names->nids++] = id;
}

const uint32_t *pc_folded_names_frame(struct pc_folded_names *names, uint32_t id, bool java,
				      size_t *n)
{
	struct pc_folded_frame *frame = &names->frames[java][id - 1];
	size_t start = names->text_len, part = start;
	bool added = false;

	if (frame->done)
		goto done;
	frame->done = true;
	frame->off = (uint32_t)names->nids;
	if (!put_frame_name(names, pc_model_frame(names->m, id), java)) {
		names->text_len = start;
		goto done;
	}
	/* split at the ';' of inline chains; each part is a name */
	for (size_t end = start, stop = names->text_len;; end++) {
		if (end < stop && names->text[end] != ';')
			continue;
		push_id(names, intern_name(names, part, end - part, &added));
		if (end == stop)
			break;
		part = end + 1;
	}
	if (!added)
		names->text_len = start; /* every name was known: drop the copy */
	frame->n = (uint32_t)(names->nids - frame->off);
done:
	*n = frame->n;
	return names->ids ? names->ids + frame->off : NULL;
}

/* ---- labels and the root frame ---- */

struct fn_labels {
	const struct pc_label *comm, *pid, *tid;
};

static void find_labels(struct pc_folded_names *names, uint32_t set, struct fn_labels *out)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(names->m, set, &n);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(names->m, ids[i]);

		if (label->key == names->key_comm && label->str)
			out->comm = label;
		else if (label->key == names->key_pid && !label->str)
			out->pid = label;
		else if (label->key == names->key_tid && !label->str)
			out->tid = label;
		else
			names->lost_labels = true;
	}
}

static void put_id(struct pc_folded_names *names, const struct pc_label *label)
{
	char text[32];
	int n = label ? snprintf(text, sizeof(text), "%lld", (long long)label->num)
		      : snprintf(text, sizeof(text), "?");

	put_bytes(names, text, (size_t)n);
}

uint32_t pc_folded_names_root(struct pc_folded_names *names, uint32_t set, bool *java)
{
	struct pc_folded_root *root = &names->roots[set];
	struct fn_labels labels;
	size_t start = names->text_len;
	bool added = false;
	const char *s;
	size_t n;

	if (root->done)
		goto done;
	root->done = true;
	find_labels(names, set, &labels);
	if (!labels.comm)
		goto done;
	s = pc_str(names->m, labels.comm->str);
	n = pc_str_len(names->m, labels.comm->str);
	root->java = n == 4 && !memcmp(s, "java", 4);
	for (size_t i = 0; i < n; i++)
		put_name_byte(names, s[i] == ' ' ? '_' : s[i]);
	if (names->opt.tid || names->opt.pid) {
		put_bytes(names, "-", 1);
		put_id(names, labels.pid);
	}
	if (names->opt.tid) {
		put_bytes(names, "/", 1);
		put_id(names, labels.tid);
	}
	root->name = intern_name(names, start, names->text_len - start, &added) + 1;
	if (!added)
		names->text_len = start;
done:
	*java = root->java;
	return root->name;
}

void pc_folded_names_init(struct pc_folded_names *names, const struct pc_model *m,
			  const struct pc_folded_names_options *opt)
{
	*names = (struct pc_folded_names){ .m = m, .opt = *opt };
	names->key_comm = pc_model_find_string(m, "comm", 4);
	names->key_pid = pc_model_find_string(m, "pid", 3);
	names->key_tid = pc_model_find_string(m, "tid", 3);
	pc_index_init(&names->name_index);
	names->frames[0] = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*names->frames[0]));
	names->frames[1] = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*names->frames[1]));
	names->roots = pc_xcalloc(pc_model_nlabelsets(m) + 2, sizeof(*names->roots));
}

void pc_folded_names_release(struct pc_folded_names *names)
{
	free(names->text);
	free(names->names);
	pc_index_release(&names->name_index);
	free(names->ids);
	free(names->frames[0]);
	free(names->frames[1]);
	free(names->roots);
}

/* ---- the counted column ---- */

int pc_folded_pick_column(struct pc_ctx *ctx, const struct pc_model *m, size_t *out)
{
	const char *event = ctx->opt.event;
	int column;

	*out = 0;
	if (!pc_model_ncolumns(m) && !event)
		return 0; /* nothing to count */
	if (!event) {
		*out = pc_model_default_column(m) >= 0 ? (size_t)pc_model_default_column(m) : 0;
		return 0;
	}
	column = pc_model_pick_column(m, event, PC_ROLE_WEIGHT);
	if (column < 0 && !pc_model_ncolumns(m))
		return pc_fail(&ctx->err, PC_STATUS_INPUT, "no event '%s': the input has no values",
			       event);
	if (column < 0)
		return pc_fail(&ctx->err, PC_STATUS_INPUT,
			       "no event '%s' in the input (its first column is '%s')", event,
			       pc_str(m, pc_model_column(m, 0)->type));
	*out = (size_t)column;
	return 0;
}

/* True when column c counts the samples of the event whose weight is kept. */
static bool is_twin(const struct pc_model *m, size_t kept_column, size_t c)
{
	const struct pc_column *kept = pc_model_column(m, kept_column);
	const struct pc_column *other = pc_model_column(m, c);

	return kept->role == PC_ROLE_WEIGHT && other->role == PC_ROLE_SAMPLES &&
	       kept->event == other->event;
}

size_t pc_folded_lost_column(const struct pc_model *m, size_t column)
{
	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		if (c == column || is_twin(m, column, c))
			continue;
		for (size_t i = 0; i < pc_model_nsamples(m); i++)
			if (pc_model_values(m, i)[c])
				return c;
	}
	return pc_model_ncolumns(m);
}
