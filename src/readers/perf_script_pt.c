/*
 * perf_script_pt.c - Intel PT (and CoreSight, BTS) branch samples of
 * `perf script --itrace=b` into branch stacks that give exact AutoFDO
 * ranges and branch counts.
 *
 * Source: tools/perf/Documentation/perf-intel-pt.txt (the seed document
 * on Intel PT: --itrace letters, the flags "bcrosyiABEx", the power and
 * trace events), perf's builtin-script.c (perf_sample__fprintf_bts: "FLAGS
 * FROM => TO", and only the branches event prints it; the flag names of
 * sample_flags[]: "call", "return", "jcc", "jmp", "int", "iret",
 * "syscall", "sysret", "async", "hw int", "tx abrt", "tr strt", "tr end",
 * "vmentry", "vmexit", "br miss", and "tr strt NAME" / "tr end  NAME"),
 * research/perfscript.md section 2.10, and research/autofdo.md section 4
 * for the rule the AutoFDO writers apply to a branch stack: entry 0 gives
 * its branch; entry i >= 1 gives the range [to_i, from_(i-1)] and its own
 * branch from_i -> to_i.
 *
 * Each branches sample is one taken branch, printed in trace order for
 * each CPU. The branches of one chain (a CPU's, when the cpu field is
 * printed, else a thread's, else a process's, else the whole text's)
 * follow one another: the code from one branch's target to the next
 * branch's source ran straight through. A sample with a predecessor in its
 * chain gets the branch stack
 *     [(FROM, TO), (?, previous TO)]
 * newest first, where ? is the unknown frame (no module, no address): the
 * writers count the branch FROM -> TO once (entry 0), the range
 * [previous TO, FROM] once (entry 1), and no branch for entry 1, whose
 * source has no address (the previous branch is counted by its own
 * sample). A sample without a predecessor gets [(FROM, TO)]. Every sample
 * counts once in its event's columns (branches_sample +1, branches_event
 * + its period, 1), as any sample; a "=>" line without an event field is
 * a sample of "branches", the only event perf prints that way.
 *
 * Trace starts and ends are not branches:
 *   "tr strt" (or FROM 0, or flag letter B): the trace (re)starts at TO;
 *       no branch; the sample has no stack when FROM is 0 (perf's "no
 *       ip"); the chain restarts at TO.
 *   "tr end" (or TO 0, or flag letter E; "tr end  async" too): execution
 *       ran up to FROM and the trace stopped: [(FROM, ?), (?, previous TO)]
 *       gives the range [previous TO, FROM] and no branch; the chain ends.
 * Other flags ("call", "return", "jcc", "jmp", "async", "hw int", "iret",
 * "syscall", ...) are taken branches. A chain also ends at a change of
 * thread on its CPU, at an " instruction trace error" line of its CPU or
 * thread (a gap in the trace) and at a PERF_RECORD_LOST record.
 *
 * Why not [(FROM, TO), (previous FROM, previous TO)], an LBR of depth 2:
 * the rule would count every branch twice, once in its own sample and
 * once in the next one's entry 1; one stack per chain would count each
 * once too, but would keep every branch of the trace in the model, where
 * these pairs merge.
 *
 * What is lost: the flags themselves, the order of branches beyond one
 * step (entry 1 keeps only the previous target).
 */
#include "readers/perf_script_reader.h"

#define BRANCHES_EVENT "branches"
#define FLAG_LETTERS "bcrosyiABExghDt" /* perf's PERF_IP_FLAG_CHARS */

enum pt_mark {
	PT_BEGIN = 1u << 0, /* the trace starts at TO */
	PT_END = 1u << 1,   /* the trace stops after FROM */
};

enum pt_chain_kind {
	CHAIN_ALL,     /* no cpu, tid or pid printed */
	CHAIN_CPU,
	CHAIN_THREAD,
	CHAIN_PROCESS, /* only the pid printed */
};

/* ---- event names ---- */

static bool base_is(const char *name, size_t len, const char *base)
{
	size_t n = pc_event_base_len(name, len);

	return n == strlen(base) && !memcmp(name, base, n);
}

bool ps_pt_is_side_event(const char *name, size_t len)
{
	static const char *const side[] = {
		"cbr", "pwre", "pwrx", "exstop", "mwait", "ptwrite", "psb", "evt", "iflag",
	};

	for (size_t i = 0; i < PC_ARRAY_SIZE(side); i++)
		if (base_is(name, len, side[i]))
			return true;
	return false;
}

bool ps_pt_is_trace_pmu(const char *name, size_t len)
{
	static const char *const pmus[] = { "intel_pt/", "intel_bts/", "cs_etm/", "arm_spe" };

	for (size_t i = 0; i < PC_ARRAY_SIZE(pmus); i++)
		if (ps_has_prefix(name, len, pmus[i]))
			return true;
	return base_is(name, len, "dummy");
}

/* ---- frames ---- */

uint32_t ps_pt_unknown_frame(struct ps_reader *r)
{
	struct pc_frame frame = { 0 };

	if (!r->unknown_frame)
		r->unknown_frame = pc_model_add_frame(r->m, &frame);
	return r->unknown_frame;
}

/* A frame printed with address 0: perf's "no address". */
static bool is_zero_frame(const struct ps_reader *r, uint32_t id)
{
	const struct pc_frame *frame = pc_model_frame(r->m, id);

	return (frame->flags & PC_FRAME_HAS_ADDRESS) && !frame->address;
}

/* ---- flags ---- */

/* A token of perf's flag letters ("bcB"): its trace begin and end marks. */
static unsigned letter_marks(const char *s, size_t n)
{
	unsigned marks = 0;

	for (size_t i = 0; i < n; i++) {
		if (!strchr(FLAG_LETTERS, s[i]))
			return 0;
		marks |= s[i] == 'B' ? PT_BEGIN : s[i] == 'E' ? PT_END : 0;
	}
	return marks;
}

/* The marks of the flags text line[start, end): "tr strt", "tr end", or letters. */
static unsigned flag_marks(const char *s, size_t start, size_t end)
{
	unsigned marks = 0;
	size_t at = ps_skip_blanks(s, start, end);

	while (at < end) {
		size_t tok = at;

		while (tok < end && !ps_is_blank(s[tok]))
			tok++;
		if (ps_equals(s + at, tok - at, "tr")) {
			size_t next = ps_skip_blanks(s, tok, end), next_end = next;

			while (next_end < end && !ps_is_blank(s[next_end]))
				next_end++;
			if (ps_equals(s + next, next_end - next, "strt"))
				marks |= PT_BEGIN;
			else if (ps_equals(s + next, next_end - next, "end"))
				marks |= PT_END;
		} else {
			marks |= letter_marks(s + at, tok - at);
		}
		at = ps_skip_blanks(s, tok, end);
	}
	return marks;
}

/* ---- chains ---- */

struct chain_key {
	uint8_t kind;
	uint8_t pad[7];
	int64_t id; /* the cpu, tid or pid */
};

static struct ps_pt_chain *chain_for(struct ps_reader *r, const struct ps_header *h)
{
	struct chain_key key;
	uint64_t hash;
	uint32_t at;

	memset(&key, 0, sizeof(key));
	if (h->has_cpu) {
		key.kind = CHAIN_CPU;
		key.id = h->cpu;
	} else if (h->has_tid) {
		key.kind = CHAIN_THREAD;
		key.id = h->tid;
	} else if (h->has_pid) {
		key.kind = CHAIN_PROCESS;
		key.id = h->pid;
	}
	hash = pc_hash_bytes(&key, sizeof(key), 0x9e7);
	at = ps_table_get(&r->pt_keys, hash, 0, (const char *)&key, sizeof(key));
	if (at)
		return &r->pt_chains[at - 1];
	pc_grow(&r->pt_chains, &r->pt_chains_cap, r->pt_nchains + 1, sizeof(*r->pt_chains));
	r->pt_chains[r->pt_nchains] = (struct ps_pt_chain){
		.kind = key.kind, .id = key.id, .tid = -1, .to = 0,
	};
	ps_table_put(&r->pt_keys, hash, 0, (const char *)&key, sizeof(key),
		     (uint32_t)++r->pt_nchains);
	return &r->pt_chains[r->pt_nchains - 1];
}

/* Appends the entry (from, to) to the open sample's branch stack. */
static void push_entry(struct ps_reader *r, uint32_t from, uint32_t to)
{
	struct ps_sample *c = &r->cur;

	pc_grow(&c->branches, &c->branches_cap, c->nbranches + 1, sizeof(*c->branches));
	c->branches[c->nbranches++] = (struct pc_branch){ .from = from, .to = to };
}

/* The branch stack of a branch sample: see the top of this file. */
static void add_entries(struct ps_reader *r, uint32_t from, uint32_t to, unsigned marks,
			uint32_t previous)
{
	if ((marks & PT_BEGIN) || ((marks & PT_END) && !previous))
		return;
	push_entry(r, from, marks & PT_END ? ps_pt_unknown_frame(r) : to);
	if (previous)
		push_entry(r, ps_pt_unknown_frame(r), previous);
}

int ps_pt_branch(struct ps_reader *r, const struct ps_header *h, const struct ps_rest *rest)
{
	struct ps_sample *c = &r->cur;
	struct ps_pt_chain *chain;
	uint32_t from, to, previous;
	unsigned marks;
	int64_t tid = h->has_tid ? h->tid : -1;

	if (ps_resolve_frame(r, rest->frame_start, rest->frame_end, &from) ||
	    ps_resolve_frame(r, rest->to_start, rest->to_end, &to))
		return -1;
	if (c->event < 0 && ps_find_event(r, BRANCHES_EVENT, strlen(BRANCHES_EVENT), &c->event))
		return -1;
	marks = flag_marks(r->line, rest->flags_start, rest->flags_end);
	if (is_zero_frame(r, from))
		marks |= PT_BEGIN;
	else
		ps_push_frame(r, from);
	if (is_zero_frame(r, to))
		marks |= PT_END;
	chain = chain_for(r, h);
	previous = chain->tid == tid ? chain->to : 0;
	r->pt_text_chained += previous && chain->kind == CHAIN_ALL;
	add_entries(r, from, to, marks, previous);
	chain->tid = tid;
	chain->to = marks & PT_END ? 0 : to;
	return 0;
}

/* ---- gaps ---- */

/* The number after " NAME " in line[0, len) (-1 allowed), as in "cpu 3". */
static bool error_field(const char *s, size_t len, const char *name, int64_t *value)
{
	size_t n = strlen(name);

	for (size_t at = 1; at + n + 2 <= len; at++) {
		size_t start, end;
		uint64_t v;
		bool minus;

		if (s[at - 1] != ' ' || memcmp(s + at, name, n) || s[at + n] != ' ')
			continue;
		start = at + n + 1;
		minus = start < len && s[start] == '-';
		for (end = start + minus; end < len && ps_is_digit(s[end]); end++)
			;
		if (!ps_parse_decimal(s + start + minus, end - start - minus, &v) || v > INT32_MAX)
			return false;
		*value = minus ? -(int64_t)v : (int64_t)v;
		return true;
	}
	return false;
}

/* Whether a trace error of cpu, pid and tid (-1: not printed) ends the chain. */
static bool error_ends(const struct ps_pt_chain *chain, int64_t cpu, int64_t pid, int64_t tid)
{
	if (cpu < 0 && pid < 0 && tid < 0)
		return true;
	switch (chain->kind) {
	case CHAIN_CPU:
		return chain->id == cpu || (tid >= 0 && chain->tid == tid);
	case CHAIN_THREAD:
		return chain->id == tid;
	case CHAIN_PROCESS:
		return chain->id == pid;
	default:
		return true;
	}
}

void ps_pt_trace_error(struct ps_reader *r)
{
	int64_t cpu = -1, pid = -1, tid = -1;

	if (!error_field(r->line, r->len, "cpu", &cpu))
		cpu = -1;
	if (!error_field(r->line, r->len, "pid", &pid))
		pid = -1;
	if (!error_field(r->line, r->len, "tid", &tid))
		tid = -1;
	for (size_t i = 0; i < r->pt_nchains; i++)
		if (error_ends(&r->pt_chains[i], cpu, pid, tid))
			r->pt_chains[i].to = 0;
}

void ps_pt_end_chains(struct ps_reader *r)
{
	for (size_t i = 0; i < r->pt_nchains; i++)
		r->pt_chains[i].to = 0;
}

void ps_pt_release(struct ps_reader *r)
{
	ps_table_release(&r->pt_keys);
	free(r->pt_chains);
}
