/*
 * perf_script_grammar.c - the grammar of one `perf script` line: a sample
 * header's fields (comm, pid/tid, cpu, time, period, event) and what follows
 * them, a callchain frame (address, symbol without its offset, dso),
 * brstack entries, srclines, side records (MMAP with its build id,
 * COMM/FORK/EXIT, LOST) and
 * "# key : value" header lines. Pure parsing: fields come out as offsets
 * into the line, and nothing here touches the model.
 *
 * How lines are told apart (research/perfscript.md sections 2.1-2.11):
 *   - '#' lines are header comments; blank lines end a callchain;
 *   - a sample header is found by anchoring on its time token
 *     (DIGITS.DIGITS:), else on its event token (the first token ending in
 *     ':'), else on a pid/tid token followed by the end of the line or an
 *     address; the comm is everything before the [pid/]tid token (and
 *     [cpu], misc and tod) that precedes the anchor, so "my worker 0 6132"
 *     is comm "my worker 0", tid 6132. Without a time, a number before the
 *     event is the period when it is right-aligned in perf's 10 columns. A
 *     lone number with no comm (-F pid,ip,dso) is read as the pid;
 *   - after the event comes the remainder: empty (a callchain follows), a
 *     "[FLAGS] FROM => TO" branch, brstack entries, or a tracepoint payload
 *     and/or flags ending in a single-line "ip sym (dso)": the ip is the
 *     last hex token right-aligned in perf's 16 columns (after a payload
 *     the line must end in its "(dso)"). perf's insn, ilen and IPC fields,
 *     and what xed made of insn (" \t\tINSTRUCTION", perf script --xed),
 *     end the remainder. brstacksym entries glued to the 16-column ip or to
 *     a "(dso)" are split from them. Text that is none of these where no
 *     event was printed is an error ("expected an event name");
 *   - a frame line is an optional indent, a hex address (at most 16 digits)
 *     and optionally the symbol and "(dso)"; the dso is the last balanced
 *     parenthesised group preceded by a blank. "ADDR  (DSO)" (two blanks:
 *     perf printed an empty symbol) has the function " ", the name
 *     stackcollapse-perf.pl gives it; a srcline line is a two-space-indented
 *     line after a frame.
 * Which of these a line may be depends on the lines before it: see
 * perf_script_lines.c.
 */
#include "readers/perf_script_grammar.h"

#include "base/error.h"

#define MAX_TOKENS 48
#define FEW_TOKENS 12
#define MAX_ADDRESS_DIGITS 16
#define IP_COLUMNS 16               /* perf prints an ip as %16lx */
#define PERIOD_COLUMNS 10           /* and a period as %10lu */
#define QUOTE_MAX 40

/* ---- bytes ---- */

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

bool ps_parse_decimal(const char *s, size_t n, uint64_t *value)
{
	uint64_t v = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!ps_is_digit(s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*value = v;
	return true;
}

/* Parses 1..16 hex digits. */
static bool parse_hex(const char *s, size_t n, uint64_t *value)
{
	uint64_t v = 0;

	if (!n || n > MAX_ADDRESS_DIGITS)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = pc_hex_digit(s[i]);

		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*value = v;
	return true;
}

static size_t hex_run(const char *s, size_t at, size_t end)
{
	while (at < end && pc_hex_digit(s[at]) >= 0)
		at++;
	return at;
}

/* Parses [-]digits as a pid or tid. */
static bool parse_id(const char *s, size_t n, int64_t *id)
{
	uint64_t v;
	bool minus = n && s[0] == '-';

	if (!ps_parse_decimal(s + minus, n - minus, &v) || v > INT32_MAX)
		return false;
	*id = minus ? -(int64_t)v : (int64_t)v;
	return true;
}

/* ---- syntax errors and tokens ---- */

/* "expected EXPECTED, found 'TEXT'" with TEXT = line[at, end) quoted. */
int ps_syntax_error(struct ps_syntax *syn, const char *line, size_t at, size_t end,
		    const char *expected)
{
	char found[QUOTE_MAX * 4 + 8];

	syn->col = at;
	if (at >= end) {
		snprintf(syn->message, sizeof(syn->message), "expected %s, found the end of the line",
			 expected);
		return -1;
	}
	pc_quote(found, sizeof(found), line + at, end - at, QUOTE_MAX);
	snprintf(syn->message, sizeof(syn->message), "expected %s, found '%s'", expected, found);
	return -1;
}

struct ps_token {
	uint32_t start, end; /* in the line */
	uint32_t blanks;     /* blanks just before it */
};

/* Splits line[from, to) at blanks into at most max tokens. */
static size_t tokenize(const char *s, size_t from, size_t to, struct ps_token *tok, size_t max)
{
	size_t n = 0, at = from, before = 0;

	while (before < from && ps_is_blank(s[from - 1 - before]))
		before++;
	while (n < max) {
		size_t start = ps_skip_blanks(s, at, to), end = start;

		if (start == to)
			break;
		while (end < to && !ps_is_blank(s[end]))
			end++;
		tok[n].start = (uint32_t)start;
		tok[n].end = (uint32_t)end;
		tok[n].blanks = (uint32_t)(start - at + (n ? 0 : before));
		n++;
		at = end;
	}
	return n;
}

static inline const char *tok_text(const char *s, const struct ps_token *t, size_t *n)
{
	*n = t->end - t->start;
	return s + t->start;
}

static bool tok_is_digits(const char *s, const struct ps_token *t)
{
	for (size_t i = t->start; i < t->end; i++)
		if (!ps_is_digit(s[i]))
			return false;
	return t->end > t->start;
}

static bool tok_is_hex(const char *s, const struct ps_token *t)
{
	size_t n = t->end - t->start;

	return n && n <= MAX_ADDRESS_DIGITS && hex_run(s, t->start, t->end) == t->end;
}

/* An address right-aligned in perf's 16 columns after a blank. */
static bool tok_is_wide_hex(const char *s, const struct ps_token *t)
{
	return tok_is_hex(s, t) && t->blanks + (t->end - t->start) > IP_COLUMNS;
}

/* A period right-aligned in perf's 10 columns (or too long to be a tid). */
static bool tok_is_wide_period(const char *s, const struct ps_token *t)
{
	size_t n = t->end - t->start;

	return tok_is_digits(s, t) && (n >= 8 || t->blanks + n > PERIOD_COLUMNS);
}

/* "TID" or "PID/TID" (either may be -1). */
static bool tok_is_tidfield(const char *s, const struct ps_token *t, int64_t *pid,
			    bool *has_pid, int64_t *tid)
{
	size_t n;
	const char *text = tok_text(s, t, &n);
	const char *slash = memchr(text, '/', n);

	if (!slash) {
		*has_pid = false;
		return parse_id(text, n, tid);
	}
	*has_pid = true;
	return parse_id(text, (size_t)(slash - text), pid) &&
	       parse_id(slash + 1, n - (size_t)(slash - text) - 1, tid);
}

static bool tok_is_tid(const char *s, const struct ps_token *t)
{
	int64_t pid, tid;
	bool has_pid;

	return tok_is_tidfield(s, t, &pid, &has_pid, &tid);
}

static bool tok_is_cpu(const char *s, const struct ps_token *t, uint32_t *cpu)
{
	uint64_t v;
	size_t n;
	const char *text = tok_text(s, t, &n);

	if (n < 3 || text[0] != '[' || text[n - 1] != ']' ||
	    !ps_parse_decimal(text + 1, n - 2, &v) || v > UINT32_MAX)
		return false;
	*cpu = (uint32_t)v;
	return true;
}

/* SECONDS.FRACTION: as nanoseconds (saturated). */
static bool tok_is_time(const char *s, const struct ps_token *t, uint64_t *ns)
{
	size_t n, dot;
	const char *text = tok_text(s, t, &n);
	uint64_t secs = 0, frac = 0, scale = 1000000000;

	if (n < 4 || text[n - 1] != ':' || !ps_is_digit(text[0]))
		return false;
	for (dot = 0; dot < n - 1 && ps_is_digit(text[dot]); dot++)
		;
	if (text[dot] != '.' || dot + 2 > n - 1)
		return false;
	for (size_t i = dot + 1; i < n - 1; i++) {
		if (!ps_is_digit(text[i]))
			return false;
		if (scale > 1) {
			scale /= 10;
			frac += (uint64_t)(text[i] - '0') * scale;
		}
	}
	if (!ps_parse_decimal(text, dot, &secs) || secs > UINT64_MAX / 1000000000 - 1)
		secs = UINT64_MAX / 1000000000 - 1;
	*ns = secs * 1000000000 + frac;
	return true;
}

static bool tok_has_prefix(const char *s, const struct ps_token *t, const char *prefix)
{
	return ps_has_prefix(s + t->start, t->end - t->start, prefix);
}

static bool tok_is_event(const char *s, const struct ps_token *t)
{
	return t->end - t->start >= 2 && s[t->end - 1] == ':';
}

/* perf's misc field: a few letters (K, U, H, G, g, M, E, S, p). */
static bool tok_is_misc(const char *s, const struct ps_token *t)
{
	size_t n = t->end - t->start;

	if (!n || n > 5)
		return false;
	for (size_t i = t->start; i < t->end; i++)
		if (!strchr("KUHGgMESpx", s[i]))
			return false;
	return true;
}

/* perf's tod field: YYYY-MM-DD HH:MM:SS[.frac]. */
static bool tok_is_tod_date(const char *s, const struct ps_token *t)
{
	const char *p = s + t->start;

	return t->end - t->start == 10 && p[4] == '-' && p[7] == '-' && ps_is_digit(p[0]) &&
	       ps_is_digit(p[9]);
}

static bool tok_is_tod_time(const char *s, const struct ps_token *t)
{
	const char *p = s + t->start;

	return t->end - t->start >= 8 && p[2] == ':' && p[5] == ':' && ps_is_digit(p[0]) &&
	       ps_is_digit(p[7]);
}

static void header_set_tidfield(struct ps_header *h, const char *s, const struct ps_token *t)
{
	h->has_tid = tok_is_tidfield(s, t, &h->pid, &h->has_pid, &h->tid);
}

static void header_set_comm(struct ps_header *h, const struct ps_token *tok, size_t first,
			    size_t end)
{
	if (end > first) {
		h->comm_start = tok[first].start;
		h->comm_end = tok[end - 1].end;
	}
}

/* comm [pid/]tid [cpu]: the fields in tok[first, end), read from the end. */
static void header_task(struct ps_header *h, const char *s, const struct ps_token *tok,
			size_t first, size_t end)
{
	if (end > first && tok_is_cpu(s, &tok[end - 1], &h->cpu)) {
		h->has_cpu = true;
		end--;
	}
	if (end > first && tok_is_tid(s, &tok[end - 1])) {
		header_set_tidfield(h, s, &tok[end - 1]);
		end--;
	}
	header_set_comm(h, tok, first, end);
}

/* The optional period and event after the anchor at tok[i]. */
static void header_period_event(struct ps_header *h, const char *s, size_t len,
				const struct ps_token *tok, size_t n, size_t i)
{
	if (i < n && tok_is_digits(s, &tok[i]) &&
	    ((i + 1 < n && tok_is_event(s, &tok[i + 1])) || !tok_is_wide_hex(s, &tok[i])) &&
	    ps_parse_decimal(s + tok[i].start, tok[i].end - tok[i].start, &h->period)) {
		h->has_period = true;
		i++;
	}
	if (i < n && tok_is_event(s, &tok[i])) {
		h->has_event = true;
		h->event_start = tok[i].start;
		h->event_end = tok[i].end - 1;
		i++;
	}
	h->rest = i < n ? tok[i].start : len;
}

/* comm [pid/]tid [cpu] [misc] [tod] TIME: ... */
static void header_timed(struct ps_header *h, const char *s, size_t len,
			 const struct ps_token *tok, size_t n, size_t first, size_t k)
{
	size_t j = k;

	h->has_time = true;
	if (j >= first + 2 && tok_is_tod_time(s, &tok[j - 1]) && tok_is_tod_date(s, &tok[j - 2]))
		j -= 2;
	if (j >= first + 2 && tok_is_misc(s, &tok[j - 1]) &&
	    (tok_is_cpu(s, &tok[j - 2], &h->cpu) || tok_is_tid(s, &tok[j - 2])))
		j--;
	header_task(h, s, tok, first, j);
	header_period_event(h, s, len, tok, n, k + 1);
}

/* comm [pid/]tid [cpu] [period] EVENT: ... (no time field) */
static void header_event(struct ps_header *h, const char *s, size_t len,
			 const struct ps_token *tok, size_t n, size_t first, size_t e)
{
	size_t j = e;
	uint32_t cpu;

	if (j >= first + 2 && tok_is_wide_period(s, &tok[j - 1]) &&
	    (tok_is_tid(s, &tok[j - 2]) || tok_is_cpu(s, &tok[j - 2], &cpu)) &&
	    ps_parse_decimal(s + tok[j - 1].start, tok[j - 1].end - tok[j - 1].start, &h->period)) {
		h->has_period = true;
		j--;
	}
	header_task(h, s, tok, first, j);
	h->has_event = true;
	h->event_start = tok[e].start;
	h->event_end = tok[e].end - 1;
	h->rest = e + 1 < n ? tok[e + 1].start : len;
}

/* comm [pid/]tid [cpu] then an address or nothing (no time, no event). */
static int header_bare(struct ps_header *h, const char *s, size_t len,
		       const struct ps_token *tok, size_t n, size_t first, struct ps_syntax *syn)
{
	size_t j, i;
	uint32_t cpu;

	/* perf prints a blank after the tid even at the end of the line */
	for (j = first; j < n; j++)
		if (tok_is_tid(s, &tok[j]) &&
		    (j + 1 == n ? tok[j].end < len : tok_is_cpu(s, &tok[j + 1], &cpu) ||
						     tok_is_wide_hex(s, &tok[j + 1])))
			break;
	if (j == n)
		return ps_syntax_error(syn, s, n ? tok[0].start : 0, len,
				       "a sample header (COMM TID [CPU] TIME: [PERIOD] EVENT:)");
	header_set_tidfield(h, s, &tok[j]);
	header_set_comm(h, tok, first, j);
	if (j == first && !h->has_pid) {
		/* a lone number without comm: -F pid,... */
		h->has_pid = true;
		h->pid = h->tid;
		h->has_tid = false;
	}
	i = j + 1;
	if (i < n && tok_is_cpu(s, &tok[i], &h->cpu)) {
		h->has_cpu = true;
		i++;
	}
	h->rest = i < n ? tok[i].start : len;
	return 0;
}

/* The side record token: first, or right after the time, tid or cpu. */
static bool find_side_record(struct ps_header *h, const char *s, const struct ps_token *tok,
			     size_t n)
{
	uint64_t ns;
	uint32_t cpu;

	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *text = tok_text(s, &tok[i], &len);

		if (!ps_has_prefix(text, len, "PERF_RECORD_"))
			continue;
		if (i && !tok_is_time(s, &tok[i - 1], &ns) && !tok_is_tid(s, &tok[i - 1]) &&
		    !tok_is_cpu(s, &tok[i - 1], &cpu))
			continue;
		h->side = true;
		h->side_at = tok[i].start;
		return true;
	}
	return false;
}

/* Parses the fields of a sample header (or finds a side record). */
int ps_parse_header(const char *s, size_t len, struct ps_header *h, struct ps_syntax *syn)
{
	struct ps_token tok[MAX_TOKENS];
	size_t n = tokenize(s, 0, len, tok, FEW_TOKENS), first = 0, k;
	uint64_t ns;

	memset(h, 0, sizeof(*h));
	/* the fields end within a few tokens: the rest is read only when needed */
	for (k = 0; k < n && !tok_is_time(s, &tok[k], &ns); k++)
		;
	if (n == FEW_TOKENS && k + 3 >= n)
		n += tokenize(s, tok[n - 1].end, len, tok + n, MAX_TOKENS - n);
	if (find_side_record(h, s, tok, n))
		return 0;
	/* guest samples: VM:%5d VCPU:%03d */
	if (first < n && tok_has_prefix(s, &tok[first], "VM:"))
		first += tok[first].end - tok[first].start == 3 && first + 1 < n ? 2 : 1;
	if (first < n && tok_has_prefix(s, &tok[first], "VCPU:"))
		first++;
	for (k = first; k < n; k++)
		if (tok_is_time(s, &tok[k], &ns))
			break;
	if (k < n) {
		h->time_ns = ns;
		header_timed(h, s, len, tok, n, first, k);
		return 0;
	}
	for (k = first; k < n; k++)
		if (tok_is_event(s, &tok[k]))
			break;
	if (k < n) {
		header_event(h, s, len, tok, n, first, k);
		return 0;
	}
	return header_bare(h, s, len, tok, n, first, syn);
}

/* ---- frames ---- */

/*
 * The address token at s[at...): HEX or BUILDID:HEX followed by a blank or
 * end; returns its end, or 0 when it is not one.
 */
size_t ps_address_token_end(const char *s, size_t at, size_t end)
{
	size_t hex = hex_run(s, at, end);

	if (hex == at)
		return 0;
	if (hex < end && s[hex] == ':') {
		size_t second = hex_run(s, hex + 1, end);

		if (second == hex + 1)
			return 0;
		hex = second;
	}
	return hex == end || ps_is_blank(s[hex]) ? hex : 0;
}

bool ps_is_ip_column(const char *s, size_t first, size_t end)
{
	struct ps_token tok = { (uint32_t)first, (uint32_t)end, (uint32_t)first };

	return tok_is_wide_hex(s, &tok);
}

/*
 * Strips a trailing "+0x<hex>" from text[0, *len); true with its value in
 * *offset when there was one (of at most 16 digits).
 */
static bool strip_offset(const char *text, size_t *len, uint64_t *offset)
{
	size_t n = *len, hex = n;

	while (hex > 0 && pc_hex_digit(text[hex - 1]) >= 0)
		hex--;
	if (hex < n && hex >= 3 && text[hex - 1] == 'x' && text[hex - 2] == '0' &&
	    text[hex - 3] == '+') {
		*len = hex - 3;
		return parse_hex(text + hex, n - hex, offset);
	}
	return false;
}

/*
 * The start of the last balanced "(...)" group ending at s[end - 1], or
 * end when there is none.
 */
static size_t last_group(const char *s, size_t start, size_t end)
{
	int depth = 0;

	if (end == start || s[end - 1] != ')')
		return end;
	for (size_t i = end; i > start; i--) {
		if (s[i - 1] == ')')
			depth++;
		else if (s[i - 1] == '(' && --depth == 0)
			return i - 1;
	}
	return end;
}

/* Parses line[at, end) (no blanks around) as a frame. */
int ps_parse_frame(const char *s, size_t at, size_t end, struct ps_frame_text *f,
		   struct ps_syntax *syn)
{
	size_t addr_end = ps_address_token_end(s, at, end), rest, open, word = at;
	const char *colon;

	memset(f, 0, sizeof(*f));
	while (word < end && !ps_is_blank(s[word]))
		word++;
	if (!addr_end)
		return ps_syntax_error(syn, s, at, word, "a hexadecimal address");
	colon = memchr(s + at, ':', addr_end - at);
	if (colon) {
		f->build_id = s + at;
		f->build_id_len = (size_t)(colon - (s + at));
		at = (size_t)(colon - s) + 1;
	}
	if (!parse_hex(s + at, addr_end - at, &f->address))
		return ps_syntax_error(syn, s, at, addr_end,
				       "an address of at most 16 hexadecimal digits");
	rest = ps_skip_blanks(s, addr_end, end);
	open = last_group(s, rest, end);
	if (open < end && (open == rest || ps_is_blank(s[open - 1]))) {
		f->dso = s + open + 1;
		f->dso_len = end - open - 2;
		end = ps_trim_end(s, rest, open);
		if (ps_equals(f->dso, f->dso_len, "inlined")) {
			f->inlined = true;
			f->dso = NULL;
		} else {
			uint64_t dsoff;

			strip_offset(f->dso, &f->dso_len, &dsoff);
		}
	}
	if (end == rest && f->dso && open - addr_end >= 2) {
		/* "ADDR  (DSO)": perf printed an empty symbol; stackcollapse calls it " " */
		f->sym = " ";
		f->sym_len = 1;
	} else if (end > rest) {
		f->sym = s + rest;
		f->sym_len = end - rest;
		f->has_offset = strip_offset(f->sym, &f->sym_len, &f->offset);
		if (ps_equals(f->sym, f->sym_len, "[unknown]") || !f->sym_len)
			f->sym = NULL;
	}
	return 0;
}

/* ---- branch stack entries ---- */

/* Scans one end at s[at, end) up to the '/' after it; returns that '/' or end. */
size_t ps_branch_end_scan(const char *s, size_t at, size_t end)
{
	size_t i = at;
	int depth = 0;

	while (i < end && (depth || s[i] != '/')) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth)
			depth--;
		i++;
	}
	return i;
}

static size_t scan_branch_end(const char *s, size_t at, size_t end, struct ps_branch_end *b)
{
	size_t i = ps_branch_end_scan(s, at, end);

	memset(b, 0, sizeof(*b));
	b->text = s + at;
	b->len = i - at;
	return i;
}

/* Splits an end into address or symbol and dso. */
static bool decode_branch_end(struct ps_branch_end *b)
{
	const char *t = b->text;
	size_t n = b->len, open = last_group(t, 0, n), hex;

	if (open < n && open > 0) {
		b->dso = t + open + 1;
		b->dso_len = n - open - 2;
		n = open;
	}
	if (!n)
		return false;
	hex = hex_run(t, 0, n);
	if (hex > 0 && hex < n && t[hex] == ':' && ps_has_prefix(t + hex + 1, n - hex - 1, "0x")) {
		b->build_id = t;
		b->build_id_len = hex;
		t += hex + 1;
		n -= hex + 1;
	}
	if (ps_has_prefix(t, n, "0x")) {
		b->has_address = true;
		return parse_hex(t + 2, n - 2, &b->address);
	}
	b->sym = t;
	b->sym_len = n;
	b->has_offset = strip_offset(b->sym, &b->sym_len, &b->offset);
	if (ps_equals(b->sym, b->sym_len, "[unknown]") || !b->sym_len)
		b->sym = NULL;
	return true;
}

/* The '/'-separated flag fields after FROM/TO: P|M|-, X|-, A|-, cycles... */
static bool branch_flags_ok(const char *s, size_t at, size_t end)
{
	const char *t = s + at;
	size_t n = end - at;

	return n >= 6 && strchr("PM-", t[0]) && t[1] == '/' && strchr("X-", t[2]) &&
	       t[3] == '/' && strchr("A-", t[4]) && t[5] == '/';
}

/*
 * Parses one entry s[at, end) "FROM/TO[/FLAGS...]": only the first two
 * fields are read. Symbol forms (brstacksym) need the flags to be told
 * from text.
 */
bool ps_parse_branch_entry(const char *s, size_t at, size_t end, struct ps_branch_end *from,
			   struct ps_branch_end *to)
{
	size_t slash = scan_branch_end(s, at, end, from), second;

	if (slash >= end)
		return false;
	second = scan_branch_end(s, slash + 1, end, to);
	if (!decode_branch_end(from) || !decode_branch_end(to) ||
	    from->has_address != to->has_address)
		return false;
	if (second < end)
		return from->has_address || branch_flags_ok(s, second + 1, end);
	return from->has_address;
}

bool ps_is_branch_entry(const char *s, size_t at, size_t end)
{
	struct ps_branch_end from, to;

	return ps_parse_branch_entry(s, at, end, &from, &to);
}

/* Where the run of brstack entries that ends line[start, end) begins (end: none). */
size_t ps_trailing_branches(const char *s, size_t start, size_t end)
{
	size_t run = end;

	for (;;) {
		size_t tok_end = ps_trim_end(s, start, run), tok_start = tok_end;

		while (tok_start > start && !ps_is_blank(s[tok_start - 1]))
			tok_start--;
		if (tok_start == tok_end || !ps_is_branch_entry(s, tok_start, tok_end))
			return run == end ? end : ps_skip_blanks(s, run, end);
		run = tok_start;
	}
}

/* ---- the header remainder ---- */

/* The last address right-aligned in 16 columns in line[start, end). */
static size_t last_wide_address(const char *s, size_t start, size_t end)
{
	struct ps_token tok[MAX_TOKENS];
	size_t found = end, at = start;

	while (at < end) {
		size_t n = tokenize(s, at, end, tok, MAX_TOKENS);

		for (size_t i = 0; i < n; i++)
			if (tok_is_wide_hex(s, &tok[i]))
				found = tok[i].start;
		if (n < MAX_TOKENS)
			break;
		at = tok[n - 1].end;
	}
	return found;
}

/*
 * Cuts line[start, end) before perf's insn, ilen and IPC fields and before
 * what xed -F insn: made of the insn field (perf script --xed): the line up
 * to "insn:", two tabs, the instruction (xed's examples/xed-disas-filter.c).
 */
size_t ps_cut_extras(const char *s, size_t start, size_t end)
{
	static const char *const fields[] = { " insn:", " ilen:", " IPC:", " \t\t" };

	/* one pass; a field starts with a blank and one of 'i', 'I' or a tab */
	for (size_t at = start; at + 1 < end; at++) {
		if (s[at] != ' ' || (s[at + 1] != 'i' && s[at + 1] != 'I' && s[at + 1] != '\t'))
			continue;
		for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++) {
			size_t n = strlen(fields[i]);

			if (at + n <= end && !memcmp(s + at, fields[i], n))
				return ps_trim_end(s, start, at);
		}
	}
	return ps_trim_end(s, start, end);
}

static const char *find_arrow(const char *s, size_t start, size_t end)
{
	for (size_t at = start; at + 4 <= end; at++)
		if (s[at] == ' ' && s[at + 1] == '=' && s[at + 2] == '>' && ps_is_blank(s[at + 3]))
			return s + at;
	return NULL;
}

static int classify_branch(const char *s, size_t start, size_t end, const char *arrow,
			   struct ps_rest *rest, struct ps_syntax *syn)
{
	size_t at = (size_t)(arrow - s), from_end = ps_trim_end(s, start, at);
	size_t from = last_wide_address(s, start, from_end), to = ps_skip_blanks(s, at + 3, end);

	if (from == from_end && ps_address_token_end(s, start, from_end))
		from = start;
	if (from == from_end)
		return ps_syntax_error(syn, s, start, from_end,
				       "a branch source address before '=>'");
	if (!ps_address_token_end(s, to, end))
		return ps_syntax_error(syn, s, to, end, "a branch target address after '=>'");
	rest->kind = PS_REST_BRANCH;
	rest->flags_start = start;
	rest->flags_end = ps_trim_end(s, start, from);
	rest->frame_start = from;
	rest->frame_end = from_end;
	rest->to_start = to;
	rest->to_end = end;
	return 0;
}

/* The end of the balanced "(...)" group that starts at s[at], or 0. */
static size_t group_end(const char *s, size_t at, size_t end)
{
	int depth = 0;

	for (size_t i = at; i < end; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i + 1;
	}
	return 0;
}

static size_t token_end(const char *s, size_t at, size_t end)
{
	while (at < end && !ps_is_blank(s[at]))
		at++;
	return at;
}

size_t ps_split_glued_ip(const char *s, size_t field_end, size_t at, size_t end)
{
	size_t ip_end = field_end + (field_end ? 18 : 17), tok_end = token_end(s, at, end);

	if (at >= ip_end || ip_end >= tok_end || hex_run(s, at, ip_end) != ip_end ||
	    !ps_is_branch_entry(s, ip_end, tok_end))
		return 0;
	return ip_end;
}

/*
 * perf prints brstacksym entries right after the field before them, so a
 * frame's "(DSO)" is glued to the first entry: "... work+0xc (/x)work+0xa(/x)/...".
 * A run of entries that starts with a group followed by an entry, after a
 * frame that has no dso yet, starts after that group.
 */
static size_t unglue_dso(const char *s, size_t start, size_t br, size_t end)
{
	size_t before = ps_trim_end(s, start, br), tok_end = token_end(s, br, end), close;

	if (br >= end || s[br] != '(' || before == start || s[before - 1] == ')')
		return br;
	close = group_end(s, br, tok_end);
	if (!close || close == tok_end || !ps_is_branch_entry(s, close, tok_end))
		return br;
	return close;
}

/* Where the brstack entries that end line[start, end) begin (end: none). */
static size_t find_entries(const char *s, size_t start, size_t end)
{
	size_t glued = ps_split_glued_ip(s, ps_trim_end(s, 0, start), start, end);

	if (glued && ps_trailing_branches(s, glued, end) == glued)
		return glued;
	return unglue_dso(s, start, ps_trailing_branches(s, start, end), end);
}

/* What follows the fields of a header: see enum ps_rest_kind. */
int ps_classify_rest(const char *s, size_t len, const struct ps_header *h,
		     struct ps_rest *rest, struct ps_syntax *syn)
{
	size_t start = h->rest, end = ps_trim_end(s, h->rest, len), frame;
	const char *arrow;

	memset(rest, 0, sizeof(*rest));
	if (start >= end)
		return 0;
	end = ps_cut_extras(s, start, end);
	arrow = find_arrow(s, start, end);
	if (arrow)
		return classify_branch(s, start, end, arrow, rest, syn);
	rest->br_start = find_entries(s, start, end);
	rest->br_end = rest->br_start < end ? end : rest->br_start;
	end = ps_trim_end(s, start, rest->br_start);
	if (start >= end) {
		rest->kind = rest->br_end > rest->br_start ? PS_REST_ENTRIES : PS_REST_NONE;
		return 0;
	}
	/*
	 * After a payload the frame must end in its "(dso)": a payload may hold
	 * an aligned hex word itself ("napi struct ffff88810c9c6a50 for ...").
	 */
	frame = last_wide_address(s, start, end);
	if (frame > start && frame < end && s[end - 1] != ')')
		frame = end;
	if (frame == end && ps_address_token_end(s, start, end) && s[end - 1] == ')')
		frame = start;
	if (frame < end) {
		rest->kind = PS_REST_SINGLE;
		rest->frame_start = frame;
		rest->frame_end = end;
		return 0;
	}
	if (!h->has_event)
		return ps_syntax_error(syn, s, start, end, "an event name ending in ':'");
	rest->kind = PS_REST_PAYLOAD;
	return 0;
}

/* ---- srclines ---- */

void ps_parse_srcline(const char *s, size_t start, size_t end, struct ps_srcline *src)
{
	size_t colon;
	uint64_t number;

	memset(src, 0, sizeof(*src));
	end = ps_cut_extras(s, start, end);
	if (has_suffix(s + start, end - start, " (inlined)")) {
		end = ps_trim_end(s, start, end - strlen(" (inlined)"));
		src->inlined = true;
	}
	for (colon = end; colon > start && s[colon - 1] != ':'; colon--)
		;
	if (colon > start + 1 && ps_parse_decimal(s + colon, end - colon, &number) &&
	    number <= UINT32_MAX && !ps_equals(s + start, colon - 1 - start, "??")) {
		src->has_file = true;
		src->file_start = start;
		src->file_end = colon - 1;
		src->line = (uint32_t)number;
	}
}

/* ---- side records ---- */

enum ps_side_kind ps_side_kind(const char *s, size_t len, size_t at, size_t *body)
{
	const char *text = s + at;
	size_t n = len - at, mmap = strlen("PERF_RECORD_MMAP");

	if (ps_has_prefix(text, n, "PERF_RECORD_MMAP2")) {
		*body = at + strlen("PERF_RECORD_MMAP2");
		return PS_SIDE_MMAP;
	}
	if (ps_has_prefix(text, n, "PERF_RECORD_MMAP") && (n == mmap || ps_is_blank(text[mmap]))) {
		*body = at + mmap;
		return PS_SIDE_MMAP;
	}
	/* COMM, FORK, EXIT and LOST are names of the same length */
	*body = at + strlen("PERF_RECORD_COMM");
	if (ps_has_prefix(text, n, "PERF_RECORD_COMM") ||
	    ps_has_prefix(text, n, "PERF_RECORD_FORK") ||
	    ps_has_prefix(text, n, "PERF_RECORD_EXIT"))
		return PS_SIDE_TASK;
	if (ps_has_prefix(text, n, "PERF_RECORD_LOST"))
		return PS_SIDE_LOST;
	*body = at;
	return PS_SIDE_IGNORED;
}

/*
 * "<BUILDID>" after the page offset (perf record --buildid-mmap, kernel
 * 5.12+) instead of "MAJ:MIN INODE GENERATION": 1 to 64 bytes in hex.
 */
static void parse_build_id(const char *s, size_t at, size_t end, struct ps_mmap *map)
{
	size_t hex;

	if (at >= end || s[at] != '<')
		return;
	hex = hex_run(s, at + 1, end);
	if (hex < end && s[hex] == '>' && hex > at + 1 && hex - at - 1 <= 128) {
		map->build_id_start = at + 1;
		map->build_id_end = hex;
	}
}

/* [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH, from s[at...); PROT and PATH start at *prot, *path. */
static int parse_mmap_range(const char *s, size_t end, size_t at, struct ps_mmap *map,
			    size_t *prot, size_t *path, struct ps_syntax *syn)
{
	size_t hex, close;

	at = ps_skip_blanks(s, at, end);
	if (!ps_has_prefix(s + at, end - at, "[0x"))
		goto bad;
	hex = hex_run(s, at + 3, end);
	if (!parse_hex(s + at + 3, hex - at - 3, &map->start) ||
	    !ps_has_prefix(s + hex, end - hex, "(0x"))
		goto bad;
	at = hex + 3;
	hex = hex_run(s, at, end);
	if (!parse_hex(s + at, hex - at, &map->len) || !ps_has_prefix(s + hex, end - hex, ")"))
		goto bad;
	at = ps_skip_blanks(s, hex + 1, end);
	if (at >= end || s[at] != '@')
		goto bad;
	at = ps_skip_blanks(s, at + 1, end);
	if (ps_has_prefix(s + at, end - at, "0x"))
		at += 2;
	hex = hex_run(s, at, end);
	if (!parse_hex(s + at, hex - at, &map->pgoff))
		goto bad;
	for (close = hex; close + 1 < end && !(s[close] == ']' && s[close + 1] == ':'); close++)
		;
	if (close + 1 >= end)
		goto bad;
	parse_build_id(s, ps_skip_blanks(s, hex, close), close, map);
	*prot = ps_skip_blanks(s, close + 2, end);
	for (at = *prot; at < end && !ps_is_blank(s[at]); at++)
		;
	*path = ps_skip_blanks(s, at, end);
	return 0;
bad:
	return ps_syntax_error(syn, s, at, end,
			       "the mapping '[0xSTART(0xLEN) @ PGOFF ...]: PROT PATH'");
}

/* The kernel map is named "[kernel.kallsyms]_text"; frames say "[kernel.kallsyms]". */
static size_t kernel_map_name_end(const char *s, size_t path, size_t path_end)
{
	const char *close;

	if (path_end == path || s[path] != '[')
		return path_end;
	close = memchr(s + path, ']', path_end - path);
	if (close && ps_has_prefix(close + 1, (size_t)(s + path_end - close - 1), "_"))
		return (size_t)(close - s) + 1;
	return path_end;
}

int ps_parse_mmap(const char *s, size_t len, size_t body, struct ps_mmap *map,
		  struct ps_syntax *syn)
{
	size_t at = ps_skip_blanks(s, body, len), slash, colon, prot = 0, path = 0;

	memset(map, 0, sizeof(*map));
	for (colon = at; colon < len && s[colon] != ':'; colon++)
		;
	slash = at;
	while (slash < colon && s[slash] != '/')
		slash++;
	if (colon == len || slash == colon || !parse_id(s + at, slash - at, &map->pid) ||
	    !parse_id(s + slash + 1, colon - slash - 1, &map->tid))
		return ps_syntax_error(syn, s, at, colon, "PID/TID: after the MMAP record name");
	if (parse_mmap_range(s, len, colon + 1, map, &prot, &path, syn))
		return -1;
	/* perf synthesizes the kernel's maps (pid -1) without protection bits: "---p" */
	map->executable = memchr(s + prot, 'x', path > prot ? path - prot : 0) != NULL ||
			  map->pid == -1;
	map->path_start = path;
	map->path_end = kernel_map_name_end(s, path, ps_trim_end(s, path, len));
	return 0;
}

bool ps_parse_task_ids(const char *s, size_t len, size_t body, int64_t *pid, int64_t *tid)
{
	size_t end = ps_trim_end(s, body, len), i = end;
	const char *open = memchr(s + body, '(', end - body);

	if (open) {
		const char *colon = memchr(open, ':', (size_t)(s + end - open));
		const char *close = colon ? memchr(colon, ')', (size_t)(s + end - colon)) : NULL;

		return close && parse_id(open + 1, (size_t)(colon - open - 1), pid) &&
		       parse_id(colon + 1, (size_t)(close - colon - 1), tid);
	}
	while (i > body && s[i - 1] != ':')
		i--;
	if (i > body) {
		const char *slash = memchr(s + i, '/', end - i);

		return slash && parse_id(s + i, (size_t)(slash - (s + i)), pid) &&
		       parse_id(slash + 1, (size_t)(s + end - slash - 1), tid);
	}
	return false;
}

bool ps_parse_lost_count(const char *s, size_t len, size_t body, uint64_t *count)
{
	size_t end = ps_trim_end(s, body, len), start = end;

	while (start > body && ps_is_digit(s[start - 1]))
		start--;
	return ps_parse_decimal(s + start, end - start, count);
}

/* ---- header comments ---- */

bool ps_parse_comment(const char *s, size_t len, struct ps_comment *comment)
{
	size_t at = ps_skip_blanks(s, 1, len), colon, key_end;

	for (colon = at; colon < len && s[colon] != ':'; colon++)
		;
	if (colon >= len || colon == at)
		return false;
	key_end = ps_trim_end(s, at, colon);
	comment->value_start = ps_skip_blanks(s, colon + 1, len);
	comment->value_end = ps_trim_end(s, comment->value_start, len);
	if (key_end - at >= sizeof(comment->key) - 8 || memchr(s + at, '\0', key_end - at))
		return false;
	snprintf(comment->key, sizeof(comment->key), "perf.%.*s", (int)(key_end - at), s + at);
	for (char *p = comment->key; *p; p++)
		if (*p == ' ')
			*p = '_';
	return true;
}

bool ps_parse_event_name(const char *value, size_t n, const char **name, size_t *name_len)
{
	size_t end;

	if (!ps_has_prefix(value, n, "name = "))
		return false;
	value += strlen("name = ");
	n -= strlen("name = ");
	for (end = 0; end < n && value[end] != ','; end++)
		;
	end = ps_trim_end(value, 0, end);
	*name = value;
	*name_len = end;
	return end > 0;
}

static int64_t days_from_civil(int64_t y, unsigned mon, unsigned day)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= mon <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + day - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* "Thu Aug 17 14:14:43 2017" as nanoseconds since the epoch (UTC); 0 if not. */
int64_t ps_parse_captured_on(const char *s, size_t n)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char text[64];
	char month[4];
	unsigned day, hh, mm, ss, mon;
	int year, used = 0;
	const char *found;

	if (n >= sizeof(text))
		return 0;
	memcpy(text, s, n);
	text[n] = '\0';
	if (sscanf(text, "%*3s %3s %u %u:%u:%u %d%n", month, &day, &hh, &mm, &ss, &year, &used) != 6 ||
	    (size_t)used != n || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 ||
	    year < 1970 || year > 2200) /* nanoseconds in int64 */
		return 0;
	found = strstr(months, month);
	if (!found || strlen(month) != 3 || (found - months) % 3)
		return 0;
	mon = (unsigned)((found - months) / 3) + 1;
	return ((days_from_civil(year, mon, day) * 24 + hh) * 3600 + mm * 60 + ss) *
	       (int64_t)1000000000;
}

/* ---- the probe ---- */

/* " FROM => TO" without header (-F ip,addr): 2 when both ends read, else -1. */
static int probe_headerless_branch(const char *s, size_t first, size_t end)
{
	struct ps_header h = { .rest = first };
	struct ps_rest rest;
	struct ps_syntax syn;

	return ps_classify_rest(s, end, &h, &rest, &syn) || rest.kind != PS_REST_BRANCH ? -1 : 2;
}

int ps_probe_line(const char *s, size_t len)
{
	struct ps_header h;
	struct ps_rest rest;
	struct ps_syntax syn;
	struct ps_frame_text f;
	size_t first = ps_skip_blanks(s, 0, len), end = ps_trim_end(s, 0, len);
	size_t addr = first < end ? ps_address_token_end(s, first, end) : 0;

	if (first == len)
		return 0;
	/* frames: indented, or in column 0 with a long address (old perf) */
	if (addr && (first > 0 || addr >= 6) && !ps_parse_frame(s, first, end, &f, &syn)) {
		if (f.dso || f.inlined)
			return 2;
		if (s[0] == '\t')
			return 1;
	}
	if (first > 0 && ps_trailing_branches(s, first, end) < end)
		return 1;
	if (hex_run(s, 0, end) == end && s[0] >= '0' && s[0] <= '9' && ps_is_digit(s[end - 1])) {
		uint64_t repeat;

		return ps_parse_decimal(s, end, &repeat) ? 0 : -1; /* llvm-profgen's repeat count */
	}
	if (addr && first > 0 && ps_is_ip_column(s, first, addr) && find_arrow(s, addr, end))
		return probe_headerless_branch(s, first, end);
	if (ps_parse_header(s, len, &h, &syn))
		return -1;
	if (h.side)
		return 2;
	if (ps_classify_rest(s, len, &h, &rest, &syn))
		return -1;
	if (h.has_time && (h.has_event || rest.kind == PS_REST_BRANCH ||
			   (rest.kind == PS_REST_SINGLE && s[rest.frame_end - 1] == ')')))
		return 2;
	return h.has_event && h.has_tid ? 1 : 0;
}
