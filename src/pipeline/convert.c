/* convert.c - read inputs into one model, check parts, write atomically. */
#include "pipeline/convert.h"
#include "model/reconstruct.h"

#include <time.h>

unsigned pc_model_parts(const struct pc_model *m)
{
	unsigned parts = 0;

	for (size_t i = 0; i < m->nframes; i++) {
		if (m->frames[i].flags & PC_FRAME_HAS_ADDRESS)
			parts |= PC_PART_ADDRESSES;
		if (m->frames[i].function)
			parts |= PC_PART_SYMBOLS;
	}
	for (size_t i = 0; i < m->nsamples; i++) {
		if (m->samples[i].stack)
			parts |= PC_PART_STACKS;
		if (m->samples[i].branches)
			parts |= PC_PART_BRANCHES;
	}
	if (m->narcs)
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

/* pc_read_input, telling how many input bytes the reader consumed. */
static int read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		      struct pc_model *m, uint64_t *bytes)
{
	struct pc_input in;
	struct pc_progress progress;
	const struct pc_reader *reader = from;
	int status = -1;

	if (pc_input_open(&in, path, &ctx->err))
		return -1;
	if (ctx->opt.progress && pc_progress_start(&progress, stderr, in.name, in.size))
		in.progress = &progress;
	if (!reader)
		reader = pc_detect(&in, &ctx->err);
	if (reader) {
		status = reader->read(ctx, &in, m);
		if (status && in.io_errno) {
			pc_error_clear(&ctx->err);
			pc_input_check_io(&in, &ctx->err);
		}
		if (status)
			pc_error_set_path(&ctx->err, in.name);
	}
	if (in.progress)
		pc_progress_finish(in.progress);
	*bytes += pc_input_offset(&in);
	pc_input_close(&in);
	return status;
}

int pc_read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		  struct pc_model *m)
{
	uint64_t bytes = 0;

	return read_input(ctx, path, from, m, &bytes);
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

static double seconds_now(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int write_model(struct pc_ctx *ctx, const struct pc_convert_request *req,
		       const struct pc_model *m)
{
	struct pc_output out;

	if (check_parts(ctx, m, req->to))
		return -1;
	if (pc_output_open(&out, req->output, &ctx->err))
		return -1;
	if (req->to->write(ctx, m, &out)) {
		pc_output_abort(&out);
		return -1;
	}
	return pc_output_commit(&out, &ctx->err);
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

static int write_output(struct pc_ctx *ctx, const struct pc_convert_request *req,
			const struct pc_model *m)
{
	struct pc_model stacks;
	int status;

	if (!wants_stacks_from_arcs(req->to, m))
		return write_model(ctx, req, m);
	pc_model_init(&stacks);
	status = pc_model_reconstruct_stacks(ctx, m, &stacks);
	if (!status)
		status = write_model(ctx, req, &stacks);
	pc_model_release(&stacks);
	return status;
}

int pc_convert(struct pc_ctx *ctx, const struct pc_convert_request *req,
	       struct pc_model *m)
{
	struct pc_convert_timing timing = { 0 };
	double start = seconds_now(), read_end, finalize_end;
	int status = 0;

	for (size_t i = 0; i < req->ninputs && !status; i++)
		status = read_input(ctx, req->inputs[i], req->from, m, &timing.read_bytes);
	read_end = seconds_now();
	if (!status) {
		pc_model_finalize(m);
		pc_release_free_memory(); /* finalize's sorting space, before the writer's */
	}
	finalize_end = seconds_now();
	if (!status)
		status = write_output(ctx, req, m);
	timing.read_seconds = read_end - start;
	timing.finalize_seconds = finalize_end - read_end;
	timing.write_seconds = seconds_now() - finalize_end;
	if (req->timing)
		*req->timing = timing;
	return status;
}
