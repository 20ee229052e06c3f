/* convert.c - read inputs into one model, check parts, write atomically. */
#include "pipeline/convert.h"
#include "model/reconstruct.h"
#include "pipeline/filter.h"
#include "model/copy.h"


unsigned pc_model_parts(const struct pc_model *m)
{
	const unsigned frame_parts = PC_PART_ADDRESSES | PC_PART_SYMBOLS;
	const unsigned sample_parts = PC_PART_STACKS | PC_PART_BRANCHES;
	unsigned parts = 0;

	for (size_t i = 0; i < pc_model_nframes(m) && (parts & frame_parts) != frame_parts; i++) {
		if (pc_model_frame(m, i + 1)->flags & PC_FRAME_HAS_ADDRESS)
			parts |= PC_PART_ADDRESSES;
		if (pc_model_frame(m, i + 1)->function)
			parts |= PC_PART_SYMBOLS;
	}
	for (size_t i = 0; i < pc_model_nsamples(m) && (parts & sample_parts) != sample_parts; i++) {
		if (pc_model_sample(m, i)->stack)
			parts |= PC_PART_STACKS;
		if (pc_model_sample(m, i)->branches)
			parts |= PC_PART_BRANCHES;
	}
	if (pc_model_narcs(m))
		parts |= PC_PART_ARCS;
	return parts;
}

void pc_parts_describe(unsigned mask, char *buf, size_t size)
{
	static const char *const names[] = {
		"instruction addresses", "symbols", "call stacks", "branch stacks",
		"caller-callee arcs",
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < PC_ARRAY_SIZE(names) && used < size; i++)
		if (mask & (1u << i))
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? ", " : "", names[i]);
}

/* A 0-byte input is an error, decided here for every reader, before detection. */
int pc_refuse_empty(struct pc_ctx *ctx, struct pc_input *in)
{
	const uint8_t *data;

	if (pc_input_fill(in, 1, &data))
		return 0;
	if (!pc_input_check_io(in, &ctx->err))
		pc_fail(&ctx->err, PC_STATUS_INPUT, "empty input");
	pc_error_set_path(&ctx->err, in->name);
	return -1;
}

/*
 * A sum of everything counted (sample counts, arcs), to tell whether a read
 * added any: samples with equal keys merge as they are added, so their
 * number alone does not tell. It may wrap; only equality matters.
 */
static uint64_t counted_sum(const struct pc_model *m)
{
	uint64_t sum = pc_model_nsamples(m) + pc_model_narcs(m);

	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		for (size_t c = 0; c < pc_model_ncolumns(m); c++)
			sum += pc_model_values(m, i)[c];
	for (size_t i = 0; i < pc_model_narcs(m); i++)
		sum += pc_model_arc(m, i)->count + 1;
	return sum;
}

/*
 * What the model counted before a read: UINT64_MAX for nothing at all (so
 * that a read that adds samples of count 0, e.g. every function of a
 * Visual Studio summary, still counts as adding some).
 */
static uint64_t counted_before(const struct pc_model *m)
{
	return pc_model_nsamples(m) || pc_model_narcs(m) ? counted_sum(m) : UINT64_MAX;
}

static bool read_added_nothing(const struct pc_model *m, uint64_t before)
{
	if (before == UINT64_MAX)
		return !pc_model_nsamples(m) && !pc_model_narcs(m);
	return counted_sum(m) == before;
}

/*
 * A reader's own, more specific warning about an input without samples
 * ("no CPU samples in the trace: record them with ...") starts with "no "
 * and names samples; the number of those recorded so far.
 */
static uint64_t no_samples_warnings(const struct pc_ctx *ctx)
{
	uint64_t n = 0;

	for (size_t i = 0; i < ctx->nwarnings; i++)
		if (!strncmp(ctx->warnings[i].key, "no ", 3) &&
		    strstr(ctx->warnings[i].key, "samples"))
			n += ctx->warnings[i].count;
	return n;
}

/*
 * A well-formed input without samples gives an empty profile and one
 * warning, the same for every format: the reader's own, else this one.
 * Formats that hold no samples by design (a VSP header) are not warned about.
 */
static int warn_no_samples(struct pc_ctx *ctx, const struct pc_reader *reader,
			   const struct pc_model *m, uint64_t before, uint64_t said_before)
{
	if (!reader->provides || !read_added_nothing(m, before) ||
	    no_samples_warnings(ctx) != said_before)
		return 0;
	pc_notice(ctx, reader->name, "no samples in the input");
	return 0;
}

/* Folded and Sampler counts: samples of no named event (see copy.c map_columns). */
static bool is_unnamed_samples(const struct pc_model *m, size_t c)
{
	const struct pc_column *column = pc_model_column(m, c);

	return column->role == PC_ROLE_SAMPLES && column->event == column->type &&
	       !strcmp(pc_str(m, column->type), "samples");
}

/* Whether m counts unnamed samples apart from the samples of a named event. */
static bool samples_apart(const struct pc_model *m)
{
	bool unnamed = false, named = false;

	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		if (pc_model_column(m, c)->role != PC_ROLE_SAMPLES)
			continue;
		if (is_unnamed_samples(m, c))
			unnamed = true;
		else
			named = true;
	}
	return unnamed && named;
}

/*
 * Merged inputs share the column of the same meaning: a folded or Sampler
 * input read before one with named events (perf) counted its samples in
 * a column of its own; m is rebuilt (through a copy, whose column mapping
 * moves those counts, model/copy.c) so that they join the named event's
 * samples column. A folded or Sampler input read after one joins it as it
 * is read.
 */
int pc_share_samples_columns(struct pc_ctx *ctx, struct pc_model *m)
{
	struct pc_model *copy;
	bool times = pc_model_keeps_times(m);
	char why[200];
	int status;

	if (!samples_apart(m))
		return 0;
	copy = pc_model_new();
	pc_model_finalize(m);
	status = pc_model_merge(copy, m, why, sizeof(why));
	if (!status) {
		pc_model_finalize(copy);
		pc_model_release(m);
		pc_model_init(m);
		if (times)
			pc_model_keep_times(m);
		status = pc_model_merge(m, copy, why, sizeof(why));
	}
	pc_model_free(copy);
	return status ? pc_fail(&ctx->err, PC_STATUS_INPUT, "%s", why) : 0;
}

int pc_read_opened(struct pc_ctx *ctx, struct pc_input *in, const struct pc_reader *from,
		   struct pc_model *m)
{
	const struct pc_reader *reader;
	uint64_t before = counted_before(m), said_before = no_samples_warnings(ctx);
	int status;

	if (pc_refuse_empty(ctx, in))
		return -1;
	reader = from ? from : pc_detect(in, &ctx->err);
	if (!reader)
		return -1;
	status = reader->read(ctx, in, m);
	if (in->io_errno) { /* a read error, whatever the reader made of the bytes it lost */
		pc_error_clear(&ctx->err);
		status = pc_input_check_io(in, &ctx->err);
	}
	if (!status)
		status = warn_no_samples(ctx, reader, m, before, said_before);
	if (!status)
		status = pc_share_samples_columns(ctx, m);
	if (status)
		pc_error_set_path(&ctx->err, in->name);
	return status;
}

int pc_read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		  struct pc_model *m, uint64_t *bytes)
{
	struct pc_input in;
	struct pc_progress progress;
	int status;

	if (pc_input_open(&in, path, &ctx->err))
		return -1;
	if (ctx->opt.progress && pc_progress_start(&progress, stderr, in.name, in.size))
		in.progress = &progress;
	status = pc_read_opened(ctx, &in, from, m);
	if (in.progress)
		pc_progress_finish(in.progress);
	if (bytes)
		*bytes += pc_input_offset(&in);
	pc_input_close(&in);
	return status;
}

static int check_parts(struct pc_ctx *ctx, const struct pc_model *m,
		       const struct pc_writer *writer)
{
	unsigned parts = pc_model_parts(m);
	/* an empty profile needs nothing: every writer can say there is nothing */
	bool empty = !pc_model_nsamples(m) && !pc_model_narcs(m);
	unsigned missing = empty ? 0 : writer->needs & ~parts;
	unsigned lost = parts & ~writer->keeps;
	char names[160];

	if (missing) {
		char formats[160] = "";
		size_t used = 0;

		pc_parts_describe(missing, names, sizeof(names));
		for (size_t i = 0; pc_readers[i] && used < sizeof(formats); i++)
			if ((pc_readers[i]->provides & missing) == missing)
				used += (size_t)snprintf(formats + used, sizeof(formats) - used, "%s%s",
							 used ? ", " : "", pc_readers[i]->name);
		return pc_fail(&ctx->err, PC_STATUS_INPUT,
			       "%s output needs %s, which the input does not have (inputs that do: %s)",
			       writer->name, names, used ? formats : "none yet");
	}
	if (lost) { /* what the chosen format cannot hold by its nature: a notice */
		pc_parts_describe(lost, names, sizeof(names));
		pc_notice(ctx, writer->name, "this format cannot keep the input's %s", names);
	}
	return 0;
}

/*
 * Every column's total fits in int64: each sample's count does (the model
 * refuses more), but a total past 2^63-1 would wrap in whatever sums the
 * output (pprof, a flame graph), so no writer writes one.
 */
static int check_totals(struct pc_ctx *ctx, const struct pc_model *m)
{
	uint64_t totals[PC_MAX_COLUMNS] = { 0 };
	size_t passed = PC_MAX_COLUMNS; /* the first column past the limit, if any */

	/* one pass over the samples: their rows lie anywhere */
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const uint64_t *row = pc_model_values(m, i);

		for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
			if (row[c] > PC_COUNT_MAX - totals[c] && c < passed)
				passed = c;
			totals[c] = pc_add_saturated(totals[c], row[c]);
		}
	}
	if (passed < PC_MAX_COLUMNS)
		return pc_fail(&ctx->err, PC_STATUS_INPUT,
			       "the counts of column '%s' add up to more than 2^63-1",
			       pc_str(m, pc_model_column(m, passed)->type));
	return 0;
}

/* Checks the parts the writer needs and keeps and the totals, then renders m into out. */
static int render(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m,
		  struct pc_output *out)
{
	if (check_parts(ctx, m, writer) || check_totals(ctx, m))
		return -1;
	return writer->write(ctx, m, out);
}

/*
 * Caller/callee data (Visual Studio CallerCallee summaries) has no stacks.
 * Writers that can show it only as stacks (folded, Sampler: they keep
 * stacks, but neither addresses nor arcs) get stacks reconstructed from it
 * (model/reconstruct.h), approximate and said so in a comment; the others
 * (pprof, report, dump, SPT) get the exact per-function data.
 */
static bool wants_stacks_from_arcs(const struct pc_writer *writer, const struct pc_model *m)
{
	return pc_model_has_arc_data(m) && (writer->keeps & PC_PART_STACKS) &&
	       !(writer->keeps & (PC_PART_ADDRESSES | PC_PART_ARCS));
}

static int write_unfiltered(struct pc_ctx *ctx, const struct pc_writer *writer,
			    const struct pc_model *m, struct pc_output *out)
{
	struct pc_model *stacks;
	int status;

	if (!wants_stacks_from_arcs(writer, m))
		return render(ctx, writer, m, out);
	stacks = pc_model_new();
	status = pc_model_reconstruct_stacks(ctx, m, stacks);
	if (!status)
		status = render(ctx, writer, stacks, out);
	pc_model_free(stacks);
	return status;
}

int pc_write_model(struct pc_ctx *ctx, const struct pc_writer *writer,
		   const struct pc_model *m, struct pc_output *out)
{
	struct pc_model *filtered;
	int status;

	if (!pc_filters_given(ctx))
		return write_unfiltered(ctx, writer, m, out);
	filtered = pc_model_new();
	status = pc_filter_model(ctx, m, filtered);
	if (!status)
		status = write_unfiltered(ctx, writer, filtered, out);
	pc_model_free(filtered);
	return status;
}

int pc_write_path(struct pc_ctx *ctx, const struct pc_writer *writer,
		  const struct pc_model *m, const char *path)
{
	struct pc_output out;

	if (pc_output_open(&out, path, &ctx->err))
		return -1;
	if (pc_write_model(ctx, writer, m, &out)) {
		pc_output_abort(&out);
		return -1;
	}
	return pc_output_commit(&out, &ctx->err);
}
