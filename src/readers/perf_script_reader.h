/*
 * perf_script_reader.h - the state the perf script reader's files share
 * (private to src/readers/perf_script_*.c): the reader, the sample being
 * read, and the functions each file gives the others:
 *   perf_script_lines.c   the line loop: which line is what, given the
 *                         state of the sample being read; errors
 *   perf_script_window.c  the fast path: callchains read whole from the
 *                         input window, frames through text-hash caches
 *   perf_script_reader.c  the mapping of parsed fields onto the model, and
 *                         the reader's descriptor
 *   perf_script_pt.c      Intel PT branch samples ("FROM => TO") into
 *                         branch stacks, chained per CPU or thread
 *   perf_script_split.c   a big text read in two halves at once
 */
#ifndef PC_PERF_SCRIPT_READER_H
#define PC_PERF_SCRIPT_READER_H

#include "model/format.h"
#include "readers/perf_events.h"
#include "readers/perf_script_grammar.h"
#include "readers/perf_script_tables.h"

#define PS_FORMAT "perf-script"
#define PS_READ_AHEAD ((size_t)256 << 10)

/* The kinds of text a cache key is made of (cache_seed). */
enum ps_cache_kind {
	PS_CACHE_FRAME_LINE = 0,
	PS_CACHE_BRANCH_END = 1,
};


/* An executable mapping from an MMAP record. */
struct ps_range {
	uint32_t space, module;
	uint64_t start, limit;
};

/* A pid -1 (kernel) mapping: applies to its dso in every space. */
struct ps_global {
	pc_str_id name, build_id;
	uint64_t start, limit, pgoff;
};

enum ps_state {
	ST_IDLE,         /* between samples */
	ST_STACK,        /* a sample is open and takes callchain lines */
	ST_PENDING_ZERO, /* a header with no frames, then a blank line */
	ST_SINGLE,       /* a complete single-line sample, unless frames follow */
	ST_SKIP,         /* skipping the rest of a bad sample (--skip-bad) */
};

struct ps_sample {
	uint32_t line;       /* of its header, for messages */
	uint32_t labels;
	uint32_t space;
	int event;           /* index into events */
	bool has_period;
	bool callchain_header; /* a header whose callchain follows */
	uint64_t period, repeat;
	bool has_time;
	int64_t time_ns;     /* when has_time */
	uint32_t stack;      /* the stack id, when known without the frames */
	bool has_inline;     /* some frame is an inline one */
	uint32_t *frames;
	size_t nframes, frames_cap;
	struct pc_branch *branches;
	size_t nbranches, branches_cap;
};

/*
 * A sample as it is added to the model; those of a PT side event (cbr,
 * pwre, ...) are kept (pending) until its columns are made.
 */
struct ps_taken {
	struct pc_sample sample;
	int event;
	uint64_t repeat, value;
	uint32_t line;
	bool has_time;
	int64_t time_ns;
};

/* Where a function starts, learnt from a frame printed as "ADDR SYM+0xOFF". */
struct ps_symbol_base {
	uint32_t module;
	uint32_t flags;     /* PC_FRAME_ABSOLUTE of the frame it was learnt from */
	uint64_t start;
	bool ambiguous;     /* two frames disagreed: no address from it */
};

/* Intel PT: one chain of branch samples (perf_script_pt.c). */
struct ps_pt_chain {
	uint8_t kind;       /* the whole text's, a CPU's, a thread's or a process's */
	int64_t id;         /* the cpu, tid or pid */
	int64_t tid;        /* the thread of its last branch; -1 unknown */
	uint32_t to;        /* frame id of its last branch's target; 0: none */
};

/* A line of the callchain after a header, when read from the window. */
struct ps_block_line {
	uint32_t start, first, end, next; /* offsets in the window */
	struct ps_hash h;
};

/* A slot of the small direct-mapped cache in front of the frames table. */
struct ps_hot {
	uint64_t h1;
	uint32_t h2, value;
};

struct ps_reader {
	struct pc_ctx *ctx;
	struct pc_input *in;
	struct pc_model *m;

	/* the current line: line[0, len), first = its first non-blank */
	const char *line;
	size_t len, first, consume;
	uint32_t lineno;
	bool unterminated; /* the last line, without a newline */
	bool recoverable;  /* the error set is a syntax error of this line */

	enum ps_state state;
	bool prev_frame;   /* the previous line was a callchain frame */
	bool saw_sample;
	bool saw_dso;      /* some frame had a "(dso)" */
	struct ps_sample cur;
	uint64_t repeat;   /* llvm-profgen's count for the next sample */

	struct ps_cache frames;   /* (space, gen, frame text) -> frame id */
	struct ps_htable ends;    /* (space, gen, branch end text) -> frame id: not forgotten,
				     as a SYM+0xOFF end resolves by what came before */
	struct ps_cache blocks;   /* (space, gen, callchain) -> stack id */
	struct ps_table modules;  /* (space [| build id], dso) -> module id */
	struct ps_table labelsets; /* label fields -> label set id + 1 */
	struct ps_table tids;     /* tid -> pid + 2 */
	uint64_t tid_lookups;     /* of samples that printed a tid without its pid */
	uint64_t side_records;    /* MMAP, MMAP2, COMM, FORK and EXIT records met */
	bool learnt;              /* the last pair put in tids, not to put it again */
	int64_t learnt_pid, learnt_tid;
	uint32_t gen;             /* bumped by each mapping: older cache entries go stale */

	struct perf_event_columns *events; /* col_sample -1: columns not made yet */
	size_t nevents, events_cap;
	int last_event;
	bool main_columns;        /* an event that is no PT side event has its columns */
	struct ps_taken *pending; /* samples of side events seen before that */
	size_t npending, pending_cap;
	pc_str_id *declared;      /* "# event :" names, in order */
	size_t ndeclared, declared_cap;
	bool declared_made;
	bool took_default_event;  /* a sample printed no event */

	struct ps_range *ranges;
	size_t nranges, ranges_cap;
	struct ps_global *globals;
	size_t nglobals, globals_cap;

	pc_str_id key_comm, key_pid, key_tid, key_cpu, unit_pid, unit_tid, unit_cpu;
	char *scratch;
	size_t scratch_cap;

	uint64_t *stack_samples;     /* by stack id: this input's samples of it */
	size_t stack_samples_cap;

	bool any_time;
	uint64_t first_time, last_time;
	uint64_t trace_errors, perf_messages, lost;

	struct ps_table symbols;     /* (space, function, absolute) -> 1 + index into bases */
	struct ps_symbol_base *bases;
	size_t nbases, bases_cap;
	uint64_t unresolved_ends;    /* brstacksym ends SYM+0xOFF with no known SYM address */
	bool learn_bases;            /* a brstacksym end SYM+0xOFF was seen: learn SYM's starts */

	struct ps_table pt_keys;     /* chain key -> 1 + index into pt_chains */
	struct ps_pt_chain *pt_chains;
	size_t pt_nchains, pt_chains_cap;
	uint64_t pt_text_chained;    /* branch samples chained in text order (no cpu/tid/pid) */
	uint32_t unknown_frame;      /* the frame with no module and no address, once made */

	struct ps_block_line *block; /* the callchain read whole (perf_script_window.c) */
	size_t block_cap;
	struct ps_hot *hot;          /* in front of frames */
	uint64_t *inline_bits;       /* by frame id: the frame is an inline one */
	size_t inline_words;
};

/* The context of a cache key: the sample's space and the mapping generation. */
static inline uint64_t ps_cache_seed(const struct ps_reader *r, enum ps_cache_kind kind)
{
	return (uint64_t)r->cur.space | (uint64_t)r->gen << 32 | (uint64_t)kind << 62;
}

static inline bool ps_is_inline(const struct ps_reader *r, uint32_t id)
{
	return id / 64 < r->inline_words && (r->inline_bits[id / 64] >> (id % 64) & 1);
}

/* Appends frame id to the open sample's stack (leaf first). */
static inline void ps_push_frame(struct ps_reader *r, uint32_t id)
{
	struct ps_sample *c = &r->cur;

	if (c->nframes == c->frames_cap)
		pc_grow(&c->frames, &c->frames_cap, c->nframes + 1, sizeof(*c->frames));
	c->frames[c->nframes++] = id;
	c->has_inline |= ps_is_inline(r, id);
}

/* ---- perf_script_lines.c ---- */

/* Fails at column col (0-based) of the current line. */
int ps_fail_at(struct ps_reader *r, size_t col, const char *fmt, ...) PC_PRINTF(3, 4);
/* A syntax error of the current line: --skip-bad may skip it. */
int ps_fail_syntax(struct ps_reader *r, const struct ps_syntax *syn);
/* Reads the lines of the input up to its end (or limit), leaving the last sample open. */
int ps_read_range(struct ps_reader *r);
/* At the end of the input: adds the sample still open, if any. */
int ps_end_input(struct ps_reader *r);

/* ---- perf_script_window.c ---- */

/* The frame id of the frame text line[at, end), through the caches. */
int ps_resolve_frame(struct ps_reader *r, size_t at, size_t end, uint32_t *id);
/*
 * Right after a header whose callchain follows: reads the callchain whole
 * from the window when it can, which completes the sample.
 */
int ps_try_block(struct ps_reader *r);

/* ---- perf_script_pt.c ---- */

/* Whether event (with any modifier) is one of PT's side events: cbr, pwre, exstop, ... */
bool ps_pt_is_side_event(const char *name, size_t len);
/* Whether a "# event :" name is a trace PMU's or dummy event, which perf prints no samples of. */
bool ps_pt_is_trace_pmu(const char *name, size_t len);
/* The frame with no module and no address: an unknown branch end. */
uint32_t ps_pt_unknown_frame(struct ps_reader *r);
/* A "[FLAGS] FROM => TO" branch sample into the open sample: stack, branch stack, chain. */
int ps_pt_branch(struct ps_reader *r, const struct ps_header *h, const struct ps_rest *rest);
/* An " instruction trace error" line: the chains of its cpu and thread end. */
void ps_pt_trace_error(struct ps_reader *r);
/* Lost records: every chain ends. */
void ps_pt_end_chains(struct ps_reader *r);
void ps_pt_release(struct ps_reader *r);

/* ---- perf_script_reader.c ---- */

/* The index of event name[0, len) in r->events, made if new. */
int ps_find_event(struct ps_reader *r, const char *name, size_t len, int *index);

/* The model frame of a parsed frame line in the open sample's space. */
uint32_t ps_frame_for(struct ps_reader *r, const struct ps_frame_text *f);
/* Parses the brstack entries in line[at, end) into the open sample. */
int ps_add_branches(struct ps_reader *r, size_t at, size_t end);
/* Opens a sample (it takes any repeat count read before it). */
void ps_open_sample(struct ps_reader *r);
/* Opens a sample with the labels, space, period and event of its header. */
int ps_open_from_header(struct ps_reader *r, const struct ps_header *h);
/* Widens the span of the samples' times (the profile's duration) to [first, last]. */
void ps_note_times(struct ps_reader *r, uint64_t first, uint64_t last);
/* Counts repeat samples of stack (for the unmapped-addresses warning at the end). */
void ps_count_stack(struct ps_reader *r, uint32_t stack, uint64_t repeat);
/* Adds the open sample to the model; the reader is then between samples. */
int ps_emit_sample(struct ps_reader *r);
/* Sets the file and line (and inlining) of the open sample's last frame. */
void ps_apply_srcline(struct ps_reader *r, const struct ps_srcline *src);
/* A PERF_RECORD_ side record at line[at...). */
int ps_side_record(struct ps_reader *r, size_t at);
/* A '#' line of perf script --header. */
void ps_comment_line(struct ps_reader *r);
/* After the last line: the profile's columns, source, duration and comments. */
int ps_finish_profile(struct ps_reader *r);
/* A reader of in into m, between samples. */
void ps_reader_init(struct ps_reader *r, struct pc_ctx *ctx, struct pc_input *in,
		    struct pc_model *m);
void ps_reader_release(struct ps_reader *r);
/*
 * Frees the caches of frame lines and callchains, which are memos: reading
 * on makes them anew (the cache of brstack ends, which is not, stays).
 */
void ps_reader_drop_caches(struct ps_reader *r);

/* ---- perf_script_split.c ---- */

/* Reads the whole input into the model (in two halves at once when that pays), and finishes it. */
int ps_read_input(struct ps_reader *r);

#endif
