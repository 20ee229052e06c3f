/*
 * llvm_sample_writer.c - the model as LLVM's text sample profile, the
 * input of `llvm-profdata merge --sample` and of
 * `clang -fprofile-sample-use=FILE` (LLVM 14).
 *
 * Source: ../shared/research/autofdo-loop.md section 5 (checked with
 * llvm-profdata-14 and clang-14 on Debian 12); LLVM's
 * SampleProfileReaderText. Layout, one function after another, the
 * hottest first:
 *   NAME:TOTAL:HEAD
 *    OFFSET[.DISCRIMINATOR]: COUNT [TARGET:COUNT ...]
 *    OFFSET[.DISCRIMINATOR]: CALLEE:TOTAL       (an inlined instance,
 *     ...                                        its body one space deeper)
 * OFFSET is the line minus the function's declaration line; the
 * discriminator is the base discriminator of LLVM's encoding
 * (clang -fdebug-info-for-profiling), counts scaled by its duplication
 * factor. What goes in: source_profile.c (linkage names, explicit zeros,
 * heads, call targets from branch records).
 *
 * What is lost: everything but the one binary's counts (see
 * autofdo_writer.c); positions LLVM's text cannot hold (lines before the
 * declaration line), counted in a warning.
 */
#include "writers/source_profile.h"
#include "writers/autofdo_counts.h"
#include "base/sort.h"

#include <inttypes.h>

#define FORMAT "llvm-sample"

static void put_loc(FILE *out, uint32_t loc, unsigned depth)
{
	fprintf(out, "%*s%" PRIu32, (int)depth, "", loc >> 16);
	if (loc & 0xffff)
		fprintf(out, ".%" PRIu32, loc & 0xffff);
	fputs(": ", out);
}

static void put_name(FILE *out, const struct source_profile *p, uint32_t name)
{
	fwrite(p->names[name], 1, p->name_lens[name], out);
}

static void put_body(FILE *out, const struct source_profile *p, uint32_t id, unsigned depth)
{
	const struct sp_instance *inst = &p->instances[id];

	for (uint32_t i = 0; i < inst->npositions; i++) {
		const struct sp_position *pos = &p->positions[inst->first_position + i];

		put_loc(out, pos->loc, depth);
		fprintf(out, "%" PRIu64, pos->count);
		for (uint32_t t = 0; t < pos->ntargets; t++) {
			const struct sp_target *target = &p->targets[pos->first_target + t];

			fputc(' ', out);
			put_name(out, p, target->name);
			fprintf(out, ":%" PRIu64, target->count);
		}
		fputc('\n', out);
	}
	for (uint32_t i = 0; i < inst->nchildren; i++) {
		uint32_t child = p->children[inst->first_child + i];

		put_loc(out, p->instances[child].loc, depth);
		put_name(out, p, p->instances[child].name);
		fprintf(out, ":%" PRIu64 "\n", p->instances[child].total);
		put_body(out, p, child, depth + 1);
	}
}

/* The hottest function first; by name among equals (tops are by name already). */
static int compare_totals(const void *ctx, uint32_t a, uint32_t b)
{
	const struct source_profile *p = ctx;
	uint64_t ta = p->instances[p->tops[a]].total, tb = p->instances[p->tops[b]].total;

	return ta > tb ? -1 : ta < tb;
}

static int llvm_sample_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct source_profile p;
	uint32_t *order = NULL;

	if (source_profile_build(&p, ctx, m, FORMAT, SP_LLVM)) {
		source_profile_release(&p);
		return -1;
	}
	order = pc_xmalloc((p.ntops ? p.ntops : 1) * sizeof(*order));
	for (size_t i = 0; i < p.ntops; i++)
		order[i] = (uint32_t)i;
	pc_sort_indices(&p, order, p.ntops, compare_totals);
	for (size_t i = 0; i < p.ntops; i++) {
		const struct sp_instance *top = &p.instances[p.tops[order[i]]];

		put_name(out->fp, &p, top->name);
		fprintf(out->fp, ":%" PRIu64 ":%" PRIu64 "\n", top->total, top->head);
		put_body(out->fp, &p, p.tops[order[i]], 1);
	}
	free(order);
	source_profile_release(&p);
	return 0;
}

static const char *const llvm_sample_extensions[] = { ".prof.txt", ".llvmprof.txt", NULL };

static const struct pc_option_spec llvm_sample_options[] = {
	AFDO_COUNT_OPTIONS,
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_llvm_sample_writer = {
	.name = "llvm-sample",
	.extensions = llvm_sample_extensions,
	.summary = "LLVM text sample profile for clang -fprofile-sample-use (one binary, with its DWARF)",
	.needs = PC_PART_ADDRESSES,
	.keeps = PC_PART_ADDRESSES | PC_PART_BRANCHES,
	.write = llvm_sample_write,
	.options = llvm_sample_options,
};
