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
#include "base/seqs.h"

typedef uint32_t pc_str_id;

#define PC_MAX_COLUMNS 64


/* A PDB (CodeView RSDS) identity of a Windows binary: GUID and age. */
struct pc_pdb_id {
	uint32_t data1;
	uint16_t data2, data3;
	uint8_t data4[8];
	uint32_t age;
};

/* The symbol-server key of a PDB: GUID (32 hex digits, as stored) and age in hex. */
void pc_pdb_id_key(const struct pc_pdb_id *id, char *buf, size_t size);

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
	uint8_t stated;       /* enum pc_module_stated; 0 = the input says nothing */
};

/*
 * What the input says the frames of a module have (pprof's mapping flags
 * has_functions, has_filenames, has_line_numbers, has_inline_frames): a
 * pprof written from a pprof keeps them rather than working them out.
 */
enum pc_module_stated {
	PC_MODULE_STATED = 1u << 0, /* the bits below are the input's */
	PC_MODULE_HAS_FUNCTIONS = 1u << 1,
	PC_MODULE_HAS_FILENAMES = 1u << 2,
	PC_MODULE_HAS_LINE_NUMBERS = 1u << 3,
	PC_MODULE_HAS_INLINE_FRAMES = 1u << 4,
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
	/*
	 * Unwound from DWARF by the reader (perf.data --call-graph dwarf):
	 * perf script gives such frames the functions inlined there, named
	 * from the debug information (addr2line -i), and so does the
	 * symbolizer.
	 */
	PC_FRAME_UNWOUND = 1u << 3,
	/*
	 * Several functions share the address, folded into one by the linker
	 * (pprof's Location.is_folded); on the physical frame.
	 */
	PC_FRAME_FOLDED = 1u << 4,
};

struct pc_frame {
	uint32_t module;    /* module id, 0 = unknown */
	uint32_t flags;     /* enum pc_frame_flag */
	uint64_t address;
	pc_str_id function; /* 0 = not symbolized */
	pc_str_id file;     /* source file, 0 = unknown */
	uint32_t line;      /* source line, 0 = unknown */
	uint32_t start_line; /* the function's first line (pprof's start_line), 0 = unknown */
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

/*
 * The length of an event name without perf's modifier suffix: a trailing
 * ':' and one or more of perf's modifier letters (ukhIGHpPSDWebR), as in
 * "cpu-clock:ppp" or "cycles:u"; len when it has none ("sched:sched_switch",
 * "cycles", "cpu_core/cycles:Pu/").
 */
size_t pc_event_base_len(const char *event, size_t len);
/* Whether event is one of perf's clocks (cpu-clock, task-clock, with any modifier). */
bool pc_event_is_clock(const char *event, size_t len);

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

/* A sample as it was taken: at time, count added to one column of sample index. */
struct pc_timed_sample {
	int64_t time;    /* nanoseconds, on the input's clock */
	uint32_t sample; /* its index (in finalized order once finalized) */
	uint32_t column;
	uint64_t count;
};

/* The model: opaque; readers fill it with the builder, writers read the view. */
struct pc_model;


void pc_model_init(struct pc_model *m);
void pc_model_release(struct pc_model *m);
/* A new empty model (it never returns NULL: out of memory ends the run). */
struct pc_model *pc_model_new(void);
void pc_model_free(struct pc_model *m);

/* --- builder, for readers --- */
pc_str_id pc_model_intern(struct pc_model *m, const void *text, size_t len);
pc_str_id pc_model_intern_cstr(struct pc_model *m, const char *text);
/* The id of the string equal to text[0, len), or 0 if the model has none. */
pc_str_id pc_model_find_string(const struct pc_model *m, const void *text, size_t len);
/* Interned by (name, build_id, space); a known range widens the module's range. */
uint32_t pc_model_add_module(struct pc_model *m, const struct pc_module *module);
uint32_t pc_model_add_frame(struct pc_model *m, const struct pc_frame *frame);
/*
 * pc_model_add_frame of frames[0..n) into ids[0..n): faster on a big model,
 * where each lookup is a cache miss (they are made to overlap).
 */
void pc_model_add_frames(struct pc_model *m, const struct pc_frame *frames, size_t n,
			 uint32_t *ids);
uint32_t pc_model_add_stack(struct pc_model *m, const uint32_t *frames, size_t n);
/*
 * Model tables, for pc_model_reserve_for (room in their indexes),
 * pc_model_drop_indexes (frames, stacks, samples) and
 * pc_model_free_tables (strings, frames, stacks, the string index).
 */
enum pc_model_table {
	PC_TABLE_STRINGS = 1,
	PC_TABLE_FRAMES = 2, /* with their system names */
	PC_TABLE_STACKS = 4,
	PC_TABLE_SAMPLES = 8,
	PC_TABLE_STRING_INDEX = 16, /* to free only: strings are then read by id only */
	PC_TABLE_INDEXED = PC_TABLE_FRAMES | PC_TABLE_STACKS | PC_TABLE_SAMPLES,
};
/*
 * Makes room in tables for as many more entries as from has, so that
 * adding them (a merge) does not grow m's indexes on the way.
 */
void pc_model_reserve_for(struct pc_model *m, const struct pc_model *from, unsigned tables);
/*
 * Hints before a batch of adds (their cache misses overlap): ask for the
 * index slot where adding that stack, or that sample, looks first.
 */
void pc_model_prefetch_stack(const struct pc_model *m, const uint32_t *frames, size_t n);
void pc_model_prefetch_sample(const struct pc_model *m, const struct pc_sample *sample);
/*
 * Interns from's strings first .. end - 1 in m, in from's order; map[id]
 * is m's id of from's id.
 */
void pc_model_intern_strings_of(struct pc_model *m, const struct pc_model *from, pc_str_id *map,
				size_t first, size_t end);
/*
 * Frees the indexes of tables (frames, stacks, samples); the next add
 * that needs one rebuilds it (a model only read from needs none).
 */
void pc_model_drop_indexes(struct pc_model *m, unsigned tables);
/*
 * Frees tables of a model being copied out (pc_model_append), which is then
 * only to be freed: PC_TABLE_STRINGS, PC_TABLE_FRAMES, PC_TABLE_STACKS or
 * PC_TABLE_STRING_INDEX; the rest is still read as before.
 */
void pc_model_free_tables(struct pc_model *m, unsigned tables);
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
/* Sets the unit of column c, known only once the input is read (perf periods). */
void pc_model_set_column_unit(struct pc_model *m, size_t c, const char *unit);
void pc_model_set_default_column(struct pc_model *m, int column);
/* Adds count to one column of the sample; -1 when the sum would pass PC_COUNT_MAX. */
int pc_model_add_sample(struct pc_model *m, const struct pc_sample *sample,
			size_t column, uint64_t count);
/* pc_model_add_sample that gives the sample's index (valid until finalize) in *index. */
int pc_model_add_sample_index(struct pc_model *m, const struct pc_sample *sample,
			      size_t column, uint64_t count, size_t *index);
/*
 * Each sample's time, for a time filter (--time) and a timeline
 * (.cpuprofile): once pc_model_keep_times is called, the model records
 * every pc_model_add_timed_sample as it comes (24 bytes each, one per
 * column a sample adds to: memory then grows with the samples taken, not
 * with distinct samples); otherwise
 * pc_model_add_timed_sample is pc_model_add_sample. Times are in
 * nanoseconds on the input's clock. pc_model_add_time records the count
 * added to sample index (from pc_model_add_sample_index) at a time.
 */
void pc_model_keep_times(struct pc_model *m);
bool pc_model_keeps_times(const struct pc_model *m);
int pc_model_add_timed_sample(struct pc_model *m, const struct pc_sample *sample,
			      size_t column, uint64_t count, int64_t time_nanos);
void pc_model_add_time(struct pc_model *m, size_t index, size_t column, uint64_t count,
		       int64_t time_nanos);
/* A count for one column of a sample. */
struct pc_column_count {
	size_t column;
	uint64_t count;
};
/*
 * Adds counts to one sample, each to its column (distinct columns: an
 * event's samples and weight), with one lookup of the sample; at
 * *time_nanos, as pc_model_add_timed_sample records it, unless time_nanos
 * is NULL. -1, with nothing added, when a column is out of range or a sum
 * would pass PC_COUNT_MAX.
 */
int pc_model_add_sample_counts(struct pc_model *m, const struct pc_sample *sample,
			       const struct pc_column_count *counts, size_t n,
			       const int64_t *time_nanos);
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
/* A comment of len bytes as they are (any length, any bytes). */
void pc_model_add_comment_text(struct pc_model *m, const void *text, size_t len);
/*
 * The name a frame's function has for the linker (pprof's system_name,
 * e.g. mangled) when it differs from frame->function; set after the frame
 * is added (a frame equal in all else keeps the last one set).
 * pc_model_system_name gives false when the frame has none of its own.
 */
void pc_model_set_system_name(struct pc_model *m, uint32_t frame, pc_str_id name);
bool pc_model_system_name(const struct pc_model *m, uint32_t frame, pc_str_id *name);
void pc_model_add_fact(struct pc_model *m, const char *key, const char *value);

/*
 * Sorts samples and arcs by content (not by id), so the same profile gives
 * the same order whatever order it was read in, and picks the default
 * column. Stacks are numbered again in the order the samples first use
 * them (so that writers read them in memory order) unless they nearly are
 * already: a stack id taken before finalize is not valid after it; frame,
 * label and module ids stay.
 * It frees the frame, stack and sample indexes, which writers do not need.
 * Adding after finalize is allowed; finalize again before writing. Its big
 * sorts run on up to threads threads, which change only how fast.
 */
void pc_model_finalize_on(struct pc_model *m, unsigned threads);
/* pc_model_finalize_on one thread. */
static inline void pc_model_finalize(struct pc_model *m)
{
	pc_model_finalize_on(m, 1);
}

/* --- read access, for writers --- */
const char *pc_str(const struct pc_model *m, pc_str_id id);

uint32_t pc_str_len(const struct pc_model *m, pc_str_id id);

const struct pc_module *pc_model_module(const struct pc_model *m,
						      uint32_t id);

/*
 * Whether module id names a file that a symbolizer could open: not "",
 * not a "[...]" pseudo-file ([kernel.kallsyms], [vdso]), not a JIT map
 * "/tmp/perf-PID.map", "//anon" or "/memfd:..." memory.
 */
bool pc_model_module_is_file(const struct pc_model *m, uint32_t id);

const struct pc_frame *pc_model_frame(const struct pc_model *m,
						    uint32_t id);

const struct pc_label *pc_model_label(const struct pc_model *m,
						    uint32_t id);


/* Frame ids of a stack, leaf first. */
const uint32_t *pc_model_stack(const struct pc_model *m,
					     uint32_t id, size_t *n);

/* Label ids of a label set, sorted by key. */
const uint32_t *pc_model_labelset(const struct pc_model *m,
						uint32_t id, size_t *n);

/*
 * Branches of a branch stack, newest first, flattened: branch i is
 * (from = pairs[2 * i], to = pairs[2 * i + 1]); *n is the branch count.
 */
const uint32_t *pc_model_branch_stack(const struct pc_model *m,
						    uint32_t id, size_t *n);

#define PC_ROW_SHARED (1u << 31)

/* The counts of sample index `sample`, by column. */
const uint64_t *pc_model_values(const struct pc_model *m, size_t sample);


/* --- the view, for writers: counts, samples, columns, arcs, metadata --- */
size_t pc_model_nstrings(const struct pc_model *m);
size_t pc_model_nmodules(const struct pc_model *m);
size_t pc_model_nframes(const struct pc_model *m);
size_t pc_model_nlabels(const struct pc_model *m);
size_t pc_model_nsamples(const struct pc_model *m);
size_t pc_model_ncolumns(const struct pc_model *m);
size_t pc_model_narcs(const struct pc_model *m);
/* Rows of counts stored: samples of equal counts may share one (memory, tests). */
size_t pc_model_nvalue_rows(const struct pc_model *m);
/* Distinct non-empty stacks, label sets and branch stacks: ids 1 to n. */
size_t pc_model_nstacks(const struct pc_model *m);
size_t pc_model_nlabelsets(const struct pc_model *m);
size_t pc_model_nbranch_stacks(const struct pc_model *m);
bool pc_model_is_finalized(const struct pc_model *m);

/* Sample `index` (0-based, in finalized order): its stack, labels, branches. */
const struct pc_sample *pc_model_sample(const struct pc_model *m, size_t index);

/* Column c (0-based): its type, unit, event and role. */
const struct pc_column *pc_model_column(const struct pc_model *m, size_t c);

/* The column shown by default, -1 when there is none. */
int pc_model_default_column(const struct pc_model *m);
/*
 * What an output that lists samples counts by default: the default column,
 * or its event's samples column when the default is a weight (summed
 * periods); 0 when there is no default, whatever the number of columns.
 */
size_t pc_model_default_count_column(const struct pc_model *m);

/* The per-function columns of caller/callee data (see arc_self_column), or -1. */
int pc_model_arc_self_column(const struct pc_model *m);

int pc_model_arc_total_column(const struct pc_model *m);

/*
 * The samples as they were taken, when the model keeps times
 * (pc_model_keep_times): none otherwise; in time order once finalized.
 */
size_t pc_model_ntimed(const struct pc_model *m);
const struct pc_timed_sample *pc_model_timed(const struct pc_model *m, size_t i);

/* Arc `index` (0-based, in finalized order). */
const struct pc_arc *pc_model_arc(const struct pc_model *m, size_t index);

/* Metadata: formats read, comments and header facts, in order. */
size_t pc_model_nsources(const struct pc_model *m);
pc_str_id pc_model_source(const struct pc_model *m, size_t i);
size_t pc_model_ncomments(const struct pc_model *m);
pc_str_id pc_model_comment(const struct pc_model *m, size_t i);
size_t pc_model_nfacts(const struct pc_model *m);
const struct pc_fact *pc_model_fact(const struct pc_model *m, size_t i);
/* Start time and duration in nanoseconds, 0 when unknown. */
int64_t pc_model_time_nanos(const struct pc_model *m);
int64_t pc_model_duration_nanos(const struct pc_model *m);
/* The sampling period and its type (pprof's period_type), 0s when unknown. */
const struct pc_value_type *pc_model_period_type(const struct pc_model *m);
int64_t pc_model_period(const struct pc_model *m);

/* --- more of the builder: metadata setters --- */
/*
 * The input's frames are addresses in binaries that the symbolizer should
 * name by default, from the files at their recorded paths (perf.data, as
 * perf script does), not only when --symbols asks.
 */
void pc_model_want_names(struct pc_model *m);
bool pc_model_wants_names(const struct pc_model *m);
void pc_model_set_time(struct pc_model *m, int64_t time_nanos,
				     int64_t duration_nanos);

void pc_model_set_period(struct pc_model *m, pc_str_id type, pc_str_id unit,
				       int64_t period);

/* Marks the columns of per-function exclusive and inclusive counts (arcs). */
void pc_model_set_arc_columns(struct pc_model *m, int self, int total);

#endif
