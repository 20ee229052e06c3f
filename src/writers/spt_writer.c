/*
 * spt_writer.c - the model as a Microsoft SPGO Sample Profile Trace
 * (SPT version 1), as the SPTDump page (seeds/000_*.txt) lays it out and
 * DESIGN.md section 4.4 decides: a 32-byte header with the little-endian
 * signature 0x5350543A, the string table (capacity 0x4000, more when the
 * names need it, at most 65535 bytes), the program-id table (capacity
 * 0x100 entries, more when needed, at most 65535), then one BINARY_ID
 * segment per program id (split when longer than 4 GiB) holding its
 * records. src/readers/spt_reader.c reads every file written here back to
 * the same counts.
 *
 * What maps where:
 *   module with addresses -> program id: its name; GUID and age from the
 *                         module's PDB identity (SPT input), else a zero
 *                         GUID and age 0; --binary keeps only the modules
 *                         whose path or file name matches
 *   frame address         -> RVA: a module-relative address as it is; a
 *                         runtime address minus the module's load start
 *                         plus its file offset (perf mmap records)
 *   a column of event unhalted_cycle, retired_instr, retired_branch,
 *   l1i_miss, l1d_miss, timer -> IP records of that kind from each
 *                         sample's leaf (SPT input goes back to its kinds)
 *   a branches column     -> an LBR record per branch stack
 *   a stacks column       -> a call-stack record per stack
 *   any other count column (perf script's samples of an event, a plain
 *   "samples")            -> the leaf's IP record of the event's kind
 *                         (cycles -> UNHALT_CYCLE, instructions ->
 *                         RETIRE_INSTR, branches/branch-instructions ->
 *                         RETIRE_BR_INSTR, L1-icache-load-misses ->
 *                         L1_ICACHE_MISS, L1-dcache-load-misses ->
 *                         L1_DCACHE_MISS, anything else -> ETW_INSTR), a
 *                         call-stack record per run of two or more stack
 *                         frames in one module, and LBR records from the
 *                         branch stack; an event's weight (period) column
 *                         is not counted again when its samples are
 * Counts are written exactly: records of one kind and count are grouped,
 * up to 255 entries each, and a record that counts more than once is
 * preceded by a REPEAT of count - 1. Order is deterministic: program id,
 * record kind, count, then RVAs.
 *
 * What is lost (each counted in one warning, an error with --strict):
 * frames without a module, address or load address, RVAs that do not fit
 * in 32 bits, branches whose ends lie in two modules, the root-most frames
 * of stacks deeper than 255. Not held, by SPT's nature (symbols in the
 * conversion's notice, the rest without one): names, labels, values that
 * are not counts, and how stacks continued in other modules.
 */
#include "model/format.h"
#include "base/sort.h"
#include "formats/spt.h"

#define FORMAT "spt"
#define SEGMENT_MAX_RECORDS ((uint64_t)UINT32_MAX - 4) /* the length counts itself */
#define U16_LIMIT 0xffffu

/* A record key is the id sequence [module, kind, items...]. */
enum { KEY_MODULE, KEY_KIND, KEY_ITEMS };

enum column_use {
	USE_NONE,
	USE_IP,        /* the leaf's IP record of one kind */
	USE_DERIVED,   /* perf-like: IP, stack runs and branches */
	USE_LBR,
	USE_CALLSTACK,
};

/* What the writer dropped, reported once each at the end. */
struct spt_losses {
	uint64_t no_address, no_load_address, wide_rva, split_branches, cut_stacks;
};

struct spt_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	bool *wanted;            /* per module id: kept by --binary */
	uint32_t *binary_of;     /* per module id: the first module of the same binary */
	struct pc_tally records; /* counts by record key */
	uint32_t *key;           /* scratch for one key */
	size_t key_cap;
	struct spt_losses lost;
};

struct spt_buffer {
	uint8_t *bytes;
	size_t len, cap;
};

/* ---- which column becomes which record ---- */

static enum spt_kind spt_column_kind(const char *name)
{
	for (int kind = 0; kind < SPT_KIND_LBR; kind++)
		if (!strcmp(name, spt_kind_column((enum spt_kind)kind)))
			return (enum spt_kind)kind;
	return SPT_KIND_NONE;
}

/* The IP kind of a perf event name such as "cycles:u" or "cpu_core/cycles/". */
static enum spt_kind perf_event_kind(const char *event, size_t len)
{
	static const struct {
		const char *name;
		enum spt_kind kind;
	} events[] = {
		{ "cycles", SPT_KIND_UNHALT_CYCLE },
		{ "cpu-cycles", SPT_KIND_UNHALT_CYCLE },
		{ "instructions", SPT_KIND_RETIRE_INSTR },
		{ "branches", SPT_KIND_RETIRE_BR_INSTR },
		{ "branch-instructions", SPT_KIND_RETIRE_BR_INSTR },
		{ "L1-icache-load-misses", SPT_KIND_L1_ICACHE_MISS },
		{ "L1-dcache-load-misses", SPT_KIND_L1_DCACHE_MISS },
	};
	const char *slash = memchr(event, '/', len);
	size_t base_len;

	if (slash) { /* pmu/event/modifiers */
		const char *end = memchr(slash + 1, '/', len - (size_t)(slash + 1 - event));

		len = (size_t)((end ? end : event + len) - (slash + 1));
		event = slash + 1;
	}
	base_len = strcspn(event, ":");
	if (base_len > len)
		base_len = len;
	for (size_t i = 0; i < PC_ARRAY_SIZE(events); i++)
		if (strlen(events[i].name) == base_len && !memcmp(events[i].name, event, base_len))
			return events[i].kind;
	return SPT_KIND_ETW_INSTR;
}

static enum column_use classify_column(const struct pc_model *m, size_t column,
				       enum spt_kind *kind)
{
	const struct pc_column *col = pc_model_column(m, column);
	const char *event = pc_str(m, col->event);

	*kind = SPT_KIND_NONE;
	if (col->role == PC_ROLE_BRANCHES)
		return USE_LBR;
	if (col->role == PC_ROLE_STACKS)
		return USE_CALLSTACK;
	*kind = spt_column_kind(event);
	if (*kind != SPT_KIND_NONE)
		return USE_IP;
	if (col->role == PC_ROLE_WEIGHT &&
	    pc_model_find_column(m, PC_ROLE_SAMPLES, col->event) >= 0)
		return USE_NONE; /* its samples are written */
	*kind = perf_event_kind(event, strlen(event));
	return USE_DERIVED;
}

/* ---- frames to RVAs ---- */

static bool frame_rva(struct spt_writer *w, uint32_t frame_id, uint32_t *module, uint32_t *rva)
{
	const struct pc_frame *frame = pc_model_frame(w->m, frame_id);
	uint64_t address = frame->address;

	if (!frame->module || !(frame->flags & PC_FRAME_HAS_ADDRESS)) {
		w->lost.no_address++;
		return false;
	}
	if (!w->wanted[frame->module])
		return false;
	if (frame->flags & PC_FRAME_ABSOLUTE) {
		const struct pc_module *mod = pc_model_module(w->m, frame->module);

		if (!mod->has_range || address < mod->start) {
			w->lost.no_load_address++;
			return false;
		}
		address = address - mod->start + mod->file_offset;
	}
	if (address > UINT32_MAX) {
		w->lost.wide_rva++;
		return false;
	}
	*module = w->binary_of[frame->module];
	*rva = (uint32_t)address;
	return true;
}

/* ---- record keys ---- */

static void key_reserve(struct spt_writer *w, size_t items)
{
	pc_grow(&w->key, &w->key_cap, KEY_ITEMS + items, sizeof(*w->key));
}

static int add_key(struct spt_writer *w, size_t items, uint64_t count)
{
	if (pc_tally_add(&w->records, w->key, KEY_ITEMS + items, count))
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "spt: a record's count passes 2^63-1");
	return 0;
}

static int add_ip(struct spt_writer *w, const uint32_t *stack, size_t depth,
		  enum spt_kind kind, uint64_t count)
{
	uint32_t module, rva;

	if (!depth || !frame_rva(w, stack[0], &module, &rva))
		return 0;
	key_reserve(w, 1);
	w->key[KEY_MODULE] = module;
	w->key[KEY_KIND] = kind;
	w->key[KEY_ITEMS] = rva;
	return add_key(w, 1, count);
}

/* Adds the call-stack records of each run of at least min_run frames in one module. */
static int add_stack_runs(struct spt_writer *w, const uint32_t *stack, size_t depth,
			  size_t min_run, uint64_t count)
{
	size_t run = 0;
	uint32_t run_module = 0;

	key_reserve(w, depth);
	for (size_t i = 0; i <= depth; i++) {
		uint32_t module = 0, rva = 0;
		bool ok = i < depth && frame_rva(w, stack[i], &module, &rva);

		if (run && (!ok || module != run_module)) {
			if (run >= min_run) {
				size_t kept = run > SPT_MAX_ITEMS ? SPT_MAX_ITEMS : run;

				w->lost.cut_stacks += run > kept;
				w->key[KEY_MODULE] = run_module;
				w->key[KEY_KIND] = SPT_KIND_ETW_CALLSTACK;
				if (add_key(w, kept, count))
					return -1;
			}
			run = 0;
		}
		if (ok) {
			run_module = module;
			w->key[KEY_ITEMS + run++] = rva;
		}
	}
	return 0;
}

/* Adds LBR records: consecutive branches within one module, up to 255 each. */
static int add_branches(struct spt_writer *w, uint32_t branch_stack, uint64_t count)
{
	size_t n, pairs = 0;
	const uint32_t *branches = pc_model_branch_stack(w->m, branch_stack, &n);
	uint32_t record_module = 0;

	key_reserve(w, 2 * n);
	for (size_t i = 0; i <= n; i++) {
		uint32_t from_module = 0, to_module = 0, from = 0, to = 0;
		bool ok = i < n && frame_rva(w, branches[2 * i], &from_module, &from) &&
			  frame_rva(w, branches[2 * i + 1], &to_module, &to);

		if (ok && from_module != to_module) {
			w->lost.split_branches++;
			ok = false;
		}
		if (pairs && (!ok || from_module != record_module || pairs == SPT_MAX_ITEMS)) {
			w->key[KEY_MODULE] = record_module;
			w->key[KEY_KIND] = SPT_KIND_LBR;
			if (add_key(w, 2 * pairs, count))
				return -1;
			pairs = 0;
		}
		if (ok) {
			record_module = from_module;
			w->key[KEY_ITEMS + 2 * pairs] = to; /* SPT stores (to, from) */
			w->key[KEY_ITEMS + 2 * pairs + 1] = from;
			pairs++;
		}
	}
	return 0;
}

static int add_sample(struct spt_writer *w, size_t index, const enum column_use *uses,
		      const enum spt_kind *kinds)
{
	const struct pc_sample *sample = pc_model_sample(w->m, index);
	const uint64_t *values = pc_model_values(w->m, index);
	size_t depth;
	const uint32_t *stack = pc_model_stack(w->m, sample->stack, &depth);

	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++) {
		uint64_t count = values[c];
		int status = 0;

		if (!count)
			continue;
		switch (uses[c]) {
		case USE_NONE:
			break;
		case USE_IP:
			status = add_ip(w, stack, depth, kinds[c], count);
			break;
		case USE_DERIVED:
			status = add_ip(w, stack, depth, kinds[c], count);
			if (!status && depth >= 2)
				status = add_stack_runs(w, stack, depth, 2, count);
			if (!status && sample->branches)
				status = add_branches(w, sample->branches, count);
			break;
		case USE_LBR:
			status = sample->branches ? add_branches(w, sample->branches, count) : 0;
			break;
		case USE_CALLSTACK:
			status = add_stack_runs(w, stack, depth, 1, count);
			break;
		}
		if (status)
			return -1;
	}
	return 0;
}

/* ---- program ids ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *backslash = strrchr(path, '\\');

	if (backslash && (!slash || backslash > slash))
		slash = backslash;
	return slash ? slash + 1 : path;
}

/*
 * One binary loaded in several processes is several modules (one per
 * address space) but one program id: RVAs do not depend on the process.
 */
static void find_binaries(struct spt_writer *w)
{
	const struct pc_model *m = w->m;
	uint32_t *first_of = pc_xcalloc(pc_model_nmodules(m) + 2, sizeof(*first_of));
	struct pc_seqs binaries;

	pc_seqs_init(&binaries);
	w->binary_of = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*w->binary_of));
	for (uint32_t id = 1; id <= pc_model_nmodules(m); id++) {
		const struct pc_module *mod = pc_model_module(m, id);
		uint32_t key[2] = { mod->name, mod->build_id };
		uint32_t binary = pc_seqs_add(&binaries, key, 2); /* ids 1.. in first-seen order */

		if (!first_of[binary])
			first_of[binary] = id;
		w->binary_of[id] = first_of[binary];
	}
	pc_seqs_release(&binaries);
	free(first_of);
}

static int pick_modules(struct spt_writer *w)
{
	const char *binary = pc_option_text(w->ctx, "binary");
	bool any = false;

	find_binaries(w);
	w->wanted = pc_xcalloc(pc_model_nmodules(w->m) + 1, sizeof(*w->wanted));
	for (uint32_t id = 1; id <= pc_model_nmodules(w->m); id++) {
		const char *name = pc_str(w->m, pc_model_module(w->m, id)->name);

		w->wanted[id] = !binary || !strcmp(name, binary) || !strcmp(base_name(name), binary);
		any |= w->wanted[id];
	}
	if (binary && !any)
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "spt: no binary named '%s' in the input", binary);
	return 0;
}

/* ---- output ---- */

struct spt_layout {
	uint32_t *prog_of_module;  /* module id -> program id + 1 (0 = none) */
	uint32_t *module_of_prog;  /* program id -> module id */
	size_t nprogs;
	struct spt_buffer strtab;
	uint32_t *name_offset;     /* per program id */
	uint32_t strtab_capacity, progid_capacity;
};

static void buffer_put(struct spt_buffer *b, const void *bytes, size_t len)
{
	pc_grow(&b->bytes, &b->cap, b->len + len, 1);
	memcpy(b->bytes + b->len, bytes, len);
	b->len += len;
}

static void buffer_put_le(struct spt_buffer *b, uint64_t value, size_t bytes)
{
	uint8_t le[8];

	pc_put_le(le, value, bytes);
	buffer_put(b, le, bytes);
}

/* Program ids: modules with records, and SPT modules even without, in model order. */
static int plan_programs(struct spt_writer *w, struct spt_layout *lay)
{
	const struct pc_model *m = w->m;
	bool *used = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*used));
	uint32_t *offset_of_name = pc_xcalloc(pc_model_nstrings(m), sizeof(*offset_of_name));
	int ret = -1;

	for (uint32_t key = 1; key < w->records.keys.count; key++) {
		size_t n;

		used[pc_seq(&w->records.keys, key, &n)[KEY_MODULE]] = true;
	}
	lay->prog_of_module = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*lay->prog_of_module));
	lay->module_of_prog = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*lay->module_of_prog));
	lay->name_offset = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*lay->name_offset));
	for (uint32_t id = 1; id <= pc_model_nmodules(m); id++) {
		const struct pc_module *mod = pc_model_module(m, id);

		if (!w->wanted[id] || (!used[id] && !mod->has_pdb))
			continue;
		if (!offset_of_name[mod->name]) { /* names are shared; offsets stored + 1 */
			offset_of_name[mod->name] = (uint32_t)lay->strtab.len + 1;
			buffer_put(&lay->strtab, pc_str(m, mod->name), pc_str_len(m, mod->name) + 1);
		}
		lay->name_offset[lay->nprogs] = offset_of_name[mod->name] - 1;
		lay->module_of_prog[lay->nprogs] = id;
		lay->prog_of_module[id] = (uint32_t)++lay->nprogs;
		if (lay->strtab.len > U16_LIMIT)
			break;
	}
	if (lay->strtab.len > U16_LIMIT) {
		pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			"spt: the binary names need more than %u bytes, the most an SPT string table holds",
			U16_LIMIT);
	} else if (lay->nprogs > U16_LIMIT) {
		pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			"spt: %zu binaries, more than the %u program ids an SPT file holds",
			lay->nprogs, U16_LIMIT);
	} else {
		lay->strtab_capacity = lay->strtab.len > SPT_STRTAB_CAPACITY_DEFAULT
					       ? (uint32_t)lay->strtab.len : SPT_STRTAB_CAPACITY_DEFAULT;
		lay->progid_capacity = lay->nprogs > SPT_PROGID_CAPACITY_DEFAULT
					       ? (uint32_t)lay->nprogs : SPT_PROGID_CAPACITY_DEFAULT;
		ret = 0;
	}
	free(used);
	free(offset_of_name);
	return ret;
}

static void write_header_and_tables(const struct spt_writer *w, const struct spt_layout *lay,
				    FILE *out)
{
	uint8_t header[SPT_HEADER_SIZE] = { 0 };
	uint8_t entry[SPT_PROGID_SIZE];
	uint32_t strtab_offset = SPT_HEADER_SIZE;
	uint32_t progid_offset = strtab_offset + lay->strtab_capacity;

	pc_put_le(header + SPT_OFF_SIGNATURE, SPT_SIGNATURE, 4);
	pc_put_le(header + SPT_OFF_VERSION, SPT_VERSION, 4);
	pc_put_le(header + SPT_OFF_STRTAB_OFFSET, strtab_offset, 4);
	pc_put_le(header + SPT_OFF_PROGID_OFFSET, progid_offset, 4);
	pc_put_le(header + SPT_OFF_STRTAB_USED, lay->strtab.len, 2);
	pc_put_le(header + SPT_OFF_STRTAB_CAPACITY, lay->strtab_capacity, 2);
	pc_put_le(header + SPT_OFF_PROGIDS_USED, lay->nprogs, 2);
	pc_put_le(header + SPT_OFF_PROGID_CAPACITY, lay->progid_capacity, 2);
	fwrite(header, 1, sizeof(header), out);
	if (lay->strtab.len)
		fwrite(lay->strtab.bytes, 1, lay->strtab.len, out);
	for (size_t i = lay->strtab.len; i < lay->strtab_capacity; i++)
		fputc(0, out);
	for (size_t i = 0; i < lay->progid_capacity; i++) {
		memset(entry, 0, sizeof(entry));
		if (i < lay->nprogs) {
			const struct pc_module *mod = pc_model_module(w->m, lay->module_of_prog[i]);

			if (mod->has_pdb) {
				pc_put_le(entry, mod->pdb.data1, 4);
				pc_put_le(entry + 4, mod->pdb.data2, 2);
				pc_put_le(entry + 6, mod->pdb.data3, 2);
				memcpy(entry + 8, mod->pdb.data4, 8);
				pc_put_le(entry + SPT_PROGID_OFF_AGE, mod->pdb.age, 4);
			}
			pc_put_le(entry + SPT_PROGID_OFF_NAME, lay->name_offset[i], 4);
		}
		fwrite(entry, 1, sizeof(entry), out);
	}
}

struct key_order {
	const struct spt_writer *w;
	const struct spt_layout *lay;
};

static int compare_keys(const void *ctx, uint32_t a, uint32_t b)
{
	const struct key_order *o = ctx;
	size_t na, nb;
	const uint32_t *ka = pc_seq(&o->w->records.keys, a, &na), *kb = pc_seq(&o->w->records.keys, b, &nb);
	uint32_t pa = o->lay->prog_of_module[ka[KEY_MODULE]];
	uint32_t pb = o->lay->prog_of_module[kb[KEY_MODULE]];

	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (ka[KEY_KIND] != kb[KEY_KIND])
		return ka[KEY_KIND] < kb[KEY_KIND] ? -1 : 1;
	if (o->w->records.counts[a] != o->w->records.counts[b])
		return o->w->records.counts[a] < o->w->records.counts[b] ? -1 : 1;
	for (size_t i = KEY_ITEMS; i < na && i < nb; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return na < nb ? -1 : na > nb;
}

static void flush_segment(struct spt_buffer *records, uint32_t prog, FILE *out)
{
	uint8_t binary_id[SPT_BINARY_ID_SIZE] = { SPT_OP_BINARY_ID };

	pc_put_le(binary_id + SPT_BINARY_ID_OFF_PROGID, prog, 2);
	pc_put_le(binary_id + SPT_BINARY_ID_OFF_LENGTH, records->len + 4, 4);
	fwrite(binary_id, 1, sizeof(binary_id), out);
	fwrite(records->bytes, 1, records->len, out);
	records->len = 0;
}

/* Appends one record (with its REPEAT) to the segment, starting a new segment if full. */
static void put_record(struct spt_buffer *records, uint32_t prog, enum spt_kind kind,
		       uint64_t count, const uint32_t *items, size_t nitems, FILE *out)
{
	size_t entries = kind == SPT_KIND_LBR ? nitems / 2 : nitems;
	size_t size = (count > 1 ? SPT_REPEAT_SIZE : 0) + SPT_DATA_HEADER_SIZE + 4 * nitems;

	if (records->len + size > SEGMENT_MAX_RECORDS)
		flush_segment(records, prog, out);
	if (count > 1) {
		buffer_put_le(records, SPT_OP_REPEAT, 1);
		buffer_put_le(records, 0, 1);
		buffer_put_le(records, count - 1, 8);
	}
	buffer_put_le(records, spt_kind_op(kind), 1);
	buffer_put_le(records, entries, 1);
	for (size_t i = 0; i < nitems; i++)
		buffer_put_le(records, items[i], 4);
}

static void write_segments(const struct spt_writer *w, const struct spt_layout *lay, FILE *out)
{
	struct key_order order_ctx = { .w = w, .lay = lay };
	size_t nkeys = w->records.keys.count - 1;
	uint32_t *order = pc_xmalloc((nkeys ? nkeys : 1) * sizeof(*order));
	struct spt_buffer records = { 0 };
	uint32_t items[2 * SPT_MAX_ITEMS]; /* 255 RVAs, or 255 LBR (to, from) pairs */

	for (size_t i = 0; i < nkeys; i++)
		order[i] = (uint32_t)(i + 1);
	pc_sort_indices(&order_ctx, order, nkeys, compare_keys);
	for (size_t i = 0; i < nkeys;) {
		size_t n;
		const uint32_t *key = pc_seq(&w->records.keys, order[i], &n);
		uint32_t prog = lay->prog_of_module[key[KEY_MODULE]];
		enum spt_kind kind = key[KEY_KIND];
		uint64_t count = w->records.counts[order[i]];
		size_t nitems = 0;

		/* IP records gather the RVAs of one kind and count, 255 at most */
		do {
			key = pc_seq(&w->records.keys, order[i], &n);
			memcpy(items + nitems, key + KEY_ITEMS, (n - KEY_ITEMS) * sizeof(*items));
			nitems += n - KEY_ITEMS;
			i++;
		} while (kind < SPT_KIND_LBR && i < nkeys && nitems < SPT_MAX_ITEMS &&
			 w->records.counts[order[i]] == count &&
			 pc_seq(&w->records.keys, order[i], &n)[KEY_KIND] == (uint32_t)kind &&
			 lay->prog_of_module[pc_seq(&w->records.keys, order[i], &n)[KEY_MODULE]] == prog);
		put_record(&records, prog - 1, kind, count, items, nitems, out);
		if (i == nkeys || lay->prog_of_module[pc_seq(&w->records.keys, order[i], &n)[KEY_MODULE]] != prog)
			flush_segment(&records, prog - 1, out);
	}
	free(records.bytes);
	free(order);
}

/* ---- the writer ---- */

static int report_losses(struct spt_writer *w)
{
	const struct spt_losses *lost = &w->lost;

	if (lost->no_address &&
	    pc_warn(w->ctx, FORMAT, "%llu frames without a module or address were left out",
		    (unsigned long long)lost->no_address))
		return -1;
	if (lost->no_load_address &&
	    pc_warn(w->ctx, FORMAT,
		    "%llu runtime addresses of binaries with no known load address were left out",
		    (unsigned long long)lost->no_load_address))
		return -1;
	if (lost->wide_rva &&
	    pc_warn(w->ctx, FORMAT, "%llu addresses that do not fit in a 32-bit RVA were left out",
		    (unsigned long long)lost->wide_rva))
		return -1;
	if (lost->split_branches &&
	    pc_warn(w->ctx, FORMAT, "%llu branches between two binaries were left out",
		    (unsigned long long)lost->split_branches))
		return -1;
	if (lost->cut_stacks &&
	    pc_warn(w->ctx, FORMAT, "%llu call stacks deeper than 255 frames kept their 255 leaf-most",
		    (unsigned long long)lost->cut_stacks))
		return -1;
	return 0;
}

static int collect_records(struct spt_writer *w)
{
	enum column_use uses[PC_MAX_COLUMNS];
	enum spt_kind kinds[PC_MAX_COLUMNS];

	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++)
		uses[c] = classify_column(w->m, c, &kinds[c]);
	for (size_t i = 0; i < pc_model_nsamples(w->m); i++)
		if (add_sample(w, i, uses, kinds))
			return -1;
	return report_losses(w);
}

static int spt_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct spt_writer w = { .ctx = ctx, .m = m };
	struct spt_layout lay = { 0 };
	int ret = -1;

	pc_tally_init(&w.records);
	if (pick_modules(&w) || collect_records(&w) || plan_programs(&w, &lay))
		goto out;
	write_header_and_tables(&w, &lay, out->fp);
	write_segments(&w, &lay, out->fp);
	ret = 0;
out:
	free(lay.prog_of_module);
	free(lay.module_of_prog);
	free(lay.name_offset);
	free(lay.strtab.bytes);
	free(w.wanted);
	free(w.binary_of);
	free(w.key);
	pc_tally_release(&w.records);
	return ret;
}

static const char *const spt_extensions[] = { ".spt", NULL };

static const struct pc_option_spec spt_options[] = {
	{ "binary", PC_OPTION_TEXT, "NAME", "keep only this binary (path or file name)", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_spt_writer = {
	.name = "spt",
	.extensions = spt_extensions,
	.summary = "Microsoft SPGO sample profile trace (SPT v1)",
	.needs = PC_PART_ADDRESSES,
	.keeps = PC_PART_ADDRESSES | PC_PART_STACKS | PC_PART_BRANCHES,
	.write = spt_write,
	.options = spt_options,
};
