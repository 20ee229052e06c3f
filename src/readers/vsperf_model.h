/*
 * vsperf_model.h - turns the rows of Visual Studio profiler reports
 * (vsperfreport and IDE exports: CallerCallee, CallTree and Function
 * summaries) into the model. Shared by the CSV reader (vsperf_reader.c)
 * and the XML reader (vsperf_xml_reader.c), which only tokenize and hand
 * over one decoded row at a time. Sources: research/vsperf.md sections
 * 3-7, research/pprof.md section 7.4, DESIGN.md section 3.3.
 *
 * What maps where (the same for both syntaxes):
 *   function       -> one frame, keyed by (process id, module path,
 *                     function address), falling back to the name:
 *                     module = (Module Path, else Module Name; space =
 *                     pid + 1 when the pid is known), address = Function
 *                     Address (PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE; the
 *                     module's range grows to cover it), function = the
 *                     name, file = Source File (none for "" and
 *                     "<Unknown>"), line = Function Line Number.
 *                     "Unknown Frame(s)" / 0xBAADF00D / module UNKNOWN is
 *                     the unknown frame: no module, no address, that name.
 *   process        -> labels comm = Process Name, pid = Process ID (unit
 *                     "pid"), on every sample, when present.
 *   CallerCallee   -> Root row: a one-frame sample; Caller row: a call arc
 *                     caller -> root with the row's inclusive value;
 *                     Callee rows only cross-check the arcs (a counted
 *                     warning when the two edge sets differ). Columns:
 *                     sampling: samples (exclusive, default),
 *                     inclusive_samples (count); instrumentation:
 *                     elapsed_exclusive (default), elapsed_inclusive,
 *                     application_exclusive, application_inclusive
 *                     (ticks), calls (count). model->arc_self_column /
 *                     arc_total_column = the default column and its
 *                     inclusive partner. Comment: "Visual Studio
 *                     CallerCallee summary: no call stacks; inclusive
 *                     values are per function and do not add up".
 *   Function       -> as Root rows without arcs (arc columns still set,
 *   summary           so stacks can be reconstructed: each function alone).
 *   CallTree       -> pre-order rows with a Level: a row's parent is the
 *                     nearest earlier row of Level - 1; each row is a
 *                     sample whose stack is its path (leaf first) holding
 *                     the row's exclusive values. Columns: samples
 *                     (sampling; default) or elapsed_exclusive,
 *                     application_exclusive (ticks) and calls (count,
 *                     Number of Calls of the node). Level 0 rows (the
 *                     process node of IDE exports) are not frames: their
 *                     name becomes the comm label of the rows below.
 *                     IDE instrumentation exports that give only Number
 *                     of Calls, Avg Elapsed Inclusive/Exclusive Time and
 *                     Elapsed Inclusive/Exclusive Time %: each Level-1
 *                     subtree's total is round(calls x avg inclusive) of
 *                     its Level-1 row, apportioned to the subtree's nodes
 *                     by their exclusive % (largest remainder,
 *                     base/apportion.h), with a comment saying so.
 *                     Inclusive values are checked against the tree (a
 *                     counted warning when a node's exclusive plus its
 *                     children's inclusive passes its inclusive).
 *   percentages    -> never trusted where counts exist (recomputed).
 * Source "vsperf"; facts vsperf.report (CallerCallee, CallTree, Function)
 * and vsperf.flavour (sampling, instrumentation).
 *
 * Also here: the number syntax both readers share (see "numbers as
 * Visual Studio writes them" below); the readers word the errors.
 */
#ifndef PC_VSPERF_MODEL_H
#define PC_VSPERF_MODEL_H

#include "model/format.h"

/* A field's text: UTF-8, not NUL-terminated, quotes already removed. */
struct vsperf_text {
	const char *p;
	size_t len;
};

/*
 * --- numbers as Visual Studio writes them ---
 * One syntax for the CSV and the XML reader (research/vsperf.md 3.6).
 * Blanks (space, tab, CR, LF) around a value are ignored; a value that
 * is only blanks is VSPERF_NUMBER_EMPTY (optional values: "not given").
 *   count   decimal digits, optionally grouped by one kind of separator
 *           among , . ' space U+00A0 U+202F: a first group of 1-3
 *           digits, then groups of 2 or 3, the last of 3 ("8,735",
 *           "2,893,824", "1.444", "1 444", "1,00,000");
 *   decimal a count's syntax for the integer part, then optionally a
 *           decimal point and at least one digit; the point is the last
 *           of '.' and ',' when both occur, else a lone '.' or a lone ','
 *           ("401.92", "100,00", "18,160.51", "1.426,50"; "1,000" is
 *           1.000); two or more of one and none of the other only group;
 *   time    a count, exactly; else a decimal (the decimal syntax) whose
 *           fraction is rounded to the nearest whole tick, half up
 *           ("12.5" = 13, "0.04" = 0, "18,160.51" = 18161), *rounded set
 *           when the fraction was not 0: times are integer ticks in the
 *           model (the instrumentation columns), and a report whose
 *           times are integers stays exact; "1,000" and "1.444" are
 *           counts (1000, 1444), as the count syntax comes first;
 *   level   an optional '-', then a count up to INT32_MAX (the builder
 *           refuses negative levels, naming them);
 *   address hexadecimal digits, "0x" or "0X" optional, at most 64 bits
 *           (leading zeros do not count).
 * VSPERF_NUMBER_TOO_LARGE only for a well-formed value above the maximum;
 * what *out holds after anything but VSPERF_NUMBER_OK is unspecified.
 */
enum vsperf_number {
	VSPERF_NUMBER_OK,
	VSPERF_NUMBER_EMPTY, /* blanks only */
	VSPERF_NUMBER_BAD,
	VSPERF_NUMBER_TOO_LARGE,
};

/* Process IDs (Process ID, PID): counts up to this. */
#define VSPERF_MAX_PID ((uint64_t)INT64_MAX)

enum vsperf_number vsperf_parse_count(const char *p, size_t len, uint64_t max,
				      uint64_t *out);
/* A non-negative decimal; its integer part at most UINT64_MAX. */
enum vsperf_number vsperf_parse_real(const char *p, size_t len, double *out);
/* A time (Elapsed/Application Inclusive/Exclusive Time): a count, or a rounded decimal. */
enum vsperf_number vsperf_parse_time(const char *p, size_t len, uint64_t max, uint64_t *out,
				     bool *rounded);
enum vsperf_number vsperf_parse_level(const char *p, size_t len, int *out);
enum vsperf_number vsperf_parse_address(const char *p, size_t len, uint64_t *out);

enum vsperf_report {
	VSPERF_CALLER_CALLEE,
	VSPERF_CALL_TREE,
	VSPERF_FUNCTIONS, /* FunctionSummary */
};

/* CallerCallee row types: Root|0, Caller|1, Callee|2. */
enum vsperf_row_type {
	VSPERF_ROOT,
	VSPERF_CALLER,
	VSPERF_CALLEE,
};

/* Integer measures of a row (counts; thousands separators already gone). */
enum vsperf_count {
	VSPERF_INCLUSIVE_SAMPLES,
	VSPERF_EXCLUSIVE_SAMPLES,
	VSPERF_ELAPSED_INCLUSIVE,
	VSPERF_ELAPSED_EXCLUSIVE,
	VSPERF_APPLICATION_INCLUSIVE,
	VSPERF_APPLICATION_EXCLUSIVE,
	VSPERF_CALLS,
	VSPERF_NCOUNTS,
};

/* Decimal measures, used only where no counts exist (IDE call trees). */
enum vsperf_real {
	VSPERF_AVG_ELAPSED_INCLUSIVE,
	VSPERF_AVG_ELAPSED_EXCLUSIVE,
	VSPERF_ELAPSED_INCLUSIVE_PCT,
	VSPERF_ELAPSED_EXCLUSIVE_PCT,
	VSPERF_NREALS,
};

/* What a report's header (CSV) or first element (XML) provides. */
struct vsperf_layout {
	enum vsperf_report report;
	unsigned counts; /* bit 1u << enum vsperf_count for each column present */
	unsigned reals;  /* bit 1u << enum vsperf_real */
};

struct vsperf_row {
	int type; /* CallerCallee: enum vsperf_row_type; CallTree: the Level */
	struct vsperf_text name, module_name, module_path, source_file;
	struct vsperf_text process_name, root_name; /* root_name: CallerCallee */
	uint32_t line;                              /* 0 = unknown */
	uint64_t address;
	bool has_address;
	int64_t pid;
	bool has_pid;
	uint64_t counts[VSPERF_NCOUNTS]; /* 0 where the layout lacks it */
	double reals[VSPERF_NREALS];
	uint32_t at_line, at_column; /* where the row starts, for errors */
};

/* Private state; readers only pass it around. */
struct vsperf_builder {
	struct pc_ctx *ctx;
	struct pc_model *m;
	const char *format; /* the reader's name, for errors and warnings */
	struct vsperf_layout layout;
	bool begun;
	struct vsperf_state *state; /* the implementation's own fields (vsperf_model.c) */
};

void vsperf_builder_init(struct vsperf_builder *b, struct pc_ctx *ctx,
			 struct pc_model *m, const char *format);
/*
 * Declares the report and its columns. Fails, located at (line, column),
 * naming the missing columns when the layout cannot give any value
 * (e.g. CallerCallee without Inclusive and Exclusive Samples or Elapsed
 * Inclusive and Exclusive Time).
 */
int vsperf_builder_begin(struct vsperf_builder *b, const struct vsperf_layout *layout,
			 uint32_t line, uint32_t column);
/*
 * Adds one row; the builder copies what it keeps. Errors are located at
 * row->at_line/at_column: a Caller or Callee row before any Root, a
 * Level that skips a level (deeper than the previous row + 1) or is
 * negative, a count overflow.
 */
int vsperf_builder_add(struct vsperf_builder *b, const struct vsperf_row *row);
/* At the end of the input: flushes buffered rows, checks, adds metadata. */
int vsperf_builder_finish(struct vsperf_builder *b, uint32_t line);
void vsperf_builder_release(struct vsperf_builder *b);

#endif
