/* caller_callee.c - hand-built caller/callee models for tests. */
#include "caller_callee.h"

void pct_cc_columns(struct pc_model *m)
{
	pc_model_add_source(m, "vsperf");
	int self = pc_model_add_event_column(m, "samples", "count", "samples", PC_ROLE_EXCLUSIVE);
	int total = pc_model_add_event_column(m, "inclusive_samples", "count", "samples",
					      PC_ROLE_INCLUSIVE);

	if (self < 0 || total < 0)
		abort();
	pc_model_set_arc_columns(m, self, total);
	pc_model_set_default_column(m, self);
}

uint32_t pct_cc_process(struct pc_model *m, const char *comm, int64_t pid)
{
	struct pc_label labels[2] = {
		{ .key = pc_model_intern_cstr(m, "comm"), .str = pc_model_intern_cstr(m, comm) },
		{ .key = pc_model_intern_cstr(m, "pid"), .num = pid,
		  .unit = pc_model_intern_cstr(m, "pid") },
	};

	return pc_model_add_labels(m, labels, 2);
}

uint32_t pct_cc_module(struct pc_model *m, const char *path, uint32_t space)
{
	struct pc_module module = { .name = pc_model_intern_cstr(m, path), .space = space };

	return pc_model_add_module(m, &module);
}

uint32_t pct_cc_function(struct pc_model *m, const char *name, uint32_t module,
			 uint64_t address, uint32_t labels, uint64_t self, uint64_t total)
{
	struct pc_frame frame = {
		.module = module,
		.flags = module ? PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE : 0,
		.address = module ? address : 0,
		.function = pc_model_intern_cstr(m, name),
	};
	uint32_t id = pc_model_add_frame(m, &frame);
	struct pc_sample sample = { .stack = pc_model_add_stack(m, &id, 1), .labels = labels };

	if (module) {
		struct pc_module range = *pc_model_module(m, module);

		range.has_range = true;
		range.start = address;
		range.limit = address + 1;
		pc_model_add_module(m, &range);
	}
	if (pc_model_add_sample(m, &sample, (size_t)pc_model_arc_self_column(m), self) ||
	    pc_model_add_sample(m, &sample, (size_t)pc_model_arc_total_column(m), total))
		abort();
	return id;
}

uint32_t pct_cc_named(struct pc_model *m, const char *name, uint64_t self, uint64_t total)
{
	return pct_cc_function(m, name, 0, 0, 0, self, total);
}

void pct_cc_call(struct pc_model *m, uint32_t caller, uint32_t callee, uint64_t count)
{
	if (pc_model_add_arc(m, caller, callee, PC_ARC_CALL, count))
		abort();
}
