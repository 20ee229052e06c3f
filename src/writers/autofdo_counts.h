/*
 * autofdo_counts.h - what AutoFDO counts of one binary, taken from the
 * model (autofdo_counts.c): instruction-address samples, straight-line
 * ranges and taken branches, each aggregated by address, for the writers
 * of compiler profiles (autofdo, llvm-unsymbolized, gcc-afdo,
 * llvm-sample). The rules are AutoFDO's; the comment at the top of
 * autofdo_writer.c says how frames become addresses.
 */
#ifndef PC_AUTOFDO_COUNTS_H
#define PC_AUTOFDO_COUNTS_H

#include "model/format.h"
#include "base/seqs.h"

/* The address space of the counts. */
enum afdo_space {
	AFDO_SPACE_AUTOFDO, /* ELF vaddr - vaddr of the first PT_LOAD (autofdo 0.19) */
	AFDO_SPACE_LLVM,    /* ELF vaddr - page of the first executable PT_LOAD (llvm-profgen 14) */
	AFDO_SPACE_VADDR,   /* the ELF vaddr; --binary must name the readable ELF file */
};

/* Tallies keyed by 64-bit values written as (high, low) 32-bit word pairs. */
struct afdo_counts {
	struct pc_tally ranges;    /* (begin, end): both inclusive */
	struct pc_tally addresses; /* (address): IP samples */
	struct pc_tally branches;  /* (from, to) */
	bool spt_lbr;              /* the branches came from SPT LBR records */
	const char *build_id;      /* the chosen ELF binary's, as the input has it, or "" */
	const char *binary;        /* its name as the input has it, or "" */
};

/*
 * Counts the binary that --binary names (else the most sampled one, said
 * in a warning) in the given address space; losses are counted in
 * warnings prefixed with format. 0, or -1 with ctx->err set; release c
 * either way.
 */
int afdo_counts_collect(struct afdo_counts *c, struct pc_ctx *ctx, const struct pc_model *m,
			const char *format, enum afdo_space space);
void afdo_counts_release(struct afdo_counts *c);
/* Adds count under the n values; -1 with ctx->err set when a count passes 2^63-1. */
int afdo_counts_add(struct pc_ctx *ctx, const char *format, struct pc_tally *t,
		    const uint64_t *values, size_t n, uint64_t count);

/* Value i of a key. */
static inline uint64_t afdo_key_value(const uint32_t *key, size_t i)
{
	return (uint64_t)key[2 * i] << 32 | key[2 * i + 1];
}

/* The options of every writer built on these counts. */
#define AFDO_COUNT_OPTIONS                                                                        \
	{ "binary", PC_OPTION_TEXT, "NAME", "the binary (path or file name) to keep", 0 },         \
	{ "base", PC_OPTION_ADDRESS, "ADDR", "the load base to subtract from runtime addresses", 0 }, \
	{ "lbr-ranges", PC_OPTION_FLAG, NULL, "ranges from SPT LBR records too", 0 }

#endif
