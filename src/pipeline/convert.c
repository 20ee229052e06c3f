/* convert.c - read inputs into one model, check parts, write atomically. */
#include "pipeline/convert.h"
#include "model/reconstruct.h"
#include "pipeline/filter.h"


unsigned pc_model_parts(const struct pc_model *m)
{
	unsigned parts = 0;

	for (size_t i = 0; i < pc_model_nframes(m); i++) {
		if (pc_model_frame(m, i + 1)->flags & PC_FRAME_HAS_ADDRESS)
			parts |= PC_PART_ADDRESSES;
		if (pc_model_frame(m, i + 1)->function)
			parts |= PC_PART_SYMBOLS;
	}
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
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

int pc_read_opened(struct pc_ctx *ctx, struct pc_input *in, const struct pc_reader *from,
		   struct pc_model *m)
{
	const struct pc_reader *reader = from ? from : pc_detect(in, &ctx->err);
	int status;

	if (!reader)
		return -1;
	status = reader->read(ctx, in, m);
	if (status && in->io_errno) {
		pc_error_clear(&ctx->err);
		pc_input_check_io(in, &ctx->err);
	}
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
	unsigned missing = writer->needs & ~parts;
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
	if (lost) {
		pc_parts_describe(lost, names, sizeof(names));
		return pc_warn(ctx, writer->name, "this format cannot keep the input's %s", names);
	}
	return 0;
}

/* Checks the parts the writer needs and keeps, then renders m into out. */
static int render(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m,
		  struct pc_output *out)
{
	if (check_parts(ctx, m, writer))
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
