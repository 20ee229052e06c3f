/*
 * gcc_afdo_writer.c - the model as gcc's AutoFDO profile, the file that
 * `gcc -fauto-profile=FILE` reads: gcov AutoFDO version 2 (gcc 12 and
 * later, the default) or 1 (gcc 5 to 11, --afdo-version 1).
 *
 * Source: ../shared/research/autofdo-loop.md section 2 (gcc 12.2's
 * auto-profile.cc read_profile and gcov-io.cc, checked against gcc-12 and
 * gcc-11 on Debian 12). Layout, little-endian 32-bit words, 64-bit
 * counters as two words low first:
 *   magic 0x67636461, version, 0
 *   0xaa000000, length, n, n strings: the names; string 0 is "" (gcc never
 *       looks index 0 up, and a 0-length string crashes gcc 12)
 *       version 2: byte length with the NUL, bytes, no padding
 *       version 1: length in words, bytes NUL-padded to a word multiple
 *   0xac000000, length, n functions: u64 head count, INSTANCE
 *       INSTANCE: name index, n positions, n call sites,
 *       positions: (line offset << 16), n targets, u64 count,
 *                  targets: 7 (indirect call), u64 name index, u64 count
 *       call sites: (line offset << 16), INSTANCE (no head count)
 *   0xae000000, 0, 0 (no module groups: gcc asserts there are none)
 *   version 1 only: create_gcov's working set (0xaf000000, 384, 128 zero
 *       entries), which gcc ignores but dump_gcov 0.19 needs.
 * What goes in: source_profile.c (names cut at the first '.', clones
 * merged, discriminators merged by max, explicit zeros, heads).
 *
 * What is lost: everything but the one binary's counts (see
 * autofdo_writer.c), discriminators, totals (gcc recomputes them).
 */
#include "writers/source_profile.h"
#include "writers/autofdo_counts.h"

#define FORMAT "gcc-afdo"
#define GCOV_DATA_MAGIC 0x67636461u
#define TAG_NAMES 0xaa000000u
#define TAG_FUNCTIONS 0xac000000u
#define TAG_MODULES 0xae000000u
#define TAG_WORKING_SET 0xaf000000u
#define WORKING_SET_ENTRIES 128
#define HIST_TYPE_INDIR_CALL_TOPN 7u /* as create_gcov 0.19 writes it (dump_gcov checks it; gcc skips it) */

/* A growing little-endian word buffer. */
struct words {
	uint8_t *bytes;
	size_t len, cap;
};

static void put_bytes(struct words *w, const void *data, size_t len)
{
	pc_grow(&w->bytes, &w->cap, w->len + len, 1);
	memcpy(w->bytes + w->len, data, len);
	w->len += len;
}

static void put_u32(struct words *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	put_bytes(w, b, 4);
}

static void put_u64(struct words *w, uint64_t v)
{
	put_u32(w, (uint32_t)v);
	put_u32(w, (uint32_t)(v >> 32));
}

static void put_string(struct words *w, const char *text, size_t len, unsigned version)
{
	static const uint8_t zeros[4];
	size_t with_nul = len + 1;

	if (version >= 2) {
		put_u32(w, (uint32_t)with_nul);
		put_bytes(w, text, len);
		put_bytes(w, zeros, 1);
		return;
	}
	put_u32(w, (uint32_t)((with_nul + 3) / 4));
	put_bytes(w, text, len);
	put_bytes(w, zeros, 4 * ((with_nul + 3) / 4) - len);
}

/* A tagged section: tag, its length in words (gcc skips it), the body. */
static void put_section(struct words *out, uint32_t tag, const struct words *body)
{
	put_u32(out, tag);
	put_u32(out, (uint32_t)((body->len + 3) / 4));
	put_bytes(out, body->bytes, body->len);
}

static void put_instance(struct words *w, const struct source_profile *p, uint32_t id)
{
	const struct sp_instance *inst = &p->instances[id];

	put_u32(w, inst->name);
	put_u32(w, inst->npositions);
	put_u32(w, inst->nchildren);
	for (uint32_t i = 0; i < inst->npositions; i++) {
		const struct sp_position *pos = &p->positions[inst->first_position + i];

		put_u32(w, pos->loc);
		put_u32(w, pos->ntargets);
		put_u64(w, pos->count);
		for (uint32_t t = 0; t < pos->ntargets; t++) {
			put_u32(w, HIST_TYPE_INDIR_CALL_TOPN);
			put_u64(w, p->targets[pos->first_target + t].name);
			put_u64(w, p->targets[pos->first_target + t].count);
		}
	}
	for (uint32_t i = 0; i < inst->nchildren; i++) {
		uint32_t child = p->children[inst->first_child + i];

		put_u32(w, p->instances[child].loc);
		put_instance(w, p, child);
	}
}

static void put_profile(struct words *out, const struct source_profile *p, unsigned version)
{
	struct words body = { 0 };

	put_u32(out, GCOV_DATA_MAGIC);
	put_u32(out, version);
	put_u32(out, 0);
	put_u32(&body, (uint32_t)p->nnames);
	for (size_t i = 0; i < p->nnames; i++)
		put_string(&body, p->names[i], p->name_lens[i], version);
	put_section(out, TAG_NAMES, &body);
	body.len = 0;
	put_u32(&body, (uint32_t)p->ntops);
	for (size_t i = 0; i < p->ntops; i++) {
		put_u64(&body, p->instances[p->tops[i]].head);
		put_instance(&body, p, p->tops[i]);
	}
	put_section(out, TAG_FUNCTIONS, &body);
	put_u32(out, TAG_MODULES);
	put_u32(out, 0);
	put_u32(out, 0);
	if (version == 1) {
		put_u32(out, TAG_WORKING_SET);
		put_u32(out, 3 * WORKING_SET_ENTRIES);
		for (int i = 0; i < WORKING_SET_ENTRIES; i++) {
			put_u32(out, 0);
			put_u64(out, 0);
		}
	}
	free(body.bytes);
}

static int gcc_afdo_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	unsigned version = pc_option_count(ctx, "afdo-version") == 1 ? 1 : 2;
	struct source_profile p;
	struct words w = { 0 };
	int ret = -1;

	if (source_profile_build(&p, ctx, m, FORMAT, SP_GCC))
		goto out;
	put_profile(&w, &p, version);
	if (fwrite(w.bytes, 1, w.len, out->fp) != w.len) {
		pc_fail(&ctx->err, PC_STATUS_INPUT, FORMAT ": cannot write the output");
		goto out;
	}
	ret = 0;
out:
	free(w.bytes);
	source_profile_release(&p);
	return ret;
}

static const char *const gcc_afdo_extensions[] = { ".afdo", NULL };

static const struct pc_option_spec gcc_afdo_options[] = {
	AFDO_COUNT_OPTIONS,
	{ "afdo-version", PC_OPTION_COUNT, "N", "2 for gcc 12 and later (default), 1 for gcc 5 to 11",
	  2 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_gcc_afdo_writer = {
	.name = "gcc-afdo",
	.extensions = gcc_afdo_extensions,
	.summary = "gcc's AutoFDO profile for -fauto-profile (one binary, with its DWARF)",
	.needs = PC_PART_ADDRESSES,
	.keeps = PC_PART_ADDRESSES | PC_PART_BRANCHES,
	.write = gcc_afdo_write,
	.options = gcc_afdo_options,
};
