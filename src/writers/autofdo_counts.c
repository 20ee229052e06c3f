/*
 * autofdo_counts.c - the model's samples of one binary as AutoFDO counts
 * them: IP samples by address, straight-line ranges and taken branches
 * from branch stacks (rules: ../shared/research/autofdo.md sections 1.4
 * and 4; how frames become addresses: the comment at the top of
 * autofdo_writer.c). Shared by the writers of compiler profiles.
 */
#include "writers/autofdo_counts.h"

#include <inttypes.h>
#include <limits.h>

#define MAX_RANGE ((uint64_t)1 << 20) /* AutoFDO drops longer ranges */
#define MAX_LOADS 64
#define LLVM_PAGE 0x1000u
/* Branch stacks count once per sample of whichever event took them (no --event given). */
#define ALL_SAMPLE_COLUMNS (-2)

/* ---- ELF program headers (a readable --binary) ---- */

struct elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

struct afdo_loads {
	struct elf_load loads[MAX_LOADS]; /* PT_LOAD, in header order */
	size_t nloads;
	bool is_exec;                     /* ET_EXEC: loaded at its vaddrs */
	uint64_t autofdo_base;            /* vaddr of the first PT_LOAD */
	uint64_t llvm_base;               /* page of the first executable PT_LOAD */
};

static uint64_t elf_get(const uint8_t *p, size_t bytes, bool big_endian)
{
	uint64_t value = 0;

	for (size_t i = 0; i < bytes; i++)
		value |= (uint64_t)p[big_endian ? bytes - 1 - i : i] << (8 * i);
	return value;
}

static int elf_read_at(FILE *fp, uint64_t offset, void *buf, size_t len)
{
	if (offset > (uint64_t)LONG_MAX || fseek(fp, (long)offset, SEEK_SET))
		return -1;
	return fread(buf, 1, len, fp) == len ? 0 : -1;
}

/* Fills one PT_LOAD from a program header of the given class. */
static void elf_parse_load(struct elf_load *load, const uint8_t *ph, bool is64, bool be)
{
	if (is64) {
		load->exec = elf_get(ph + 4, 4, be) & 1;
		load->offset = elf_get(ph + 8, 8, be);
		load->vaddr = elf_get(ph + 16, 8, be);
		load->filesz = elf_get(ph + 32, 8, be);
		load->memsz = elf_get(ph + 40, 8, be);
	} else {
		load->offset = elf_get(ph + 4, 4, be);
		load->vaddr = elf_get(ph + 8, 4, be);
		load->filesz = elf_get(ph + 16, 4, be);
		load->memsz = elf_get(ph + 20, 4, be);
		load->exec = elf_get(ph + 24, 4, be) & 1;
	}
}

static int elf_read_loads(struct afdo_loads *elf, FILE *fp, const uint8_t *eh, bool is64,
			  bool be, const char *path, const char *format, struct pc_error *err)
{
	uint64_t phoff = is64 ? elf_get(eh + 32, 8, be) : elf_get(eh + 28, 4, be);
	size_t phentsize = (size_t)elf_get(eh + (is64 ? 54 : 42), 2, be);
	size_t phnum = (size_t)elf_get(eh + (is64 ? 56 : 44), 2, be);
	size_t min_size = is64 ? 56 : 32;
	uint8_t ph[64];

	if (phentsize < min_size || phnum == 0 || phnum == 0xffff ||
	    phoff > UINT64_MAX - (uint64_t)phnum * phentsize)
		return pc_fail(err, PC_STATUS_INPUT,
			       "%s: '%s': unusable ELF program header table (%zu entries of %zu bytes)",
			       format, path, phnum, phentsize);
	for (size_t i = 0; i < phnum; i++) {
		struct elf_load *load = &elf->loads[elf->nloads];

		if (elf_read_at(fp, phoff + (uint64_t)i * phentsize, ph, min_size))
			return pc_fail(err, PC_STATUS_INPUT,
				       "%s: '%s': ELF program header %zu lies outside the file",
				       format, path, i);
		if (elf_get(ph, 4, be) != 1) /* PT_LOAD */
			continue;
		if (elf->nloads == MAX_LOADS)
			return pc_fail(err, PC_STATUS_INPUT,
				       "%s: '%s': more than %d PT_LOAD segments", format, path, MAX_LOADS);
		elf_parse_load(load, ph, is64, be);
		if (load->offset + load->filesz < load->offset || load->vaddr + load->memsz < load->vaddr)
			return pc_fail(err, PC_STATUS_INPUT,
				       "%s: '%s': PT_LOAD segment %zu wraps around", format, path, i);
		elf->nloads++;
	}
	return 0;
}

static void elf_pick_bases(struct afdo_loads *elf)
{
	elf->autofdo_base = elf->loads[0].vaddr;
	elf->llvm_base = elf->loads[0].vaddr & ~(uint64_t)(LLVM_PAGE - 1);
	for (size_t i = 0; i < elf->nloads; i++) {
		if (elf->loads[i].exec) {
			elf->llvm_base = elf->loads[i].vaddr & ~(uint64_t)(LLVM_PAGE - 1);
			break;
		}
	}
}

/*
 * Reads the program headers of path. Returns 1 when they were read, 0 when
 * path is not a readable file starting with the ELF magic, -1 with err set
 * when it is an ELF file that cannot be used.
 */
static int elf_open(struct afdo_loads *elf, const char *path, const char *format,
		    struct pc_error *err)
{
	uint8_t eh[64];
	FILE *fp = fopen(path, "rb");
	bool is64, be;
	int ret = -1;

	memset(elf, 0, sizeof(*elf));
	if (!fp)
		return 0;
	if (fread(eh, 1, 16, fp) != 16 || memcmp(eh, "\x7f" "ELF", 4)) {
		ret = 0;
		goto out;
	}
	is64 = eh[4] == 2;
	be = eh[5] == 2;
	if ((eh[4] != 1 && !is64) || (eh[5] != 1 && !be)) {
		pc_fail(err, PC_STATUS_INPUT, "%s: '%s': unknown ELF class %u or data encoding %u",
			format, path, eh[4], eh[5]);
		goto out;
	}
	if (elf_read_at(fp, 0, eh, is64 ? 64 : 52)) {
		pc_fail(err, PC_STATUS_INPUT, "%s: '%s': truncated ELF header", format, path);
		goto out;
	}
	elf->is_exec = elf_get(eh + 16, 2, be) == 2; /* ET_EXEC */
	if (elf_read_loads(elf, fp, eh, is64, be, path, format, err))
		goto out;
	if (!elf->nloads) {
		pc_fail(err, PC_STATUS_INPUT, "%s: '%s': the ELF file has no PT_LOAD segment", format, path);
		goto out;
	}
	elf_pick_bases(elf);
	ret = 1;
out:
	fclose(fp);
	return ret;
}

/* The vaddr of a file offset, through the segment that holds it. */
static bool elf_offset_vaddr(const struct afdo_loads *elf, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < elf->nloads; i++) {
		const struct elf_load *load = &elf->loads[i];

		if (offset >= load->offset && offset - load->offset < load->filesz) {
			*vaddr = offset - load->offset + load->vaddr;
			return true;
		}
	}
	return false;
}

static bool elf_has_vaddr(const struct afdo_loads *elf, uint64_t vaddr)
{
	for (size_t i = 0; i < elf->nloads; i++)
		if (vaddr >= elf->loads[i].vaddr && vaddr - elf->loads[i].vaddr < elf->loads[i].memsz)
			return true;
	return false;
}

/* ---- the walk over the model ---- */

struct afdo_losses {
	uint64_t no_address, no_load_address, below_base, outside_elf, as_is;
	uint64_t bad_ranges, lbr_ranges_skipped;
};

struct afdo_walk {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	const char *format;
	enum afdo_space space;
	struct afdo_counts *c;
	int event_column;        /* addresses */
	int branch_column;       /* branch stacks */
		bool *wanted;            /* per module id, [0] = frames without a module */
	struct afdo_loads elf;
	bool has_elf;
	uint64_t elf_base;       /* the space's base in the ELF */
	bool ignore_base;        /* --base given for vaddrs of a fixed-address executable */
	struct afdo_losses lost;
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *backslash = strrchr(path, '\\');

	if (backslash && (!slash || backslash > slash))
		slash = backslash;
	return slash ? slash + 1 : path;
}

/* Whether column c holds records rather than samples of one event. */
static bool is_record_column(const struct pc_model *m, size_t c)
{
	enum pc_column_role role = pc_model_column(m, c)->role;

	return role == PC_ROLE_BRANCHES || role == PC_ROLE_STACKS || role == PC_ROLE_WEIGHT;
}

static int pick_columns(struct afdo_walk *w)
{
	const struct pc_model *m = w->m;
	const char *event = w->ctx->opt.event;

	w->event_column = -1;
	if (event) {
		w->event_column = pc_model_pick_column(m, event, PC_ROLE_SAMPLES);
		if (w->event_column < 0)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
				       "%s: no event '%s' in the input (--event NAME counts column NAME_sample or NAME)",
				       w->format, event);
	}
	if (w->event_column < 0)
		w->event_column = pc_model_find_column(m, PC_ROLE_SAMPLES, 0);
	for (size_t c = 0; w->event_column < 0 && c < pc_model_ncolumns(m); c++)
		if (!is_record_column(m, c))
			w->event_column = (int)c;
	if (w->event_column < 0)
		w->event_column = pc_model_default_column(m);
	w->branch_column = pc_model_find_column(m, PC_ROLE_BRANCHES, 0);
	w->c->spt_lbr = w->branch_column >= 0;
	if (!w->c->spt_lbr)
		w->branch_column = !event && pc_model_find_column(m, PC_ROLE_SAMPLES, 0) >= 0 ?
					   ALL_SAMPLE_COLUMNS :
					   w->event_column;
	return 0;
}

/* The leaf-most frame that is not an inlined one, or 0. */
static uint32_t leaf_frame(const struct pc_model *m, const struct pc_sample *sample)
{
	size_t depth;
	const uint32_t *stack = pc_model_stack(m, sample->stack, &depth);

	for (size_t i = 0; i < depth; i++)
		if (!(pc_model_frame(m, stack[i])->flags & PC_FRAME_INLINE))
			return stack[i];
	return 0;
}

/* A sample's value in column, or (ALL_SAMPLE_COLUMNS) its samples of every event. */
static uint64_t column_value(const struct pc_model *m, size_t sample, int column)
{
	const uint64_t *values = pc_model_values(m, sample);
	uint64_t sum = 0;

	if (column != ALL_SAMPLE_COLUMNS)
		return column < 0 ? 0 : values[column];
	for (size_t c = 0; c < pc_model_ncolumns(m); c++)
		if (pc_model_column(m, c)->role == PC_ROLE_SAMPLES)
			sum = values[c] > PC_COUNT_MAX - sum ? PC_COUNT_MAX : sum + values[c];
	return sum;
}

static pc_str_id frame_binary(const struct pc_model *m, uint32_t frame_id)
{
	const struct pc_frame *frame = pc_model_frame(m, frame_id);

	return frame->module ? pc_model_module(m, frame->module)->name : 0;
}

/* Samples per binary name (string id; 0 = no module), for the default choice. */
static uint64_t *count_binaries(const struct afdo_walk *w)
{
	const struct pc_model *m = w->m;
	uint64_t *counts = pc_xcalloc(pc_model_nstrings(m) + 1, sizeof(*counts));

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const struct pc_sample *sample = pc_model_sample(m, i);
		uint32_t leaf = leaf_frame(m, sample);
		uint64_t ips = column_value(m, i, w->event_column);
		uint64_t lbrs = column_value(m, i, w->branch_column);
		size_t n;
		const uint32_t *branches = pc_model_branch_stack(m, sample->branches, &n);

		if (leaf && (pc_model_frame(m, leaf)->flags & PC_FRAME_HAS_ADDRESS))
			counts[frame_binary(m, leaf)] += ips;
		else if (n)
			counts[frame_binary(m, branches[0])] += lbrs;
	}
	return counts;
}

/* The name id of the binary with the most samples; false when none has any. */
static bool most_sampled_binary(const struct afdo_walk *w, pc_str_id *best, uint64_t *total)
{
	uint64_t *counts = count_binaries(w);
	bool best_set = false, best_bracketed = false;

	*best = 0;
	for (pc_str_id id = 0; id < pc_model_nstrings(w->m); id++) {
		bool bracketed = pc_str(w->m, id)[0] == '[';

		if (!counts[id])
			continue;
		if (!best_set || (best_bracketed && !bracketed) ||
		    (best_bracketed == bracketed && counts[id] > counts[*best])) {
			*best = id;
			best_set = true;
			best_bracketed = bracketed;
		}
	}
	*total = best_set ? counts[*best] : 0;
	free(counts);
	return best_set;
}

static bool binary_matches(const char *name, const char *wanted)
{
	return !strcmp(name, wanted) || !strcmp(base_name(name), wanted) ||
	       !strcmp(base_name(name), base_name(wanted));
}

static void want_name(struct afdo_walk *w, pc_str_id name)
{
	w->wanted[0] = name == 0;
	for (uint32_t id = 1; id <= pc_model_nmodules(w->m); id++)
		w->wanted[id] = pc_model_module(w->m, id)->name == name;
}

static int pick_named_binary(struct afdo_walk *w, const char *binary)
{
	bool any = false, unknown = false;

	for (uint32_t id = 1; id <= pc_model_nmodules(w->m); id++) {
		const char *name = pc_str(w->m, pc_model_module(w->m, id)->name);

		w->wanted[id] = name[0] && binary_matches(name, binary);
		any |= w->wanted[id];
	}
	if (any)
		return 0;
	for (size_t i = 0; i < pc_model_nframes(w->m) && !unknown; i++)
		unknown = !pc_model_frame(w->m, i + 1)->module &&
			  (pc_model_frame(w->m, i + 1)->flags & PC_FRAME_HAS_ADDRESS);
	if (!unknown)
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "%s: no binary named '%s' in the input", w->format,
			       binary);
	w->wanted[0] = true;
	pc_notice(w->ctx, w->format,
		  "no binary named '%s' in the input: writing the addresses that have no binary",
		  binary);
	return 0;
}

static int pick_binary(struct afdo_walk *w)
{
	const char *binary = pc_option_text(w->ctx, "binary");
	uint64_t count;
	pc_str_id best;

	w->wanted = pc_xcalloc(pc_model_nmodules(w->m) + 1, sizeof(*w->wanted));
	if (binary)
		return pick_named_binary(w, binary);
	if (!most_sampled_binary(w, &best, &count))
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "%s: no sample has an instruction address; AutoFDO needs instruction addresses (perf script and SPT inputs have them)",
			       w->format);
	want_name(w, best);
	if (!best)
		pc_notice(w->ctx, w->format,
			  "no --binary given: writing the addresses that have no binary (%" PRIu64 " samples)",
			  count);
	else
		pc_notice(w->ctx, w->format,
			  "no --binary given: writing '%s', the binary with the most samples (%" PRIu64 ")",
			  pc_str(w->m, best), count);
	return 0;
}

static int open_elf(struct afdo_walk *w)
{
	const char *binary = pc_option_text(w->ctx, "binary");
	int status = binary ? elf_open(&w->elf, binary, w->format, &w->ctx->err) : 0;

	if (status < 0)
		return -1;
	w->has_elf = status > 0;
	if (w->space == AFDO_SPACE_VADDR && !w->has_elf)
		return pc_fail(&w->ctx->err, PC_STATUS_USAGE,
			       "%s: --binary must name the profiled ELF file (%s)", w->format,
			       binary ? "not a readable ELF file" : "none given");
	if (w->space == AFDO_SPACE_VADDR && w->elf.is_exec && pc_option_text(w->ctx, "base")) {
		w->ignore_base = true;
		pc_notice(w->ctx, w->format,
			  "--base ignored: '%s' is not position-independent, its runtime addresses are its own",
			  binary);
	}
	w->elf_base = w->space == AFDO_SPACE_LLVM  ? w->elf.llvm_base :
		      w->space == AFDO_SPACE_VADDR ? 0 :
						     w->elf.autofdo_base;
	return 0;
}

/* An offset in the binary file (perf's dso offset) as the output's address. */
static bool offset_address(struct afdo_walk *w, uint64_t offset, uint64_t *out)
{
	uint64_t vaddr;

	if (!w->has_elf) {
		*out = offset;
		return true;
	}
	if (!elf_offset_vaddr(&w->elf, offset, &vaddr) || vaddr < w->elf_base) {
		w->lost.outside_elf++;
		return false;
	}
	*out = vaddr - w->elf_base;
	return true;
}

/* An address of a module without a load range. */
static bool unmapped_address(struct afdo_walk *w, const struct pc_frame *frame,
			     const struct pc_module *mod, uint64_t *out)
{
	bool absolute = frame->flags & PC_FRAME_ABSOLUTE;
	uint64_t base;

	if (mod && mod->has_pdb) { /* SPT: an RVA, a file offset for an ELF binary */
		if (w->space == AFDO_SPACE_VADDR)
			return offset_address(w, frame->address, out);
		*out = frame->address;
		return true;
	}
	if (!w->ignore_base && pc_option_address(w->ctx, "base", &base)) {
		if (frame->address < base) {
			w->lost.below_base++;
			return false;
		}
		*out = frame->address - base;
		return true;
	}
	if (absolute && w->has_elf && w->elf.is_exec && elf_has_vaddr(&w->elf, frame->address) &&
	    frame->address >= w->elf_base) {
		*out = frame->address - w->elf_base;
		return true;
	}
	if (absolute) {
		w->lost.no_load_address++;
		return false;
	}
	w->lost.as_is += !w->has_elf;
	return offset_address(w, frame->address, out);
}

/* The output address of a frame of the chosen binary; false when it has none. */
static bool frame_address(struct afdo_walk *w, uint32_t frame_id, uint64_t *out)
{
	const struct pc_frame *frame = pc_model_frame(w->m, frame_id);
	const struct pc_module *mod = frame->module ? pc_model_module(w->m, frame->module) : NULL;
	uint64_t address = frame->address;

	if (!w->wanted[frame->module])
		return false;
	if (!(frame->flags & PC_FRAME_HAS_ADDRESS)) {
		/* the unknown frame ("?": a branch end the input did not give) is no loss */
		w->lost.no_address += frame->module || frame->function;
		return false;
	}
	if (!mod || !mod->has_range)
		return unmapped_address(w, frame, mod, out);
	if (frame->flags & PC_FRAME_ABSOLUTE) {
		if (address < mod->start || address >= mod->limit) {
			w->lost.no_load_address++;
			return false;
		}
		address = address - mod->start + mod->file_offset;
	}
	return offset_address(w, address, out);
}

int afdo_counts_add(struct pc_ctx *ctx, const char *format, struct pc_tally *t,
		    const uint64_t *values, size_t n, uint64_t count)
{
	uint32_t key[4];

	for (size_t i = 0; i < n; i++) {
		key[2 * i] = (uint32_t)(values[i] >> 32);
		key[2 * i + 1] = (uint32_t)values[i];
	}
	if (pc_tally_add(t, key, 2 * n, count))
		return pc_fail(&ctx->err, PC_STATUS_INPUT, "%s: a count passes 2^63-1", format);
	return 0;
}

static int tally(struct afdo_walk *w, struct pc_tally *t, const uint64_t *values, size_t n,
		 uint64_t count)
{
	return afdo_counts_add(w->ctx, w->format, t, values, n, count);
}

static int add_branch(struct afdo_walk *w, uint64_t from, uint64_t to, uint64_t count)
{
	uint64_t pair[2] = { from, to };

	return tally(w, &w->c->branches, pair, 2, count);
}

/* AutoFDO's walk of one branch stack, newest entry first. */
static int add_branch_stack(struct afdo_walk *w, uint32_t id, uint64_t count)
{
	size_t n;
	const uint32_t *b = pc_model_branch_stack(w->m, id, &n);
	bool ranges = !w->c->spt_lbr || pc_option_flag(w->ctx, "lbr-ranges");
	uint64_t from, to, end;

	if (!ranges) {
		w->lost.lbr_ranges_skipped += n > 1;
		for (size_t i = 0; i < n; i++)
			if (frame_address(w, b[2 * i], &from) && frame_address(w, b[2 * i + 1], &to) &&
			    add_branch(w, from, to, count))
				return -1;
		return 0;
	}
	if (n && frame_address(w, b[0], &from) && frame_address(w, b[1], &to) &&
	    add_branch(w, from, to, count))
		return -1;
	for (size_t i = 1; i < n; i++) {
		uint64_t range[2];

		if (!frame_address(w, b[2 * i + 1], &to) || !frame_address(w, b[2 * (i - 1)], &end))
			continue;
		if (end < to || end - to > MAX_RANGE) {
			w->lost.bad_ranges++;
			continue;
		}
		range[0] = to;
		range[1] = end;
		if (tally(w, &w->c->ranges, range, 2, count))
			return -1;
		if (frame_address(w, b[2 * i], &from) && add_branch(w, from, to, count))
			return -1;
	}
	return 0;
}

static int collect(struct afdo_walk *w)
{
	const struct pc_model *m = w->m;

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const struct pc_sample *sample = pc_model_sample(m, i);
		uint64_t ips = column_value(m, i, w->event_column);
		uint64_t lbrs = column_value(m, i, w->branch_column);
		uint32_t leaf = leaf_frame(m, sample);
		uint64_t address;

		if (ips && leaf && frame_address(w, leaf, &address) &&
		    tally(w, &w->c->addresses, &address, 1, ips))
			return -1;
		if (lbrs && sample->branches && add_branch_stack(w, sample->branches, lbrs))
			return -1;
	}
	return 0;
}

/* Each kind of loss needs its own format string: pc_warn counts by format. */
#define WARN_COUNT(w, count, what) \
	((count) && pc_warn((w)->ctx, (w)->format, "%" PRIu64 " " what, (count)))

/*
 * Addresses dropped or written under an unchecked assumption are losses
 * (pc_warn, errors with --strict); that --lbr-ranges would make ranges of
 * SPT LBR records is advice (a notice).
 */
static int report_losses(struct afdo_walk *w)
{
	const struct afdo_losses *lost = &w->lost;

	if (lost->lbr_ranges_skipped)
		pc_notice(w->ctx, w->format,
			  "%" PRIu64 " SPT LBR records gave branch counts only (--lbr-ranges makes ranges, taking them as newest first)",
			  lost->lbr_ranges_skipped);
	if (WARN_COUNT(w, lost->no_address, "frames without an address were left out") ||
	    WARN_COUNT(w, lost->no_load_address,
		       "runtime addresses with no known load address were left out (give --base ADDR, --binary FILE or perf script --show-mmap-events)") ||
	    WARN_COUNT(w, lost->below_base, "addresses below --base were left out") ||
	    WARN_COUNT(w, lost->outside_elf,
		       "addresses outside the binary's PT_LOAD segments were left out") ||
	    WARN_COUNT(w, lost->as_is,
		       "DSO-relative addresses were written as they are (no load address, --base or ELF file: right for GNU ld binaries)") ||
	    WARN_COUNT(w, lost->bad_ranges,
		       "ranges that were negative or longer than 1 MiB were dropped with their branch, as AutoFDO does"))
		return -1;
	return 0;
}

/* The chosen binary's name and ELF build id, from its first module that has one. */
static void note_identity(struct afdo_walk *w)
{
	for (uint32_t id = 1; w->wanted && id <= pc_model_nmodules(w->m); id++) {
		const struct pc_module *mod = pc_model_module(w->m, id);

		if (!w->wanted[id])
			continue;
		if (!w->c->binary[0])
			w->c->binary = pc_str(w->m, mod->name);
		if (!mod->has_pdb && pc_str(w->m, mod->build_id)[0]) {
			w->c->binary = pc_str(w->m, mod->name);
			w->c->build_id = pc_str(w->m, mod->build_id);
			return;
		}
	}
}

int afdo_counts_collect(struct afdo_counts *c, struct pc_ctx *ctx, const struct pc_model *m,
			const char *format, enum afdo_space space)
{
	struct afdo_walk w = { .ctx = ctx, .m = m, .format = format, .space = space, .c = c };
	int ret;

	memset(c, 0, sizeof(*c));
	pc_tally_init(&c->ranges);
	pc_tally_init(&c->addresses);
	pc_tally_init(&c->branches);
	c->build_id = c->binary = "";
	ret = pick_columns(&w) || pick_binary(&w) || open_elf(&w) || collect(&w) ||
	      report_losses(&w) ? -1 : 0;
	note_identity(&w);
	free(w.wanted);
	return ret;
}

void afdo_counts_release(struct afdo_counts *c)
{
	pc_tally_release(&c->ranges);
	pc_tally_release(&c->addresses);
	pc_tally_release(&c->branches);
}
