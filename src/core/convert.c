/* convert.c - read inputs into one model, check parts, write atomically. */
#include "convert.h"

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

int pc_read_input(struct pc_ctx *ctx, const char *path, const struct pc_reader *from,
		  struct pc_model *m)
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

int pc_convert(struct pc_ctx *ctx, const struct pc_convert_request *req,
	       struct pc_model *m)
{
	struct pc_output out;

	for (size_t i = 0; i < req->ninputs; i++)
		if (pc_read_input(ctx, req->inputs[i], req->from, m))
			return -1;
	pc_model_finalize(m);
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
