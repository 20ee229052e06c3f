/*
 * folded_reader.c - reads folded ("collapsed") stacks: one line per
 * stack, frames root first separated by ';', then a space and a count:
 *
 *   main;parse;lex 12
 *
 * Source: the format FlameGraph's stackcollapse-*.pl scripts write and
 * flamegraph.pl reads (github.com/brendangregg/FlameGraph), as inferno and
 * speedscope also read it; DESIGN.md section 3.6. There is no version and
 * no header.
 *
 * The grammar accepted, per line:
 *   - the count is the token after the last space or tab, once trailing
 *     spaces and tabs are dropped; it is a decimal integer from 0 to
 *     INT64_MAX (no sign, no fraction: FlameGraph's "1.5" is refused);
 *   - the stack is everything before that one space or tab, as it is,
 *     split at every ';' (as flamegraph.pl's /^(.*)\s+?(\d+)$/ splits a
 *     line: FlameGraph's own results hold a last frame " ", written
 *     "...; 3" with two spaces). Frames may hold spaces, tabs,
 *     parentheses, "->", any bytes >= 0x20 (invalid UTF-8 is kept as
 *     bytes);
 *   - an empty field (";;", or a leading or trailing ';') is kept as a
 *     frame without a name, the model's "unknown frame", so that the depth
 *     of the stack is what the line says (writers call it "[unknown]",
 *     as stackcollapse-perf.pl calls a frame it cannot name);
 *   - lines that are empty or hold only spaces and tabs are skipped (an
 *     input of such lines only is an empty profile: the pipeline warns
 *     that it has no samples, and refuses an input of 0 bytes); CRLF
 *     line ends and a last line without a newline are accepted, and so is
 *     a UTF-8 byte-order mark at the very start of the input.
 * Errors, located at line:column: no space before a count, a token that
 * is not a count, a count that is not a decimal integer or too large, an
 * empty stack, NUL or other control bytes (binary data). With --skip-bad
 * each such line is skipped and counted in one warning. A line longer than
 * 64 MiB and a count that makes a stack's sum pass INT64_MAX are errors
 * even with --skip-bad.
 *
 * What maps where:
 *   each field           -> a frame whose function is the field's text,
 *                           without module, address or flags
 *   the line's frames    -> a stack, leaf first (the line reversed); the
 *                           first field (a comm, for stackcollapse-perf)
 *                           stays an ordinary frame, so folded -> folded
 *                           gives the input back, sorted and merged
 *   the count            -> the sampled-count column (role
 *                           PC_ROLE_SAMPLES): folded text cannot say
 *                           whether its counts are samples or summed
 *                           periods, and sample counts are what every
 *                           stack consumer can use. It is column "samples"
 *                           (unit "count", event "samples"), unless an
 *                           earlier input has a samples column (perf's
 *                           NAME_sample of its default event, an ETL
 *                           trace's samples): the counts join that one,
 *                           which becomes the default (merged inputs
 *                           share the column of the same meaning; a
 *                           later input with named events takes in
 *                           "samples" the same way, pipeline/convert.c);
 *                           identical stacks add up
 *   the input            -> source "folded"
 * What is lost: line order and duplicate lines (merged), lines with a count
 * of 0 (they add nothing), the difference between an empty frame and an
 * unknown one (folded -> folded writes "[unknown]" for it), blanks after
 * the count, CRs before the newline, a byte-order mark. Folded text has
 * no modules, addresses, labels or branches.
 *
 * Reading streams through struct pc_input with no allocation per line:
 * memory grows with the distinct frames and stacks, not with the input.
 */
#include "model/format.h"

#include <stdarg.h>

#define FORMAT "folded"
#define COLUMN_TYPE "samples"
#define COLUMN_UNIT "count"
#define MAX_LINE_BYTES (64u << 20)
#define READ_AHEAD (64u << 10)
#define QUOTE_MAX 40

struct folded_reader {
	struct pc_ctx *ctx;
	struct pc_input *in;
	struct pc_model *m;
	size_t column;
	uint64_t line_number;
	/* frame ids of the current line, reused from line to line */
	uint32_t *root_first; /* also the previous line's, while a line is read */
	size_t nroot_first, root_first_cap;
	uint32_t *leaf_first;
	size_t leaf_first_cap;
};

/* One line as found in the window, without its line end. */
struct folded_line {
	const uint8_t *text;
	size_t len;
};

/* Where a line went wrong: 1-based column and the message. */
struct folded_fault {
	size_t column;
	char message[sizeof(((struct pc_error *)0)->message)];
};

static bool is_blank(uint8_t c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

static int fault(struct folded_fault *f, size_t column, const char *fmt, ...)
	PC_PRINTF(3, 4);

static int fault(struct folded_fault *f, size_t column, const char *fmt, ...)
{
	va_list ap;

	f->column = column;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof(f->message), fmt, ap);
	va_end(ap);
	return -1;
}

/* --- parsing one line (shared by read and probe) --- */

struct folded_parse {
	size_t stack_len;    /* the stack is text[0, stack_len) */
	size_t count_column; /* 1-based */
	uint64_t count;
	bool has_semicolon;
};

static int check_bytes(const struct folded_line *line, struct folded_fault *f)
{
	for (size_t i = 0; i < line->len; i++) {
		uint8_t c = line->text[i];

		if (c == '\0')
			return fault(f, i + 1, "unexpected NUL byte (is this binary data?)");
		if (c < 0x20 && c != '\t')
			return fault(f, i + 1, "unexpected control byte 0x%02x (is this "
				     "binary data?)", c);
	}
	return 0;
}

enum count_fault {
	COUNT_NOT_A_COUNT,
	COUNT_NOT_AN_INTEGER,
	COUNT_TOO_LARGE,
};

static int bad_count(struct folded_fault *f, size_t column, const uint8_t *token,
		     size_t len, enum count_fault kind)
{
	char quoted[4 * QUOTE_MAX + 8];

	pc_quote(quoted, sizeof(quoted), token, len, QUOTE_MAX);
	switch (kind) {
	case COUNT_NOT_A_COUNT:
		return fault(f, column, "expected a count after the last space, "
			     "found \"%s\"", quoted);
	case COUNT_NOT_AN_INTEGER:
		return fault(f, column, "count \"%s\" is not a decimal integer", quoted);
	case COUNT_TOO_LARGE:
		break;
	}
	return fault(f, column, "count %s is too large (at most %llu)", quoted,
		     (unsigned long long)PC_COUNT_MAX);
}

static bool all_digits(const uint8_t *token, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!is_digit(token[i]))
			return false;
	return true;
}

/* A count: decimal digits only, at most PC_COUNT_MAX. */
static int parse_count(const uint8_t *token, size_t len, size_t column,
		       uint64_t *count, struct folded_fault *f)
{
	uint64_t value = 0;

	if (!is_digit(token[0]))
		return bad_count(f, column, token, len, COUNT_NOT_A_COUNT);
	if (!all_digits(token, len))
		return bad_count(f, column, token, len, COUNT_NOT_AN_INTEGER);
	for (size_t i = 0; i < len; i++) {
		unsigned digit = (unsigned)(token[i] - '0');

		if (value > (PC_COUNT_MAX - digit) / 10)
			return bad_count(f, column, token, len, COUNT_TOO_LARGE);
		value = value * 10 + digit;
	}
	*count = value;
	return 0;
}

/*
 * Splits a non-blank line into stack and count; the line has no trailing
 * spaces or tabs.
 */
static int parse_line(const struct folded_line *line, struct folded_parse *p,
		      struct folded_fault *f)
{
	const uint8_t *text = line->text;
	size_t space = line->len;

	if (check_bytes(line, f))
		return -1;
	while (space > 0 && !is_blank(text[space - 1]))
		space--;
	if (!space) {
		char quoted[4 * QUOTE_MAX + 8];

		pc_quote(quoted, sizeof(quoted), text, line->len, QUOTE_MAX);
		return fault(f, line->len + 1, "expected a space and a count at the end "
			     "of the line, found \"%s\"", quoted);
	}
	p->count_column = space + 1;
	if (parse_count(text + space, line->len - space, p->count_column, &p->count, f))
		return -1;
	p->stack_len = space - 1;
	if (!p->stack_len)
		return fault(f, 1, "empty stack before the count");
	p->has_semicolon = memchr(text, ';', p->stack_len) != NULL;
	return 0;
}

/* Drops the line end's CR and trailing blanks; true when nothing is left. */
static bool trim_line(struct folded_line *line)
{
	if (line->len && line->text[line->len - 1] == '\r')
		line->len--;
	while (line->len && is_blank(line->text[line->len - 1]))
		line->len--;
	return line->len == 0;
}

static size_t bom_length(const uint8_t *text, size_t len)
{
	return len >= 3 && text[0] == 0xef && text[1] == 0xbb && text[2] == 0xbf ? 3 : 0;
}

/* --- the model side --- */

static uint32_t add_field(struct pc_model *m, const uint8_t *text, size_t len)
{
	struct pc_frame frame = { .function = pc_model_intern(m, text, len) };

	return pc_model_add_frame(m, &frame);
}

/*
 * The frame of the field at depth (from the root). Folded files are mostly
 * sorted, so the previous line's frame at the same depth is tried first:
 * it spares hashing the field.
 */
static uint32_t field_frame(struct folded_reader *r, size_t depth,
			    const uint8_t *text, size_t len)
{
	if (depth < r->nroot_first) {
		uint32_t id = r->root_first[depth];
		pc_str_id name = pc_model_frame(r->m, id)->function;

		if (pc_str_len(r->m, name) == len && !memcmp(pc_str(r->m, name), text, len))
			return id;
	}
	return add_field(r->m, text, len);
}

/* Fills r->root_first and r->leaf_first with the stack's frames; returns how many. */
static size_t add_frames(struct folded_reader *r, const uint8_t *stack, size_t len)
{
	size_t n = 0, start = 0;

	for (size_t i = 0; i <= len; i++) {
		if (i < len && stack[i] != ';')
			continue;
		pc_grow(&r->root_first, &r->root_first_cap, n + 1, sizeof(*r->root_first));
		r->root_first[n] = field_frame(r, n, stack + start, i - start);
		n++;
		start = i + 1;
	}
	r->nroot_first = n;
	pc_grow(&r->leaf_first, &r->leaf_first_cap, n, sizeof(*r->leaf_first));
	for (size_t i = 0; i < n; i++)
		r->leaf_first[i] = r->root_first[n - 1 - i];
	return n;
}

static uint32_t clamp_u32(uint64_t value)
{
	return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

static int add_line(struct folded_reader *r, const struct folded_line *line,
		    const struct folded_parse *p)
{
	struct pc_sample sample = { 0 };
	size_t n;

	if (!p->count)
		return 0;
	n = add_frames(r, line->text, p->stack_len);
	sample.stack = pc_model_add_stack(r->m, r->leaf_first, n);
	if (pc_model_add_sample(r->m, &sample, r->column, p->count))
		return pc_fail_line(&r->ctx->err, FORMAT, clamp_u32(r->line_number),
				    clamp_u32(p->count_column), "the counts of this stack add "
				    "up to more than %llu", (unsigned long long)PC_COUNT_MAX);
	return 0;
}

/* --- reading --- */

/*
 * A bad line: an error, or with --skip-bad a counted warning (which
 * --strict turns back into the located error).
 */
static int bad_line(struct folded_reader *r, const struct folded_fault *f)
{
	uint32_t line = clamp_u32(r->line_number), column = clamp_u32(f->column);

	if (r->ctx->opt.skip_bad &&
	    !pc_warn(r->ctx, FORMAT, "skipped an unparseable line, the first at %s:%u:%u: %s",
		     r->in->name, line, column, f->message))
		return 0;
	pc_error_clear(&r->ctx->err);
	return pc_fail_line(&r->ctx->err, FORMAT, line, column, "%s", f->message);
}

static int handle_line(struct folded_reader *r, struct folded_line *line)
{
	struct folded_parse p;
	struct folded_fault f;

	if (r->line_number == 1) {
		size_t bom = bom_length(line->text, line->len);

		line->text += bom;
		line->len -= bom;
	}
	if (trim_line(line))
		return 0;
	if (parse_line(line, &p, &f))
		return bad_line(r, &f);
	return add_line(r, line, &p);
}

/*
 * Finds the next line in the window, refilling it as needed. Returns 1
 * with the line and the bytes to consume (the line and its newline), 0 at
 * the end of the input, -1 on error.
 */
static int next_line(struct folded_reader *r, struct folded_line *line,
		     size_t *consumed)
{
	const uint8_t *data, *newline;
	size_t have = pc_input_fill(r->in, 1, &data), scanned = 0;

	while (!(newline = memchr(data + scanned, '\n', have - scanned))) {
		size_t more;

		if (pc_input_check_io(r->in, &r->ctx->err))
			return -1;
		if (have > MAX_LINE_BYTES)
			return pc_fail_line(&r->ctx->err, FORMAT,
					    clamp_u32(r->line_number + 1), 1,
					    "line longer than %u MiB (is this folded text?)",
					    MAX_LINE_BYTES >> 20);
		scanned = have;
		more = pc_input_fill(r->in, have + (have < READ_AHEAD ? READ_AHEAD : have),
				     &data);
		if (more == have)
			break;
		have = more;
	}
	if (pc_input_check_io(r->in, &r->ctx->err))
		return -1;
	if (!have)
		return 0;
	line->text = data;
	line->len = newline ? (size_t)(newline - data) : have;
	*consumed = newline ? line->len + 1 : have;
	if (line->len > MAX_LINE_BYTES) /* the same limit whatever the buffer held */
		return pc_fail_line(&r->ctx->err, FORMAT, clamp_u32(r->line_number + 1), 1,
				    "line longer than %u MiB (is this folded text?)",
				    MAX_LINE_BYTES >> 20);
	return 1;
}

static int read_lines(struct folded_reader *r)
{
	for (;;) {
		struct folded_line line;
		size_t consumed = 0;
		int got = next_line(r, &line, &consumed);

		if (got <= 0)
			return got;
		r->line_number++;
		if (handle_line(r, &line))
			return -1;
		pc_input_consume(r->in, consumed);
	}
}

/*
 * The samples column of an earlier input (perf's NAME_sample for its
 * default event, else its first one), or -1: folded counts join it, and it
 * becomes the default, the one column that holds every input's counts.
 */
static int earlier_samples_column(const struct pc_model *m)
{
	size_t counted = pc_model_default_count_column(m);

	if (counted < pc_model_ncolumns(m) && pc_model_column(m, counted)->role == PC_ROLE_SAMPLES)
		return (int)counted;
	return pc_model_find_column(m, PC_ROLE_SAMPLES, 0);
}

static int start_model(struct folded_reader *r)
{
	int column = earlier_samples_column(r->m);

	if (column >= 0)
		pc_model_set_default_column(r->m, column);
	else
		column = pc_model_add_event_column(r->m, COLUMN_TYPE, COLUMN_UNIT, COLUMN_TYPE,
						   PC_ROLE_SAMPLES);
	if (column < 0)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "too many columns: the "
			       "profile already has %d", PC_MAX_COLUMNS);
	r->column = (size_t)column;
	if (pc_model_default_column(r->m) < 0)
		pc_model_set_default_column(r->m, column);
	pc_model_add_source(r->m, FORMAT);
	return 0;
}

static int folded_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct folded_reader r = { .ctx = ctx, .in = in, .m = m };
	int ret = start_model(&r) || read_lines(&r) ? -1 : 0;

	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	free(r.root_first);
	free(r.leaf_first);
	return ret;
}

/* --- probe and descriptor --- */

/*
 * Every line of the head must parse: with at least one ';' the score is
 * strong, with none (e.g. "main 5") a guess below WEAK; blank lines alone
 * (the whole input) are WEAK. A head shorter
 * than PC_PROBE_BYTES is the whole input, so its last line is complete
 * even without a newline; in a full head the cut last line is left out,
 * unless it is all there is (a first line longer than the head): then
 * clean bytes with a ';' are a WEAK guess.
 */
#define PROBE_NO_SEMICOLON (PC_PROBE_WEAK - 5)

/*
 * A whole input of blank lines only (no stacks: an empty profile, as
 * stackcollapse scripts write when they fold nothing) is WEAK: no other
 * format has blank text to claim.
 */
static int probe_score(size_t lines, bool semicolon, bool whole)
{
	if (!lines)
		return whole ? PC_PROBE_WEAK : PC_PROBE_NO;
	return semicolon ? PC_PROBE_STRONG : PROBE_NO_SEMICOLON;
}

static int probe_cut_line(const uint8_t *head, size_t len)
{
	struct folded_line line = { .text = head, .len = len };
	struct folded_fault f;

	if (check_bytes(&line, &f) || !memchr(head, ';', len))
		return PC_PROBE_NO;
	return PC_PROBE_WEAK;
}

static int folded_probe(const uint8_t *head, size_t len)
{
	size_t at = bom_length(head, len), lines = 0;
	bool semicolon = false, whole = len < PC_PROBE_BYTES;

	while (at < len) {
		const uint8_t *newline = memchr(head + at, '\n', len - at);
		struct folded_line line = { .text = head + at };
		struct folded_parse p;
		struct folded_fault f;

		if (!newline && !whole)
			return lines ? probe_score(lines, semicolon, false) :
				       probe_cut_line(head + at, len - at);
		line.len = newline ? (size_t)(newline - (head + at)) : len - at;
		at += line.len + 1;
		if (trim_line(&line))
			continue;
		if (parse_line(&line, &p, &f))
			return PC_PROBE_NO;
		lines++;
		semicolon |= p.has_semicolon;
	}
	return probe_score(lines, semicolon, whole && len > 0);
}

static const char *const folded_aliases[] = { "collapsed", NULL };
static const char *const folded_extensions[] = { ".folded", ".collapsed", NULL };

const struct pc_reader pc_folded_reader = {
	.name = "folded",
	.aliases = folded_aliases,
	.extensions = folded_extensions,
	.summary = "folded stacks (FlameGraph's stackcollapse output: root;...;leaf COUNT)",
	.provides = PC_PART_SYMBOLS | PC_PART_STACKS,
	.probe = folded_probe,
	.read = folded_read,
};
