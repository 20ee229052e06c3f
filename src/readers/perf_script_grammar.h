/*
 * perf_script_grammar.h - the grammar of `perf script` text: one line in,
 * its fields out, as offsets into the line (a sample header and what
 * follows its fields, a callchain frame, brstack entries, a srcline, a
 * side record, a "# key : value" header line). Nothing here touches the
 * model; perf_script_reader.c maps the fields onto it.
 */
#ifndef PC_PERF_SCRIPT_GRAMMAR_H
#define PC_PERF_SCRIPT_GRAMMAR_H

#include "base/pc.h"

/* ---- bytes ---- */

static inline bool ps_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool ps_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline size_t ps_skip_blanks(const char *s, size_t at, size_t end)
{
	while (at < end && ps_is_blank(s[at]))
		at++;
	return at;
}

static inline size_t ps_trim_end(const char *s, size_t start, size_t end)
{
	while (end > start && ps_is_blank(s[end - 1]))
		end--;
	return end;
}

static inline bool ps_has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static inline bool ps_equals(const char *s, size_t len, const char *text)
{
	return len == strlen(text) && !memcmp(s, text, len);
}

/* Parses n > 0 decimal digits; false on overflow or a non-digit. */
bool ps_parse_decimal(const char *s, size_t n, uint64_t *value);

/* ---- syntax errors ---- */

/* Where and why a line does not parse. */
struct ps_syntax {
	size_t col;        /* 0-based byte offset in the line */
	char message[200];
};

/* "expected EXPECTED, found 'TEXT'" with TEXT = line[at, end) quoted; returns -1. */
int ps_syntax_error(struct ps_syntax *syn, const char *line, size_t at, size_t end,
		    const char *expected);

/* ---- sample headers ---- */

/* A sample header's fields, as offsets into its line. */
struct ps_header {
	size_t comm_start, comm_end;
	bool has_tid, has_pid, has_cpu, has_time, has_period, has_event;
	int64_t pid, tid;
	uint32_t cpu;
	uint64_t time_ns, period;
	size_t event_start, event_end; /* without the colon */
	size_t rest;                   /* where the remainder starts */
	bool side;                     /* a PERF_RECORD_ side record */
	size_t side_at;
};

/* Parses the fields of a sample header (or finds a side record). */
int ps_parse_header(const char *s, size_t len, struct ps_header *h, struct ps_syntax *syn);

/* What follows the fields of a sample header. */
enum ps_rest_kind {
	PS_REST_NONE,     /* a callchain follows (or nothing) */
	PS_REST_PAYLOAD,  /* tracepoint payload or other text; a callchain may follow */
	PS_REST_SINGLE,   /* ip [sym] [(dso)] on the header line */
	PS_REST_BRANCH,   /* FROM => TO */
	PS_REST_ENTRIES,  /* only brstack entries */
};

struct ps_rest {
	enum ps_rest_kind kind;
	size_t flags_start, flags_end; /* a branch's flags before FROM ("tr strt", "jcc") */
	size_t frame_start, frame_end; /* the single-line frame, or FROM */
	size_t to_start, to_end;       /* TO */
	size_t br_start, br_end;       /* brstack entries, when br_end > br_start */
};

int ps_classify_rest(const char *s, size_t len, const struct ps_header *h,
		     struct ps_rest *rest, struct ps_syntax *syn);

/*
 * Cuts line[start, end) before perf's insn, ilen and IPC fields and what
 * xed made of insn (perf script --xed); returns the new end, trimmed.
 */
size_t ps_cut_extras(const char *s, size_t start, size_t end);

/*
 * perf 6.1 prints brstacksym entries glued to the ip ("  40115cwork+0xa/...").
 * The ip fills the 16 columns after one blank that follow field_end (the
 * end of the field before, 0 at the start of a line); returns where the
 * first entry starts in the token at s[at...), or 0 when it is not so.
 */
size_t ps_split_glued_ip(const char *s, size_t field_end, size_t at, size_t end);

/* ---- frames ---- */

/* One frame as printed: "ADDR [SYM[+0xOFF]] [(DSO)]". */
struct ps_frame_text {
	uint64_t address;
	const char *build_id; /* llvm-profgen's BUILDID:ADDR, else NULL */
	size_t build_id_len;
	const char *sym;      /* NULL: none or [unknown] */
	size_t sym_len;
	bool has_offset;      /* sym was printed with "+0xOFFSET" */
	uint64_t offset;
	const char *dso;      /* NULL: none */
	size_t dso_len;
	bool inlined;
};

/*
 * The address token at s[at...): HEX or BUILDID:HEX followed by a blank or
 * end; returns its end, or 0 when it is not one.
 */
size_t ps_address_token_end(const char *s, size_t at, size_t end);

/*
 * Whether the address s[first, end), after the first blanks that start the
 * line, is right-aligned in perf's 16 ip columns.
 */
bool ps_is_ip_column(const char *s, size_t first, size_t end);

/* Parses line[at, end) (no blanks around) as a frame. */
int ps_parse_frame(const char *s, size_t at, size_t end, struct ps_frame_text *f,
		   struct ps_syntax *syn);

/* A -F +srcline line after a frame: "  FILE:LINE [(inlined)]". */
struct ps_srcline {
	bool inlined;
	bool has_file;       /* FILE:LINE read (not "??:0") */
	size_t file_start, file_end;
	uint32_t line;
};

void ps_parse_srcline(const char *s, size_t start, size_t end, struct ps_srcline *src);

/* ---- branch stack entries ---- */

/* One end of an entry: [BUILDID:]0xHEX[(DSO)] or SYM[+0xOFF][(DSO)]. */
struct ps_branch_end {
	const char *text; /* as printed, for the cache */
	size_t len;
	bool has_address;
	uint64_t address;
	const char *build_id, *sym, *dso;
	size_t build_id_len, sym_len, dso_len;
	bool has_offset;  /* sym was printed with "+0xOFFSET" (brstacksym) */
	uint64_t offset;
};

/* The end of a branch entry's field from at: its '/' (outside parentheses), or end. */
size_t ps_branch_end_scan(const char *s, size_t at, size_t end);
/* Parses one entry s[at, end) "FROM/TO[/FLAGS...]". */
bool ps_parse_branch_entry(const char *s, size_t at, size_t end, struct ps_branch_end *from,
			   struct ps_branch_end *to);
bool ps_is_branch_entry(const char *s, size_t at, size_t end);

/* Where the run of brstack entries that ends line[start, end) begins (end: none). */
size_t ps_trailing_branches(const char *s, size_t start, size_t end);

/* ---- side records ---- */

enum ps_side_kind {
	PS_SIDE_IGNORED, /* a record the reader skips */
	PS_SIDE_MMAP,    /* PERF_RECORD_MMAP, PERF_RECORD_MMAP2 */
	PS_SIDE_TASK,    /* PERF_RECORD_COMM, _FORK, _EXIT: a pid/tid pair */
	PS_SIDE_LOST,    /* PERF_RECORD_LOST */
};

/* The kind of the side record at s[at, len) and where its body starts. */
enum ps_side_kind ps_side_kind(const char *s, size_t len, size_t at, size_t *body);

/* PERF_RECORD_MMAP[2] PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH */
struct ps_mmap {
	int64_t pid, tid;
	uint64_t start, len, pgoff;
	bool executable;             /* PROT has an 'x', or pid -1 (the kernel's) */
	size_t path_start, path_end; /* "[kernel.kallsyms]_text" ends at its ']' */
	size_t build_id_start, build_id_end; /* the hex of "<BUILDID>"; equal: none */
};

int ps_parse_mmap(const char *s, size_t len, size_t body, struct ps_mmap *map,
		  struct ps_syntax *syn);

/* "...:PID/TID" at the end (COMM) or "(PID:TID)" first (FORK, EXIT). */
bool ps_parse_task_ids(const char *s, size_t len, size_t body, int64_t *pid, int64_t *tid);

/* The count that ends a LOST record. */
bool ps_parse_lost_count(const char *s, size_t len, size_t body, uint64_t *count);

/* ---- header comments ---- */

/* "# key : value" of perf script --header: key as "perf.key", blanks -> '_'. */
struct ps_comment {
	char key[64];
	size_t value_start, value_end;
};

bool ps_parse_comment(const char *s, size_t len, struct ps_comment *comment);

/* The NAME of a "# event : name = NAME, ..." value; false when it has none. */
bool ps_parse_event_name(const char *value, size_t n, const char **name, size_t *name_len);

/* "Thu Aug 17 14:14:43 2017" as nanoseconds since the epoch (UTC); 0 if not. */
int64_t ps_parse_captured_on(const char *s, size_t n);

/* ---- the probe ---- */

/*
 * Scores one line: 2 a sample header with time and event, a frame with a
 * dso or a side record; 1 a tab-indented frame or brstack entries; 0 a line
 * that reads but proves little; -1 a line that is not perf script.
 */
int ps_probe_line(const char *s, size_t len);

#endif
