/*
 * source_profile.h - a sample profile by source position, the common
 * ground of the gcc-afdo and llvm-sample writers (source_profile.c): for
 * each function, its entry (head) count, a count per line offset (and
 * discriminator), indirect-call targets per position, and the instances
 * of the functions inlined into it, nested, keyed by call position and
 * callee name. Built from AutoFDO's counts of one binary (autofdo_counts.h)
 * and the binary's DWARF (symbols/dwarf_source.h), following create_gcov's
 * rules; ../shared/research/autofdo-loop.md sections 2, 5 and 7.
 */
#ifndef PC_SOURCE_PROFILE_H
#define PC_SOURCE_PROFILE_H

#include "model/format.h"

/* Whose rules the positions and names follow. */
enum sp_flavour {
	SP_GCC,  /* names cut at the first '.', clones merged; discriminators dropped */
	SP_LLVM, /* linkage names as they are; LLVM's discriminators decoded */
};

/* A position: (line - the function's declaration line) << 16 | discriminator. */
struct sp_position {
	uint32_t loc;
	uint64_t count;
	uint32_t first_target, ntargets; /* in targets[], largest count first */
};

struct sp_target {
	uint32_t name;
	uint64_t count;
};

/* A function (top level) or an inlined instance of one (nested). */
struct sp_instance {
	uint32_t name;
	uint32_t loc;    /* the call's position in the parent; 0 at the top level */
	uint64_t head;   /* entry count (top level only) */
	uint64_t total;  /* the positions' counts plus the nested instances' totals */
	uint32_t first_position, npositions; /* in positions[], by loc */
	uint32_t first_child, nchildren;     /* in children[], by (loc, name) */
};

struct source_profile {
	const char **names;  /* by name id (0 = ""), not NUL-terminated: see name_lens */
	uint32_t *name_lens;
	size_t nnames;
	struct sp_instance *instances; /* by id, [0] unused */
	size_t ninstances;
	uint32_t *children;            /* instance ids */
	uint32_t *tops;                /* top-level instance ids, by name */
	size_t ntops;
	struct sp_position *positions;
	struct sp_target *targets;
	void *internal;
};

/*
 * Builds the profile of the binary that --binary names (an ELF file with
 * DWARF) from the model's samples; losses are counted in warnings
 * prefixed with format. 0, or -1 with ctx->err set; release p either way.
 */
int source_profile_build(struct source_profile *p, struct pc_ctx *ctx, const struct pc_model *m,
			 const char *format, enum sp_flavour flavour);
void source_profile_release(struct source_profile *p);

#endif
