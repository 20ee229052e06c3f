/*
 * autofdo_writer.c - the model as AutoFDO's text sample profile, the input
 * of `create_gcov --profiler=text` (google/autofdo 0.19, Debian's
 * package), and its llvm-profgen flavour, the input of
 * `llvm-profgen --unsymbolized-profile` (LLVM 14).
 *
 * Source: ../shared/research/autofdo.md (grammar section 1.1-1.2, the
 * address space 1.4, the LBR rules 4, llvm-profgen's layout 5.1-5.3) and
 * DESIGN.md section 4.2. Versions: the text format has none; addresses are
 * written as autofdo 0.19 reads them.
 *
 * Layout: "autofdo" writes three sections, always present, each a decimal
 * record count and exactly that many records: ranges "BEGIN-END:COUNT",
 * addresses "ADDR:COUNT", branches "FROM->TO:COUNT". "llvm-unsymbolized"
 * writes the ranges and branches only. Hex is lowercase without "0x",
 * counts are decimal, records are sorted by address and duplicates merged;
 * no blank lines, no spaces, "\n" line ends.
 *
 * What maps where:
 *   one binary     -> the file: --binary NAME picks the modules whose path
 *                     or file name is NAME (or NAME's file name); otherwise
 *                     the binary with the most samples, named in a warning
 *                     (bracketed names such as [kernel.kallsyms] only when
 *                     nothing else has samples). Frames without a module
 *                     form a binary of their own (llvm-profgen's inputs).
 *   frame address  -> an address relative to the binary, as autofdo 0.19
 *                     wants it: ELF vaddr - vaddr of the first PT_LOAD.
 *                     Runtime addresses in a module's mmap range become
 *                     perf's dso offset (runtime - start + file offset);
 *                     a dso offset becomes vaddr - first PT_LOAD vaddr
 *                     through the program headers of --binary when that
 *                     names a readable ELF file, else it is written as it
 *                     is (equal for GNU ld output). Without a range,
 *                     --base ADDR is subtracted; without one either, a
 *                     non-PIE ELF gives vaddr = runtime address, and a
 *                     DSO-relative address is written as it is, with a
 *                     warning. SPT RVAs are written as they are. The llvm
 *                     flavour is relative to the page of the first
 *                     executable PT_LOAD instead, as llvm-profgen 14's
 *                     default, when the ELF is at hand.
 *   leaf IP        -> address count: the first physical frame of each
 *                     sample's stack, counted in the event column
 *                     (--event NAME: the samples column of event NAME, or
 *                     the column named NAME; default: the first samples
 *                     column, else the first that holds neither branch or
 *                     stack records nor weights, else the default).
 *   branch stack   -> newest first, as AutoFDO: entry 0 gives its branch;
 *                     entry i >= 1 gives range [to_i, from_(i-1)] and its
 *                     branch from_i->to_i; a range that is negative or
 *                     longer than 1 MiB is dropped with its branch. SPT
 *                     LBR records (a branches column) give branches only,
 *                     and ranges too with --lbr-ranges (SPT does not
 *                     promise the order). Weight: the branches column,
 *                     else the event column.
 *   llvm flavour   -> when the binary has no branch data, each IP becomes
 *                     a point range "a-a" (llvm-profgen's --leading-ip-only).
 *
 * What the format holds not, by its nature (the pipeline's notice, or a
 * notice of the writer's; never an error with --strict): other binaries,
 * symbols, stacks beyond the leaf, labels, other columns; which binary was
 * picked without --binary, --base ignored, IPs as one-address ranges
 * (llvm), and that --lbr-ranges would make ranges of SPT LBR records.
 * What is lost (each counted in one warning, an error with --strict):
 * frames without address or load address, addresses below --base or
 * outside the ELF's segments, dropped ranges, and DSO-relative addresses
 * written as they are without an ELF file to check them against.
 */
#include "writers/autofdo_counts.h"
#include "base/sort.h"

#include <inttypes.h>

static int compare_keys(const void *ctx, uint32_t a, uint32_t b)
{
	const struct pc_tally *t = ctx;
	size_t na, nb;
	const uint32_t *ka = pc_seq(&t->keys, a, &na), *kb = pc_seq(&t->keys, b, &nb);

	for (size_t i = 0; i < na && i < nb; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

static void write_section(const struct pc_tally *t, const char *separator, FILE *out)
{
	size_t nkeys = t->keys.count - 1;
	uint32_t *order = pc_xmalloc((nkeys ? nkeys : 1) * sizeof(*order));

	for (size_t i = 0; i < nkeys; i++)
		order[i] = (uint32_t)(i + 1);
	pc_sort_indices(t, order, nkeys, compare_keys);
	fprintf(out, "%zu\n", nkeys);
	for (size_t i = 0; i < nkeys; i++) {
		size_t n;
		const uint32_t *key = pc_seq(&t->keys, order[i], &n);

		fprintf(out, "%" PRIx64, afdo_key_value(key, 0));
		if (n == 4)
			fprintf(out, "%s%" PRIx64, separator, afdo_key_value(key, 1));
		fprintf(out, ":%" PRIu64 "\n", t->counts[order[i]]);
	}
	free(order);
}

/* llvm-profgen without branch data: IPs as point ranges (--leading-ip-only). */
static int ips_as_ranges(struct pc_ctx *ctx, struct afdo_counts *c)
{
	for (uint32_t key = 1; key < c->addresses.keys.count; key++) {
		size_t n;
		const uint32_t *items = pc_seq(&c->addresses.keys, key, &n);
		uint64_t range[2] = { afdo_key_value(items, 0), afdo_key_value(items, 0) };

		if (afdo_counts_add(ctx, "llvm-unsymbolized", &c->ranges, range, 2,
				    c->addresses.counts[key]))
			return -1;
	}
	pc_notice(ctx, "llvm-unsymbolized",
		  "the input has no branch stacks: llvm-unsymbolized gets each IP as a one-address range");
	return 0;
}

static int check_empty(struct pc_ctx *ctx, const struct afdo_counts *c, const char *format)
{
	if (c->ranges.keys.count > 1 || c->addresses.keys.count > 1 || c->branches.keys.count > 1)
		return 0;
	return pc_fail(&ctx->err, PC_STATUS_INPUT,
		       "%s: no instruction address of the chosen binary could be written", format);
}

static int write_profile(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out,
			 bool llvm)
{
	const char *format = llvm ? "llvm-unsymbolized" : "autofdo";
	struct afdo_counts c;
	int ret = -1;

	if (afdo_counts_collect(&c, ctx, m, format, llvm ? AFDO_SPACE_LLVM : AFDO_SPACE_AUTOFDO) ||
	    check_empty(ctx, &c, format))
		goto out;
	if (llvm && c.ranges.keys.count == 1 && c.branches.keys.count == 1 && ips_as_ranges(ctx, &c))
		goto out;
	write_section(&c.ranges, "-", out->fp);
	if (!llvm)
		write_section(&c.addresses, "", out->fp);
	write_section(&c.branches, "->", out->fp);
	ret = 0;
out:
	afdo_counts_release(&c);
	return ret;
}

static int autofdo_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	return write_profile(ctx, m, out, false);
}

static int llvm_unsymbolized_write(struct pc_ctx *ctx, const struct pc_model *m,
				   struct pc_output *out)
{
	return write_profile(ctx, m, out, true);
}

static const char *const autofdo_extensions[] = { ".afdo.txt", ".afdotext", NULL };

static const struct pc_option_spec autofdo_options[] = {
	AFDO_COUNT_OPTIONS,
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_autofdo_writer = {
	.name = "autofdo",
	.extensions = autofdo_extensions,
	.summary = "AutoFDO text profile for create_gcov --profiler=text (one binary)",
	.needs = PC_PART_ADDRESSES,
	.keeps = PC_PART_ADDRESSES | PC_PART_BRANCHES,
	.write = autofdo_write,
	.options = autofdo_options,
};

const struct pc_writer pc_llvm_unsymbolized_writer = {
	.name = "llvm-unsymbolized",
	.summary = "llvm-profgen unsymbolized profile (--unsymbolized-profile), ranges and branches",
	.needs = PC_PART_ADDRESSES,
	.keeps = PC_PART_ADDRESSES | PC_PART_BRANCHES,
	.write = llvm_unsymbolized_write,
	.options = autofdo_options,
};
