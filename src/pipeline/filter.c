/*
 * filter.c - the sample filters of a run (filter.h), applied in a fixed
 * order: --pids, --tids, --comms, --modules (the sample's leaf module, as
 * perf's --dsos), --kernel-only/--user-only (where the sample was taken,
 * as perf's :k and :u), --focus, --ignore, --hide (pprof: a frame matches
 * when the expression matches its function, its file or its module name;
 * --focus keeps samples with a matching frame, --ignore drops them,
 * --hide takes matching frames out of the stacks and drops samples left
 * with none) and --time (perf's START,END and percent forms, in seconds
 * from the first sample). Each notes how many samples it kept, counted in
 * the column the output counts (--event, else the default).
 */
#include "pipeline/filter.h"
#include "model/copy.h"
#include "model/reconstruct.h"

#include <errno.h>
#include <math.h>
#include <regex.h>

#define KERNEL_HALF 0xffff800000000000ULL /* where kernel images load (x86-64, arm64) */
#define MAX_TIME_RANGES 32
#define NS_PER_SECOND 1e9

enum filter {
	FILTER_PIDS, FILTER_TIDS, FILTER_COMMS, FILTER_MODULES, FILTER_KERNEL_ONLY,
	FILTER_USER_ONLY, FILTER_FOCUS, FILTER_IGNORE, FILTER_HIDE, FILTER_TIME, NFILTERS,
};

static const char *const filter_names[NFILTERS] = {
	"pids", "tids", "comms", "modules", "kernel-only", "user-only", "focus", "ignore", "hide",
	"time",
};

/* A time range, from lo to hi inclusive: seconds from the first sample, or fractions of the span. */
struct time_range {
	double lo, hi;   /* seconds from the first sample, or fractions of the span (percent) */
};

struct time_ranges {
	struct time_range range[MAX_TIME_RANGES];
	size_t n;
	bool percent;
};

/* One filtering of a model. */
struct run {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	size_t column;     /* counted in the notes */
	uint8_t *kept;     /* by sample index */
	uint8_t *hidden;   /* by frame id (--hide), or NULL */
	uint8_t *timed;    /* by timed sample (--time), or NULL */
	regex_t re;        /* of the filter at work, when it has one */
};

/* ---- the options ---- */

static int filter_of(const char *name)
{
	for (int f = 0; f < NFILTERS; f++)
		if (!strcmp(filter_names[f], name))
			return f;
	return -1;
}

bool pc_filter_is_option(const char *name)
{
	return filter_of(name) >= 0;
}

bool pc_filters_given(const struct pc_ctx *ctx)
{
	for (int f = 0; f < NFILTERS; f++)
		if (pc_option_text(ctx, filter_names[f]))
			return true;
	return false;
}

bool pc_filters_need_times(const struct pc_ctx *ctx)
{
	return pc_option_text(ctx, "time") != NULL;
}

/* Item i of a comma-separated list: its start and length; false past the last. */
static bool list_item(const char *list, size_t i, const char **item, size_t *len)
{
	const char *at = list;

	for (; i > 0; i--) {
		at = strchr(at, ',');
		if (!at)
			return false;
		at++;
	}
	*item = at;
	*len = strcspn(at, ",");
	return true;
}

static bool parse_id(const char *s, size_t len, int64_t *id)
{
	char buf[24], *end;
	long long v;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || *end || end == buf)
		return false;
	*id = v;
	return true;
}

static int check_list(struct pc_ctx *ctx, const char *name, const char *value, bool numbers)
{
	const char *item;
	size_t len;
	int64_t id;

	for (size_t i = 0; list_item(value, i, &item, &len); i++) {
		if (!len)
			return pc_fail(&ctx->err, PC_STATUS_USAGE,
				       "--%s takes a comma-separated list without empty items, not '%s'",
				       name, value);
		if (numbers && !parse_id(item, len, &id))
			return pc_fail(&ctx->err, PC_STATUS_USAGE,
				       "--%s takes a comma-separated list of numbers, not '%s'", name,
				       value);
	}
	return 0;
}

static bool parse_number(const char *s, const char *end, double *v)
{
	char buf[64], *stop;

	if (end <= s || (size_t)(end - s) >= sizeof(buf) || !(*s >= '0' && *s <= '9'))
		return false;
	memcpy(buf, s, (size_t)(end - s));
	buf[end - s] = '\0';
	*v = strtod(buf, &stop);
	return !*stop && isfinite(*v);
}

/* "A%/N" (the Nth slice of A percent) or "A%-B%", as fractions of the span. */
static bool parse_percent_range(const char *s, const char *end, struct time_range *r)
{
	const char *pct = memchr(s, '%', (size_t)(end - s));
	double a, b;

	if (!pct || !parse_number(s, pct, &a) || pct + 1 >= end)
		return false;
	if (pct[1] == '/') {
		if (!parse_number(pct + 2, end, &b) || b < 1 || b != floor(b) || a <= 0 ||
		    a * b > 100)
			return false;
		*r = (struct time_range){ a / 100 * (b - 1), a / 100 * b }; /* as perf reckons */
		return true;
	}
	if (pct[1] != '-' || end - pct < 3 || end[-1] != '%' || !parse_number(pct + 2, end - 1, &b))
		return false;
	*r = (struct time_range){ a / 100, b / 100 };
	return a <= b && b <= 100;
}

/* "START,END" in seconds from the first sample; either may be left out. */
static bool parse_seconds_range(const char *s, const char *end, struct time_range *r)
{
	const char *comma = memchr(s, ',', (size_t)(end - s));

	if (!comma)
		return false;
	*r = (struct time_range){ 0, INFINITY };
	if (comma > s && !parse_number(s, comma, &r->lo))
		return false;
	if (comma + 1 < end && !parse_number(comma + 1, end, &r->hi))
		return false;
	return r->lo <= r->hi;
}

/* perf's --time forms: "S,E S,E ..." (seconds, space-separated) or "A%/N,A%-B%,..." */
static bool parse_time(const char *value, struct time_ranges *t)
{
	const char *sep = strchr(value, '%') ? "," : " ";
	const char *at = value;

	t->percent = *sep == ',';
	t->n = 0;
	while (*at) {
		size_t len = strcspn(at, sep);
		struct time_range *r = &t->range[t->n];

		if (t->n == MAX_TIME_RANGES || !len)
			return false;
		if (t->percent ? !parse_percent_range(at, at + len, r)
			       : !parse_seconds_range(at, at + len, r))
			return false;
		t->n++;
		at += len;
		at += *at != '\0';
	}
	return t->n > 0;
}

static int compile(struct pc_ctx *ctx, const char *name, const char *value, regex_t *re)
{
	char why[128];
	int code = regcomp(re, value, REG_EXTENDED | REG_NOSUB);

	if (!code)
		return 0;
	regerror(code, re, why, sizeof(why));
	regfree(re);
	return pc_fail(&ctx->err, PC_STATUS_USAGE, "--%s: '%s' is not a regular expression: %s",
		       name, value, why);
}

int pc_filter_check(struct pc_ctx *ctx, const char *name, const char *value)
{
	struct time_ranges t;
	regex_t re;

	switch (filter_of(name)) {
	case FILTER_PIDS:
	case FILTER_TIDS:
		return check_list(ctx, name, value, true);
	case FILTER_COMMS:
	case FILTER_MODULES:
		return check_list(ctx, name, value, false);
	case FILTER_FOCUS:
	case FILTER_IGNORE:
	case FILTER_HIDE:
		if (compile(ctx, name, value, &re))
			return -1;
		regfree(&re);
		return 0;
	case FILTER_TIME:
		if (parse_time(value, &t))
			return 0;
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "--time takes START,END in seconds from the first sample (either "
			       "may be left out; ranges separated by spaces), or percent slices "
			       "A%%/N or A%%-B%% separated by commas, not '%s'", value);
	case FILTER_KERNEL_ONLY:
	case FILTER_USER_ONLY:
		if (pc_option_flag(ctx, name[0] == 'k' ? "user-only" : "kernel-only"))
			return pc_fail(&ctx->err, PC_STATUS_USAGE,
				       "--kernel-only and --user-only exclude each other");
		return 0;
	default:
		return 0;
	}
}

/* ---- what a sample and a frame are ---- */

/* The label of key in sample i's label set, or NULL. */
static const struct pc_label *label_of(const struct pc_model *m, size_t i, const char *key)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(m, pc_model_sample(m, i)->labels, &n);

	for (size_t k = 0; k < n; k++) {
		const struct pc_label *l = pc_model_label(m, ids[k]);

		if (!strcmp(pc_str(m, l->key), key))
			return l;
	}
	return NULL;
}

/* Whether the list holds text[0, len). */
static bool list_has(const char *list, const char *text, size_t len)
{
	const char *item;
	size_t n;

	for (size_t i = 0; list_item(list, i, &item, &n); i++)
		if (n == len && !memcmp(item, text, len))
			return true;
	return false;
}

static bool list_has_id(const char *list, int64_t id)
{
	const char *item;
	size_t n;
	int64_t v;

	for (size_t i = 0; list_item(list, i, &item, &n); i++)
		if (parse_id(item, n, &v) && v == id)
			return true;
	return false;
}

/* A numeric label (or a string one holding a number) in the list. */
static bool id_listed(const struct pc_model *m, const struct pc_label *l, const char *list)
{
	int64_t id = l ? l->num : 0;

	if (!l || (l->str && !parse_id(pc_str(m, l->str), pc_str_len(m, l->str), &id)))
		return false;
	return list_has_id(list, id);
}

static uint32_t leaf_frame(const struct pc_model *m, size_t i)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

	return n ? frames[0] : 0;
}

/* The module name of frame id f ("" when it has none). */
static const char *module_name(const struct pc_model *m, uint32_t f)
{
	const struct pc_frame *frame = pc_model_frame(m, f);

	return frame->module ? pc_str(m, pc_model_module(m, frame->module)->name) : "";
}

/* perf's --dsos: the module by its path or its file name. */
static bool module_listed(const struct pc_model *m, uint32_t f, const char *list)
{
	const char *name = f ? module_name(m, f) : "";
	const char *base = name + strlen(name);

	while (base > name && base[-1] != '/' && base[-1] != '\\')
		base--;
	return *name && (list_has(list, name, strlen(name)) || list_has(list, base, strlen(base)));
}

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), len = strlen(end);

	return n >= len && !memcmp(s + n - len, end, len);
}

/*
 * Where the frame runs: in the kernel when its address or module lies in
 * the kernel's half of the address space, or its module is the kernel as
 * perf names it ([kernel.kallsyms], [guest.kernel.kallsyms], vmlinux, a
 * .ko); [vdso] and [vsyscall] run in user space.
 */
static bool is_kernel_frame(const struct pc_model *m, uint32_t f)
{
	const struct pc_frame *frame = pc_model_frame(m, f);
	const struct pc_module *module = frame->module ? pc_model_module(m, frame->module) : NULL;
	const char *name = module ? pc_str(m, module->name) : "";

	if ((frame->flags & PC_FRAME_ABSOLUTE) && frame->address >= KERNEL_HALF)
		return true;
	if (module && module->has_range && module->start >= KERNEL_HALF)
		return true;
	return strstr(name, "kernel.kallsyms]") || ends_with(name, ".ko") ||
	       ends_with(name, "vmlinux") || strstr(name, "/vmlinux-");
}

/* pprof's Location.matchesName: the function, the file or the module. */
static bool frame_matches(const struct pc_model *m, uint32_t f, const regex_t *re)
{
	const struct pc_frame *frame = pc_model_frame(m, f);

	return (frame->function && !regexec(re, pc_str(m, frame->function), 0, NULL, 0)) ||
	       (frame->file && !regexec(re, pc_str(m, frame->file), 0, NULL, 0)) ||
	       (frame->module && !regexec(re, module_name(m, f), 0, NULL, 0));
}

/* ---- the filters ---- */

/* Marks the frames the run's expression matches: by frame id. */
static uint8_t *matching_frames(const struct run *r)
{
	size_t n = pc_model_nframes(r->m);
	uint8_t *match = pc_xmalloc(n + 1);

	match[0] = 0;
	for (size_t f = 1; f <= n; f++)
		match[f] = frame_matches(r->m, (uint32_t)f, &r->re);
	return match;
}

/* How many frames of sample i's stack are marked in match, and of them the unmarked. */
static void count_marked(const struct pc_model *m, size_t i, const uint8_t *match,
			 size_t *marked, size_t *unmarked)
{
	size_t n;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

	*marked = *unmarked = 0;
	for (size_t k = 0; k < n; k++)
		*(match[frames[k]] ? marked : unmarked) += 1;
}

/* Whether sample i passes filter f, whose value is value (match: the frames it names). */
static bool passes(const struct run *r, enum filter f, const char *value, size_t i,
		   const uint8_t *match)
{
	const struct pc_model *m = r->m;
	size_t marked, unmarked;
	const struct pc_label *l;

	switch (f) {
	case FILTER_PIDS:
		return id_listed(m, label_of(m, i, "pid"), value);
	case FILTER_TIDS:
		return id_listed(m, label_of(m, i, "tid"), value);
	case FILTER_COMMS:
		l = label_of(m, i, "comm");
		return l && l->str && list_has(value, pc_str(m, l->str), pc_str_len(m, l->str));
	case FILTER_MODULES:
		return module_listed(m, leaf_frame(m, i), value);
	case FILTER_KERNEL_ONLY:
	case FILTER_USER_ONLY:
		return leaf_frame(m, i) &&
		       is_kernel_frame(m, leaf_frame(m, i)) == (f == FILTER_KERNEL_ONLY);
	case FILTER_FOCUS:
	case FILTER_IGNORE:
	case FILTER_HIDE:
		count_marked(m, i, match, &marked, &unmarked);
		return f == FILTER_FOCUS ? marked > 0 : f == FILTER_IGNORE ? !marked : unmarked > 0;
	default:
		return true;
	}
}

static uint64_t count_of(const struct run *r, size_t i)
{
	return r->kept[i] ? pc_model_values(r->m, i)[r->column] : 0;
}

static void note_kept(const struct run *r, const char *name, const char *value, uint64_t kept,
		      uint64_t of)
{
	const struct pc_column *c = pc_model_column(r->m, r->column);
	const char *what = c->role == PC_ROLE_SAMPLES ? "samples" : pc_str(r->m, c->type);
	char share[16] = "";

	if (of)
		snprintf(share, sizeof(share), " (%.1f%%)", 100.0 * (double)kept / (double)of);
	pc_note(r->ctx, "--%s%s%.80s: kept %llu of %llu %s%s", name, *value ? " " : "", value,
		(unsigned long long)kept, (unsigned long long)of, what, share);
}

/* Applies filter f (a sample filter) to the samples kept so far. */
static void filter_samples(struct run *r, enum filter f, const char *value)
{
	uint64_t before = 0, after = 0;
	uint8_t *match = NULL;

	if (f == FILTER_FOCUS || f == FILTER_IGNORE || f == FILTER_HIDE) {
		regcomp(&r->re, value, REG_EXTENDED | REG_NOSUB); /* checked when it was given */
		match = matching_frames(r);
		regfree(&r->re);
	}
	for (size_t i = 0; i < pc_model_nsamples(r->m); i++) {
		before += count_of(r, i);
		if (r->kept[i] && !passes(r, f, value, i, match))
			r->kept[i] = 0;
		after += count_of(r, i);
	}
	if (f == FILTER_HIDE)
		r->hidden = match;
	else
		free(match);
	note_kept(r, filter_names[f], value, after, before);
}

/*
 * A percent range in nanoseconds over the samples' span [first, last], as
 * perf script takes it (its time-utils.c, set_percent_time): each end
 * rounded to a nanosecond, the end a nanosecond short unless it is the last
 * sample's time; both ends kept.
 */
static void percent_bounds(const struct time_range *range, int64_t first, int64_t last,
			   int64_t *lo, int64_t *hi)
{
	double total = (double)(uint64_t)(last - first);

	*lo = first + (int64_t)round(range->lo * total);
	*hi = first + (int64_t)round(range->hi * total);
	if (*hi > *lo && *hi != last)
		(*hi)--;
}

/*
 * Whether time (nanoseconds) is in range k of t: seconds from first, or
 * (percent) bounds[k], in nanoseconds (percent_bounds).
 */
static bool in_time_range(const struct time_ranges *t, size_t k, int64_t time, int64_t first,
			  int64_t (*bounds)[2])
{
	if (!t->percent)
		return (double)(time - first) / NS_PER_SECOND >= t->range[k].lo &&
		       (double)(time - first) / NS_PER_SECOND <= t->range[k].hi;
	return time >= bounds[k][0] && time <= bounds[k][1];
}

/* Marks the timed samples in the ranges of --time and notes what it kept. */
static int filter_times(struct run *r, const char *value)
{
	const struct pc_model *m = r->m;
	size_t n = pc_model_ntimed(m);
	struct time_ranges t;
	int64_t first, last, bounds[MAX_TIME_RANGES][2];
	uint64_t before = 0, after = 0;

	if (!n)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT,
			       "--time needs the time of each sample, which this profile does not "
			       "hold (its input gives none, or it was read without --time)");
	parse_time(value, &t); /* checked when it was given */
	first = pc_model_timed(m, 0)->time;
	last = pc_model_timed(m, n - 1)->time;
	for (size_t k = 0; k < t.n && t.percent; k++) /* once, not a sample */
		percent_bounds(&t.range[k], first, last, &bounds[k][0], &bounds[k][1]);
	r->timed = pc_xcalloc(n, 1);
	for (size_t i = 0; i < n; i++) {
		const struct pc_timed_sample *s = pc_model_timed(m, i);

		for (size_t k = 0; k < t.n && !r->timed[i]; k++)
			r->timed[i] = in_time_range(&t, k, s->time, first, bounds);
		if (s->column != r->column || !r->kept[s->sample])
			continue;
		before += s->count;
		after += r->timed[i] ? s->count : 0;
	}
	note_kept(r, "time", value, after, before);
	return 0;
}

/* The column the notes count: the one the output counts. */
static size_t counted_column(const struct pc_ctx *ctx, const struct pc_model *m)
{
	int c = ctx->opt.event ? pc_model_pick_column(m, ctx->opt.event, PC_ROLE_SAMPLES) : -1;

	return c >= 0 ? (size_t)c : pc_model_default_count_column(m);
}

static int filter_finalized(struct pc_ctx *ctx, const struct pc_model *src, struct pc_model *dst)
{
	struct run r = { .ctx = ctx, .m = src, .column = counted_column(ctx, src) };
	struct pc_merge_filter keep;
	char why[160];
	int status = 0;

	r.kept = pc_xmalloc(pc_model_nsamples(src) + 1);
	memset(r.kept, 1, pc_model_nsamples(src) + 1);
	for (int f = 0; f < NFILTERS && !status; f++) {
		const char *value = pc_option_text(ctx, filter_names[f]);

		if (!value || !pc_model_ncolumns(src))
			continue;
		if (f == FILTER_TIME)
			status = filter_times(&r, value);
		else
			filter_samples(&r, (enum filter)f, value);
	}
	keep = (struct pc_merge_filter){ r.kept, r.hidden, r.timed };
	if (!status && (status = pc_model_merge_filtered(dst, src, &keep, why, sizeof(why))))
		pc_fail(&ctx->err, PC_STATUS_INPUT, "%s", why);
	if (!status)
		pc_model_finalize(dst);
	free(r.kept);
	free(r.hidden);
	free(r.timed);
	return status;
}

int pc_filter_model(struct pc_ctx *ctx, const struct pc_model *src, struct pc_model *dst)
{
	struct pc_model *stacks;
	int status;

	if (!pc_model_has_arc_data(src))
		return filter_finalized(ctx, src, dst);
	stacks = pc_model_new();
	status = pc_model_reconstruct_stacks(ctx, src, stacks);
	if (!status) {
		pc_model_finalize(stacks);
		status = filter_finalized(ctx, stacks, dst);
	}
	pc_model_free(stacks);
	return status;
}
