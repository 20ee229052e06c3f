/*
 * perf_script_lines.c - the perf script reader's line loop: takes the input
 * window line by line, tells from the state of the sample being read what
 * each line is, has perf_script_grammar.c parse it and perf_script_reader.c
 * put its fields in the model (research/perfscript.md sections 2.1-2.11).
 *
 * Besides the grammar's rules: a tab-indented frame line outside a sample
 * starts a sample without a header (-F ip,... with a callchain;
 * llvm-profgen's hybrid form), a line whose first token is a 16-column
 * address (or such an address glued to a brstacksym entry) starts a
 * single-line sample without header (-F ip,sym; -F ip,brstack; PT's
 * -F ip,addr " FROM => TO"); a two-blank "FILE:LINE" line after a
 * single-line sample is its srcline (-F +srcline prints it on a line of
 * its own); a brstack line ends its sample; a blank line between a
 * header and its callchain is tolerated (counted in a warning), and so are
 * a missing last blank line, CRLF ends, " instruction trace error" lines
 * (which end the PT branch chains of their cpu and thread) and perf's own
 * "Warning:"/"Error:" lines (both counted in comments).
 * Unparseable lines are errors at FILE:LINE:COL naming what was expected;
 * with --skip-bad each is skipped with its sample and counted in a warning.
 * A last line that ends without a newline in the middle of a frame (an
 * unclosed '(', or no "(dso)" where the input's other frames have one) is
 * an error.
 *
 * Lines are slices of struct pc_input's window; nothing is allocated per
 * line. Right after a header, perf_script_window.c may take its whole
 * callchain at once.
 */
#include "readers/perf_script_reader.h"

#include <stdarg.h>

#define MAX_LINE_BYTES ((size_t)16 << 20)

/* ---- errors ---- */

int ps_fail_at(struct ps_reader *r, size_t col, const char *fmt, ...)
{
	char message[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	r->recoverable = false;
	return pc_fail_line(&r->ctx->err, PS_FORMAT, r->lineno,
			    (uint32_t)(col < UINT32_MAX - 1 ? col + 1 : UINT32_MAX), "%s", message);
}

int ps_fail_syntax(struct ps_reader *r, const struct ps_syntax *syn)
{
	const char *nul = memchr(r->line, '\0', r->len);

	if (nul)
		ps_fail_at(r, (size_t)(nul - r->line),
			   "binary data (a NUL byte) where perf script text was expected");
	else
		ps_fail_at(r, syn->col, "%s", syn->message);
	r->recoverable = true;
	return -1;
}

/* ---- input lines ---- */

/* Makes the next line current; *got is false at the end of the input. */
static int next_line(struct ps_reader *r, bool *got)
{
	const uint8_t *data;
	size_t have, scanned = 0, len;
	const uint8_t *nl;

	pc_input_consume(r->in, r->consume);
	r->consume = 0;
	have = pc_input_fill(r->in, 1, &data);
	for (;;) {
		size_t more;

		nl = have > scanned ? memchr(data + scanned, '\n', have - scanned) : NULL;
		if (nl) {
			len = (size_t)(nl - data);
			r->consume = len + 1;
			break;
		}
		if (have >= MAX_LINE_BYTES) {
			r->lineno++;
			return ps_fail_at(r, 0, "line longer than %zu MiB (is this perf script text?)",
					  MAX_LINE_BYTES >> 20);
		}
		scanned = have;
		more = pc_input_fill(r->in, have + PS_READ_AHEAD, &data);
		if (more <= have) { /* the input ends (at a limit, right after a newline) */
			*got = have > 0;
			len = r->consume = have;
			r->unterminated |= have > 0;
			break;
		}
		have = more;
	}
	if (pc_input_check_io(r->in, &r->ctx->err))
		return -1;
	if (!have) {
		*got = false;
		return 0;
	}
	*got = true;
	if (len > MAX_LINE_BYTES) { /* the same limit whatever the buffer held */
		r->lineno++;
		return ps_fail_at(r, 0, "line longer than %zu MiB (is this perf script text?)",
				  MAX_LINE_BYTES >> 20);
	}
	if (len && data[len - 1] == '\r')
		len--;
	r->line = (const char *)data;
	r->len = len;
	r->first = ps_skip_blanks(r->line, 0, len);
	if (r->lineno < UINT32_MAX)
		r->lineno++;
	return 0;
}

/* ---- lines ---- */

static bool is_trace_error(const struct ps_reader *r)
{
	return r->first > 0 && ps_has_prefix(r->line + r->first, r->len - r->first,
					     "instruction trace error");
}

/* " instruction trace error ...": counted; the PT chains of its cpu and thread end. */
static int trace_error_line(struct ps_reader *r)
{
	r->trace_errors++;
	ps_pt_trace_error(r);
	return 0;
}

static bool is_perf_message(const struct ps_reader *r)
{
	const char *s = r->line;

	return ps_has_prefix(s, r->len, "Warning:") || ps_has_prefix(s, r->len, "Error:") ||
	       ps_has_prefix(s, r->len, "Failed to open");
}

/* The end of the current line's first token when it is an address, else 0. */
static size_t line_address_end(const struct ps_reader *r)
{
	return r->first < r->len ? ps_address_token_end(r->line, r->first, r->len) : 0;
}

static size_t line_end(const struct ps_reader *r)
{
	return ps_trim_end(r->line, r->first, r->len);
}

/*
 * A frame whose line ends the input without a newline must not be cut
 * short: its "(dso)" must be there when other frames have one, and a '('
 * must be closed.
 */
static int check_truncated_frame(struct ps_reader *r, size_t at, size_t end)
{
	struct ps_frame_text f;
	struct ps_syntax syn;
	int depth = 0;

	if (!r->unterminated)
		return 0;
	if (ps_parse_frame(r->line, at, end, &f, &syn))
		return ps_fail_syntax(r, &syn);
	for (size_t i = at; i < end; i++)
		depth += r->line[i] == '(' ? 1 : r->line[i] == ')' ? -1 : 0;
	if (depth <= 0 && (f.dso || f.inlined || !r->saw_dso))
		return 0;
	ps_fail_at(r, end, "the input ends inside this frame line (expected the rest of it, up to "
		   "its '(DSO)')");
	r->recoverable = true;
	return -1;
}

static int stack_frame_line(struct ps_reader *r)
{
	uint32_t id;
	size_t end = line_end(r);

	if (check_truncated_frame(r, r->first, end) || ps_resolve_frame(r, r->first, end, &id))
		return -1;
	ps_push_frame(r, id);
	r->prev_frame = true;
	return 0;
}

/* "  FILE:LINE [(inlined)]" after a frame (-F +srcline). */
static int srcline_line(struct ps_reader *r)
{
	struct ps_srcline src;

	r->prev_frame = false;
	ps_parse_srcline(r->line, r->first, line_end(r), &src);
	ps_apply_srcline(r, &src);
	return 0;
}

/* A brstack line ends its sample (llvm-profgen's hybrid form). */
static int branch_line(struct ps_reader *r)
{
	if (ps_add_branches(r, r->first, line_end(r)))
		return -1;
	return ps_emit_sample(r);
}

static bool looks_like_branch_line(const struct ps_reader *r)
{
	size_t end = r->first;

	while (end < r->len && !ps_is_blank(r->line[end]))
		end++;
	return r->first > 0 && ps_is_branch_entry(r->line, r->first, end);
}

static int header_line(struct ps_reader *r, bool in_stack);

/* A line of an open callchain. */
static int stack_line(struct ps_reader *r)
{
	const char *s = r->line;
	bool two_spaces = r->first == 2 && s[0] == ' ' && s[1] == ' ';
	size_t addr_end = line_address_end(r);
	struct ps_header h;
	struct ps_syntax syn;

	/* a srcline "  abc:12" is not llvm-profgen's BUILDID:ADDR */
	if (two_spaces && r->prev_frame &&
	    (!addr_end || memchr(s + r->first, ':', addr_end - r->first)))
		return srcline_line(r);
	/* frames may start in column 0, headers always may */
	if (addr_end && (r->first > 0 || ps_parse_header(s, r->len, &h, &syn) || !h.has_time))
		return stack_frame_line(r);
	r->prev_frame = false;
	if (looks_like_branch_line(r))
		return branch_line(r);
	if (is_trace_error(r))
		return trace_error_line(r);
	return header_line(r, true);
}

static int apply_rest(struct ps_reader *r, const struct ps_header *h, const struct ps_rest *rest);

/*
 * A single-line sample without a header (-F ip,sym; -F ip,brstack;
 * -F ip,brstacksym with the first entry glued to the ip; -F ip,addr of PT
 * branches, " FROM => TO"): the remainder of a header with no fields.
 */
static int headerless_single(struct ps_reader *r)
{
	struct ps_header h;
	struct ps_rest rest;
	struct ps_syntax syn;

	memset(&h, 0, sizeof(h));
	h.rest = r->first;
	if (ps_classify_rest(r->line, r->len, &h, &rest, &syn))
		return ps_fail_syntax(r, &syn);
	ps_open_sample(r);
	return apply_rest(r, &h, &rest);
}

/* Whether the line is "[FLAGS] FROM => TO" with no header fields. */
static bool is_headerless_branch(const struct ps_reader *r)
{
	struct ps_header h;
	struct ps_rest rest;
	struct ps_syntax syn;

	memset(&h, 0, sizeof(h));
	h.rest = r->first;
	return r->first > 0 && !ps_classify_rest(r->line, r->len, &h, &rest, &syn) &&
	       rest.kind == PS_REST_BRANCH;
}

static int repeat_line(struct ps_reader *r)
{
	uint64_t n;

	if (!ps_parse_decimal(r->line, r->len, &n) || !n)
		return ps_fail_at(r, 0, "a repeat count must be from 1 to 2^64-1");
	r->repeat = n;
	return 0;
}

static bool is_repeat_line(const struct ps_reader *r)
{
	for (size_t i = 0; i < r->len; i++)
		if (!ps_is_digit(r->line[i]))
			return false;
	return r->len > 0;
}

static int idle_line(struct ps_reader *r)
{
	size_t addr_end;

	if (is_repeat_line(r))
		return repeat_line(r);
	addr_end = r->first > 0 ? line_address_end(r) : 0;
	if (addr_end && r->line[0] == '\t') {
		ps_open_sample(r); /* a callchain without a header (-F ip,...) */
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	if ((addr_end && ps_is_ip_column(r->line, r->first, addr_end)) ||
	    (!addr_end && r->first > 0 && ps_split_glued_ip(r->line, 0, r->first, line_end(r))))
		return headerless_single(r);
	if (is_trace_error(r))
		return trace_error_line(r);
	if (is_perf_message(r)) {
		r->perf_messages++;
		return 0;
	}
	return header_line(r, false);
}

/* Fills the open sample from the header's remainder. */
static int apply_rest(struct ps_reader *r, const struct ps_header *h, const struct ps_rest *rest)
{
	struct ps_sample *c = &r->cur;
	uint32_t from;

	/* brstacksym entries (SYM+0xOFF, not 0xADDR) need function starts, from this ip on */
	if (rest->br_end > rest->br_start + 1 &&
	    (r->line[rest->br_start] != '0' || r->line[rest->br_start + 1] != 'x'))
		r->learn_bases = true;
	switch (rest->kind) {
	case PS_REST_NONE:
	case PS_REST_PAYLOAD:
		c->callchain_header = true;
		r->state = ST_STACK;
		return 0;
	case PS_REST_BRANCH:
		if (ps_pt_branch(r, h, rest))
			return -1;
		break;
	case PS_REST_SINGLE:
		if (ps_resolve_frame(r, rest->frame_start, rest->frame_end, &from))
			return -1;
		ps_push_frame(r, from);
		break;
	case PS_REST_ENTRIES:
		break;
	}
	if (rest->br_end > rest->br_start && ps_add_branches(r, rest->br_start, rest->br_end))
		return -1;
	r->state = ST_SINGLE;
	return 0;
}

/*
 * A sample header or side record. In a callchain (in_stack) the open
 * sample ends first, unless the line is neither: then it is a bad
 * callchain line.
 */
static int header_line(struct ps_reader *r, bool in_stack)
{
	struct ps_header h;
	struct ps_rest rest;
	struct ps_syntax syn;

	if (ps_parse_header(r->line, r->len, &h, &syn) ||
	    (!h.side && ps_classify_rest(r->line, r->len, &h, &rest, &syn))) {
		if (!in_stack && is_headerless_branch(r))
			return headerless_single(r); /* -F flags,ip,addr: "tr strt  0 => 401126" */
		if (in_stack && r->first > 0) {
			size_t end = r->first;

			while (end < r->len && !ps_is_blank(r->line[end]))
				end++;
			ps_syntax_error(&syn, r->line, r->first, end,
					"a callchain line (HEXADDRESS [SYMBOL] [(DSO)])");
		}
		return ps_fail_syntax(r, &syn);
	}
	if (in_stack && ps_emit_sample(r))
		return -1;
	r->state = ST_IDLE;
	if (h.side)
		return ps_side_record(r, h.side_at);
	if (ps_open_from_header(r, &h))
		return -1;
	return apply_rest(r, &h, &rest);
}

/* The open sample is complete: the line is one between samples. */
static int emit_then_idle_line(struct ps_reader *r)
{
	if (ps_emit_sample(r))
		return -1;
	return idle_line(r);
}

/*
 * After a single-line sample with a frame, -F +srcline prints the frame's
 * "  FILE:LINE" (or "  DSO[ADDR]") on a line of its own, and the fields
 * after the ip (brstack, insn, IPC) go on that line: two blanks, no
 * address (or llvm-profgen's BUILDID:ADDR look, which has a ':'), and not
 * a header (a comm of 14 bytes is right-aligned after two blanks too).
 */
static bool is_single_srcline(const struct ps_reader *r, size_t *text_end, size_t *br)
{
	const char *s = r->line;
	size_t addr_end = line_address_end(r), end;
	struct ps_srcline src;
	struct ps_header h;
	struct ps_syntax syn;

	if (r->first != 2 || s[0] != ' ' || s[1] != ' ' || !r->cur.nframes ||
	    (addr_end && !memchr(s + r->first, ':', addr_end - r->first)))
		return false;
	end = ps_cut_extras(s, r->first, line_end(r));
	*br = ps_trailing_branches(s, r->first, end);
	*text_end = ps_trim_end(s, r->first, *br);
	if (!ps_parse_header(s, end, &h, &syn) &&
	    (h.side || h.has_time || h.has_event || h.has_tid))
		return false;
	ps_parse_srcline(s, r->first, *text_end, &src);
	return src.has_file || (*text_end > r->first && s[*text_end - 1] == ']');
}

/* The srcline of a single-line sample's frame, and the entries that follow it. */
static int single_srcline_line(struct ps_reader *r, size_t text_end, size_t br)
{
	struct ps_sample *c = &r->cur;
	uint32_t frame = c->frames[c->nframes - 1];
	struct ps_srcline src;
	size_t end;

	ps_parse_srcline(r->line, r->first, text_end, &src);
	ps_apply_srcline(r, &src);
	for (size_t i = 0; i < c->nbranches; i++)
		if (c->branches[i].from == frame)
			c->branches[i].from = c->frames[c->nframes - 1];
	end = ps_cut_extras(r->line, r->first, line_end(r));
	return br < end ? ps_add_branches(r, br, end) : 0;
}

/* After a complete single-line sample: tab-indented frames make it a callchain. */
static int single_next_line(struct ps_reader *r)
{
	size_t text_end, br;

	if (is_single_srcline(r, &text_end, &br))
		return single_srcline_line(r, text_end, br);
	if (r->line[0] == '\t' && line_address_end(r)) {
		r->cur.nframes = 0;
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	return emit_then_idle_line(r);
}

/* After a header without frames and a blank line: frames may still follow. */
static int pending_line(struct ps_reader *r)
{
	if (r->first > 0 && line_address_end(r)) {
		if (pc_warn(r->ctx, PS_FORMAT, "took a blank line between a sample header and its "
			    "callchain as part of the sample (first at line %u)", r->lineno - 1))
			return -1;
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	return emit_then_idle_line(r);
}

/* --skip-bad: the rest of a bad sample's callchain is skipped too. */
static int skip_line(struct ps_reader *r)
{
	struct ps_header h;
	struct ps_syntax syn;

	if (r->first > 0 && (line_address_end(r) || looks_like_branch_line(r) ||
			     ps_parse_header(r->line, r->len, &h, &syn)))
		return 0;
	r->state = ST_IDLE;
	return idle_line(r);
}
static int blank_line(struct ps_reader *r)
{
	r->prev_frame = false;
	switch (r->state) {
	case ST_STACK:
		if (!r->cur.nframes && r->cur.callchain_header && !r->cur.nbranches) {
			r->state = ST_PENDING_ZERO;
			return 0;
		}
		return ps_emit_sample(r);
	case ST_SINGLE:
		return ps_emit_sample(r);
	case ST_SKIP:
		r->state = ST_IDLE;
		return 0;
	default:
		return 0;
	}
}

static int handle_line(struct ps_reader *r)
{
	if (r->len && r->line[0] == '#') {
		ps_comment_line(r);
		return 0;
	}
	if (r->first == r->len)
		return blank_line(r);
	switch (r->state) {
	case ST_STACK:
		return stack_line(r);
	case ST_PENDING_ZERO:
		return pending_line(r);
	case ST_SINGLE:
		return single_next_line(r);
	case ST_SKIP:
		return skip_line(r);
	default:
		return idle_line(r);
	}
}

/* --skip-bad: counts the bad line, drops its sample and skips the rest of it. */
static int skip_bad_line(struct ps_reader *r)
{
	char message[PC_ERROR_MESSAGE + 32];
	bool had_sample = r->state != ST_IDLE && r->state != ST_SKIP;

	snprintf(message, sizeof(message), "line %u:%u: %s", r->ctx->err.line, r->ctx->err.column,
		 r->ctx->err.message);
	pc_error_clear(&r->ctx->err);
	if (pc_warn(r->ctx, PS_FORMAT, "skipped an unparseable line (first: %s)", message))
		return -1;
	if (had_sample &&
	    pc_warn(r->ctx, PS_FORMAT, "dropped a sample that had an unparseable line (first at line %u)",
		    r->cur.line))
		return -1;
	r->state = ST_SKIP;
	r->prev_frame = false;
	return 0;
}

/* After a failed line: whether reading stops (else --skip-bad skipped it). */
static bool stops_reading(struct ps_reader *r)
{
	return !r->recoverable || !r->ctx->opt.skip_bad || skip_bad_line(r);
}

int ps_end_input(struct ps_reader *r)
{
	if (r->state == ST_STACK || r->state == ST_PENDING_ZERO || r->state == ST_SINGLE)
		return ps_emit_sample(r);
	return 0;
}

/* A header whose callchain follows was just read. */
static bool callchain_follows(const struct ps_reader *r)
{
	return r->state == ST_STACK && r->cur.line == r->lineno && !r->cur.nframes &&
	       r->cur.callchain_header;
}

int ps_read_range(struct ps_reader *r)
{
	for (;;) {
		bool got;

		if (next_line(r, &got))
			return -1;
		if (!got)
			return 0;
		r->recoverable = false;
		if (handle_line(r) && stops_reading(r))
			return -1;
		if (callchain_follows(r)) {
			r->recoverable = false;
			if (ps_try_block(r) && stops_reading(r))
				return -1;
		}
	}
}
