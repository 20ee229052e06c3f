/*
 * pprof_writer.c - the model as a gzip-compressed pprof profile
 * (perftools.profiles.Profile, proto/profile.proto).
 *
 * Source: pprof's profile.proto and its decoder/validator in the Debian
 * snapshot 0.0~git20211008.947d60d, as summarised in
 * ../shared/research/pprof.md sections 2, 3, 7.1, 7.2 and 8; DESIGN.md 4.1.
 * Output is read by pprof (any version: of the two newer fields, Line.column
 * is never written and doc_url only when a pprof input had one, which older
 * versions skip), speedscope and every proto3 consumer (strings are valid
 * UTF-8).
 *
 * What maps where:
 *   column (type, unit)      -> sample_type, in model order, named by the
 *                               column's type, but a perf event pair (the
 *                               SAMPLES and WEIGHT columns of one event) as
 *                               pprof users expect (pprof_conventions.c):
 *                               with one pair "samples" and "cpu" (cpu-clock
 *                               or task-clock in nanoseconds) or EVENT; with
 *                               several EVENT_samples and EVENT; EVENT
 *                               without perf's modifier suffix (":ppp")
 *                               unless two events then collide; the model's
 *                               names when a name would be taken twice. The
 *                               default column's name -> default_sample_type
 *   module                   -> mapping; mapping 1 (mapping[0], which pprof
 *                               shows as the profile's binary) is the
 *                               profiled program (pprof_conventions.c): the
 *                               module perf's command line names (a
 *                               "perf-command:" comment), else the one with
 *                               the most leaf samples in the default column
 *                               that is a file and no shared library; the
 *                               others follow in model order (mapping ids are
 *                               a permutation of module ids). Start, limit
 *                               and offset from its range when known, else
 *                               start 0 and limit = highest address + 1;
 *                               build_id as is; has_functions/filenames/
 *                               line_numbers true when every location of it
 *                               has them, or as the input stated them
 *                               (pc_module.stated: a pprof's flags)
 *   PE image by RVA (a module -> placed for pprof's symbolizer (research/
 *   with a PDB id, no range,      pe-symbolization.md 1): start = mapping
 *   as SPT gives it)              id << 40, locations at start + RVA,
 *                               file_offset 0, path with '/' for '\\' and
 *                               "/C:" for "C:",
 *                               no build_id (a comment per image holds its
 *                               PDB GUID and age; --pe-build-ids: the key
 *                               as build_id); an RVA below 0x1000 (the
 *                               headers) on a location without a mapping
 *   physical frame           -> location (ids 1..N in first use), with
 *                               the PC_FRAME_INLINE frames leafward of it
 *                               folded in as extra lines, innermost first;
 *                               is_folded when it is PC_FRAME_FOLDED;
 *                               a module-relative address of a module with
 *                               a known range becomes its runtime address,
 *                               start + address - file_offset
 *   (function name, file, module, start line, system name)
 *                            -> function, system_name = name unless the
 *                               frame has a system name of its own
 *                               (pc_model_system_name); a frame without a
 *                               name gives no line
 *   stack (leaf first)       -> sample.location_id (leaf first)
 *   label                    -> label: str when it has one, else num with
 *                               num_unit (so that pid 0 survives)
 *   branch stack of a sample without a stack -> one sample per branch with
 *                               the stack [to, from] and the sample's values
 *   caller/callee data       -> (Visual Studio CallerCallee, research/
 *                               pprof.md 7.4: model.h arc_self_column) the
 *                               functions' one-frame samples as they are
 *                               (exact flat and per-function values); a
 *                               module's range covers its function
 *                               addresses (the reader widens it), the
 *                               unknown frame has no mapping and address 0;
 *                               plus a last column edge_inclusive (the unit
 *                               of arc_total_column) with one sample
 *                               [callee, caller] per call arc valued with
 *                               the arc's count, 0 in the other columns,
 *                               labelled as the callee (as the caller when
 *                               the callee is in several processes), and a
 *                               comment saying what these samples are
 *   metadata                 -> comments ("converted by profconv ...",
 *                               then the model's), time_nanos,
 *                               duration_nanos, period_type (named as the
 *                               column whose type it is), period;
 *                               drop_frames, keep_frames and doc_url from
 *                               the facts pprof.drop_frames, .keep_frames
 *                               and .doc_url (a pprof input's)
 *   a model read from pprof  -> (every source "pprof", pprof_conventions.c)
 *                               the input again: no comment of profconv's
 *                               own (empty comments kept), mappings in
 *                               model order, default_sample_type as the
 *                               input had it (fact pprof.default_sample_type,
 *                               none without it) unless --event names one,
 *                               no sample types when it had none
 * Samples that become identical (location ids, labels) are merged by
 * summing their values; a sum past INT64_MAX is an error.
 *
 * What pprof holds not, each said in one notice (never an error with
 * --strict): arcs (but call arcs of caller/callee data); the branch
 * stacks of samples that also have a call stack. Also not held, without a
 * notice: which branches formed one LBR record and their order, the
 * per-format header facts, the file and line of frames without a function
 * name, and whether an address was absolute or module-relative. What is
 * lost, each with one warning (an error with --strict): locations outside
 * their mapping's range; the mapping of PE locations below RVA 0x1000;
 * invalid UTF-8 bytes (U+FFFD instead).
 *
 * Beside this file: pprof_encode.c encodes and compresses the messages;
 * pprof_conventions.c decides the names of perf's event columns and which
 * module is the profiled program; pprof_strings.c holds the string table.
 */
#include "model/reconstruct.h"
#include "writers/pprof_conventions.h"
#include "writers/pprof_writer.h"

#define PPROF "pprof"
#define EDGE_COLUMN "edge_inclusive"

/* ---- strings ---- */

/*
 * The output index of clean text already written as a model string, or -1:
 * the model knows its strings, so they need no index of the writer's.
 */
static int64_t written_model_string(const struct pprof_writer *w, const char *text, size_t len)
{
	pc_str_id id = pc_model_find_string(w->m, text, len);

	return id && w->strings.model_ids[id] ? (int64_t)w->strings.model_ids[id] - 1 : -1;
}

/*
 * Each string the writer indexes (its own, or a model string repaired)
 * claims the model string of the same text, if any and not yet written:
 * model_string then gives that index and needs no lookup of its own.
 */
static int64_t claim_model_twin(struct pprof_writer *w, int64_t index)
{
	struct string_table *table = &w->strings;
	pc_str_id id = pc_model_find_string(w->m, table->texts[index], table->lens[index]);

	if (id && !table->model_ids[id])
		table->model_ids[id] = (uint32_t)index + 1;
	return index;
}

/*
 * The output index of a model string, added on first use. A clean one is
 * unique among the model's, and one the writer indexed first has claimed
 * it, so it is appended as it is; a repaired one is looked up among both.
 */
static int64_t model_string(struct pprof_writer *w, pc_str_id id)
{
	struct string_table *table = &w->strings;
	const char *text = pc_str(w->m, id);
	size_t len = pc_str_len(w->m, id);
	int64_t index;

	if (!id)
		return 0;
	if (table->model_ids[id])
		return (int64_t)table->model_ids[id] - 1;
	if (string_table_clean(text, len)) {
		index = string_table_append(table, text, len);
	} else {
		text = string_table_repair(table, text, len, &len);
		index = written_model_string(w, text, len);
		if (index < 0)
			index = claim_model_twin(w, string_table_add_indexed(table, text, len));
	}
	table->model_ids[id] = (uint32_t)index + 1;
	return index;
}

/* The index of text the writer makes, written once whatever wrote it first. */
static int64_t own_text(struct pprof_writer *w, const char *text, size_t len)
{
	int64_t index = string_table_clean(text, len) ? written_model_string(w, text, len) : -1;

	return index >= 0 ? index
			  : claim_model_twin(w, string_table_intern(&w->strings, text, len, false));
}

static int64_t own_string(struct pprof_writer *w, const char *text)
{
	return own_text(w, text, strlen(text));
}

/* ---- sample types ---- */

/* The pprof names of perf's event columns (pprof_conventions.c). */
static void name_event_pairs(struct pprof_writer *w)
{
	char *names[PC_MAX_COLUMNS];

	pprof_column_names(w->m, names);
	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++) {
		if (names[c])
			w->types[c] = own_string(w, names[c]);
		free(names[c]);
	}
}

/*
 * A profile read from pprof keeps its default_sample_type as it was, none
 * when it had none (--event names one: the default column then).
 */
static int64_t input_default_type(struct pprof_writer *w)
{
	size_t len;
	const char *text = pprof_fact(w->m, "pprof.default_sample_type", &len);

	return text ? own_text(w, text, len) : 0;
}

static int add_sample_types(struct pprof_writer *w)
{
	const struct pc_model *m = w->m;
	size_t def = pc_model_default_column(m) >= 0 && (size_t)pc_model_default_column(m) < pc_model_ncolumns(m) ?
		(size_t)pc_model_default_column(m) : 0;

	w->ncolumns = pc_model_ncolumns(m) || w->from_pprof ? pc_model_ncolumns(m) : 1;
	if (!w->ncolumns) {
		w->default_type = 0; /* a pprof input without sample types */
		return 0;
	}
	if (!pc_model_ncolumns(m)) {
		/* pprof reads a profile without sample types as "no samples" */
		w->types[0] = own_string(w, "samples");
		w->units[0] = own_string(w, "count");
	}
	name_event_pairs(w);
	for (size_t c = 0; c < pc_model_ncolumns(m); c++) {
		if (!w->types[c])
			w->types[c] = model_string(w, pc_model_column(m, c)->type);
		w->units[c] = model_string(w, pc_model_column(m, c)->unit);
	}
	for (size_t c = 0; c < w->ncolumns; c++)
		for (size_t d = 0; d < c; d++)
			if (w->types[c] == w->types[d])
				return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
					       "pprof needs distinct value type names, but columns %zu and %zu are both '%s'",
					       d + 1, c + 1, w->strings.texts[w->types[c]]);
	w->default_type = w->types[def];
	if (w->from_pprof && !w->ctx->opt.event)
		w->default_type = input_default_type(w);
	return 0;
}

/* Caller/callee data: the column of the arcs, after the model's. */
static int add_edge_type(struct pprof_writer *w)
{
	const struct pc_model *m = w->m;

	w->edges = pc_model_has_arc_data(m);
	if (!w->edges)
		return 0;
	w->types[w->ncolumns] = own_string(w, EDGE_COLUMN);
	w->units[w->ncolumns] = model_string(w, pc_model_column(m, pc_model_arc_total_column(m))->unit);
	for (size_t c = 0; c < w->ncolumns; c++)
		if (w->types[c] == w->types[w->ncolumns])
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
				       "pprof: column %zu is named '%s', the name of the "
				       "column this writer adds for the call arcs", c + 1,
				       EDGE_COLUMN);
	w->ncolumns++;
	return 0;
}

/* ---- locations, functions, mappings ---- */

/* A frame at an RVA of a PE image (see PE_BASE_SHIFT). */
static bool at_pe_rva(const struct pprof_writer *w, const struct pc_frame *frame)
{
	return frame->module && w->mappings[frame->module - 1].pe_base &&
	       (frame->flags & PC_FRAME_HAS_ADDRESS) && !(frame->flags & PC_FRAME_ABSOLUTE);
}

/* The mapping of a location whose physical frame is frame; 0 = none. */
uint32_t pprof_location_mapping(const struct pprof_writer *w, const struct pc_frame *frame)
{
	if (at_pe_rva(w, frame) && frame->address < PE_FIRST_SECTION)
		return 0;
	return w->mapping_of[frame->module];
}

uint64_t pprof_location_address(const struct pprof_writer *w, const struct pc_frame *frame)
{
	const struct pc_module *module;

	if (!(frame->flags & PC_FRAME_HAS_ADDRESS))
		return 0;
	if (!frame->module || (frame->flags & PC_FRAME_ABSOLUTE))
		return frame->address;
	if (at_pe_rva(w, frame))
		return frame->address < PE_FIRST_SECTION ? frame->address :
		       w->mappings[frame->module - 1].pe_base + frame->address;
	module = pc_model_module(w->m, frame->module);
	/* the inverse of module-relative = runtime - start + file_offset */
	if (module->has_range && frame->address >= module->file_offset &&
	    frame->address - module->file_offset <= UINT64_MAX - module->start)
		return module->start + (frame->address - module->file_offset);
	return frame->address;
}

/*
 * The function of a named frame, numbered in first use: (name, file,
 * module, start line, system name), as a symbol of one name in two
 * binaries is two functions. The first function of each name is kept by
 * name, so that a name seen once (nearly all) costs no hash lookup.
 */
static uint32_t function_for_frame(struct pprof_writer *w, uint32_t id)
{
	const struct pc_frame *frame = pc_model_frame(w->m, id);
	uint32_t key[FUNCTION_KEY], *first = &w->function_by_name[frame->function];
	pc_str_id system_name;
	size_t n;

	if (w->frame_function[id])
		return w->frame_function[id];
	key[0] = (uint32_t)model_string(w, frame->function);
	key[1] = (uint32_t)model_string(w, frame->file);
	key[2] = frame->module;
	key[3] = frame->start_line;
	/* the system name's index + 1, 0 = the name's */
	key[4] = pc_model_system_name(w->m, id, &system_name) ?
		 (uint32_t)model_string(w, system_name) + 1 : 0;
	if (!*first)
		*first = pc_seqs_append(&w->functions, key, FUNCTION_KEY); /* no function of this name yet */
	if (!memcmp(pc_seq(&w->functions, *first, &n), key, sizeof(key)))
		return w->frame_function[id] = *first;
	return w->frame_function[id] = pc_seqs_add(&w->functions, key, FUNCTION_KEY);
}

static void note_mapping_use(struct pprof_writer *w, const struct pc_frame *physical,
			     uint64_t address, size_t nframes, bool named, bool filed,
			     bool lined)
{
	struct mapping_state *state = &w->mappings[physical->module - 1];
	const struct pc_module *module = pc_model_module(w->m, physical->module);

	if (!pprof_location_mapping(w, physical)) {
		w->in_pe_headers++;
		return;
	}
	state->nlocations++;
	state->all_functions &= named;
	state->all_filenames &= filed;
	state->all_lines &= lined;
	state->any_inline |= nframes > 1;
	if (physical->flags & PC_FRAME_HAS_ADDRESS) {
		if (!state->any_address || address > state->max_address)
			state->max_address = address;
		state->any_address = true;
		if (module->has_range && (address < module->start || address >= module->limit))
			w->outside_range++;
	}
}

/*
 * A new location of frames (innermost first, physical last), referred to
 * by ref: numbers its functions in first use and notes its mapping's use.
 */
static uint32_t add_location(struct pprof_writer *w, uint32_t ref, const uint32_t *frames,
			     size_t n)
{
	const struct pc_frame *physical = pc_model_frame(w->m, frames[n - 1]);
	bool named = true, filed = true, lined = true;

	if (w->nlocations >= CHAIN - 1)
		pc_die_oom(w->nlocations);
	pc_grow(&w->location_ref, &w->location_ref_cap, w->nlocations + 1,
		sizeof(*w->location_ref));
	w->location_ref[w->nlocations++] = ref;
	for (size_t i = 0; i < n; i++) {
		const struct pc_frame *frame = pc_model_frame(w->m, frames[i]);

		filed &= frame->file != 0;
		lined &= frame->line != 0;
		if (!frame->function)
			named = false;
		else
			function_for_frame(w, frames[i]);
	}
	if (physical->module)
		note_mapping_use(w, physical, pprof_location_address(w, physical), n, named,
				 filed && named, lined && named);
	return (uint32_t)w->nlocations;
}

/* The location of frames[0..n) (inlined frames first, physical last). */
static uint32_t location_for(struct pprof_writer *w, const uint32_t *frames, size_t n)
{
	uint32_t chain;

	if (n == 1) {
		if (!w->frame_location[frames[0]])
			w->frame_location[frames[0]] = add_location(w, frames[0], frames, 1);
		return w->frame_location[frames[0]];
	}
	chain = pc_seqs_find(&w->chains, frames, n);
	if (chain)
		return w->chain_location[chain];
	chain = pc_seqs_add(&w->chains, frames, n);
	pc_grow(&w->chain_location, &w->chain_location_cap, (size_t)chain + 1,
		sizeof(*w->chain_location));
	w->chain_location[chain] = add_location(w, CHAIN | chain, frames, n);
	return w->chain_location[chain];
}

/*
 * The location ids of a model stack, leaf first, into w->stack (returns
 * how many): a run of inlined frames goes into the location of the
 * physical frame that follows it. New locations are numbered on the way.
 */
size_t pprof_stack_locations(struct pprof_writer *w, uint32_t model_stack)
{
	size_t n, count = 0;
	const uint32_t *frames = pc_model_stack(w->m, model_stack, &n);

	pc_grow(&w->stack, &w->stack_cap, n + 1, sizeof(*w->stack));
	for (size_t i = 0; i < n;) {
		size_t end = i;

		while (end + 1 < n &&
		       (pc_model_frame(w->m, frames[end])->flags & PC_FRAME_INLINE))
			end++;
		w->stack[count++] = location_for(w, frames + i, end - i + 1);
		i = end + 1;
	}
	return count;
}

/* ---- labels and samples ---- */

/* Converts the labels of a model label set (once) to output string indices. */
static void convert_labelset(struct pprof_writer *w, uint32_t model_set)
{
	const uint32_t *ids;
	size_t n;

	if (!model_set || w->labelset_first[model_set])
		return;
	ids = pc_model_labelset(w->m, model_set, &n);
	pc_grow(&w->labels, &w->labels_cap, w->nlabels + n, sizeof(*w->labels));
	w->labelset_first[model_set] = w->nlabels + 1;
	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(w->m, ids[i]);

		w->labels[w->nlabels++] = (struct out_label){
			.key = model_string(w, label->key),
			.str = label->str ? model_string(w, label->str) : 0,
			.num = label->str ? 0 : label->num,
			.unit = label->str ? 0 : model_string(w, label->unit),
		};
	}
}

static int add_value(struct pprof_writer *w, int64_t *sum, size_t column, uint64_t value)
{
	if (value > (uint64_t)INT64_MAX || (int64_t)value > INT64_MAX - *sum)
		return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
			       "a merged sample's '%s' value passes 2^63-1, the most pprof can hold",
			       w->strings.texts[w->types[column]]);
	*sum += (int64_t)value;
	return 0;
}

/* Appends output sample `ref` (a model sample index, or OWN | own index). */
static size_t add_out(struct pprof_writer *w, uint32_t ref)
{
	if (w->nout >= UINT32_MAX)
		pc_die_oom(w->nout);
	pc_grow(&w->out, &w->out_cap, w->nout + 1, sizeof(*w->out));
	w->out[w->nout] = ref;
	return w->nout++;
}

/* A new own sample of zero counts; returns its index. */
static uint32_t add_own(struct pprof_writer *w, const struct own_sample *sample)
{
	if (w->nown >= OWN - 1)
		pc_die_oom(w->nown);
	pc_grow(&w->own, &w->own_cap, w->nown + 1, sizeof(*w->own));
	pc_grow(&w->own_values, &w->own_values_cap, (w->nown + 1) * w->ncolumns,
		sizeof(*w->own_values));
	w->own[w->nown] = *sample;
	memset(w->own_values + w->nown * w->ncolumns, 0, w->ncolumns * sizeof(*w->own_values));
	return (uint32_t)w->nown++;
}

/*
 * The counts of output sample `at`, to add to: a model sample's become an
 * own sample's first (with its counts), as it now merges others.
 */
static int64_t *own_values_of(struct pprof_writer *w, size_t at)
{
	uint32_t own;

	if (!(w->out[at] & OWN)) {
		size_t index = w->out[at];
		const uint64_t *row = pc_model_values(w->m, index);

		own = add_own(w, &(struct own_sample){
			.labels = pc_model_sample(w->m, index)->labels,
			.stack = pc_model_sample(w->m, index)->stack,
		});
		/* model counts are at most PC_COUNT_MAX = INT64_MAX */
		for (size_t c = 0; c < pc_model_ncolumns(w->m); c++)
			w->own_values[(size_t)own * w->ncolumns + c] = (int64_t)row[c];
		w->out[at] = OWN | own;
	}
	own = w->out[at] & ~OWN;
	return w->own_values + (size_t)own * w->ncolumns;
}

/* Adds a row of model counts to output sample at. */
static int add_row(struct pprof_writer *w, size_t at, const uint64_t *row)
{
	int64_t *sums = own_values_of(w, at);

	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++)
		if (add_value(w, &sums[c], c, row[c]))
			return -1;
	return 0;
}

/*
 * The output sample of two locations and labels: found, or made by
 * make() (a model sample as it is, or a new own sample). *made tells which.
 */
static size_t pair_sample(struct pprof_writer *w, uint32_t labels, const uint32_t *loc,
			  uint32_t model_sample, bool *made)
{
	uint32_t key[3] = { labels, loc[0], loc[1] };
	size_t known = w->pairs.count;
	uint32_t id = pc_seqs_add(&w->pairs, key, 3);

	*made = w->pairs.count != known;
	if (*made) {
		pc_grow(&w->pair_out, &w->pair_out_cap, (size_t)id + 1, sizeof(*w->pair_out));
		w->pair_out[id] = (uint32_t)add_out(w, model_sample != UINT32_MAX ? model_sample :
			OWN | add_own(w, &(struct own_sample){
				.labels = labels, .loc = { loc[0], loc[1] } }));
	}
	return w->pair_out[id];
}

/* Adds a row of model counts to the sample of two locations, made if new. */
static int add_pair_sample(struct pprof_writer *w, uint32_t labels, const uint32_t *loc,
			   const uint64_t *row)
{
	bool made;
	size_t at = pair_sample(w, labels, loc, UINT32_MAX, &made);

	convert_labelset(w, labels);
	return add_row(w, at, row);
}

/* One [to, from] sample per branch, each with the sample's values. */
static int add_branch_samples(struct pprof_writer *w, uint32_t labels, uint32_t branches,
			      const uint64_t *row)
{
	size_t n;
	const uint32_t *pairs = pc_model_branch_stack(w->m, branches, &n);

	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++)
		w->branch_columns[c] |= row[c] != 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t edge[2] = {
			location_for(w, &pairs[2 * i + 1], 1),
			location_for(w, &pairs[2 * i], 1),
		};

		if (add_pair_sample(w, labels, edge, row))
			return -1;
	}
	return 0;
}

/*
 * A model sample with its stack: as it is, unless it merges with another
 * output sample of the same locations and labels. A model stack has
 * locations of its own (no other stack gives the same), so that sample
 * is the model sample before this one with the same stack and labels (the
 * model's order keeps them together; their branch stacks differ), or,
 * for two locations, also a branch edge or call arc sample.
 */
static int add_stack_sample(struct pprof_writer *w, size_t index)
{
	const struct pc_sample *sample = pc_model_sample(w->m, index);
	size_t nlocations = pprof_stack_locations(w, sample->stack), at;
	bool made = true;

	if (nlocations == 2)
		at = pair_sample(w, sample->labels, w->stack, (uint32_t)index, &made);
	else if (w->last_out != SIZE_MAX && sample->stack == w->last_stack &&
		 sample->labels == w->last_labels)
		at = w->last_out, made = false;
	else
		at = add_out(w, (uint32_t)index);
	w->last_stack = sample->stack;
	w->last_labels = sample->labels;
	w->last_out = at;
	convert_labelset(w, sample->labels);
	return made ? 0 : add_row(w, at, pc_model_values(w->m, index));
}

static int add_model_sample(struct pprof_writer *w, size_t index)
{
	const struct pc_sample *sample = pc_model_sample(w->m, index);
	const uint64_t *row = pc_model_values(w->m, index);

	if (!sample->stack && sample->branches)
		return add_branch_samples(w, sample->labels, sample->branches, row);
	if (sample->branches)
		pc_notice(w->ctx, PPROF, "pprof keeps no branch stacks of samples that have call "
			  "stacks");
	return add_stack_sample(w, index);
}

/*
 * The label set of each frame's one-frame samples (caller/callee data:
 * the function's process), UINT32_MAX when it has several.
 */
static uint32_t *function_labels(const struct pc_model *m)
{
	uint32_t *labels = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*labels));
	bool *seen = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*seen));

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

		if (n != 1)
			continue;
		if (seen[frames[0]] && labels[frames[0]] != pc_model_sample(m, i)->labels)
			labels[frames[0]] = UINT32_MAX;
		else
			labels[frames[0]] = pc_model_sample(m, i)->labels;
		seen[frames[0]] = true;
	}
	free(seen);
	return labels;
}

/*
 * One sample [callee, caller] per call arc, valued with the arc's count in
 * the edge column and 0 elsewhere; its labels are the callee's, or the
 * caller's when the callee has several (the unknown frame of several
 * processes).
 */
static int add_edge_samples(struct pprof_writer *w)
{
	const struct pc_model *m = w->m;
	uint32_t *labels = function_labels(m);
	int ret = 0;

	for (size_t i = 0; i < pc_model_narcs(m) && !ret; i++) {
		const struct pc_arc *arc = pc_model_arc(m, i);
		uint32_t edge[2], set;
		size_t at;
		bool made;

		if (arc->kind != PC_ARC_CALL)
			continue;
		edge[0] = location_for(w, &arc->to, 1);
		edge[1] = location_for(w, &arc->from, 1);
		set = labels[arc->to] != UINT32_MAX ? labels[arc->to] : labels[arc->from];
		if (set == UINT32_MAX)
			set = 0;
		at = pair_sample(w, set, edge, UINT32_MAX, &made);
		convert_labelset(w, set);
		ret = add_value(w, &own_values_of(w, at)[w->ncolumns - 1], w->ncolumns - 1,
				arc->count);
		w->nedges++;
	}
	free(labels);
	return ret;
}

static int add_samples(struct pprof_writer *w)
{
	for (size_t i = 0; i < pc_model_nsamples(w->m); i++)
		if (add_model_sample(w, i))
			return -1;
	return w->edges ? add_edge_samples(w) : 0;
}

/* ---- mappings, comments, metadata ---- */

/* "C:" at the start of a PE image's path. */
static bool has_drive_letter(const char *path, size_t len)
{
	return len >= 2 && path[1] == ':' &&
	       ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z'));
}

/*
 * A PE image's path as pprof can use it: '\\' as '/', as pprof looks a
 * file up by its base name, and "C:/x" as "/C:/x", as pprof takes "C:/x"
 * for a URL and blanks it after symbolizing (internal/driver/fetch.go,
 * unsourceMappings) when the file was not found.
 */
static int64_t pe_filename(struct pprof_writer *w, pc_str_id name)
{
	const char *text = pc_str(w->m, name);
	size_t len = pc_str_len(w->m, name);
	size_t drive = has_drive_letter(text, len);
	char *path;
	int64_t id;

	if (!len || (!drive && !memchr(text, '\\', len)))
		return model_string(w, name);
	path = pc_xmalloc(len + drive);
	path[0] = '/';
	memcpy(path + drive, text, len);
	for (size_t i = 0; i < len + drive; i++)
		if (path[i] == '\\')
			path[i] = '/';
	id = own_text(w, path, len + drive);
	free(path);
	return id;
}

static int add_mapping_strings(struct pprof_writer *w)
{
	for (size_t i = 0; i < pc_model_nmodules(w->m); i++) {
		const struct pc_module *module = pc_model_module(w->m, (uint32_t)i + 1);

		if (module->has_range && module->start > module->limit)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT,
				       "module '%s' ends (0x%llx) before it starts (0x%llx)",
				       pc_str(w->m, module->name),
				       (unsigned long long)module->limit,
				       (unsigned long long)module->start);
		w->mappings[i].filename = module->has_pdb ? pe_filename(w, module->name) :
					  model_string(w, module->name);
		if (!module->has_pdb || w->pe_build_ids)
			w->mappings[i].build_id = model_string(w, module->build_id);
	}
	return 0;
}

static void add_comment(struct pprof_writer *w, int64_t text)
{
	pc_grow(&w->comments, &w->comments_cap, w->ncomments + 1, sizeof(*w->comments));
	w->comments[w->ncomments++] = text;
}

/* Appends text to a growing NUL-terminated buffer. */
static void append_text(char **buf, size_t *len, size_t *cap, const char *text,
			size_t text_len)
{
	pc_grow(buf, cap, *len + text_len + 1, 1);
	memcpy(*buf + *len, text, text_len);
	*len += text_len;
	(*buf)[*len] = '\0';
}

/*
 * "mapping 1 demo.exe: PDB {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 0x1a",
 * one comment per PE image: its symbol-server key, kept out of build_id
 * (where pprof would refuse every file, as it reads no build id from a PE).
 */
static void add_pdb_comments(struct pprof_writer *w)
{
	for (uint32_t id = 1; id <= pc_model_nmodules(w->m); id++) {
		const struct pc_module *module = pc_model_module(w->m, w->module_at[id]);
		const struct pc_pdb_id *pdb = &module->pdb;
		int64_t filename = w->mappings[w->module_at[id] - 1].filename;
		char head[32], key[80], *text = NULL;
		size_t len = 0, cap = 0;

		if (!module->has_pdb)
			continue;
		snprintf(head, sizeof(head), "mapping %u ", id);
		snprintf(key, sizeof(key),
			 ": PDB {%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X} age 0x%x",
			 (unsigned)pdb->data1, pdb->data2, pdb->data3, pdb->data4[0],
			 pdb->data4[1], pdb->data4[2], pdb->data4[3], pdb->data4[4],
			 pdb->data4[5], pdb->data4[6], pdb->data4[7], (unsigned)pdb->age);
		append_text(&text, &len, &cap, head, strlen(head));
		append_text(&text, &len, &cap, w->strings.texts[filename],
			    w->strings.lens[filename]);
		append_text(&text, &len, &cap, key, strlen(key));
		add_comment(w, own_text(w, text, len));
		free(text);
	}
}

static bool source_seen_before(const struct pc_model *m, size_t index)
{
	for (size_t i = 0; i < index; i++)
		if (pc_model_source(m, i) == pc_model_source(m, index))
			return true;
	return false;
}

/* "converted by profconv VERSION from spt, perf-script" */
static void add_converted_comment(struct pprof_writer *w)
{
	static const char prefix[] = "converted by profconv " PC_VERSION " from ";
	char *text = NULL;
	size_t len = 0, cap = 0;
	bool any = false;

	append_text(&text, &len, &cap, prefix, strlen(prefix));
	for (size_t i = 0; i < pc_model_nsources(w->m); i++) {
		pc_str_id source = pc_model_source(w->m, i);

		if (!source || source_seen_before(w->m, i))
			continue;
		if (any)
			append_text(&text, &len, &cap, ", ", 2);
		append_text(&text, &len, &cap, pc_str(w->m, source), pc_str_len(w->m, source));
		any = true;
	}
	if (!any)
		append_text(&text, &len, &cap, "an unnamed format", 17);
	add_comment(w, own_text(w, text, len));
	free(text);
}

/* Names the columns that hold branch edges, e.g. "lbr_branch samples are ...". */
static void add_branch_comment(struct pprof_writer *w)
{
	static const char rest[] = " samples are branch edges: each stack is [to, from] "
				   "(target as leaf), not a call stack";
	char *text = NULL;
	size_t len = 0, cap = 0;

	for (size_t c = 0; c < pc_model_ncolumns(w->m); c++) {
		const char *type = w->strings.texts[w->types[c]];

		if (!w->branch_columns[c])
			continue;
		if (len)
			append_text(&text, &len, &cap, "/", 1);
		append_text(&text, &len, &cap, type, strlen(type));
	}
	if (!len)
		return;
	append_text(&text, &len, &cap, rest, strlen(rest));
	add_comment(w, own_text(w, text, len));
	free(text);
}

/* The period's type: the pprof name of the column of that type, if one has it. */
static void add_period_type(struct pprof_writer *w)
{
	const struct pc_value_type *period = pc_model_period_type(w->m);

	w->period_type = 0;
	for (size_t c = 0; c < pc_model_ncolumns(w->m) && period->type; c++)
		if (pc_model_column(w->m, c)->type == period->type)
			w->period_type = w->types[c];
	if (!w->period_type)
		w->period_type = model_string(w, period->type);
	w->period_unit = model_string(w, period->unit);
}

/* The index of a pprof input's string field, kept as fact key; 0 = none. */
static int64_t fact_string(struct pprof_writer *w, const char *key)
{
	size_t len;
	const char *text = pprof_fact(w->m, key, &len);

	return text ? own_text(w, text, len) : 0;
}

static void add_metadata(struct pprof_writer *w)
{
	/* a pprof read from a pprof keeps the input's comments, "" too, and adds none */
	if (!w->from_pprof)
		add_converted_comment(w);
	for (size_t i = 0; i < pc_model_ncomments(w->m); i++)
		if (pc_model_comment(w->m, i) || w->from_pprof)
			add_comment(w, model_string(w, pc_model_comment(w->m, i)));
	add_pdb_comments(w);
	add_branch_comment(w);
	if (w->edges)
		add_comment(w, own_string(w, EDGE_COLUMN " samples are call arcs: each stack "
					  "is [callee, caller], valued with the callee's "
					  "inclusive count through that caller; not a call "
					  "stack"));
	add_period_type(w);
	w->drop_frames = fact_string(w, "pprof.drop_frames");
	w->keep_frames = fact_string(w, "pprof.keep_frames");
	w->doc_url = fact_string(w, "pprof.doc_url");
}

/*
 * One line per part of the model that the output lacks: a notice for what
 * pprof holds not (arcs), a warning (an error with --strict) for a loss.
 */
static int warn_losses(struct pprof_writer *w)
{
	if (pc_model_narcs(w->m) > w->nedges)
		pc_notice(w->ctx, PPROF, "pprof keeps no arcs: %zu arcs dropped",
			  pc_model_narcs(w->m) - w->nedges);
	if (w->outside_range &&
	    pc_warn(w->ctx, PPROF, "%zu locations lie outside their mapping's address range",
		    w->outside_range))
		return -1;
	if (w->in_pe_headers &&
	    pc_warn(w->ctx, PPROF, "%zu locations lie below RVA 0x%x, in a PE image's headers: "
		    "kept without a mapping, as pprof would misplace names there",
		    w->in_pe_headers, PE_FIRST_SECTION))
		return -1;
	if (w->strings.repaired &&
	    pc_warn(w->ctx, PPROF, "replaced invalid UTF-8 in %zu strings by U+FFFD",
		    w->strings.repaired))
		return -1;
	return 0;
}

/* ---- the profiled program: mapping 1 ---- */

/*
 * Mapping ids: the profiled program is mapping 1, the other modules follow
 * in model order (a permutation of module ids; none moves when the
 * program is module 1 or unknown).
 */
static void order_mappings(struct pprof_writer *w)
{
	size_t n = pc_model_nmodules(w->m);
	uint32_t program = pprof_program_module(w->m), next = 1;

	w->mapping_of = pc_xcalloc(n + 1, sizeof(*w->mapping_of));
	w->module_at = pc_xcalloc(n + 1, sizeof(*w->module_at));
	if (program)
		w->mapping_of[program] = next++;
	for (uint32_t id = 1; id <= n; id++)
		if (id != program)
			w->mapping_of[id] = next++;
	for (uint32_t id = 1; id <= n; id++)
		w->module_at[w->mapping_of[id]] = id;
}

/* ---- the writer ---- */

static void writer_init(struct pprof_writer *w, struct pc_ctx *ctx, const struct pc_model *m)
{
	*w = (struct pprof_writer){ .ctx = ctx, .m = m, .last_out = SIZE_MAX };
	string_table_init(&w->strings, pc_model_nstrings(m));
	pc_seqs_init(&w->chains);
	pc_seqs_init(&w->functions);
	pc_seqs_init(&w->pairs);
	w->frame_location = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*w->frame_location));
	w->frame_function = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*w->frame_function));
	w->function_by_name = pc_xcalloc(pc_model_nstrings(m) + 1, sizeof(*w->function_by_name));
	/* room for the usual case at once (grown by doubling, they take twice that) */
	pc_grow(&w->location_ref, &w->location_ref_cap, pc_model_nframes(m), sizeof(*w->location_ref));
	pc_grow(&w->out, &w->out_cap, pc_model_nsamples(m), sizeof(*w->out));
	w->labelset_first = pc_xcalloc((pc_model_nlabelsets(m) + 1), sizeof(*w->labelset_first));
	w->mappings = pc_xcalloc(pc_model_nmodules(m) ? pc_model_nmodules(m) : 1, sizeof(*w->mappings));
	w->pe_build_ids = pc_option_flag(ctx, "pe-build-ids");
	w->from_pprof = pprof_model_from_pprof(m);
	order_mappings(w);
	for (size_t i = 0; i < pc_model_nmodules(m); i++) {
		const struct pc_module *module = pc_model_module(m, (uint32_t)i + 1);
		uint32_t mapping = w->mapping_of[i + 1];

		w->mappings[i] = (struct mapping_state){
			.all_functions = true,
			.all_filenames = true,
			.all_lines = true,
		};
		if (module->has_pdb && !module->has_range && mapping <= PE_MAX_MAPPING)
			w->mappings[i].pe_base = (uint64_t)mapping << PE_BASE_SHIFT;
	}
}

static void writer_release(struct pprof_writer *w)
{
	string_table_release(&w->strings);
	pc_seqs_release(&w->chains);
	pc_seqs_release(&w->functions);
	pc_seqs_release(&w->pairs);
	free(w->frame_location);
	free(w->frame_function);
	free(w->function_by_name);
	free(w->chain_location);
	free(w->location_ref);
	free(w->labelset_first);
	free(w->labels);
	free(w->stack);
	free(w->mappings);
	free(w->mapping_of);
	free(w->module_at);
	free(w->out);
	free(w->own);
	free(w->own_values);
	free(w->pair_out);
	free(w->comments);
}

static int pprof_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct pprof_writer w;
	int ret = -1;

	if (!pc_model_is_finalized(m))
		return pc_fail(&ctx->err, PC_STATUS_INPUT,
			       "pprof writer called on a model that is not finalized");
	if (pc_output_is_terminal(out)) /* as gzip refuses */
		return pc_fail(&ctx->err, PC_STATUS_USAGE,
			       "pprof: compressed data not written to a terminal (name a file "
			       "with -o, or redirect standard output)");
	writer_init(&w, ctx, m);
	if (add_sample_types(&w) || add_edge_type(&w) || add_samples(&w) ||
	    add_mapping_strings(&w))
		goto cleanup;
	add_metadata(&w);
	if (warn_losses(&w))
		goto cleanup;
	ret = pprof_write_gzip(ctx, &w, out);
cleanup:
	writer_release(&w);
	return ret;
}

static const char *const pprof_extensions[] = { ".pb.gz", ".pprof", NULL };

static const struct pc_option_spec pprof_options[] = {
	{ "pe-build-ids", PC_OPTION_FLAG, NULL,
	  "a PE image's PDB GUID+age as its mapping's build_id (for symbol servers; pprof then finds no local file)", 0 },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_writer pc_pprof_writer = {
	.name = "pprof",
	.extensions = pprof_extensions,
	.summary = "gzipped pprof profile.proto (pprof, speedscope, Go tools)",
	.needs = 0,
	/* arcs: those of caller/callee data, as edge samples */
	.keeps = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS | PC_PART_BRANCHES |
		 PC_PART_ARCS,
	.write = pprof_write,
	.options = pprof_options,
};
