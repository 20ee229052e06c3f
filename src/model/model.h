/*
 * model.h - the common profile model that every reader fills and every
 * writer renders (DESIGN.md section 2).
 *
 * Everything is interned and owned by the model: strings (id 0 is ""),
 * modules, frames, stacks (leaf first), label sets, branch stacks, value
 * columns, samples and arcs. Ids are 1-based and 0 means "none" or
 * "empty" everywhere, as in pprof. Samples with the same (stack, labels,
 * branches) are merged as they are added, so memory grows with distinct
 * samples, not with input size. Counts are 64-bit and never wrap: a sum
 * past INT64_MAX is refused (every writer can then store it signed).
 *
 * Readers use the pc_model_add_* builder calls; writers take a finalized
 * `const struct pc_model *` and read the arrays below directly.
 */
#ifndef PC_MODEL_H
#define PC_MODEL_H

#include "base/arena.h"
#include "base/index.h"

typedef uint32_t pc_str_id;

#define PC_MAX_COLUMNS 64
#define PC_COUNT_MAX ((uint64_t)INT64_MAX)

struct pc_string {
	const char *text; /* NUL-terminated; may contain NUL bytes within len */
	uint32_t len;
};

/* A PDB (CodeView RSDS) identity of a Windows binary: GUID and age. */
struct pc_pdb_id {
	uint32_t data1;
	uint16_t data2, data3;
	uint8_t data4[8];
	uint32_t age;
};

struct pc_module {
	pc_str_id name;      /* path or file name of the binary */
	pc_str_id build_id;  /* as the source gives it (SPT: GUID + age hex) */
	/*
	 * The address space the module is loaded in, e.g. pid + 1 for perf
	 * script, where the same binary sits at other addresses in other
	 * processes; 0 = one shared space (the input has no processes).
	 */
	uint32_t space;
	uint64_t start, limit, file_offset; /* load range, when has_range */
	bool has_range;
	bool has_pdb;
	struct pc_pdb_id pdb; /* when has_pdb (SPT program ids) */
};

enum pc_frame_flag {
	PC_FRAME_HAS_ADDRESS = 1u << 0, /* address is meaningful */
	/*
	 * A runtime address; else module-relative: an offset in the binary as
	 * perf prints DSO addresses (runtime - start + file_offset of the
	 * module's load range), or an RVA when the range is unknown (SPT).
	 */
	PC_FRAME_ABSOLUTE = 1u << 1,
	PC_FRAME_INLINE = 1u << 2,      /* inlined into the next frame rootward */
};

struct pc_frame {
	uint32_t module;    /* module id, 0 = unknown */
	uint32_t flags;     /* enum pc_frame_flag */
	uint64_t address;
	pc_str_id function; /* 0 = not symbolized */
	pc_str_id file;     /* source file, 0 = unknown */
	uint32_t line;      /* source line, 0 = unknown */
};

/* A label is a string label when str != 0, else numeric (num, unit). */
struct pc_label {
	pc_str_id key;
	pc_str_id str;
	int64_t num;
	pc_str_id unit;
};

/* One taken branch of a branch stack; from and to are frame ids. */
struct pc_branch {
	uint32_t from, to;
};

struct pc_value_type {
	pc_str_id type, unit;
};

/*
 * What a value column measures. Writers choose columns by role and event
 * (pc_model_pick_column), never by parsing column names.
 */
enum pc_column_role {
	PC_ROLE_VALUE,     /* a value with no more specific meaning */
	PC_ROLE_SAMPLES,   /* samples taken of an event */
	PC_ROLE_WEIGHT,    /* an event's weight: the periods of its samples summed */
	PC_ROLE_BRANCHES,  /* taken-branch records (LBR) */
	PC_ROLE_STACKS,    /* call-stack records */
	PC_ROLE_EXCLUSIVE, /* per function, without its callees (Visual Studio) */
	PC_ROLE_INCLUSIVE, /* per function, with its callees */
	PC_ROLE_CALLS,     /* calls made (instrumentation) */
};

/* A value column: its name (pprof's sample type), unit, event and role. */
struct pc_column {
	pc_str_id type, unit;
	pc_str_id event; /* the event it counts: "cycles" for "cycles_sample" */
	enum pc_column_role role;
};

/* What identifies a sample; the ids are 0 when empty. */
struct pc_sample {
	uint32_t stack;    /* frame ids, leaf first */
	uint32_t labels;   /* label ids, sorted by key */
	uint32_t branches; /* struct pc_branch entries, newest first */
};

enum pc_arc_kind {
	PC_ARC_BRANCH,
	PC_ARC_CALL,
};

struct pc_arc {
	uint32_t from, to; /* frame ids */
	enum pc_arc_kind kind;
	uint64_t count;
};

struct pc_fact {
	pc_str_id key, value;
};

/*
 * Interned sequences of 32-bit ids; sequence id 0 is the empty one.
 * Sequence id i holds items[starts[i] .. starts[i + 1]). The index covers
 * the first `indexed` sequences: pc_seqs_append adds without it, and the
 * next lookup indexes the rest first.
 */
struct pc_seqs {
	uint32_t *items;
	size_t nitems, items_cap;
	size_t *starts;          /* count + 1 entries */
	size_t count, starts_cap; /* count includes the empty sequence 0 */
	struct pc_index index;
	size_t indexed;
};

struct pc_model {
	struct pc_arena arena;

	struct pc_string *strings; /* [0] is "" */
	size_t nstrings, strings_cap;
	struct pc_index string_index;

	struct pc_module *modules; /* module id i is modules[i - 1] */
	size_t nmodules, modules_cap;
	struct pc_index module_index;

	struct pc_frame *frames; /* frame id i is frames[i - 1] */
	size_t nframes, frames_cap;
	struct pc_index frame_index; /* of the first frames_indexed frames */
	size_t frames_indexed;

	struct pc_label *labels; /* label id i is labels[i - 1] */
	size_t nlabels, labels_cap;
	struct pc_index label_index;

	struct pc_seqs stacks;    /* of frame ids */
	struct pc_seqs labelsets; /* of label ids */
	struct pc_seqs branches;  /* of (from, to) frame id pairs */

	struct pc_column columns[PC_MAX_COLUMNS];
	size_t ncolumns;
	int default_column; /* -1 until set; finalize picks 0 */

	/*
	 * Sample i's counts are the row sample_rows[i] of values (read them
	 * with pc_model_values). A row belongs to one sample, or, marked
	 * PC_ROW_SHARED in sample_rows, is shared by samples of equal counts
	 * (pc_model_append_sample): millions of samples then cost a few rows.
	 */
	struct pc_sample *samples;
	uint32_t *sample_rows;
	size_t nsamples, samples_cap;
	struct pc_index sample_index; /* of the first samples_indexed samples */
	size_t samples_indexed;
	uint64_t *values; /* nrows rows of value_stride counts */
	size_t nrows, rows_cap, value_stride;
	struct pc_index row_index; /* the shared rows */

	struct pc_arc *arcs;
	size_t narcs, arcs_cap;
	struct pc_index arc_index;
	/*
	 * Flat per-function data with call arcs (Visual Studio CallerCallee
	 * and Function summaries): each function is a one-frame sample whose
	 * value in arc_self_column is its exclusive count and in
	 * arc_total_column its inclusive count, and a call arc's count is the
	 * callee's inclusive count through that caller, in the unit of
	 * arc_total_column. Both -1 when the model has no such data.
	 * pc_model_reconstruct_stacks (reconstruct.h) turns it into stacks.
	 */
	int arc_self_column, arc_total_column;

	/* metadata */
	pc_str_id *sources; /* formats read, in order (e.g. "spt") */
	size_t nsources, sources_cap;
	pc_str_id *comments;
	size_t ncomments, comments_cap;
	struct pc_fact *facts; /* per-format header facts, in order */
	size_t nfacts, facts_cap;
	int64_t time_nanos, duration_nanos; /* 0 = unknown */
	struct pc_value_type period_type;
	int64_t period;

	bool finalized;
};

/* Interned id sequences, also for writers that aggregate their own records. */
void pc_seqs_init(struct pc_seqs *seqs);
void pc_seqs_release(struct pc_seqs *seqs);
/* Returns the id (>= 1) of the sequence, adding it if new; 0 for len 0. */
uint32_t pc_seqs_add(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* The id of the sequence, 0 if it is not there (or len is 0). */
uint32_t pc_seqs_find(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* Adds a sequence the caller knows is not there yet (len >= 1); returns its id. */
uint32_t pc_seqs_append(struct pc_seqs *seqs, const uint32_t *items, size_t len);
/* Frees the index (the next lookup rebuilds it). */
void pc_seqs_drop_index(struct pc_seqs *seqs);

/* Totals per interned id sequence, for writers that aggregate records of their own. */
struct pc_tally {
	struct pc_seqs keys;
	uint64_t *counts; /* by key id */
	size_t counts_cap;
};

void pc_tally_init(struct pc_tally *tally);
void pc_tally_release(struct pc_tally *tally);
/* Adds count to the sequence's total; -1 when it would pass PC_COUNT_MAX. */
int pc_tally_add(struct pc_tally *tally, const uint32_t *items, size_t len, uint64_t count);

void pc_model_init(struct pc_model *m);
void pc_model_release(struct pc_model *m);
/* A new empty model (it never returns NULL: out of memory ends the run). */
struct pc_model *pc_model_new(void);
void pc_model_free(struct pc_model *m);

/* --- builder, for readers --- */
pc_str_id pc_model_intern(struct pc_model *m, const void *text, size_t len);
pc_str_id pc_model_intern_cstr(struct pc_model *m, const char *text);
/* Interned by (name, build_id, space); a known range widens the module's range. */
uint32_t pc_model_add_module(struct pc_model *m, const struct pc_module *module);
uint32_t pc_model_add_frame(struct pc_model *m, const struct pc_frame *frame);
uint32_t pc_model_add_stack(struct pc_model *m, const uint32_t *frames, size_t n);
/* Sorts (a copy of) the labels by key, then interns the set. */
uint32_t pc_model_add_labels(struct pc_model *m, const struct pc_label *labels,
			     size_t n);
uint32_t pc_model_add_branches(struct pc_model *m, const struct pc_branch *branches,
			       size_t n);
/*
 * Returns the column's index (existing with that type, or new), or -1 past
 * PC_MAX_COLUMNS. pc_model_add_column adds a PC_ROLE_VALUE column whose
 * event is its type.
 */
int pc_model_add_event_column(struct pc_model *m, const char *type, const char *unit,
			      const char *event, enum pc_column_role role);
int pc_model_add_column(struct pc_model *m, const char *type, const char *unit);
/*
 * The column for --event NAME (event; NULL: the default column): the
 * column of that event in role prefer, else the column named NAME, else
 * the first column of that event; -1 when there is none.
 */
int pc_model_pick_column(const struct pc_model *m, const char *event,
			 enum pc_column_role prefer);
/* The first column in role, of event when it is not 0; -1 when none. */
int pc_model_find_column(const struct pc_model *m, enum pc_column_role role, pc_str_id event);
void pc_model_set_default_column(struct pc_model *m, int column);
/* Adds count to one column of the sample; -1 when the sum would pass PC_COUNT_MAX. */
int pc_model_add_sample(struct pc_model *m, const struct pc_sample *sample,
			size_t column, uint64_t count);
/*
 * Bulk building, for a reader that has merged what it adds (the SPT
 * reader's counted IP hits): pc_model_reserve makes room for that many
 * more frames, stacks (of stack_frames in all) and samples; each append
 * adds what the caller knows is new (no equal frame, stack or sample
 * exists) without a hash lookup, and the index is brought up to date by
 * the next pc_model_add_* that needs it. pc_model_append_sample's row
 * holds a count per column (ncolumns of them, each at most PC_COUNT_MAX)
 * and is shared with samples of equal counts until one of them is added to.
 */
void pc_model_reserve(struct pc_model *m, size_t frames, size_t stacks, size_t stack_frames,
		      size_t samples);
uint32_t pc_model_append_frame(struct pc_model *m, const struct pc_frame *frame);
uint32_t pc_model_append_stack(struct pc_model *m, const uint32_t *frames, size_t n);
void pc_model_append_sample(struct pc_model *m, const struct pc_sample *sample,
			    const uint64_t *row);
int pc_model_add_arc(struct pc_model *m, uint32_t from, uint32_t to,
		     enum pc_arc_kind kind, uint64_t count);
void pc_model_add_source(struct pc_model *m, const char *format);
void pc_model_add_comment(struct pc_model *m, const char *fmt, ...) PC_PRINTF(2, 3);
void pc_model_add_fact(struct pc_model *m, const char *key, const char *value);

/*
 * Sorts samples and arcs by content (not by id), so the same profile gives
 * the same order whatever order it was read in, and picks the default
 * column. It frees the frame, stack and sample indexes, which writers do
 * not need. Adding after finalize is allowed; finalize again before writing.
 */
void pc_model_finalize(struct pc_model *m);

/* --- read access, for writers --- */
static inline const char *pc_str(const struct pc_model *m, pc_str_id id)
{
	return m->strings[id].text;
}

static inline uint32_t pc_str_len(const struct pc_model *m, pc_str_id id)
{
	return m->strings[id].len;
}

static inline const struct pc_module *pc_model_module(const struct pc_model *m,
						      uint32_t id)
{
	return &m->modules[id - 1];
}

static inline const struct pc_frame *pc_model_frame(const struct pc_model *m,
						    uint32_t id)
{
	return &m->frames[id - 1];
}

static inline const struct pc_label *pc_model_label(const struct pc_model *m,
						    uint32_t id)
{
	return &m->labels[id - 1];
}

static inline const uint32_t *pc_seq(const struct pc_seqs *seqs, uint32_t id,
				     size_t *n)
{
	*n = seqs->starts[id + 1] - seqs->starts[id];
	return seqs->items ? seqs->items + seqs->starts[id] : seqs->items;
}

/* Frame ids of a stack, leaf first. */
static inline const uint32_t *pc_model_stack(const struct pc_model *m,
					     uint32_t id, size_t *n)
{
	return pc_seq(&m->stacks, id, n);
}

/* Label ids of a label set, sorted by key. */
static inline const uint32_t *pc_model_labelset(const struct pc_model *m,
						uint32_t id, size_t *n)
{
	return pc_seq(&m->labelsets, id, n);
}

/*
 * Branches of a branch stack, newest first, flattened: branch i is
 * (from = pairs[2 * i], to = pairs[2 * i + 1]); *n is the branch count.
 */
static inline const uint32_t *pc_model_branch_stack(const struct pc_model *m,
						    uint32_t id, size_t *n)
{
	size_t words;
	const uint32_t *pairs = pc_seq(&m->branches, id, &words);

	*n = words / 2;
	return pairs;
}

#define PC_ROW_SHARED (1u << 31)

/* The counts of sample index `sample`, by column. */
static inline const uint64_t *pc_model_values(const struct pc_model *m, size_t sample)
{
	return m->values + (size_t)(m->sample_rows[sample] & ~PC_ROW_SHARED) * m->value_stride;
}


/* --- the view, for writers: counts, samples, columns, arcs, metadata --- */
static inline size_t pc_model_nstrings(const struct pc_model *m) { return m->nstrings; }
static inline size_t pc_model_nmodules(const struct pc_model *m) { return m->nmodules; }
static inline size_t pc_model_nframes(const struct pc_model *m) { return m->nframes; }
static inline size_t pc_model_nlabels(const struct pc_model *m) { return m->nlabels; }
static inline size_t pc_model_nsamples(const struct pc_model *m) { return m->nsamples; }
static inline size_t pc_model_ncolumns(const struct pc_model *m) { return m->ncolumns; }
static inline size_t pc_model_narcs(const struct pc_model *m) { return m->narcs; }
/* Distinct non-empty stacks, label sets and branch stacks: ids 1 to n. */
static inline size_t pc_model_nstacks(const struct pc_model *m) { return m->stacks.count - 1; }
static inline size_t pc_model_nlabelsets(const struct pc_model *m)
{
	return m->labelsets.count - 1;
}
static inline size_t pc_model_nbranch_stacks(const struct pc_model *m)
{
	return m->branches.count - 1;
}
static inline bool pc_model_is_finalized(const struct pc_model *m) { return m->finalized; }

/* Sample `index` (0-based, in finalized order): its stack, labels, branches. */
static inline const struct pc_sample *pc_model_sample(const struct pc_model *m, size_t index)
{
	return &m->samples[index];
}

/* Column c (0-based): its type, unit, event and role. */
static inline const struct pc_column *pc_model_column(const struct pc_model *m, size_t c)
{
	return &m->columns[c];
}

/* The column shown by default, -1 when there is none. */
static inline int pc_model_default_column(const struct pc_model *m)
{
	return m->default_column;
}

/* The per-function columns of caller/callee data (see arc_self_column), or -1. */
static inline int pc_model_arc_self_column(const struct pc_model *m)
{
	return m->arc_self_column;
}

static inline int pc_model_arc_total_column(const struct pc_model *m)
{
	return m->arc_total_column;
}

/* Arc `index` (0-based, in finalized order). */
static inline const struct pc_arc *pc_model_arc(const struct pc_model *m, size_t index)
{
	return &m->arcs[index];
}

/* Metadata: formats read, comments and header facts, in order. */
static inline size_t pc_model_nsources(const struct pc_model *m) { return m->nsources; }
static inline pc_str_id pc_model_source(const struct pc_model *m, size_t i)
{
	return m->sources[i];
}
static inline size_t pc_model_ncomments(const struct pc_model *m) { return m->ncomments; }
static inline pc_str_id pc_model_comment(const struct pc_model *m, size_t i)
{
	return m->comments[i];
}
static inline size_t pc_model_nfacts(const struct pc_model *m) { return m->nfacts; }
static inline const struct pc_fact *pc_model_fact(const struct pc_model *m, size_t i)
{
	return &m->facts[i];
}
/* Start time and duration in nanoseconds, 0 when unknown. */
static inline int64_t pc_model_time_nanos(const struct pc_model *m) { return m->time_nanos; }
static inline int64_t pc_model_duration_nanos(const struct pc_model *m)
{
	return m->duration_nanos;
}
/* The sampling period and its type (pprof's period_type), 0s when unknown. */
static inline const struct pc_value_type *pc_model_period_type(const struct pc_model *m)
{
	return &m->period_type;
}
static inline int64_t pc_model_period(const struct pc_model *m) { return m->period; }

/* --- more of the builder: metadata setters --- */
static inline void pc_model_set_time(struct pc_model *m, int64_t time_nanos,
				     int64_t duration_nanos)
{
	m->time_nanos = time_nanos;
	m->duration_nanos = duration_nanos;
}

static inline void pc_model_set_period(struct pc_model *m, pc_str_id type, pc_str_id unit,
				       int64_t period)
{
	m->period_type.type = type;
	m->period_type.unit = unit;
	m->period = period;
}

/* Marks the columns of per-function exclusive and inclusive counts (arcs). */
static inline void pc_model_set_arc_columns(struct pc_model *m, int self, int total)
{
	m->arc_self_column = self;
	m->arc_total_column = total;
}

#endif
