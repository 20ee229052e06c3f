/* fixture_model.c - building a fixture's model for writer tests. */
#include "support/fixture_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

uint32_t pct_module(struct fixture *f, const char *name)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name) };

	return pc_model_add_module(f->m, &mod);
}

uint32_t pct_frame(struct fixture *f, uint32_t mod, uint64_t address, const char *function,
		   const char *file, uint32_t line)
{
	struct pc_frame fr = {
		.module = mod,
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = address,
		.function = function ? pc_model_intern_cstr(f->m, function) : 0,
		.file = file ? pc_model_intern_cstr(f->m, file) : 0,
		.line = line,
	};

	return pc_model_add_frame(f->m, &fr);
}

struct pc_label pct_str_label(struct fixture *f, const char *key, const char *value)
{
	return (struct pc_label){ .key = pc_model_intern_cstr(f->m, key),
				  .str = pc_model_intern_cstr(f->m, value) };
}

struct pc_label pct_num_label(struct fixture *f, const char *key, int64_t num)
{
	return (struct pc_label){ .key = pc_model_intern_cstr(f->m, key), .num = num,
				  .unit = pc_model_intern_cstr(f->m, key) };
}

void pct_add(struct fixture *f, const uint32_t *frames, size_t n, const struct pc_label *labels,
	     size_t nlabels, int column, uint64_t count)
{
	struct pc_sample sample = {
		.stack = pc_model_add_stack(f->m, frames, n),
		.labels = pc_model_add_labels(f->m, labels, nlabels),
	};

	assert_int_equal(pc_model_add_sample(f->m, &sample, (size_t)column, count), 0);
}

bool pct_has_warning(const struct fixture *f, const char *part)
{
	for (size_t i = 0; i < f->ctx.nwarnings; i++)
		if (strstr(f->ctx.warnings[i].text, part))
			return true;
	return false;
}
