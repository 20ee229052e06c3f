/*
 * speedscope_writer.c - writes speedscope's JSON file format
 * (`-t speedscope`, .speedscope.json), which speedscope
 * (www.speedscope.app, the `speedscope` npm package) opens.
 *
 * Source: speedscope's published schema,
 * https://www.speedscope.app/file-format-schema.json (JSON Schema draft
 * 07; the npm package ships it as dist/release/file-format-schema.json),
 * and its importer (src/import/speedscope.ts). The format with shared
 * frames is the one of speedscope 0.6.0 and later; the output is checked
 * against the schema and opened by the importer of speedscope 1.25.0 in
 * tests/e2e/viewers_json.sh. The file:
 *
 *   {"$schema":"https://www.speedscope.app/file-format-schema.json",
 *    "exporter":"profconv VERSION","name":NAME,"activeProfileIndex":N,
 *    "shared":{"frames":[{"name":..,"file":..,"line":..}, ...]},
 *    "profiles":[{"type":"sampled","name":..,"unit":..,"startValue":0,
 *                 "endValue":TOTAL,"samples":[[ROOT,..,LEAF],..],
 *                 "weights":[W,..]}, ...]}
 *
 * What maps where:
 *   frame            -> a shared frame per distinct (name, file, line,
 *                       module) (writers/call_frames.h): name = the
 *                       function, else MODULE+0xRVA, MODULE@0xADDR, 0xADDR,
 *                       [MODULE] or [unknown] (writers/frame_name.h); file
 *                       and line (1-based) when known. The model has no
 *                       source columns, so "col" is never written
 *   stack            -> a sample: frame indices root first (the model's
 *                       stacks are leaf first); a sample without a call
 *                       stack (branch-only LBR records) gets the one frame
 *                       "(no stack)", so that the weights still add up
 *                       (speedscope counts an empty stack as idle time)
 *   threads          -> with comm, pid or tid labels (perf, ETW, Sampler,
 *                       VS multi-process reports): one sampled profile per
 *                       thread (writers/thread_split.h), named "COMM
 *                       PID/TID", sorted by pid, tid, comm, of one column:
 *                       --event NAME (the weight column of event NAME, else
 *                       the column named NAME), else the default column;
 *                       activeProfileIndex = the profile with the largest
 *                       total (the first of equal ones)
 *   columns          -> without those labels: one sampled profile per column
 *                       with a value (all samples), named as the column,
 *                       activeProfileIndex = the default column's; with
 *                       --event NAME only that column's
 *   value            -> the weight of its sample, in the column's unit:
 *                       nanoseconds, microseconds, milliseconds, seconds
 *                       and bytes as they are, anything else (count,
 *                       events) "none"; samples whose value is 0 are left
 *                       out. startValue 0, endValue the profile's total
 *                       (speedscope's total weight, as its own exporter
 *                       writes it)
 *   name             -> the output file's name without .speedscope.json,
 *                       or "profconv: SOURCES" (the formats read) when
 *                       writing to stdout or memory
 * Samples keep the finalized model's order (by content, not time: the
 * model merges equal samples and keeps no timestamps, so speedscope's
 * "Time Order" view shows the stacks grouped, not as they happened).
 * Strings are JSON-escaped, invalid UTF-8 replaced by U+FFFD
 * (writers/json_text.h). Output is deterministic.
 *
 * Limits: a profile whose total passes 2^63-1 is refused; values past
 * 2^53 are written exactly but lose precision in JavaScript (a notice).
 *
 * Caller/callee data (Visual Studio CallerCallee summaries, which have no
 * stacks) reaches this writer as the stacks that model/reconstruct.h
 * rebuilds from it (pipeline/convert.c does that for stack-only writers):
 * approximate, with counts that add up to the exclusive total exactly.
 *
 * What the format holds not, each said in one notice (never an error with
 * --strict): labels other than comm, pid and tid; with threads or --event,
 * the other columns; units speedscope lacks (written as "none"); samples
 * without a stack (the one frame "(no stack)"). Addresses (but in the
 * names of frames without a function), modules (but in those names),
 * branch stacks and arcs are noticed by the conversion as parts this
 * format cannot keep; the profile's start time, duration, period,
 * comments and facts are not written. What is lost, with one warning (an
 * error with --strict): invalid UTF-8 in names (U+FFFD).
 */
#include "model/format.h"
#include "writers/call_frames.h"
#include "writers/json_text.h"
#include "writers/thread_split.h"

#define SPEEDSCOPE "speedscope"
#define SCHEMA_URL "https://www.speedscope.app/file-format-schema.json"
#define NO_STACK "(no stack)"
#define JS_EXACT_MAX (UINT64_C(1) << 53)

/* One sampled profile: a column's values, of one thread or of all samples. */
struct ss_profile {
	size_t column;
	uint32_t thread;  /* by_thread only */
	uint64_t total;
	uint32_t *samples; /* sample indices, by_thread only (else every sample) */
	size_t nsamples, samples_cap;
};

struct speedscope {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	struct pc_output *out;
	FILE *fp;

	struct pc_call_frames frames;
	struct pc_threads threads;
	bool by_thread;
	size_t column;            /* the column of by_thread or --event */
	uint32_t no_stack;        /* the "(no stack)" frame + 1, 0 = not needed */

	struct ss_profile *profiles;
	size_t nprofiles;
	size_t active;

	uint64_t stackless;       /* the weight written with the "(no stack)" frame */
	bool past_js_exact, replaced;
};

/* ---- the columns ---- */

static int pick_column(struct speedscope *w)
{
	const struct pc_model *m = w->m;
	const char *event = w->ctx->opt.event;
	int column;

	if (!event) {
		column = pc_model_default_column(m);
		w->column = column >= 0 ? (size_t)column : 0;
		return 0;
	}
	column = pc_model_pick_column(m, event, PC_ROLE_WEIGHT);
	if (column < 0 && !pc_model_ncolumns(m))
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "%s: no event '%s': the input has no values", SPEEDSCOPE, event);
	if (column < 0)
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "%s: no event '%s' in the input (its first column is '%s')",
			       SPEEDSCOPE, event, pc_str(m, pc_model_column(m, 0)->type));
	w->column = (size_t)column;
	return 0;
}

/* speedscope's unit for a column's unit; NULL when it has none. */
static const char *speedscope_unit(const char *unit)
{
	static const char *const same[] = {
		"nanoseconds", "microseconds", "milliseconds", "seconds", "bytes",
	};

	for (size_t i = 0; i < PC_ARRAY_SIZE(same); i++)
		if (!strcmp(unit, same[i]))
			return same[i];
	return NULL;
}

static bool column_has_values(const struct pc_model *m, size_t column)
{
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		if (pc_model_values(m, i)[column])
			return true;
	return false;
}

static struct ss_profile *add_profile(struct speedscope *w, size_t column, uint32_t thread)
{
	struct ss_profile *profile = &w->profiles[w->nprofiles++];

	*profile = (struct ss_profile){ .column = column, .thread = thread };
	return profile;
}

/* One profile per column with values (or the picked one): no thread labels. */
static void plan_columns(struct speedscope *w)
{
	const struct pc_model *m = w->m;

	w->profiles = pc_xcalloc(pc_model_ncolumns(m) + 1, sizeof(*w->profiles));
	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		bool picked = c == w->column;

		if (w->ctx->opt.event ? !picked : !picked && !column_has_values(m, c))
			continue;
		if (picked)
			w->active = w->nprofiles;
		add_profile(w, c, 0);
	}
}

/* One profile per thread, of w->column. */
static void plan_threads(struct speedscope *w)
{
	const struct pc_model *m = w->m;
	uint32_t *order, *rank;
	struct ss_profile *by_thread;

	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		if (pc_model_values(m, i)[w->column])
			pc_threads_of(&w->threads, pc_model_sample(m, i)->labels);
	order = pc_threads_sorted(&w->threads);
	rank = pc_xcalloc(w->threads.count + 1, sizeof(*rank));
	w->profiles = pc_xcalloc(w->threads.count + 1, sizeof(*w->profiles));
	for (size_t i = 0; i < w->threads.count; i++) {
		rank[order[i]] = (uint32_t)i;
		add_profile(w, w->column, order[i]);
	}
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		if (!pc_model_values(m, i)[w->column])
			continue;
		by_thread = &w->profiles[rank[pc_threads_of(&w->threads,
							     pc_model_sample(m, i)->labels)]];
		pc_grow(&by_thread->samples, &by_thread->samples_cap, by_thread->nsamples + 1,
			sizeof(*by_thread->samples));
		by_thread->samples[by_thread->nsamples++] = (uint32_t)i;
	}
	if (!w->nprofiles) /* no values at all: one empty profile of the column */
		add_profile(w, w->column, UINT32_MAX);
	free(order);
	free(rank);
}

/* Sample k of a profile (its index in the model). */
static size_t profile_sample(const struct speedscope *w, const struct ss_profile *profile,
			     size_t k)
{
	return w->by_thread ? profile->samples[k] : k;
}

static size_t profile_nsamples(const struct speedscope *w, const struct ss_profile *profile)
{
	return w->by_thread ? profile->nsamples : pc_model_nsamples(w->m);
}

/* Totals, the frames every written sample uses, the active profile. */
static int gather(struct speedscope *w)
{
	const struct pc_model *m = w->m;

	for (size_t p = 0; p < w->nprofiles; p++) {
		struct ss_profile *profile = &w->profiles[p];

		for (size_t k = 0; k < profile_nsamples(w, profile); k++) {
			size_t i = profile_sample(w, profile, k), n;
			uint64_t value = pc_model_values(m, i)[profile->column];
			const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

			if (!value)
				continue;
			if (value > PC_COUNT_MAX - profile->total)
				return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
					       "%s: the values of column '%s' add up to more "
					       "than 2^63-1", SPEEDSCOPE,
					       pc_str(m, pc_model_column(m, profile->column)->type));
			profile->total += value;
			for (size_t f = n; f > 0; f--)
				pc_call_frames_of(&w->frames, frames[f - 1]);
			if (!n)
				w->stackless += value;
		}
		if (profile->total > JS_EXACT_MAX)
			w->past_js_exact = true;
		if (w->by_thread && profile->total > w->profiles[w->active].total)
			w->active = p;
	}
	if (w->stackless)
		w->no_stack = (uint32_t)w->frames.count + 1;
	return 0;
}

/* ---- the output ---- */

static void put_string(struct speedscope *w, const char *s, size_t len)
{
	if (pc_json_put_string(w->fp, s, len))
		w->replaced = true;
}

static void put_cstring(struct speedscope *w, const char *s)
{
	put_string(w, s, strlen(s));
}

static void put_file_name(struct speedscope *w)
{
	static const char ext[] = ".speedscope.json";
	const char *path = w->out->path, *base = path;
	size_t len;
	char text[300];
	int used = 0;

	for (const char *p = path; *p; p++)
		if (*p == '/')
			base = p + 1;
	len = strlen(base);
	if (len > sizeof(ext) - 1 && !strcmp(base + len - (sizeof(ext) - 1), ext))
		len -= sizeof(ext) - 1;
	if (!w->out->to_stdout && !w->out->mem && len) {
		put_string(w, base, len);
		return;
	}
	used = snprintf(text, sizeof(text), "profconv:");
	for (size_t i = 0; i < pc_model_nsources(w->m) && (size_t)used < sizeof(text); i++)
		used += snprintf(text + used, sizeof(text) - (size_t)used, "%s%s", i ? "+" : " ",
				 pc_str(w->m, pc_model_source(w->m, i)));
	put_cstring(w, text);
}

static void put_frames(struct speedscope *w)
{
	fputs("\"shared\":{\"frames\":[", w->fp);
	for (size_t i = 0; i < w->frames.count; i++) {
		const struct pc_call_frame *frame = &w->frames.items[i];

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", w->fp);
		put_string(w, frame->name, frame->name_len);
		if (frame->file) {
			fputs(",\"file\":", w->fp);
			put_string(w, pc_str(w->m, frame->file), pc_str_len(w->m, frame->file));
		}
		if (frame->line)
			fprintf(w->fp, ",\"line\":%lu", (unsigned long)frame->line);
		fputc('}', w->fp);
	}
	if (w->no_stack)
		fprintf(w->fp, "%s{\"name\":\"" NO_STACK "\"}", w->frames.count ? ",\n" : "\n");
	fputs("]},\n", w->fp);
}

static void put_profile_name(struct speedscope *w, const struct ss_profile *profile)
{
	char name[600];

	if (w->by_thread && profile->thread != UINT32_MAX) {
		put_string(w, name, pc_threads_name(&w->threads, profile->thread, name,
						    sizeof(name)));
		return;
	}
	if (!pc_model_ncolumns(w->m)) {
		put_cstring(w, "(no values)");
		return;
	}
	put_cstring(w, pc_str(w->m, pc_model_column(w->m, profile->column)->type));
}

static void put_samples(struct speedscope *w, const struct ss_profile *profile)
{
	const struct pc_model *m = w->m;
	bool first = true;

	fputs(",\n\"samples\":[", w->fp);
	for (size_t k = 0; k < profile_nsamples(w, profile); k++) {
		size_t i = profile_sample(w, profile, k), n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

		if (!pc_model_values(m, i)[profile->column])
			continue;
		fputs(first ? "[" : ",[", w->fp);
		first = false;
		for (size_t f = n; f > 0; f--)
			fprintf(w->fp, f == n ? "%lu" : ",%lu",
				(unsigned long)pc_call_frames_of(&w->frames, frames[f - 1]));
		if (!n)
			fprintf(w->fp, "%lu", (unsigned long)(w->no_stack - 1));
		fputc(']', w->fp);
	}
	fputs("],\n\"weights\":[", w->fp);
	first = true;
	for (size_t k = 0; k < profile_nsamples(w, profile); k++) {
		uint64_t value = pc_model_values(m, profile_sample(w, profile, k))[profile->column];

		if (!value)
			continue;
		fprintf(w->fp, first ? "%llu" : ",%llu", (unsigned long long)value);
		first = false;
	}
	fputs("]}", w->fp);
}

static void put_profiles(struct speedscope *w)
{
	fputs("\"profiles\":[", w->fp);
	for (size_t p = 0; p < w->nprofiles; p++) {
		const struct ss_profile *profile = &w->profiles[p];
		const char *unit = pc_model_ncolumns(w->m) ?
			speedscope_unit(pc_str(w->m, pc_model_column(w->m, profile->column)->unit)) :
			NULL;

		fputs(p ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":",
		      w->fp);
		put_profile_name(w, profile);
		fprintf(w->fp, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu",
			unit ? unit : "none", (unsigned long long)profile->total);
		put_samples(w, profile);
	}
	fputs("]}\n", w->fp);
}

static void put_file(struct speedscope *w)
{
	fputs("{\"$schema\":\"" SCHEMA_URL "\",\n\"exporter\":\"profconv " PC_VERSION "\",\n"
	      "\"name\":", w->fp);
	put_file_name(w);
	fprintf(w->fp, ",\n\"activeProfileIndex\":%lu,\n", (unsigned long)w->active);
	put_frames(w);
	put_profiles(w);
}

/* ---- warnings ---- */

/* A written column's unit that speedscope lacks, or NULL. */
static const char *lost_unit(const struct speedscope *w)
{
	for (size_t p = 0; p < w->nprofiles && pc_model_ncolumns(w->m); p++) {
		const char *unit = pc_str(w->m, pc_model_column(w->m, w->profiles[p].column)->unit);

		if (*unit && strcmp(unit, "count") && !speedscope_unit(unit))
			return unit;
	}
	return NULL;
}

/*
 * A column with values that no profile writes, or NULL; the samples column
 * of a written weight's event is not lost (its count is the weight's
 * number of samples).
 */
static const char *lost_column(const struct speedscope *w)
{
	const struct pc_model *m = w->m;
	const struct pc_column *kept;

	if (!w->by_thread && !w->ctx->opt.event)
		return NULL;
	kept = pc_model_column(m, w->column);
	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		const struct pc_column *other = pc_model_column(m, c);

		if (c == w->column || (kept->role == PC_ROLE_WEIGHT &&
				       other->role == PC_ROLE_SAMPLES && other->event == kept->event))
			continue;
		if (column_has_values(m, c))
			return pc_str(m, other->type);
	}
	return NULL;
}

/* Notices for what the format holds not; warnings (errors with --strict) for losses. */
static int warn_lost(struct speedscope *w)
{
	const char *column = lost_column(w), *unit = lost_unit(w);

	if (column)
		pc_notice(w->ctx, SPEEDSCOPE, "only column '%s' is written%s; others such as "
			  "'%s' are lost (pick one with --event)",
			  pc_str(w->m, pc_model_column(w->m, w->column)->type),
			  w->by_thread ? ", one profile per thread" : "", column);
	if (unit)
		pc_notice(w->ctx, SPEEDSCOPE, "unit '%s' has no speedscope equivalent: "
			  "written as \"none\"", unit);
	if (w->threads.lost_labels)
		pc_notice(w->ctx, SPEEDSCOPE, "labels other than comm, pid and tid are lost");
	if (w->stackless)
		pc_notice(w->ctx, SPEEDSCOPE, "samples without a call stack (a weight of %llu) "
			  "are written with the one frame \"" NO_STACK "\"",
			  (unsigned long long)w->stackless);
	if (w->past_js_exact)
		pc_notice(w->ctx, SPEEDSCOPE, "a profile's total passes 2^53: JavaScript "
			  "viewers read its values rounded");
	if (w->replaced &&
	    pc_warn(w->ctx, SPEEDSCOPE, "invalid UTF-8 in names is written as U+FFFD"))
		return -1;
	return 0;
}

static void writer_release(struct speedscope *w)
{
	for (size_t p = 0; p < w->nprofiles; p++)
		free(w->profiles[p].samples);
	free(w->profiles);
	pc_call_frames_release(&w->frames);
	pc_threads_release(&w->threads);
}

static int speedscope_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct speedscope w = { .ctx = ctx, .m = m, .out = out, .fp = out->fp };
	int ret = -1;

	pc_call_frames_init(&w.frames, m);
	pc_threads_init(&w.threads, m);
	if (pick_column(&w))
		goto out;
	w.by_thread = pc_model_ncolumns(m) && pc_threads_any(m);
	if (w.by_thread)
		plan_threads(&w);
	else if (pc_model_ncolumns(m))
		plan_columns(&w);
	else
		w.profiles = pc_xcalloc(1, sizeof(*w.profiles)); /* no values: no profile */
	if (!w.by_thread && pc_model_ncolumns(m))
		for (size_t i = 0; i < pc_model_nsamples(m); i++)
			pc_threads_of(&w.threads, pc_model_sample(m, i)->labels); /* lost labels */
	if (gather(&w))
		goto out;
	put_file(&w);
	if (warn_lost(&w))
		goto out;
	ret = 0;
out:
	writer_release(&w);
	return ret;
}

static const char *const speedscope_extensions[] = { ".speedscope.json", NULL };

const struct pc_writer pc_speedscope_writer = {
	.name = "speedscope",
	.extensions = speedscope_extensions,
	.summary = "speedscope's JSON file format (shared frames, one sampled profile per "
		   "thread or column)",
	.needs = 0,
	.keeps = PC_PART_STACKS | PC_PART_SYMBOLS,
	.write = speedscope_write,
	.options = NULL,
};
