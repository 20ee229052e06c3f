/*
 * perf_script_reader.c - reads the text that `perf script` prints.
 *
 * Source: Linux perf's tools/perf/builtin-script.c output as described,
 * with verbatim examples from perf 3.13 to 6.x, simpleperf, Intel PT and
 * llvm-profgen inputs, in ../shared/research/perfscript.md section 2;
 * DESIGN.md section 3.5 and research/pprof.md section 7.5 for the mapping.
 * Versions: no version number exists; the fields of each line are found
 * from the line itself, so every perf since 3.x, any -F subset, --ns,
 * -F +misc/+tod, --header, simpleperf's tabs, --itrace output and
 * llvm-profgen's "aggregated" and build-id forms read.
 *
 * What maps where (the model contract the folded and pprof writers rely on):
 *   dso "(...)"        -> module per (dso text exactly as printed inside the
 *                         parentheses, address space): "[kernel.kallsyms]",
 *                         "/tmp/perf-1234.map", "/x/work del (deleted)";
 *                         space = pid + 1 when the sample's pid is known
 *                         (printed as pid/tid, or learnt for its tid from
 *                         MMAP/MMAP2/COMM/FORK records), else 0. A dso of
 *                         "[unknown]", or none, is module 0. A trailing
 *                         "+0x..." (perf's dsoff field) is not part of it.
 *   MMAP/MMAP2 record  -> an executable mapping sets its module's range:
 *                         start, limit = start + len, file_offset = pgoff
 *                         (has_range); "[kernel.kallsyms]_text" names
 *                         "[kernel.kallsyms]", and a pid -1 record (the
 *                         kernel's, executable whatever its protection bits
 *                         say: "---p" with build ids) applies to that dso in
 *                         every space. "<BUILDID>" after pgoff (perf record
 *                         --buildid-mmap) -> the module's build_id in
 *                         lowercase hex: a module of its own (modules are
 *                         interned with their build id), which the frames
 *                         of that dso in that space take from then on.
 *                         Frames printed without a dso (bare addresses,
 *                         brstack) take the module whose range holds their
 *                         address.
 *   frame line         -> frame: HAS_ADDRESS, the address as printed;
 *                         ABSOLUTE when it is a runtime address, i.e. its
 *                         module is 0, or it lies in its module's range, or
 *                         (no range known) it is at least 2^32: perf prints
 *                         DSO-relative offsets for user code in some versions
 *                         (6.1: "f838f __GI___libc_write+0x4f") and runtime
 *                         addresses in others. function = the symbol without
 *                         its trailing "+0x..." ("[unknown]": none); file and
 *                         line from a -F +srcline line. "(inlined)" frames:
 *                         flag INLINE, module 0, kept in printed order, i.e.
 *                         leafward of the physical frame of the same address
 *                         they are inlined into; a run of them that no frame
 *                         of their address follows (DWARF unwinding prints
 *                         such runs) is a location of its own: its last
 *                         frame is made physical (INLINE cleared), so the
 *                         run folds into it. llvm-profgen's "BUILDID:ADDR"
 *                         form gives a module-relative frame of a module
 *                         with an empty name and that build id.
 *   sample             -> stack = its frames leaf first as printed; without
 *                         a callchain, the one ip/sym/dso of its header line
 *                         (none: an empty stack). Labels: comm (string, when
 *                         not empty), pid (unit "pid", when printed or known),
 *                         tid (unit "tid"), cpu (unit "cpu", when printed).
 *                         Columns per event: <event>_sample (role SAMPLES,
 *                         count, +1) and <event>_event (role WEIGHT, + the
 *                         printed period, else 1; unit nanoseconds for
 *                         cpu-clock and task-clock, with any modifier, when
 *                         every sample of the event printed its period, else
 *                         count), in the order of the "# event :" header lines, then
 *                         of first appearance; event = the name as printed
 *                         without its colon ("cycles:u", "sched:sched_switch",
 *                         "branch-misses/period=50/u"). The default column is
 *                         the _event column of the first event that has a
 *                         sample, which is what stackcollapse-perf.pl and
 *                         inferno count, never one of Intel PT's side events
 *                         (cbr, pwre, pwrx, exstop, mwait, ptwrite, psb, evt,
 *                         iflag) while another event has samples; the
 *                         columns of side events seen before any other event
 *                         come after that event's, so that the first columns
 *                         are the sampled event's (branches, instructions).
 *                         "# event :" lines of trace PMUs (intel_pt//,
 *                         cs_etm//, ...) and dummy events, which perf prints
 *                         no samples of, make no columns. A sample without an
 *                         event field counts under the header's only event,
 *                         else under "unknown" ("branches" for "FROM => TO").
 *                         llvm-profgen's repeat-count lines multiply the next
 *                         sample.
 *   brstack entries    -> the sample's branch stack (from, to frames), newest
 *                         first as printed; only the first two '/' fields are
 *                         read; brstack addresses are ABSOLUTE and take their
 *                         module from their "(dso)" or the mmap ranges; an
 *                         address 0 (a PT trace start or end) is the unknown
 *                         frame (no module, no address). brstacksym ends
 *                         SYM+0xOFF get the address SYM's start + OFF when a
 *                         frame of the same process printed SYM's address as
 *                         "ADDR SYM+0xOFF" before (the sample's own ip
 *                         included); otherwise they are frames with only a
 *                         function, counted in one warning. perf 6.1 glues
 *                         the first brstacksym entry to the field before it:
 *                         to the 16-column ip ("40115cwork+0xa/...") and to a
 *                         "(dso)" are read; to a symbol, not.
 *   Intel PT/CoreSight -> "FLAGS FROM => TO" samples (--itrace branches, also
 *                         without header: -F ip,addr): stack [FROM] (none for
 *                         a trace start from 0), branch stacks chained per
 *                         CPU or thread so that AutoFDO gets every range and
 *                         branch once: see perf_script_pt.c. Instruction
 *                         samples are ordinary single-line samples, with
 *                         perf's insn, ilen and IPC fields or xed's
 *                         disassembly (--xed) after the frame left out. A
 *                         single-line sample's "  FILE:LINE" line (-F
 *                         +srcline) gives its frame's file and line.
 *   header             -> source "perf-script"; "# cmdline" -> comment
 *                         "perf-command:...", "# perf version" -> comment
 *                         "perf-version:..."; "# captured on" -> time_nanos
 *                         (read as UTC: perf prints local time without a zone);
 *                         every "# key : value" line before the first sample
 *                         -> fact "perf.key" (blanks in key -> '_').
 *                         duration_nanos = last - first sample time.
 *                         period_type = the default column's (type, unit);
 *                         period = the period its event's samples printed
 *                         when all printed the same, else the column's
 *                         rounded mean (sum / samples); none when no sample
 *                         printed a period.
 * What is lost: the time of each sample unless the model keeps times
 * (pc_model_keep_times: --time, cpuprofile output; identical samples merge),
 * tracepoint payloads, PT flags (once used), addr, insn and IPC fields, branch flags
 * (prediction, cycles, type), the misc, tod and guest fields, side records
 * other than MMAP/COMM/FORK/LOST (skipped), the exact spelling of blanks.
 * Lost or trace-error records are counted in a comment. Runtime addresses
 * in a binary that no MMAP record placed (perf script without
 * --show-mmap-events) are kept, with one warning counting their samples and
 * binaries: pprof cannot map them back into the file to symbolize them
 * ([pseudo] files, JIT maps and anonymous memory are not counted).
 *
 * The reader's files: perf_script_grammar.c parses one line into fields,
 * perf_script_lines.c says what each line is from the lines before it,
 * perf_script_window.c is the fast path for callchains and frame lines
 * seen before, perf_script_pt.c chains Intel PT branch samples,
 * perf_script_split.c reads a big text in two halves at once, and this
 * file maps the fields onto the model. Labels,
 * events and modules are cached in reader-local tables, so memory grows
 * with distinct frames, stacks and label sets, not with the input.
 */
#include "readers/perf_script_reader.h"

#define RUNTIME_ADDRESS_MIN 0x100000000ULL
#define UNKNOWN_EVENT "unknown"
#define MAX_EVENTS (PC_MAX_COLUMNS / 2)
#define TAG_BUILD_ID (1ULL << 32)   /* module table: build-id modules */

/* ---- events and their columns ---- */

static void *scratch(struct ps_reader *r, size_t size)
{
	pc_grow(&r->scratch, &r->scratch_cap, size, 1);
	return r->scratch;
}

/* Makes the two columns of event i, which has none yet. */
static int make_columns(struct ps_reader *r, size_t i)
{
	struct perf_event_columns made, *ev = &r->events[i];

	if (perf_event_columns_add(r->m, pc_str(r->m, ev->name), pc_str_len(r->m, ev->name), &made))
		return ps_fail_at(r, 0, "more than %d value columns in one profile", PC_MAX_COLUMNS);
	ev->col_sample = made.col_sample;
	ev->col_event = made.col_event;
	return 0;
}

/* Adds a sample, repeat times, to the two columns of its event, at its time when it has one. */
static int add_to_columns(struct ps_reader *r, const struct ps_taken *p)
{
	const struct perf_event_columns *ev = &r->events[p->event];
	const struct pc_column_count counts[2] = {
		{ (size_t)ev->col_sample, p->repeat }, { (size_t)ev->col_event, p->value * p->repeat },
	};

	if (pc_model_add_sample_counts(r->m, &p->sample, counts, 2, p->has_time ? &p->time_ns : NULL))
		return pc_fail_line(&r->ctx->err, PS_FORMAT, p->line, 1,
				    "the counts of event '%s' pass 2^63-1", pc_str(r->m, ev->name));
	return 0;
}

/*
 * The columns of PT's side events (cbr, pwre, exstop, ...) seen before any
 * other event are made after that event's (or at the end), so that the
 * first columns are those of the sampled event (branches, instructions),
 * which writers take by default; their samples wait until then.
 */
static int flush_pending(struct ps_reader *r)
{
	for (size_t i = 0; i < r->nevents; i++)
		if (r->events[i].col_sample < 0 && make_columns(r, i))
			return -1;
	for (size_t i = 0; i < r->npending; i++)
		if (add_to_columns(r, &r->pending[i]))
			return -1;
	r->npending = 0;
	return 0;
}

static int add_event_columns(struct ps_reader *r, const char *name, size_t len, int *index)
{
	bool side = ps_pt_is_side_event(name, len);
	struct perf_event_columns *ev;

	if (r->nevents == MAX_EVENTS)
		return ps_fail_at(r, 0, "more than %d events in one profile", MAX_EVENTS);
	pc_grow(&r->events, &r->events_cap, r->nevents + 1, sizeof(*r->events));
	ev = &r->events[r->nevents];
	memset(ev, 0, sizeof(*ev));
	ev->name = pc_model_intern(r->m, name, len);
	ev->col_sample = ev->col_event = -1;
	*index = (int)r->nevents++;
	if (side && !r->main_columns)
		return 0;
	if (make_columns(r, (size_t)*index))
		return -1;
	if (side)
		return 0;
	r->main_columns = true;
	return flush_pending(r);
}

static bool event_is(const struct ps_reader *r, int index, const char *name, size_t len)
{
	pc_str_id id = r->events[index].name;

	return pc_str_len(r->m, id) == len && !memcmp(pc_str(r->m, id), name, len);
}

/* The columns of the "# event :" header lines come first, in their order. */
static int make_declared_events(struct ps_reader *r)
{
	int index;

	if (r->declared_made)
		return 0;
	r->declared_made = true;
	for (size_t i = 0; i < r->ndeclared; i++)
		if (ps_find_event(r, pc_str(r->m, r->declared[i]), pc_str_len(r->m, r->declared[i]),
			       &index))
			return -1;
	return 0;
}

int ps_find_event(struct ps_reader *r, const char *name, size_t len, int *index)
{
	if (r->last_event >= 0 && event_is(r, r->last_event, name, len)) {
		*index = r->last_event;
		return 0;
	}
	if (make_declared_events(r))
		return -1;
	for (size_t i = 0; i < r->nevents; i++)
		if (event_is(r, (int)i, name, len)) {
			*index = r->last_event = (int)i;
			return 0;
		}
	/* its columns are named NAME_sample and NAME_event: a NUL would make them one */
	if (memchr(name, '\0', len))
		return ps_fail_at(r, 0, "a NUL byte in the event name (is this perf script text?)");
	if (add_event_columns(r, name, len, index))
		return -1;
	r->last_event = *index;
	return 0;
}

/* The event of a sample that printed none. */
static int default_event(struct ps_reader *r, int *index)
{
	r->took_default_event = true;
	if (r->ndeclared == 1)
		return ps_find_event(r, pc_str(r->m, r->declared[0]), pc_str_len(r->m, r->declared[0]),
				  index);
	return ps_find_event(r, UNKNOWN_EVENT, strlen(UNKNOWN_EVENT), index);
}

/* ---- labels ---- */

static void tid_learn(struct ps_reader *r, int64_t pid, int64_t tid)
{
	uint32_t key = (uint32_t)tid;

	if (pid < -1 || tid < 0 || pid > INT32_MAX - 2 ||
	    (r->learnt && r->learnt_pid == pid && r->learnt_tid == tid))
		return;
	ps_table_put(&r->tids, pc_hash_u64(key), 0, (const char *)&key, sizeof(key),
		     (uint32_t)(pid + 2));
	r->learnt = true;
	r->learnt_pid = pid;
	r->learnt_tid = tid;
}

static bool tid_lookup(struct ps_reader *r, int64_t tid, int64_t *pid)
{
	uint32_t key = (uint32_t)tid, value;

	if (tid < 0)
		return false;
	r->tid_lookups++;
	value = ps_table_get(&r->tids, pc_hash_u64(key), 0, (const char *)&key, sizeof(key));
	if (!value)
		return false;
	*pid = (int64_t)value - 2;
	return true;
}

/* Label fields of a sample, serialized as a cache key. */
struct ps_label_key {
	uint8_t mask; /* 1 pid, 2 tid, 4 cpu */
	uint8_t pad[3];
	uint32_t cpu;
	int64_t pid, tid;
};

static uint32_t labels_for(struct ps_reader *r, const char *comm, size_t comm_len,
			   const struct ps_label_key *fields)
{
	size_t size = sizeof(*fields) + comm_len;
	char *key = scratch(r, size);
	uint64_t hash;
	struct pc_label labels[4];
	size_t n = 0;
	uint32_t set;

	memcpy(key, fields, sizeof(*fields));
	memcpy(key + sizeof(*fields), comm, comm_len);
	hash = pc_hash_bytes(key, size, 0x1abe1);
	set = ps_table_get(&r->labelsets, hash, 0, key, size);
	if (set)
		return set - 1;
	if (comm_len)
		labels[n++] = (struct pc_label){
			.key = r->key_comm, .str = pc_model_intern(r->m, comm, comm_len),
		};
	if (fields->mask & 1)
		labels[n++] = (struct pc_label){ .key = r->key_pid, .num = fields->pid,
						 .unit = r->unit_pid };
	if (fields->mask & 2)
		labels[n++] = (struct pc_label){ .key = r->key_tid, .num = fields->tid,
						 .unit = r->unit_tid };
	if (fields->mask & 4)
		labels[n++] = (struct pc_label){ .key = r->key_cpu, .num = fields->cpu,
						 .unit = r->unit_cpu };
	set = pc_model_add_labels(r->m, labels, n);
	ps_table_put(&r->labelsets, hash, 0, key, size, set + 1);
	return set;
}

/* ---- modules and frames ---- */

static const struct ps_global *find_global(const struct ps_reader *r, pc_str_id name)
{
	for (size_t i = r->nglobals; i > 0; i--)
		if (r->globals[i - 1].name == name)
			return &r->globals[i - 1];
	return NULL;
}

static uint64_t module_hash(const char *name, size_t len, uint64_t tag)
{
	return pc_hash_bytes(name, len, 0xd50 ^ tag);
}

static uint32_t module_for(struct ps_reader *r, const char *name, size_t len, uint32_t space,
			   bool build_id)
{
	uint64_t tag = space | (build_id ? TAG_BUILD_ID : 0);
	uint64_t hash = module_hash(name, len, tag);
	uint32_t id = ps_table_get(&r->modules, hash, tag, name, len);
	struct pc_module module = { .space = space };
	const struct ps_global *global;

	if (id)
		return id;
	if (build_id) {
		module.build_id = pc_model_intern(r->m, name, len);
	} else {
		module.name = pc_model_intern(r->m, name, len);
		global = space ? find_global(r, module.name) : NULL;
		if (global) {
			module.build_id = global->build_id;
			module.start = global->start;
			module.limit = global->limit;
			module.file_offset = global->pgoff;
			module.has_range = true;
		}
	}
	id = pc_model_add_module(r->m, &module);
	ps_table_put(&r->modules, hash, tag, name, len, id);
	return id;
}

static uint32_t module_for_dso(struct ps_reader *r, const char *dso, size_t len, uint32_t space)
{
	if (!len || ps_equals(dso, len, "[unknown]"))
		return 0;
	return module_for(r, dso, len, space, false);
}

/* The module whose mapping holds address: in space, or in any when space is 0. */
static uint32_t module_by_range(const struct ps_reader *r, uint32_t space, uint64_t address)
{
	for (size_t i = r->nranges; i > 0; i--) {
		const struct ps_range *range = &r->ranges[i - 1];

		if ((!space || range->space == space || !range->space) &&
		    address >= range->start && address < range->limit)
			return range->module;
	}
	return 0;
}

static bool is_runtime_address(const struct pc_model *m, uint32_t module, uint64_t address)
{
	const struct pc_module *mod;

	if (!module)
		return true;
	mod = pc_model_module(m, module);
	if (mod->has_range)
		return address >= mod->start && address < mod->limit;
	return address >= RUNTIME_ADDRESS_MIN;
}

static void mark_inline(struct ps_reader *r, uint32_t id)
{
	size_t word = id / 64;

	if (word >= r->inline_words) {
		size_t old = r->inline_words;

		pc_grow(&r->inline_bits, &r->inline_words, word + 1, sizeof(*r->inline_bits));
		memset(r->inline_bits + old, 0, (r->inline_words - old) * sizeof(*r->inline_bits));
	}
	r->inline_bits[word] |= 1ULL << (id % 64);
}

/* ---- function starts, for brstacksym's SYM+0xOFF ---- */

struct base_key {
	uint32_t space;
	pc_str_id function;
	uint32_t absolute;
};

static struct ps_symbol_base *find_base(const struct ps_reader *r, pc_str_id function,
					 uint32_t absolute, uint64_t *hash)
{
	struct base_key key = { .space = r->cur.space, .function = function, .absolute = absolute };
	uint32_t at;

	*hash = pc_hash_bytes(&key, sizeof(key), 0xba5e);
	at = ps_table_get(&r->symbols, *hash, 0, (const char *)&key, sizeof(key));
	return at ? &r->bases[at - 1] : NULL;
}

/* A frame printed as "ADDR SYM+0xOFF": SYM starts at ADDR - OFF in its space. */
static void learn_base(struct ps_reader *r, const struct pc_frame *frame, uint64_t offset)
{
	uint32_t absolute = frame->flags & PC_FRAME_ABSOLUTE;
	struct base_key key = { .space = r->cur.space, .function = frame->function,
				.absolute = absolute };
	uint64_t hash, start = frame->address - offset;
	struct ps_symbol_base *known = find_base(r, frame->function, absolute, &hash);

	if (known) {
		known->ambiguous |= known->start != start || known->module != frame->module;
		return;
	}
	pc_grow(&r->bases, &r->bases_cap, r->nbases + 1, sizeof(*r->bases));
	r->bases[r->nbases++] = (struct ps_symbol_base){
		.module = frame->module, .flags = absolute, .start = start,
	};
	ps_table_put(&r->symbols, hash, 0, (const char *)&key, sizeof(key), (uint32_t)r->nbases);
}

/*
 * A brstacksym end SYM+0xOFF gets the address SYM's start + OFF, when a
 * frame of the same space printed SYM's address (a runtime address
 * preferred), in the end's module if it printed one.
 */
static bool resolve_end(struct ps_reader *r, struct pc_frame *frame, uint64_t offset)
{
	uint64_t hash;
	const struct ps_symbol_base *base = find_base(r, frame->function, PC_FRAME_ABSOLUTE, &hash);

	if (!base || base->ambiguous)
		base = find_base(r, frame->function, 0, &hash);
	if (!base || base->ambiguous || (frame->module && frame->module != base->module) ||
	    offset > UINT64_MAX - base->start)
		return false;
	frame->module = base->module;
	frame->flags = PC_FRAME_HAS_ADDRESS | base->flags;
	frame->address = base->start + offset;
	return true;
}

uint32_t ps_frame_for(struct ps_reader *r, const struct ps_frame_text *f)
{
	uint32_t id, space = r->cur.space;
	struct pc_frame frame = {
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = f->address,
	};

	if (f->build_id)
		frame.module = module_for(r, f->build_id, f->build_id_len, space, true);
	else if (f->dso)
		frame.module = module_for_dso(r, f->dso, f->dso_len, space);
	else if (!f->inlined && r->nranges)
		frame.module = module_by_range(r, space, f->address);
	if (f->inlined)
		frame.flags |= PC_FRAME_INLINE;
	if (!f->build_id && is_runtime_address(r->m, frame.module, f->address))
		frame.flags |= PC_FRAME_ABSOLUTE;
	if (f->sym)
		frame.function = pc_model_intern(r->m, f->sym, f->sym_len);
	if (r->learn_bases && f->sym && f->has_offset && !f->inlined && !f->build_id &&
	    f->address >= f->offset)
		learn_base(r, &frame, f->offset);
	id = pc_model_add_frame(r->m, &frame);
	if (f->inlined)
		mark_inline(r, id);
	return id;
}

static uint32_t branch_end_frame(struct ps_reader *r, const struct ps_branch_end *b)
{
	uint32_t space = r->cur.space;
	struct ps_hash h = ps_hash_text(b->text, b->len, ps_cache_seed(r, PS_CACHE_BRANCH_END));
	uint32_t id = ps_htable_get(&r->ends, h);
	struct pc_frame frame = { 0 };

	if (id)
		return id;
	if (b->has_address && !b->address && !b->build_id)
		return ps_pt_unknown_frame(r); /* perf's "no address": a trace start or end */
	if (b->has_address) {
		frame.flags = PC_FRAME_HAS_ADDRESS;
		frame.address = b->address;
		if (b->build_id)
			frame.module = module_for(r, b->build_id, b->build_id_len, space, true);
		else if (b->dso)
			frame.module = module_for_dso(r, b->dso, b->dso_len, space);
		else
			frame.module = module_by_range(r, space, b->address);
		if (!b->build_id)
			frame.flags |= PC_FRAME_ABSOLUTE;
	} else {
		if (b->dso)
			frame.module = module_for_dso(r, b->dso, b->dso_len, space);
		if (b->sym)
			frame.function = pc_model_intern(r->m, b->sym, b->sym_len);
		/* function starts are learnt from the first brstacksym text on: it costs a table entry a frame */
		r->learn_bases |= b->sym && b->has_offset;
		if (b->sym && b->has_offset && !resolve_end(r, &frame, b->offset)) {
			r->unresolved_ends++; /* not cached: a later frame may print SYM's address */
			return pc_model_add_frame(r->m, &frame);
		}
	}
	id = pc_model_add_frame(r->m, &frame);
	ps_htable_add(&r->ends, h, id);
	return id;
}

/* ---- the current sample ---- */

/*
 * perf prints the functions inlined at an address as "(inlined)" frames
 * right before the frame of that address, which they fold into. A run of
 * them that no frame of their address follows (DWARF unwinding can print
 * one) is a location of its own: its last frame becomes a physical one.
 */
static void settle_inline_runs(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;

	for (size_t i = 0; i < c->nframes; i++) {
		const struct pc_frame *frame = pc_model_frame(r->m, c->frames[i]);
		struct pc_frame physical;

		if (!(frame->flags & PC_FRAME_INLINE) ||
		    (i + 1 < c->nframes &&
		     pc_model_frame(r->m, c->frames[i + 1])->address == frame->address))
			continue;
		physical = *frame;
		physical.flags &= ~(uint32_t)PC_FRAME_INLINE;
		c->frames[i] = pc_model_add_frame(r->m, &physical);
	}
}

/*
 * The frames of an entry "0xFROM(dso)/0xTO(dso)/..." s[at, end) whose two
 * ends are both cached (an end is cached only once it was read whole, so
 * the entry is then well formed): most entries of a brstack text, read
 * without decoding them again. False when either is not.
 */
static bool cached_address_entry(struct ps_reader *r, const char *s, size_t at, size_t end,
				 struct pc_branch *branch)
{
	uint64_t seed = ps_cache_seed(r, PS_CACHE_BRANCH_END);
	size_t slash = ps_branch_end_scan(s, at, end), second;

	if (slash + 3 > end || !ps_has_prefix(s + at, slash - at, "0x") ||
	    !ps_has_prefix(s + slash + 1, end - slash - 1, "0x"))
		return false;
	second = ps_branch_end_scan(s, slash + 1, end);
	branch->from = ps_htable_get(&r->ends, ps_hash_text(s + at, slash - at, seed));
	branch->to = branch->from ? ps_htable_get(&r->ends, ps_hash_text(s + slash + 1,
								    second - slash - 1, seed)) : 0;
	return branch->from && branch->to;
}

int ps_add_branches(struct ps_reader *r, size_t at, size_t end)
{
	struct ps_sample *c = &r->cur;
	const char *s = r->line;

	at = ps_skip_blanks(s, at, end);
	while (at < end) {
		size_t tok_end = at;
		struct ps_branch_end from, to;
		struct ps_syntax syn;

		while (tok_end < end && !ps_is_blank(s[tok_end]))
			tok_end++;
		pc_grow(&c->branches, &c->branches_cap, c->nbranches + 1, sizeof(*c->branches));
		if (!cached_address_entry(r, s, at, tok_end, &c->branches[c->nbranches])) {
			if (!ps_parse_branch_entry(s, at, tok_end, &from, &to)) {
				ps_syntax_error(&syn, s, at, tok_end,
						"a branch entry 0xFROM/0xTO/FLAGS (or SYM/SYM/FLAGS)");
				return ps_fail_syntax(r, &syn);
			}
			c->branches[c->nbranches].from = branch_end_frame(r, &from);
			c->branches[c->nbranches].to = branch_end_frame(r, &to);
		}
		c->nbranches++;
		at = ps_skip_blanks(s, tok_end, end);
	}
	return 0;
}

void ps_open_sample(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;

	c->line = r->lineno;
	c->labels = 0;
	c->space = 0;
	c->event = -1;
	c->has_period = false;
	c->callchain_header = false;
	c->period = 0;
	c->has_time = false;
	c->repeat = r->repeat ? r->repeat : 1;
	c->stack = 0;
	c->has_inline = false;
	c->nframes = 0;
	c->nbranches = 0;
	r->repeat = 0;
}

void ps_count_stack(struct ps_reader *r, uint32_t stack, uint64_t repeat)
{
	if (!stack)
		return;
	if (stack >= r->stack_samples_cap) {
		size_t old = r->stack_samples_cap;

		pc_grow(&r->stack_samples, &r->stack_samples_cap, (size_t)stack + 1,
			sizeof(*r->stack_samples));
		memset(r->stack_samples + old, 0,
		       (r->stack_samples_cap - old) * sizeof(*r->stack_samples));
	}
	r->stack_samples[stack] = pc_add_saturated(r->stack_samples[stack], repeat);
}

/* The open sample as it is added to the model. */
static struct ps_taken taken_sample(const struct ps_reader *r, const struct pc_sample *sample,
				      uint64_t value)
{
	return (struct ps_taken){
		.sample = *sample, .event = r->cur.event, .repeat = r->cur.repeat, .value = value,
		.line = r->cur.line, .has_time = r->cur.has_time, .time_ns = r->cur.time_ns,
	};
}

/* Keeps the open sample of a side event whose columns are not made yet. */
static void add_pending(struct ps_reader *r, const struct pc_sample *sample, uint64_t value)
{
	pc_grow(&r->pending, &r->pending_cap, r->npending + 1, sizeof(*r->pending));
	r->pending[r->npending++] = taken_sample(r, sample, value);
}

int ps_emit_sample(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;
	struct pc_sample sample = { .labels = c->labels };
	struct perf_event_columns *ev;
	uint64_t value = c->has_period ? c->period : 1;

	r->state = ST_IDLE;
	r->prev_frame = false;
	if (c->event < 0 && default_event(r, &c->event))
		return -1;
	ev = &r->events[c->event];
	if (value && c->repeat > PC_COUNT_MAX / value)
		return pc_fail_line(&r->ctx->err, PS_FORMAT, c->line, 1,
				    "the sample's count %llu times its period %llu passes 2^63-1",
				    (unsigned long long)c->repeat, (unsigned long long)value);
	if (!c->stack && c->has_inline)
		settle_inline_runs(r);
	sample.stack = c->stack ? c->stack : pc_model_add_stack(r->m, c->frames, c->nframes);
	c->stack = sample.stack;
	if (c->nbranches)
		sample.branches = pc_model_add_branches(r->m, c->branches, c->nbranches);
	if (ev->col_sample < 0)
		add_pending(r, &sample, value);
	else {
		struct ps_taken taken = taken_sample(r, &sample, value);

		if (add_to_columns(r, &taken))
			return -1;
	}
	perf_event_note(ev, c->has_period, c->period, c->repeat, value);
	ps_count_stack(r, sample.stack, c->repeat);
	if (pc_model_default_column(r->m) < 0 && ev->col_event >= 0 &&
	    !ps_pt_is_side_event(pc_str(r->m, ev->name), pc_str_len(r->m, ev->name)))
		pc_model_set_default_column(r->m, ev->col_event);
	r->saw_sample = true;
	return 0;
}

void ps_note_times(struct ps_reader *r, uint64_t first, uint64_t last)
{
	if (!r->any_time || first < r->first_time)
		r->first_time = first;
	if (!r->any_time || last > r->last_time)
		r->last_time = last;
	r->any_time = true;
}

int ps_open_from_header(struct ps_reader *r, const struct ps_header *h)
{
	struct ps_sample *c = &r->cur;
	struct ps_label_key fields = { 0 };
	int64_t pid = h->pid;
	bool has_pid = h->has_pid;

	ps_open_sample(r);
	if (h->has_pid && h->has_tid)
		tid_learn(r, h->pid, h->tid);
	else if (h->has_tid)
		has_pid = tid_lookup(r, h->tid, &pid);
	if (has_pid) {
		fields.mask |= 1;
		fields.pid = pid;
		c->space = pid >= 0 ? (uint32_t)pid + 1 : 0;
	}
	if (h->has_tid) {
		fields.mask |= 2;
		fields.tid = h->tid;
	}
	if (h->has_cpu) {
		fields.mask |= 4;
		fields.cpu = h->cpu;
	}
	c->labels = labels_for(r, r->line + h->comm_start, h->comm_end - h->comm_start, &fields);
	c->has_period = h->has_period;
	c->period = h->period;
	if (h->has_time) {
		ps_note_times(r, h->time_ns, h->time_ns);
		c->has_time = h->time_ns <= (uint64_t)INT64_MAX;
		c->time_ns = (int64_t)h->time_ns;
	}
	if (h->has_event)
		return ps_find_event(r, r->line + h->event_start, h->event_end - h->event_start,
				     &c->event);
	return 0; /* the sample's event is known from what follows, else its default */
}

void ps_apply_srcline(struct ps_reader *r, const struct ps_srcline *src)
{
	struct ps_sample *c = &r->cur;
	uint32_t *last = &c->frames[c->nframes - 1];
	struct pc_frame frame = *pc_model_frame(r->m, *last);

	if (src->inlined) {
		frame.flags |= PC_FRAME_INLINE | PC_FRAME_ABSOLUTE;
		frame.module = 0;
	}
	if (src->has_file) {
		frame.file = pc_model_intern(r->m, r->line + src->file_start,
					     src->file_end - src->file_start);
		frame.line = src->line;
	}
	*last = pc_model_add_frame(r->m, &frame);
	if (frame.flags & PC_FRAME_INLINE) {
		mark_inline(r, *last);
		c->has_inline = true;
	}
}

/* ---- side records ---- */

/* A build id as lowercase hex, interned. */
static pc_str_id intern_build_id(struct ps_reader *r, const char *hex, size_t len)
{
	char *text = scratch(r, len);

	for (size_t i = 0; i < len; i++)
		text[i] = hex[i] >= 'A' && hex[i] <= 'F' ? (char)(hex[i] - 'A' + 'a') : hex[i];
	return pc_model_intern(r->m, text, len);
}

/*
 * Adds a range to a module and remembers it for bare addresses. With a
 * build id the module is a new one (modules are interned with their build
 * id), so the frames of its dso in its space are sent to it from now on.
 */
static void add_mapping(struct ps_reader *r, const struct ps_mmap *map)
{
	const char *path = r->line + map->path_start;
	size_t path_len = map->path_end - map->path_start;
	uint64_t start = map->start, limit = map->len > UINT64_MAX - start ? UINT64_MAX :
					     start + map->len;
	uint32_t space = map->pid >= 0 ? (uint32_t)map->pid + 1 : 0;
	struct pc_module module = {
		.name = pc_model_intern(r->m, path, path_len), .space = space,
		.start = start, .limit = limit, .file_offset = map->pgoff, .has_range = true,
	};
	uint32_t id;

	if (map->build_id_end > map->build_id_start)
		module.build_id = intern_build_id(r, r->line + map->build_id_start,
						  map->build_id_end - map->build_id_start);
	if (map->pid < 0) {
		pc_grow(&r->globals, &r->globals_cap, r->nglobals + 1, sizeof(*r->globals));
		r->globals[r->nglobals++] = (struct ps_global){
			.name = module.name, .build_id = module.build_id, .start = start,
			.limit = limit, .pgoff = map->pgoff,
		};
		/* modules of this dso already made in other spaces get its range too */
		for (size_t i = 0; i < pc_model_nmodules(r->m); i++) {
			const struct pc_module *known = pc_model_module(r->m, (uint32_t)i + 1);
			struct pc_module widened = module;

			if (known->name == module.name && !known->build_id) {
				widened.space = known->space;
				widened.build_id = 0;
				pc_model_add_module(r->m, &widened);
			}
		}
		module.space = 0;
	}
	id = pc_model_add_module(r->m, &module);
	if (module.build_id)
		ps_table_put(&r->modules, module_hash(path, path_len, module.space), module.space,
			     path, path_len, id);
	pc_grow(&r->ranges, &r->ranges_cap, r->nranges + 1, sizeof(*r->ranges));
	r->ranges[r->nranges++] = (struct ps_range){
		.space = space, .module = id, .start = start, .limit = limit,
	};
	r->gen++;
}

/* PERF_RECORD_MMAP[2]: learns its pid/tid; an executable mapping sets a module's range. */
static int side_mmap(struct ps_reader *r, size_t body)
{
	struct ps_mmap map;
	struct ps_syntax syn;

	if (ps_parse_mmap(r->line, r->len, body, &map, &syn))
		return ps_fail_syntax(r, &syn);
	tid_learn(r, map.pid, map.tid);
	if (!map.executable || map.path_end == map.path_start || !map.len)
		return 0;
	add_mapping(r, &map);
	return 0;
}

int ps_side_record(struct ps_reader *r, size_t at)
{
	size_t body;
	int64_t pid, tid;
	uint64_t lost;
	enum ps_side_kind kind = ps_side_kind(r->line, r->len, at, &body);

	r->side_records += kind == PS_SIDE_MMAP || kind == PS_SIDE_TASK;
	switch (kind) {
	case PS_SIDE_MMAP:
		return side_mmap(r, body);
	case PS_SIDE_TASK:
		if (ps_parse_task_ids(r->line, r->len, body, &pid, &tid))
			tid_learn(r, pid, tid);
		return 0;
	case PS_SIDE_LOST:
		if (ps_parse_lost_count(r->line, r->len, body, &lost) &&
		    lost <= UINT64_MAX - r->lost)
			r->lost += lost;
		ps_pt_end_chains(r);
		return 0;
	case PS_SIDE_IGNORED:
		break;
	}
	return 0;
}

/* ---- header comments ---- */

/* "# event : name = NAME, ...": its columns come first, in this order. */
static void declare_event(struct ps_reader *r, const char *value, size_t n)
{
	const char *text;
	size_t len;
	pc_str_id name;

	if (!ps_parse_event_name(value, n, &text, &len) || ps_pt_is_trace_pmu(text, len))
		return;
	name = pc_model_intern(r->m, text, len);
	for (size_t i = 0; i < r->ndeclared; i++)
		if (r->declared[i] == name)
			return;
	pc_grow(&r->declared, &r->declared_cap, r->ndeclared + 1, sizeof(*r->declared));
	r->declared[r->ndeclared++] = name;
}

void ps_comment_line(struct ps_reader *r)
{
	struct ps_comment comment;
	const char *value;
	size_t n;

	if (r->saw_sample || !ps_parse_comment(r->line, r->len, &comment))
		return;
	value = r->line + comment.value_start;
	n = comment.value_end - comment.value_start;
	if (!strcmp(comment.key, "perf.event"))
		declare_event(r, value, n);
	else if (!strcmp(comment.key, "perf.cmdline"))
		pc_model_add_comment(r->m, "perf-command:%.*s", (int)n, value);
	else if (!strcmp(comment.key, "perf.perf_version"))
		pc_model_add_comment(r->m, "perf-version:%.*s", (int)n, value);
	else if (!strcmp(comment.key, "perf.captured_on") && !pc_model_time_nanos(r->m))
		pc_model_set_time(r->m, ps_parse_captured_on(value, n), pc_model_duration_nanos(r->m));
	if (!memchr(value, '\0', n)) {
		char *text = scratch(r, n + 1);

		memcpy(text, value, n);
		text[n] = '\0';
		pc_model_add_fact(r->m, comment.key, text);
	}
}

/* ---- the end of the input ---- */

/* Whether the frame is a runtime address in a file that no mmap record placed. */
static bool unmapped_runtime_frame(const struct pc_model *m, const struct pc_frame *frame)
{
	return frame->module && (frame->flags & PC_FRAME_ABSOLUTE) &&
	       (frame->flags & PC_FRAME_HAS_ADDRESS) &&
	       !pc_model_module(m, frame->module)->has_range &&
	       pc_model_module_is_file(m, frame->module);
}

static int compare_ids(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * Runtime addresses in a binary that no MMAP record placed: pprof keeps
 * them, but cannot map them back into the file to symbolize them. One
 * warning counts the samples (of this input) that have such a frame and
 * the binaries (by name) they lie in. [pseudo] files, JIT maps and
 * anonymous memory are not counted: nothing could symbolize them anyway.
 */
static int warn_unmapped(struct ps_reader *r)
{
	const struct pc_model *m = r->m;
	bool *hit_modules = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*hit_modules));
	uint32_t *names = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*names));
	size_t nnames = 0, binaries = 0;
	uint64_t samples = 0;

	for (uint32_t stack = 1; stack < r->stack_samples_cap; stack++) {
		size_t n;
		const uint32_t *frames;
		bool hit = false;

		if (!r->stack_samples[stack])
			continue;
		frames = pc_model_stack(m, stack, &n);
		for (size_t i = 0; i < n; i++) {
			const struct pc_frame *frame = pc_model_frame(m, frames[i]);

			if (!unmapped_runtime_frame(m, frame))
				continue;
			hit = true;
			if (!hit_modules[frame->module])
				names[nnames++] = pc_model_module(m, frame->module)->name;
			hit_modules[frame->module] = true;
		}
		if (hit)
			samples = pc_add_saturated(samples, r->stack_samples[stack]);
	}
	if (nnames) {
		qsort(names, nnames, sizeof(*names), compare_ids);
		for (size_t i = 0; i < nnames; i++)
			binaries += !i || names[i] != names[i - 1];
		/* advice: the text has no more to give */
		pc_notice(r->ctx, PS_FORMAT, "%llu sample%s in %zu binar%s runtime addresses "
			  "but no mmap records: pprof cannot re-symbolize them (print them "
			  "with perf script --show-mmap-events)", (unsigned long long)samples,
			  samples == 1 ? "" : "s", binaries, binaries == 1 ? "y has" : "ies have");
	}
	free(names);
	free(hit_modules);
	return 0;
}

/* Without a sample of a sampled event, the default is the first event that has samples. */
static void pick_default_column(struct ps_reader *r)
{
	if (pc_model_default_column(r->m) >= 0)
		return;
	for (size_t i = 0; i < r->nevents; i++)
		if (r->events[i].samples) {
			pc_model_set_default_column(r->m, r->events[i].col_event);
			return;
		}
}

int ps_finish_profile(struct ps_reader *r)
{
	if (make_declared_events(r) || flush_pending(r) || warn_unmapped(r))
		return -1;
	if (r->unresolved_ends) /* the text has no more: a notice */
		pc_notice(r->ctx, PS_FORMAT, "%llu brstacksym branch end(s) SYM+0xOFF have no "
			  "address: the text printed no address of SYM before them (AutoFDO needs "
			  "-F brstack, or brstacksym with ip,sym,symoff)",
			  (unsigned long long)r->unresolved_ends);
	if (r->pt_text_chained &&
	    pc_warn(r->ctx, PS_FORMAT, "%llu branch samples without a cpu, tid or pid field were "
		    "chained in text order into ranges: right only for one thread's complete trace "
		    "(print -F cpu or tid)", (unsigned long long)r->pt_text_chained))
		return -1;
	pick_default_column(r);
	perf_events_finish(r->m, r->events, r->nevents);
	pc_model_add_source(r->m, PS_FORMAT);
	if (r->any_time && r->last_time > r->first_time && !pc_model_duration_nanos(r->m) &&
	    r->last_time - r->first_time <= (uint64_t)INT64_MAX)
		pc_model_set_time(r->m, pc_model_time_nanos(r->m),
				  (int64_t)(r->last_time - r->first_time));
	if (r->lost)
		pc_model_add_comment(r->m, "perf-script: the input reports %llu lost events",
				     (unsigned long long)r->lost);
	if (r->trace_errors)
		pc_model_add_comment(r->m, "perf-script: %llu instruction trace error line(s) skipped",
				     (unsigned long long)r->trace_errors);
	if (r->perf_messages)
		pc_model_add_comment(r->m, "perf-script: %llu line(s) of perf's own messages skipped",
				     (unsigned long long)r->perf_messages);
	return 0;
}

/* ---- the reader ---- */

void ps_reader_init(struct ps_reader *r, struct pc_ctx *ctx, struct pc_input *in,
		    struct pc_model *m)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->in = in;
	r->m = m;
	r->last_event = -1;
	r->key_comm = pc_model_intern_cstr(m, "comm");
	r->key_pid = pc_model_intern_cstr(m, "pid");
	r->key_tid = pc_model_intern_cstr(m, "tid");
	r->key_cpu = pc_model_intern_cstr(m, "cpu");
	r->unit_pid = r->key_pid;
	r->unit_tid = r->key_tid;
	r->unit_cpu = r->key_cpu;
}

void ps_reader_drop_caches(struct ps_reader *r)
{
	ps_htable_release(&r->frames.table);
	ps_htable_release(&r->blocks.table);
	free(r->hot);
	r->hot = NULL;
}

void ps_reader_release(struct ps_reader *r)
{
	free(r->cur.frames);
	free(r->cur.branches);
	ps_reader_drop_caches(r);
	ps_htable_release(&r->ends);
	ps_table_release(&r->modules);
	ps_table_release(&r->labelsets);
	ps_table_release(&r->tids);
	free(r->events);
	free(r->declared);
	free(r->ranges);
	free(r->globals);
	free(r->scratch);
	free(r->block);
	free(r->inline_bits);
	free(r->stack_samples);
	free(r->pending);
	ps_table_release(&r->symbols);
	free(r->bases);
	ps_pt_release(r);
}

static int perf_script_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct ps_reader r;
	int ret;

	ps_reader_init(&r, ctx, in, m);
	ret = ps_read_input(&r);
	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	ps_reader_release(&r);
	return ret;
}

/* ---- probe ---- */

static int perf_script_probe(const uint8_t *head, size_t len)
{
	const char *s = (const char *)head;
	size_t at = 0, lines = 0;
	int good = 0;
	bool comments = false;

	while (at < len && lines < 24) {
		const char *nl = memchr(s + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - s) : len, n = end - at;
		int score;

		if (!nl && len >= PC_PROBE_BYTES)
			break; /* a line cut by the probe window */
		if (n && s[end - 1] == '\r')
			n--;
		if (memchr(s + at, '\0', n))
			return PC_PROBE_NO;
		lines++;
		if (n && s[at] == '#') {
			comments |= ps_has_prefix(s + at, n, "# ========") ||
				    ps_has_prefix(s + at, n, "# captured on") ||
				    ps_has_prefix(s + at, n, "# perf version") ||
				    ps_has_prefix(s + at, n, "# cmdline");
		} else if ((score = ps_probe_line(s + at, n)) < 0) {
			/* a bad line after good ones: perf script with an error the reader locates */
			return good >= 4 || (comments && good) ? PC_PROBE_STRONG : PC_PROBE_NO;
		} else {
			good += score;
		}
		at = end + 1;
	}
	if (good >= 4 || (comments && good >= 2))
		return PC_PROBE_CERTAIN;
	if (good >= 2 || comments)
		return PC_PROBE_STRONG;
	return good ? PC_PROBE_WEAK : PC_PROBE_NO;
}

static const char *const perf_script_aliases[] = { "perf", "perf-script-text", NULL };
static const char *const perf_script_extensions[] = { ".perf", ".perf.txt", ".perfscript",
						      ".script", NULL };

const struct pc_reader pc_perf_script_reader = {
	.name = "perf-script",
	.aliases = perf_script_aliases,
	.extensions = perf_script_extensions,
	.summary = "Linux perf script text (callchains, single-line, brstack, Intel PT, mmap events)",
	.provides = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS | PC_PART_BRANCHES,
	.probe = perf_script_probe,
	.read = perf_script_read,
};
