/*
 * perf_script_reader.c - reads the text that `perf script` prints.
 *
 * Source: Linux perf's tools/perf/builtin-script.c output as described,
 * with verbatim examples from perf 3.13 to 6.x, simpleperf, Intel PT and
 * llvm-profgen inputs, in ../shared/research/perfscript.md section 2;
 * DESIGN.md section 3.5 and research/pprof.md section 7.5 for the mapping.
 * Versions: no version number exists; the fields of each line are found
 * from the line itself, so every perf since 3.x, any -F subset, --ns,
 * -F +misc/+tod, --header, simpleperf's tabs, --itrace output and
 * llvm-profgen's "aggregated" and build-id forms read.
 *
 * What maps where (the model contract the folded and pprof writers rely on):
 *   dso "(...)"        -> module per (dso text exactly as printed inside the
 *                         parentheses, address space): "[kernel.kallsyms]",
 *                         "/tmp/perf-1234.map", "/x/work del (deleted)";
 *                         space = pid + 1 when the sample's pid is known
 *                         (printed as pid/tid, or learnt for its tid from
 *                         MMAP/MMAP2/COMM/FORK records), else 0. A dso of
 *                         "[unknown]", or none, is module 0. A trailing
 *                         "+0x..." (perf's dsoff field) is not part of it.
 *   MMAP/MMAP2 record  -> an executable mapping sets its module's range:
 *                         start, limit = start + len, file_offset = pgoff
 *                         (has_range); "[kernel.kallsyms]_text" names
 *                         "[kernel.kallsyms]", and a pid -1 record applies
 *                         to that dso in every space. Frames printed without
 *                         a dso (bare addresses, brstack) take the module
 *                         whose range holds their address.
 *   frame line         -> frame: HAS_ADDRESS, the address as printed;
 *                         ABSOLUTE when it is a runtime address, i.e. its
 *                         module is 0, or it lies in its module's range, or
 *                         (no range known) it is at least 2^32: perf prints
 *                         DSO-relative offsets for user code in some versions
 *                         (6.1: "f838f __GI___libc_write+0x4f") and runtime
 *                         addresses in others. function = the symbol without
 *                         its trailing "+0x..." ("[unknown]": none); file and
 *                         line from a -F +srcline line. "(inlined)" frames:
 *                         flag INLINE, module 0, kept in printed order, i.e.
 *                         leafward of the physical frame of the same address
 *                         they are inlined into; a run of them that no frame
 *                         of their address follows (DWARF unwinding prints
 *                         such runs) is a location of its own: its last
 *                         frame is made physical (INLINE cleared), so the
 *                         run folds into it. llvm-profgen's "BUILDID:ADDR"
 *                         form gives a module-relative frame of a module
 *                         with an empty name and that build id.
 *   sample             -> stack = its frames leaf first as printed; without
 *                         a callchain, the one ip/sym/dso of its header line
 *                         (none: an empty stack). Labels: comm (string, when
 *                         not empty), pid (unit "pid", when printed or known),
 *                         tid (unit "tid"), cpu (unit "cpu", when printed).
 *                         Columns per event: <event>_sample (count, +1) and
 *                         <event>_event (count, + the printed period, else 1),
 *                         in the order of the "# event :" header lines, then
 *                         of first appearance; event = the name as printed
 *                         without its colon ("cycles:u", "sched:sched_switch",
 *                         "branch-misses/period=50/u"). The default column is
 *                         the _event column of the first event that has a
 *                         sample, which is what stackcollapse-perf.pl and
 *                         inferno count. A sample without an event field
 *                         counts under the header's only event, else under
 *                         "unknown". llvm-profgen's repeat-count lines
 *                         multiply the next sample.
 *   brstack entries    -> the sample's branch stack (from, to frames), newest
 *                         first as printed; only the first two '/' fields are
 *                         read; brstack addresses are ABSOLUTE and take their
 *                         module from their "(dso)" or the mmap ranges,
 *                         brstacksym ends are frames with only a function.
 *   Intel PT/CoreSight -> "FLAGS FROM => TO" samples (--itrace branches):
 *                         stack [FROM], branch stack [(FROM, TO)], the event's
 *                         columns as any sample; instruction samples are
 *                         ordinary single-line samples.
 *   header             -> source "perf-script"; "# cmdline" -> comment
 *                         "perf-command:...", "# perf version" -> comment
 *                         "perf-version:..."; "# captured on" -> time_nanos
 *                         (read as UTC: perf prints local time without a zone);
 *                         every "# key : value" line before the first sample
 *                         -> fact "perf.key" (blanks in key -> '_').
 *                         duration_nanos = last - first sample time.
 * What is lost: the time of each sample (identical samples are merged),
 * tracepoint payloads, PT flags, addr, insn and IPC fields, branch flags
 * (prediction, cycles, type), the misc, tod and guest fields, side records
 * other than MMAP/COMM/FORK/LOST (skipped), the exact spelling of blanks.
 * Lost or trace-error records are counted in a comment.
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
 *     "FROM => TO" branch, brstack entries, or a tracepoint payload and/or
 *     flags ending in a single-line "ip sym (dso)": the ip is the last hex
 *     token right-aligned in perf's 16 columns (after a payload the line
 *     must end in its "(dso)"). Text that is none of these where no event
 *     was printed is an error ("expected an event name");
 *   - a frame line is an optional indent, a hex address (at most 16 digits)
 *     and optionally the symbol and "(dso)"; the dso is the last balanced
 *     parenthesised group preceded by a blank. "ADDR  (DSO)" (two blanks:
 *     perf printed an empty symbol) has the function " ", the name
 *     stackcollapse-perf.pl gives it; a srcline line is a two-space-indented
 *     line after a frame;
 *   - a tab-indented frame line outside a sample starts a sample without a
 *     header (-F ip,... with a callchain; llvm-profgen's hybrid form), a
 *     line whose first token is a 16-column address starts a single-line
 *     sample without header (-F ip,sym; -F ip,brstack); a brstack line ends
 *     its sample; a blank line between a header and its callchain is
 *     tolerated (counted in a warning), and so are a missing last blank
 *     line, CRLF ends, " instruction trace error" lines and perf's own
 *     "Warning:"/"Error:" lines (both counted in comments).
 * Unparseable lines are errors at FILE:LINE:COL naming what was expected;
 * with --skip-bad each is skipped with its sample and counted in a warning.
 * A last line that ends without a newline in the middle of a frame (an
 * unclosed '(', or no "(dso)" where the input's other frames have one) is
 * an error.
 *
 * Streaming: lines are slices of struct pc_input's window; nothing is
 * allocated per line. A callchain that follows its header is looked at
 * whole in the window: one seen before costs one probe of a reader-local
 * table from the hashes of its lines (and the sample's address space) to
 * the model stack id; a new one costs one probe per line in the same kind
 * of table from a line to its model frame id (behind a small hot cache).
 * Labels, events and modules are cached likewise, so memory grows with
 * distinct frames, stacks and label sets, not with the input.
 */
#include "model/format.h"

#include <stdarg.h>

#define FORMAT "perf-script"
#define MAX_LINE_BYTES ((size_t)16 << 20)
#define READ_AHEAD ((size_t)256 << 10)
#define BLOCK_MAX_BYTES ((size_t)1 << 20) /* callchains cached whole */
#define MAX_TOKENS 48
#define FEW_TOKENS 12
#define MAX_ADDRESS_DIGITS 16
#define IP_COLUMNS 16               /* perf prints an ip as %16lx */
#define PERIOD_COLUMNS 10           /* and a period as %10lu */
#define RUNTIME_ADDRESS_MIN 0x100000000ULL
#define UNKNOWN_EVENT "unknown"
#define MAX_EVENTS (PC_MAX_COLUMNS / 2)
#define QUOTE_MAX 40
#define TAG_BUILD_ID (1ULL << 32)   /* module table: build-id modules */
#define HOT_BITS 13                 /* 8192 hot frame lines, 128 KiB */

#if defined(__GNUC__)
#define PREFETCH(addr) __builtin_prefetch((addr))
#else
#define PREFETCH(addr) ((void)(addr))
#endif

/* ---- bytes ---- */

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static size_t skip_blanks(const char *s, size_t at, size_t end)
{
	while (at < end && is_blank(s[at]))
		at++;
	return at;
}

static size_t trim_end(const char *s, size_t start, size_t end)
{
	while (end > start && is_blank(s[end - 1]))
		end--;
	return end;
}

static bool has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static bool has_suffix(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

static bool equals(const char *s, size_t len, const char *text)
{
	return len == strlen(text) && !memcmp(s, text, len);
}

/* Parses n > 0 decimal digits; false on overflow or a non-digit. */
static bool parse_decimal(const char *s, size_t n, uint64_t *value)
{
	uint64_t v = 0;

	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]) || v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
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

	if (!parse_decimal(s + minus, n - minus, &v) || v > INT32_MAX)
		return false;
	*id = minus ? -(int64_t)v : (int64_t)v;
	return true;
}

/* ---- a table from (bytes, tag) to a 32-bit value, keys owned here ---- */

struct ps_slot {
	uint64_t hash, tag;
	uint32_t key, len;  /* the key bytes are keys[key, key + len) */
	uint32_t value;     /* 0: an empty slot */
};

struct ps_table {
	struct ps_slot *slots;
	size_t mask, count;
	char *keys;
	size_t keys_len, keys_cap;
};

static void table_release(struct ps_table *t)
{
	free(t->slots);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

static struct ps_slot *table_probe(const struct ps_table *t, uint64_t hash, uint64_t tag,
				   const char *key, size_t len)
{
	for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
		struct ps_slot *slot = &t->slots[i];

		if (!slot->value)
			return slot;
		if (slot->hash == hash && slot->tag == tag && slot->len == len &&
		    !memcmp(t->keys + slot->key, key, len))
			return slot;
	}
}

static const struct ps_slot *table_get(const struct ps_table *t, uint64_t hash,
				       uint64_t tag, const char *key, size_t len)
{
	const struct ps_slot *slot;

	if (!t->slots)
		return NULL;
	slot = table_probe(t, hash, tag, key, len);
	return slot->value ? slot : NULL;
}

/*
 * Doubles the open-addressing table t (fields slots, mask), whose slots are
 * empty when .value is 0 and start probing at .PLACE & mask; both tables
 * below grow this way.
 */
#define TABLE_DOUBLE(t, PLACE, first_cap) \
	do { \
		__typeof__((t)->slots) old_ = (t)->slots; \
		size_t old_cap_ = old_ ? (t)->mask + 1 : 0; \
		size_t cap_ = old_cap_ ? old_cap_ * 2 : (first_cap); \
		(t)->slots = pc_xcalloc(cap_, sizeof(*(t)->slots)); \
		(t)->mask = cap_ - 1; \
		for (size_t i_ = 0; i_ < old_cap_; i_++) { \
			size_t j_ = old_[i_].PLACE & (t)->mask; \
			if (!old_[i_].value) \
				continue; \
			while ((t)->slots[j_].value) \
				j_ = (j_ + 1) & (t)->mask; \
			(t)->slots[j_] = old_[i_]; \
		} \
		free(old_); \
	} while (0)

static void table_grow(struct ps_table *t)
{
	TABLE_DOUBLE(t, hash, 256);
}

/* Sets the value (non-zero) of key, adding the key when it is new. */
static void table_put(struct ps_table *t, uint64_t hash, uint64_t tag, const char *key,
		      size_t len, uint32_t value)
{
	struct ps_slot *slot;

	if (!t->slots || (t->count + 1) * 2 > t->mask + 1)
		table_grow(t);
	slot = table_probe(t, hash, tag, key, len);
	if (!slot->value) {
		if (len > UINT32_MAX - t->keys_len)
			pc_die_oom(len);
		pc_grow(&t->keys, &t->keys_cap, t->keys_len + len + 1, 1);
		memcpy(t->keys + t->keys_len, key, len);
		*slot = (struct ps_slot){
			.hash = hash, .tag = tag, .key = (uint32_t)t->keys_len,
			.len = (uint32_t)len,
		};
		t->keys_len += len;
		t->count++;
	}
	slot->value = value;
}

/*
 * ---- a table from text identified by a 96-bit hash to a 32-bit value ----
 *
 * The hot caches (frame lines, brstack ends, whole callchains) keep no key
 * bytes: a text is identified by two independent 64-bit hashes of it and
 * its context (address space, mapping generation), of which 96 bits are
 * kept. Two different texts of one input share them with a probability
 * below 2^-55 for a million distinct texts (2^-37 for a billion); in
 * exchange each lookup touches one 16-byte slot, and memory is not spent
 * on copies of the lines.
 */

struct ps_hash {
	uint64_t h1, h2;
};

struct ps_hslot {
	uint64_t h1;
	uint32_t h2;
	uint32_t value; /* 0: an empty slot */
};

struct ps_htable {
	struct ps_hslot *slots;
	size_t mask, count;
};

static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

static struct ps_hash hash_text(const char *s, size_t n, uint64_t seed)
{
	uint64_t a = seed ^ 0x9e3779b97f4a7c15ULL ^ n, b = rotl64(seed, 29) ^ 0xc2b2ae3d27d4eb4fULL;
	struct ps_hash h;

	while (n >= 8) {
		uint64_t word;

		memcpy(&word, s, 8);
		a = (a ^ word) * 0xbf58476d1ce4e5b9ULL;
		a ^= a >> 29;
		b = rotl64(b + word, 23) * 0x94d049bb133111ebULL;
		s += 8;
		n -= 8;
	}
	if (n) {
		uint64_t word;

		if (n >= 4) {
			uint32_t lo, hi;

			memcpy(&lo, s, 4);
			memcpy(&hi, s + n - 4, 4);
			word = (uint64_t)hi << 32 | lo;
		} else {
			word = (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
			       (uint64_t)(uint8_t)s[n - 1] << 16;
		}
		a = (a ^ word ^ (uint64_t)n << 59) * 0xbf58476d1ce4e5b9ULL;
		b = rotl64(b + word + n, 23) * 0x94d049bb133111ebULL;
	}
	h.h1 = pc_hash_u64(a ^ rotl64(b, 17));
	h.h2 = pc_hash_u64(b + 0x632be59bd9b4e019ULL);
	return h;
}

static void htable_release(struct ps_htable *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static struct ps_hslot *htable_probe(const struct ps_htable *t, struct ps_hash h)
{
	for (size_t i = h.h1 & t->mask;; i = (i + 1) & t->mask) {
		struct ps_hslot *slot = &t->slots[i];

		if (!slot->value || (slot->h1 == h.h1 && slot->h2 == (uint32_t)h.h2))
			return slot;
	}
}

static const struct ps_hslot *htable_get(const struct ps_htable *t, struct ps_hash h)
{
	const struct ps_hslot *slot;

	if (!t->slots)
		return NULL;
	slot = htable_probe(t, h);
	return slot->value ? slot : NULL;
}

static void htable_put(struct ps_htable *t, struct ps_hash h, uint32_t value)
{
	struct ps_hslot *slot;

	if (!t->slots || (t->count + 1) * 2 > t->mask + 1)
		TABLE_DOUBLE(t, h1, 1024);
	slot = htable_probe(t, h);
	if (!slot->value)
		t->count++;
	*slot = (struct ps_hslot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = value };
}

/* ---- syntax: pure parsing of one line, shared with the probe ---- */

/* Where and why a line does not parse. */
struct ps_syntax {
	size_t col;        /* 0-based byte offset in the line */
	char message[200];
};

/* "expected EXPECTED, found 'TEXT'" with TEXT = line[at, end) quoted. */
static int syntax_error(struct ps_syntax *syn, const char *line, size_t at, size_t end,
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

	while (before < from && is_blank(s[from - 1 - before]))
		before++;
	while (n < max) {
		size_t start = skip_blanks(s, at, to), end = start;

		if (start == to)
			break;
		while (end < to && !is_blank(s[end]))
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
		if (!is_digit(s[i]))
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
	    !parse_decimal(text + 1, n - 2, &v) || v > UINT32_MAX)
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

	if (n < 4 || text[n - 1] != ':' || !is_digit(text[0]))
		return false;
	for (dot = 0; dot < n - 1 && is_digit(text[dot]); dot++)
		;
	if (text[dot] != '.' || dot + 2 > n - 1)
		return false;
	for (size_t i = dot + 1; i < n - 1; i++) {
		if (!is_digit(text[i]))
			return false;
		if (scale > 1) {
			scale /= 10;
			frac += (uint64_t)(text[i] - '0') * scale;
		}
	}
	if (!parse_decimal(text, dot, &secs) || secs > UINT64_MAX / 1000000000 - 1)
		secs = UINT64_MAX / 1000000000 - 1;
	*ns = secs * 1000000000 + frac;
	return true;
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

	return t->end - t->start == 10 && p[4] == '-' && p[7] == '-' && is_digit(p[0]) &&
	       is_digit(p[9]);
}

static bool tok_is_tod_time(const char *s, const struct ps_token *t)
{
	const char *p = s + t->start;

	return t->end - t->start >= 8 && p[2] == ':' && p[5] == ':' && is_digit(p[0]) &&
	       is_digit(p[7]);
}

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

/* The optional period and event after the anchor at tok[i]. */
static void header_period_event(struct ps_header *h, const char *s, size_t len,
				const struct ps_token *tok, size_t n, size_t i)
{
	if (i < n && tok_is_digits(s, &tok[i]) &&
	    ((i + 1 < n && tok_is_event(s, &tok[i + 1])) || !tok_is_wide_hex(s, &tok[i])) &&
	    parse_decimal(s + tok[i].start, tok[i].end - tok[i].start, &h->period)) {
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
	if (j > first && tok_is_cpu(s, &tok[j - 1], &h->cpu)) {
		h->has_cpu = true;
		j--;
	}
	if (j > first && tok_is_tid(s, &tok[j - 1])) {
		header_set_tidfield(h, s, &tok[j - 1]);
		j--;
	}
	header_set_comm(h, tok, first, j);
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
	    parse_decimal(s + tok[j - 1].start, tok[j - 1].end - tok[j - 1].start, &h->period)) {
		h->has_period = true;
		j--;
	}
	if (j > first && tok_is_cpu(s, &tok[j - 1], &h->cpu)) {
		h->has_cpu = true;
		j--;
	}
	if (j > first && tok_is_tid(s, &tok[j - 1])) {
		header_set_tidfield(h, s, &tok[j - 1]);
		j--;
	}
	header_set_comm(h, tok, first, j);
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
		return syntax_error(syn, s, n ? tok[0].start : 0, len,
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

		if (!has_prefix(text, len, "PERF_RECORD_"))
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
static int parse_header(const char *s, size_t len, struct ps_header *h, struct ps_syntax *syn)
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
	if (first < n && has_prefix(s + tok[first].start, tok[first].end - tok[first].start, "VM:"))
		first += tok[first].end - tok[first].start == 3 && first + 1 < n ? 2 : 1;
	if (first < n && has_prefix(s + tok[first].start, tok[first].end - tok[first].start, "VCPU:"))
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

/* One frame as printed: "ADDR [SYM[+0xOFF]] [(DSO)]". */
struct ps_frame_text {
	uint64_t address;
	const char *build_id; /* llvm-profgen's BUILDID:ADDR, else NULL */
	size_t build_id_len;
	const char *sym;      /* NULL: none or [unknown] */
	size_t sym_len;
	const char *dso;      /* NULL: none */
	size_t dso_len;
	bool inlined;
};

/*
 * The address token at s[at...): HEX or BUILDID:HEX followed by a blank or
 * end; returns its end, or 0 when it is not one.
 */
static size_t address_token_end(const char *s, size_t at, size_t end)
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
	return hex == end || is_blank(s[hex]) ? hex : 0;
}

/* Strips a trailing "+0x<hex>" from text[0, *len). */
static void strip_offset(const char *text, size_t *len)
{
	size_t n = *len, hex = n;

	while (hex > 0 && pc_hex_digit(text[hex - 1]) >= 0)
		hex--;
	if (hex < n && hex >= 3 && text[hex - 1] == 'x' && text[hex - 2] == '0' &&
	    text[hex - 3] == '+')
		*len = hex - 3;
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
static int parse_frame(const char *s, size_t at, size_t end, struct ps_frame_text *f,
		       struct ps_syntax *syn)
{
	size_t addr_end = address_token_end(s, at, end), rest, open, word = at;
	const char *colon;

	memset(f, 0, sizeof(*f));
	while (word < end && !is_blank(s[word]))
		word++;
	if (!addr_end)
		return syntax_error(syn, s, at, word, "a hexadecimal address");
	colon = memchr(s + at, ':', addr_end - at);
	if (colon) {
		f->build_id = s + at;
		f->build_id_len = (size_t)(colon - (s + at));
		at = (size_t)(colon - s) + 1;
	}
	if (!parse_hex(s + at, addr_end - at, &f->address))
		return syntax_error(syn, s, at, addr_end, "an address of at most 16 hexadecimal digits");
	rest = skip_blanks(s, addr_end, end);
	open = last_group(s, rest, end);
	if (open < end && (open == rest || is_blank(s[open - 1]))) {
		f->dso = s + open + 1;
		f->dso_len = end - open - 2;
		end = trim_end(s, rest, open);
		if (equals(f->dso, f->dso_len, "inlined")) {
			f->inlined = true;
			f->dso = NULL;
		} else {
			strip_offset(f->dso, &f->dso_len);
		}
	}
	if (end == rest && f->dso && open - addr_end >= 2) {
		/* "ADDR  (DSO)": perf printed an empty symbol; stackcollapse calls it " " */
		f->sym = " ";
		f->sym_len = 1;
	} else if (end > rest) {
		f->sym = s + rest;
		f->sym_len = end - rest;
		strip_offset(f->sym, &f->sym_len);
		if (equals(f->sym, f->sym_len, "[unknown]") || !f->sym_len)
			f->sym = NULL;
	}
	return 0;
}

/* ---- branch stack entries ---- */

/* One end of an entry: [BUILDID:]0xHEX[(DSO)] or SYM[+0xOFF][(DSO)]. */
struct ps_branch_end {
	const char *text; /* as printed, for the cache */
	size_t len;
	bool has_address;
	uint64_t address;
	const char *build_id, *sym, *dso;
	size_t build_id_len, sym_len, dso_len;
};

/* Scans one end at s[at, end) up to the '/' after it; returns that '/' or end. */
static size_t scan_branch_end(const char *s, size_t at, size_t end, struct ps_branch_end *b)
{
	size_t i = at;
	int depth = 0;

	memset(b, 0, sizeof(*b));
	while (i < end && (depth || s[i] != '/')) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && depth)
			depth--;
		i++;
	}
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
	if (hex > 0 && hex < n && t[hex] == ':' && has_prefix(t + hex + 1, n - hex - 1, "0x")) {
		b->build_id = t;
		b->build_id_len = hex;
		t += hex + 1;
		n -= hex + 1;
	}
	if (has_prefix(t, n, "0x")) {
		b->has_address = true;
		return parse_hex(t + 2, n - 2, &b->address);
	}
	b->sym = t;
	b->sym_len = n;
	strip_offset(b->sym, &b->sym_len);
	if (equals(b->sym, b->sym_len, "[unknown]") || !b->sym_len)
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
static bool parse_branch_entry(const char *s, size_t at, size_t end, struct ps_branch_end *from,
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

static bool is_branch_entry(const char *s, size_t at, size_t end)
{
	struct ps_branch_end from, to;

	return parse_branch_entry(s, at, end, &from, &to);
}

/* Where the run of brstack entries that ends line[start, end) begins (end: none). */
static size_t trailing_branches(const char *s, size_t start, size_t end)
{
	size_t run = end;

	for (;;) {
		size_t tok_end = trim_end(s, start, run), tok_start = tok_end;

		while (tok_start > start && !is_blank(s[tok_start - 1]))
			tok_start--;
		if (tok_start == tok_end || !is_branch_entry(s, tok_start, tok_end))
			return run == end ? end : skip_blanks(s, run, end);
		run = tok_start;
	}
}

/* ---- the header remainder ---- */

enum ps_rest_kind {
	REST_NONE,     /* a callchain follows (or nothing) */
	REST_PAYLOAD,  /* tracepoint payload or other text; a callchain may follow */
	REST_SINGLE,   /* ip [sym] [(dso)] on the header line */
	REST_BRANCH,   /* FROM => TO */
	REST_ENTRIES,  /* only brstack entries */
};

struct ps_rest {
	enum ps_rest_kind kind;
	size_t frame_start, frame_end; /* the single-line frame, or FROM */
	size_t to_start, to_end;       /* TO */
	size_t br_start, br_end;       /* brstack entries, when br_end > br_start */
};

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

/* Cuts the remainder before perf's insn, ilen and IPC fields. */
static size_t cut_extras(const char *s, size_t start, size_t end)
{
	static const char *const fields[] = { " insn:", " ilen:", " IPC:" };

	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++) {
		size_t n = strlen(fields[i]);

		for (size_t at = start; at + n <= end; at++)
			if (s[at] == ' ' && !memcmp(s + at, fields[i], n)) {
				end = at;
				break;
			}
	}
	return trim_end(s, start, end);
}

static const char *find_arrow(const char *s, size_t start, size_t end)
{
	for (size_t at = start; at + 4 <= end; at++)
		if (s[at] == ' ' && s[at + 1] == '=' && s[at + 2] == '>' && is_blank(s[at + 3]))
			return s + at;
	return NULL;
}

static int classify_branch(const char *s, size_t start, size_t end, const char *arrow,
			   struct ps_rest *rest, struct ps_syntax *syn)
{
	size_t at = (size_t)(arrow - s), from_end = trim_end(s, start, at);
	size_t from = last_wide_address(s, start, from_end), to = skip_blanks(s, at + 3, end);

	if (from == from_end && address_token_end(s, start, from_end))
		from = start;
	if (from == from_end)
		return syntax_error(syn, s, start, from_end, "a branch source address before '=>'");
	if (!address_token_end(s, to, end))
		return syntax_error(syn, s, to, end, "a branch target address after '=>'");
	rest->kind = REST_BRANCH;
	rest->frame_start = from;
	rest->frame_end = from_end;
	rest->to_start = to;
	rest->to_end = end;
	return 0;
}

/* What follows the fields of a header: see enum ps_rest_kind. */
static int classify_rest(const char *s, size_t len, const struct ps_header *h,
			 struct ps_rest *rest, struct ps_syntax *syn)
{
	size_t start = h->rest, end = trim_end(s, h->rest, len), frame;
	const char *arrow;

	memset(rest, 0, sizeof(*rest));
	if (start >= end)
		return 0;
	end = cut_extras(s, start, end);
	arrow = find_arrow(s, start, end);
	if (arrow)
		return classify_branch(s, start, end, arrow, rest, syn);
	rest->br_start = trailing_branches(s, start, end);
	rest->br_end = rest->br_start < end ? end : rest->br_start;
	end = trim_end(s, start, rest->br_start);
	if (start >= end) {
		rest->kind = rest->br_end > rest->br_start ? REST_ENTRIES : REST_NONE;
		return 0;
	}
	/*
	 * After a payload the frame must end in its "(dso)": a payload may hold
	 * an aligned hex word itself ("napi struct ffff88810c9c6a50 for ...").
	 */
	frame = last_wide_address(s, start, end);
	if (frame > start && frame < end && s[end - 1] != ')')
		frame = end;
	if (frame == end && address_token_end(s, start, end) && s[end - 1] == ')')
		frame = start;
	if (frame < end) {
		rest->kind = REST_SINGLE;
		rest->frame_start = frame;
		rest->frame_end = end;
		return 0;
	}
	if (!h->has_event)
		return syntax_error(syn, s, start, end, "an event name ending in ':'");
	rest->kind = REST_PAYLOAD;
	return 0;
}

/* ---- the reader ---- */

struct ps_event {
	pc_str_id name;
	int col_sample, col_event;
};

/* An executable mapping from an MMAP record. */
struct ps_range {
	uint32_t space, module;
	uint64_t start, limit;
};

/* A pid -1 (kernel) mapping: applies to its dso in every space. */
struct ps_global {
	pc_str_id name;
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
	uint32_t stack;      /* the stack id, when known without the frames */
	bool has_inline;     /* some frame is an inline one */
	uint32_t *frames;
	size_t nframes, frames_cap;
	struct pc_branch *branches;
	size_t nbranches, branches_cap;
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

	struct ps_htable frames;  /* (space, gen, frame text) -> frame id */
	struct ps_htable ends;    /* (space, gen, branch end text) -> frame id */
	struct ps_htable blocks;  /* (space, gen, callchain) -> stack id */
	struct ps_table modules;  /* (space [| build id], dso) -> module id */
	struct ps_table labelsets; /* label fields -> label set id + 1 */
	struct ps_table tids;     /* tid -> pid + 2 */
	bool learnt;              /* the last pair put in tids, not to put it again */
	int64_t learnt_pid, learnt_tid;
	uint32_t gen;             /* bumped by each mapping: older cache entries go stale */

	struct ps_event *events;
	size_t nevents, events_cap;
	int last_event;
	pc_str_id *declared;      /* "# event :" names, in order */
	size_t ndeclared, declared_cap;
	bool declared_made;

	struct ps_range *ranges;
	size_t nranges, ranges_cap;
	struct ps_global *globals;
	size_t nglobals, globals_cap;

	pc_str_id key_comm, key_pid, key_tid, key_cpu, unit_pid, unit_tid, unit_cpu;
	char *scratch;
	size_t scratch_cap;

	bool any_time;
	uint64_t first_time, last_time;
	uint64_t trace_errors, perf_messages, lost;

	/* the lines of the callchain after a header, when read from the window */
	struct ps_block_line {
		uint32_t start, first, end, next; /* offsets in the window */
		struct ps_hash h;
	} *block;
	size_t block_cap;
	struct ps_hot {
		uint64_t h1;
		uint32_t h2, value;
	} *hot; /* a small direct-mapped cache in front of frames */
	uint64_t *inline_bits; /* by frame id: the frame is an inline one */
	size_t inline_words;
};

static void reader_init(struct ps_reader *r, struct pc_ctx *ctx, struct pc_input *in,
			struct pc_model *m)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->in = in;
	r->m = m;
	r->last_event = -1;
	r->key_comm = pc_model_intern_cstr(m, "comm");
	r->key_pid = pc_model_intern_cstr(m, "pid");
	r->key_tid = pc_model_intern_cstr(m, "tid");
	r->key_cpu = pc_model_intern_cstr(m, "cpu");
	r->unit_pid = r->key_pid;
	r->unit_tid = r->key_tid;
	r->unit_cpu = r->key_cpu;
}

static void reader_release(struct ps_reader *r)
{
	free(r->cur.frames);
	free(r->cur.branches);
	htable_release(&r->frames);
	htable_release(&r->ends);
	htable_release(&r->blocks);
	table_release(&r->modules);
	table_release(&r->labelsets);
	table_release(&r->tids);
	free(r->events);
	free(r->declared);
	free(r->ranges);
	free(r->globals);
	free(r->scratch);
	free(r->block);
	free(r->hot);
	free(r->inline_bits);
}

/* Fails at column col (0-based) of the current line. */
static int fail_at(struct ps_reader *r, size_t col, const char *fmt, ...) PC_PRINTF(3, 4);

static int fail_at(struct ps_reader *r, size_t col, const char *fmt, ...)
{
	char message[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	r->recoverable = false;
	return pc_fail_line(&r->ctx->err, FORMAT, r->lineno,
			    (uint32_t)(col < UINT32_MAX - 1 ? col + 1 : UINT32_MAX), "%s", message);
}

/* A syntax error of the current line: --skip-bad may skip it. */
static int fail_syntax(struct ps_reader *r, const struct ps_syntax *syn)
{
	const char *nul = memchr(r->line, '\0', r->len);

	if (nul)
		fail_at(r, (size_t)(nul - r->line),
			"binary data (a NUL byte) where perf script text was expected");
	else
		fail_at(r, syn->col, "%s", syn->message);
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
			return fail_at(r, 0, "line longer than %zu MiB (is this perf script text?)",
				       MAX_LINE_BYTES >> 20);
		}
		scanned = have;
		more = pc_input_fill(r->in, have + READ_AHEAD, &data);
		if (more <= have) {
			*got = have > 0;
			len = r->consume = have;
			r->unterminated = true;
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
	if (len && data[len - 1] == '\r')
		len--;
	r->line = (const char *)data;
	r->len = len;
	r->first = skip_blanks(r->line, 0, len);
	if (r->lineno < UINT32_MAX)
		r->lineno++;
	return 0;
}

/* ---- model: events, labels, modules, frames ---- */

static void *scratch(struct ps_reader *r, size_t size)
{
	pc_grow(&r->scratch, &r->scratch_cap, size, 1);
	return r->scratch;
}

static int add_event_columns(struct ps_reader *r, const char *name, size_t len, int *index)
{
	char *type = scratch(r, 2 * len + sizeof("_sample") + 1);
	char *event = type + len + sizeof("_sample"); /* NAME, after NAME_sample */
	struct ps_event ev;

	if (r->nevents == MAX_EVENTS)
		return fail_at(r, 0, "more than %d events in one profile", MAX_EVENTS);
	memcpy(event, name, len);
	event[len] = '\0';
	memcpy(type, name, len);
	memcpy(type + len, "_sample", sizeof("_sample"));
	ev.col_sample = pc_model_add_event_column(r->m, type, "count", event, PC_ROLE_SAMPLES);
	memcpy(type + len, "_event", sizeof("_event"));
	ev.col_event = pc_model_add_event_column(r->m, type, "count", event, PC_ROLE_WEIGHT);
	if (ev.col_sample < 0 || ev.col_event < 0)
		return fail_at(r, 0, "more than %d value columns in one profile", PC_MAX_COLUMNS);
	ev.name = pc_model_intern(r->m, name, len);
	pc_grow(&r->events, &r->events_cap, r->nevents + 1, sizeof(*r->events));
	r->events[r->nevents] = ev;
	*index = (int)r->nevents++;
	return 0;
}

static bool event_is(const struct ps_reader *r, int index, const char *name, size_t len)
{
	pc_str_id id = r->events[index].name;

	return pc_str_len(r->m, id) == len && !memcmp(pc_str(r->m, id), name, len);
}

static int find_event(struct ps_reader *r, const char *name, size_t len, int *index);

/* The columns of the "# event :" header lines come first, in their order. */
static int make_declared_events(struct ps_reader *r)
{
	int index;

	if (r->declared_made)
		return 0;
	r->declared_made = true;
	for (size_t i = 0; i < r->ndeclared; i++)
		if (find_event(r, pc_str(r->m, r->declared[i]), pc_str_len(r->m, r->declared[i]),
			       &index))
			return -1;
	return 0;
}

static int find_event(struct ps_reader *r, const char *name, size_t len, int *index)
{
	if (r->last_event >= 0 && event_is(r, r->last_event, name, len)) {
		*index = r->last_event;
		return 0;
	}
	if (make_declared_events(r))
		return -1;
	for (size_t i = 0; i < r->nevents; i++)
		if (event_is(r, (int)i, name, len)) {
			*index = r->last_event = (int)i;
			return 0;
		}
	if (add_event_columns(r, name, len, index))
		return -1;
	r->last_event = *index;
	return 0;
}

/* The event of a sample that printed none. */
static int default_event(struct ps_reader *r, int *index)
{
	if (r->ndeclared == 1)
		return find_event(r, pc_str(r->m, r->declared[0]), pc_str_len(r->m, r->declared[0]),
				  index);
	return find_event(r, UNKNOWN_EVENT, strlen(UNKNOWN_EVENT), index);
}

static void tid_learn(struct ps_reader *r, int64_t pid, int64_t tid)
{
	uint32_t key = (uint32_t)tid;

	if (pid < -1 || tid < 0 || pid > INT32_MAX - 2 ||
	    (r->learnt && r->learnt_pid == pid && r->learnt_tid == tid))
		return;
	table_put(&r->tids, pc_hash_u64(key), 0, (const char *)&key, sizeof(key),
		  (uint32_t)(pid + 2));
	r->learnt = true;
	r->learnt_pid = pid;
	r->learnt_tid = tid;
}

static bool tid_lookup(const struct ps_reader *r, int64_t tid, int64_t *pid)
{
	uint32_t key = (uint32_t)tid;
	const struct ps_slot *slot;

	if (tid < 0)
		return false;
	slot = table_get(&r->tids, pc_hash_u64(key), 0, (const char *)&key, sizeof(key));
	if (!slot)
		return false;
	*pid = (int64_t)slot->value - 2;
	return true;
}

/* Label fields of a sample, serialized as a cache key. */
struct ps_label_key {
	uint8_t mask; /* 1 pid, 2 tid, 4 cpu */
	uint8_t pad[3];
	uint32_t cpu;
	int64_t pid, tid;
};

static uint32_t labels_for(struct ps_reader *r, const char *comm, size_t comm_len,
			   const struct ps_label_key *fields)
{
	size_t size = sizeof(*fields) + comm_len;
	char *key = scratch(r, size);
	uint64_t hash;
	const struct ps_slot *slot;
	struct pc_label labels[4];
	size_t n = 0;
	uint32_t set;

	memcpy(key, fields, sizeof(*fields));
	memcpy(key + sizeof(*fields), comm, comm_len);
	hash = pc_hash_bytes(key, size, 0x1abe1);
	slot = table_get(&r->labelsets, hash, 0, key, size);
	if (slot)
		return slot->value - 1;
	if (comm_len)
		labels[n++] = (struct pc_label){
			.key = r->key_comm, .str = pc_model_intern(r->m, comm, comm_len),
		};
	if (fields->mask & 1)
		labels[n++] = (struct pc_label){ .key = r->key_pid, .num = fields->pid,
						 .unit = r->unit_pid };
	if (fields->mask & 2)
		labels[n++] = (struct pc_label){ .key = r->key_tid, .num = fields->tid,
						 .unit = r->unit_tid };
	if (fields->mask & 4)
		labels[n++] = (struct pc_label){ .key = r->key_cpu, .num = fields->cpu,
						 .unit = r->unit_cpu };
	set = pc_model_add_labels(r->m, labels, n);
	table_put(&r->labelsets, hash, 0, key, size, set + 1);
	return set;
}

static const struct ps_global *find_global(const struct ps_reader *r, pc_str_id name)
{
	for (size_t i = r->nglobals; i > 0; i--)
		if (r->globals[i - 1].name == name)
			return &r->globals[i - 1];
	return NULL;
}

static uint32_t module_for(struct ps_reader *r, const char *name, size_t len, uint32_t space,
			   bool build_id)
{
	uint64_t tag = space | (build_id ? TAG_BUILD_ID : 0);
	uint64_t hash = pc_hash_bytes(name, len, 0xd50 ^ tag);
	const struct ps_slot *slot = table_get(&r->modules, hash, tag, name, len);
	struct pc_module module = { .space = space };
	const struct ps_global *global;
	uint32_t id;

	if (slot)
		return slot->value;
	if (build_id) {
		module.build_id = pc_model_intern(r->m, name, len);
	} else {
		module.name = pc_model_intern(r->m, name, len);
		global = space ? find_global(r, module.name) : NULL;
		if (global) {
			module.start = global->start;
			module.limit = global->limit;
			module.file_offset = global->pgoff;
			module.has_range = true;
		}
	}
	id = pc_model_add_module(r->m, &module);
	table_put(&r->modules, hash, tag, name, len, id);
	return id;
}

static uint32_t module_for_dso(struct ps_reader *r, const char *dso, size_t len, uint32_t space)
{
	if (!len || equals(dso, len, "[unknown]"))
		return 0;
	return module_for(r, dso, len, space, false);
}

/* The module whose mapping holds address: in space, or in any when space is 0. */
static uint32_t module_by_range(const struct ps_reader *r, uint32_t space, uint64_t address)
{
	for (size_t i = r->nranges; i > 0; i--) {
		const struct ps_range *range = &r->ranges[i - 1];

		if ((!space || range->space == space || !range->space) &&
		    address >= range->start && address < range->limit)
			return range->module;
	}
	return 0;
}

static bool is_runtime_address(const struct pc_model *m, uint32_t module, uint64_t address)
{
	const struct pc_module *mod;

	if (!module)
		return true;
	mod = pc_model_module(m, module);
	if (mod->has_range)
		return address >= mod->start && address < mod->limit;
	return address >= RUNTIME_ADDRESS_MIN;
}

static void mark_inline(struct ps_reader *r, uint32_t id)
{
	size_t word = id / 64;

	if (word >= r->inline_words) {
		size_t old = r->inline_words;

		pc_grow(&r->inline_bits, &r->inline_words, word + 1, sizeof(*r->inline_bits));
		memset(r->inline_bits + old, 0, (r->inline_words - old) * sizeof(*r->inline_bits));
	}
	r->inline_bits[word] |= 1ULL << (id % 64);
}

static bool is_inline(const struct ps_reader *r, uint32_t id)
{
	return id / 64 < r->inline_words && (r->inline_bits[id / 64] >> (id % 64) & 1);
}

/* The model frame of a parsed frame line in the sample's space. */
static uint32_t frame_for(struct ps_reader *r, const struct ps_frame_text *f, uint32_t space)
{
	uint32_t id;
	struct pc_frame frame = {
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = f->address,
	};

	if (f->build_id)
		frame.module = module_for(r, f->build_id, f->build_id_len, space, true);
	else if (f->dso)
		frame.module = module_for_dso(r, f->dso, f->dso_len, space);
	else if (!f->inlined && r->nranges)
		frame.module = module_by_range(r, space, f->address);
	if (f->inlined)
		frame.flags |= PC_FRAME_INLINE;
	if (!f->build_id && is_runtime_address(r->m, frame.module, f->address))
		frame.flags |= PC_FRAME_ABSOLUTE;
	if (f->sym)
		frame.function = pc_model_intern(r->m, f->sym, f->sym_len);
	id = pc_model_add_frame(r->m, &frame);
	if (f->inlined)
		mark_inline(r, id);
	return id;
}

static uint64_t cache_seed(const struct ps_reader *r, uint64_t kind)
{
	return (uint64_t)r->cur.space | (uint64_t)r->gen << 32 | kind << 62;
}

static struct ps_hot *hot_slot(struct ps_reader *r, struct ps_hash h)
{
	if (!r->hot)
		r->hot = pc_xcalloc((size_t)1 << HOT_BITS, sizeof(*r->hot));
	return &r->hot[(h.h1 >> 40) & (((size_t)1 << HOT_BITS) - 1)];
}

/* The frame id of line[at, end) whose text hashes to h, through the caches. */
/* The cached frame id of a frame line that hashes to h, or 0. */
static uint32_t cached_frame(struct ps_reader *r, struct ps_hash h)
{
	struct ps_hot *hot = hot_slot(r, h);
	const struct ps_hslot *slot;

	if (hot->value && hot->h1 == h.h1 && hot->h2 == (uint32_t)h.h2)
		return hot->value;
	slot = htable_get(&r->frames, h);
	if (!slot)
		return 0;
	*hot = (struct ps_hot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = slot->value };
	return slot->value;
}

/* Parses line[at, end) (which hashes to h) into a new frame and caches it. */
static int new_frame(struct ps_reader *r, size_t at, size_t end, struct ps_hash h, uint32_t *id)
{
	struct ps_frame_text f;
	struct ps_syntax syn;

	if (parse_frame(r->line, at, end, &f, &syn))
		return fail_syntax(r, &syn);
	if (f.dso)
		r->saw_dso = true;
	*id = frame_for(r, &f, r->cur.space);
	htable_put(&r->frames, h, *id);
	*hot_slot(r, h) = (struct ps_hot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = *id };
	return 0;
}

/* The frame id of line[at, end) whose text hashes to h, through the caches. */
static int resolve_hashed(struct ps_reader *r, size_t at, size_t end, struct ps_hash h,
			  uint32_t *id)
{
	*id = cached_frame(r, h);
	return *id ? 0 : new_frame(r, at, end, h, id);
}

static int resolve_frame(struct ps_reader *r, size_t at, size_t end, uint32_t *id)
{
	return resolve_hashed(r, at, end, hash_text(r->line + at, end - at, cache_seed(r, 0)), id);
}

static uint32_t branch_end_frame(struct ps_reader *r, const struct ps_branch_end *b)
{
	uint32_t space = r->cur.space;
	struct ps_hash h = hash_text(b->text, b->len, cache_seed(r, 1));
	const struct ps_hslot *slot = htable_get(&r->ends, h);
	struct pc_frame frame = { 0 };
	uint32_t id;

	if (slot)
		return slot->value;
	if (b->has_address) {
		frame.flags = PC_FRAME_HAS_ADDRESS;
		frame.address = b->address;
		if (b->build_id)
			frame.module = module_for(r, b->build_id, b->build_id_len, space, true);
		else if (b->dso)
			frame.module = module_for_dso(r, b->dso, b->dso_len, space);
		else
			frame.module = module_by_range(r, space, b->address);
		if (!b->build_id)
			frame.flags |= PC_FRAME_ABSOLUTE;
	} else {
		if (b->dso)
			frame.module = module_for_dso(r, b->dso, b->dso_len, space);
		if (b->sym)
			frame.function = pc_model_intern(r->m, b->sym, b->sym_len);
	}
	id = pc_model_add_frame(r->m, &frame);
	htable_put(&r->ends, h, id);
	return id;
}

/* ---- the current sample ---- */

static void push_frame(struct ps_reader *r, uint32_t id)
{
	struct ps_sample *c = &r->cur;

	if (c->nframes == c->frames_cap)
		pc_grow(&c->frames, &c->frames_cap, c->nframes + 1, sizeof(*c->frames));
	c->frames[c->nframes++] = id;
	c->has_inline |= is_inline(r, id);
}

/*
 * perf prints the functions inlined at an address as "(inlined)" frames
 * right before the frame of that address, which they fold into. A run of
 * them that no frame of their address follows (DWARF unwinding can print
 * one) is a location of its own: its last frame becomes a physical one.
 */
static void settle_inline_runs(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;

	for (size_t i = 0; i < c->nframes; i++) {
		const struct pc_frame *frame = pc_model_frame(r->m, c->frames[i]);
		struct pc_frame physical;

		if (!(frame->flags & PC_FRAME_INLINE) ||
		    (i + 1 < c->nframes &&
		     pc_model_frame(r->m, c->frames[i + 1])->address == frame->address))
			continue;
		physical = *frame;
		physical.flags &= ~(uint32_t)PC_FRAME_INLINE;
		c->frames[i] = pc_model_add_frame(r->m, &physical);
	}
}

/* Parses the brstack entries in line[at, end) into the sample. */
static int add_branches(struct ps_reader *r, size_t at, size_t end)
{
	struct ps_sample *c = &r->cur;
	const char *s = r->line;

	at = skip_blanks(s, at, end);
	while (at < end) {
		size_t tok_end = at;
		struct ps_branch_end from, to;
		struct ps_syntax syn;

		while (tok_end < end && !is_blank(s[tok_end]))
			tok_end++;
		if (!parse_branch_entry(s, at, tok_end, &from, &to)) {
			syntax_error(&syn, s, at, tok_end,
				     "a branch entry 0xFROM/0xTO/FLAGS (or SYM/SYM/FLAGS)");
			return fail_syntax(r, &syn);
		}
		pc_grow(&c->branches, &c->branches_cap, c->nbranches + 1, sizeof(*c->branches));
		c->branches[c->nbranches].from = branch_end_frame(r, &from);
		c->branches[c->nbranches].to = branch_end_frame(r, &to);
		c->nbranches++;
		at = skip_blanks(s, tok_end, end);
	}
	return 0;
}

static void open_sample(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;

	c->line = r->lineno;
	c->labels = 0;
	c->space = 0;
	c->event = -1;
	c->has_period = false;
	c->callchain_header = false;
	c->period = 0;
	c->repeat = r->repeat ? r->repeat : 1;
	c->stack = 0;
	c->has_inline = false;
	c->nframes = 0;
	c->nbranches = 0;
	r->repeat = 0;
}

static int emit_sample(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;
	struct pc_sample sample = { .labels = c->labels };
	const struct ps_event *ev;
	uint64_t value = c->has_period ? c->period : 1;

	r->state = ST_IDLE;
	r->prev_frame = false;
	if (c->event < 0 && default_event(r, &c->event))
		return -1;
	ev = &r->events[c->event];
	if (value && c->repeat > PC_COUNT_MAX / value)
		return pc_fail_line(&r->ctx->err, FORMAT, c->line, 1,
				    "the sample's count %llu times its period %llu passes 2^63-1",
				    (unsigned long long)c->repeat, (unsigned long long)value);
	if (!c->stack && c->has_inline)
		settle_inline_runs(r);
	sample.stack = c->stack ? c->stack : pc_model_add_stack(r->m, c->frames, c->nframes);
	c->stack = sample.stack;
	if (c->nbranches)
		sample.branches = pc_model_add_branches(r->m, c->branches, c->nbranches);
	if (pc_model_add_sample(r->m, &sample, (size_t)ev->col_sample, c->repeat) ||
	    pc_model_add_sample(r->m, &sample, (size_t)ev->col_event, value * c->repeat))
		return pc_fail_line(&r->ctx->err, FORMAT, c->line, 1,
				    "the counts of event '%s' pass 2^63-1", pc_str(r->m, ev->name));
	if (r->m->default_column < 0)
		pc_model_set_default_column(r->m, ev->col_event);
	r->saw_sample = true;
	return 0;
}

/* ---- side records ---- */

/* [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH */
static int parse_mmap_body(struct ps_reader *r, size_t at, uint64_t *start, uint64_t *len,
			   uint64_t *pgoff, size_t *prot, size_t *path)
{
	const char *s = r->line;
	size_t end = r->len, hex, close;
	struct ps_syntax syn;

	at = skip_blanks(s, at, end);
	if (!has_prefix(s + at, end - at, "[0x"))
		goto bad;
	hex = hex_run(s, at + 3, end);
	if (!parse_hex(s + at + 3, hex - at - 3, start) || !has_prefix(s + hex, end - hex, "(0x"))
		goto bad;
	at = hex + 3;
	hex = hex_run(s, at, end);
	if (!parse_hex(s + at, hex - at, len) || !has_prefix(s + hex, end - hex, ")"))
		goto bad;
	at = skip_blanks(s, hex + 1, end);
	if (at >= end || s[at] != '@')
		goto bad;
	at = skip_blanks(s, at + 1, end);
	if (has_prefix(s + at, end - at, "0x"))
		at += 2;
	hex = hex_run(s, at, end);
	if (!parse_hex(s + at, hex - at, pgoff))
		goto bad;
	for (close = hex; close + 1 < end && !(s[close] == ']' && s[close + 1] == ':'); close++)
		;
	if (close + 1 >= end)
		goto bad;
	*prot = skip_blanks(s, close + 2, end);
	for (at = *prot; at < end && !is_blank(s[at]); at++)
		;
	*path = skip_blanks(s, at, end);
	return 0;
bad:
	syntax_error(&syn, s, at, end, "the mapping '[0xSTART(0xLEN) @ PGOFF ...]: PROT PATH'");
	return fail_syntax(r, &syn);
}

/* Adds a range to a module and remembers it for bare addresses. */
static void add_mapping(struct ps_reader *r, int64_t pid, const char *path, size_t path_len,
			uint64_t start, uint64_t len, uint64_t pgoff)
{
	uint64_t limit = len > UINT64_MAX - start ? UINT64_MAX : start + len;
	uint32_t space = pid >= 0 ? (uint32_t)pid + 1 : 0;
	struct pc_module module = {
		.name = pc_model_intern(r->m, path, path_len), .space = space,
		.start = start, .limit = limit, .file_offset = pgoff, .has_range = true,
	};
	uint32_t id;

	if (pid < 0) {
		pc_grow(&r->globals, &r->globals_cap, r->nglobals + 1, sizeof(*r->globals));
		r->globals[r->nglobals++] = (struct ps_global){
			.name = module.name, .start = start, .limit = limit, .pgoff = pgoff,
		};
		/* modules of this dso already made in other spaces get it too */
		for (size_t i = 0; i < r->m->nmodules; i++)
			if (r->m->modules[i].name == module.name && !r->m->modules[i].build_id) {
				module.space = r->m->modules[i].space;
				pc_model_add_module(r->m, &module);
			}
		module.space = 0;
	}
	id = pc_model_add_module(r->m, &module);
	pc_grow(&r->ranges, &r->ranges_cap, r->nranges + 1, sizeof(*r->ranges));
	r->ranges[r->nranges++] = (struct ps_range){
		.space = space, .module = id, .start = start, .limit = limit,
	};
	r->gen++;
}

/* PERF_RECORD_MMAP[2] PID/TID: [0xSTART(0xLEN) @ PGOFF ...]: PROT PATH */
static int side_mmap(struct ps_reader *r, size_t at)
{
	const char *s = r->line;
	size_t end = r->len, slash, colon, prot = 0, path = 0, path_end;
	uint64_t start, len, pgoff;
	int64_t pid, tid;
	struct ps_syntax syn;

	at = skip_blanks(s, at, end);
	for (colon = at; colon < end && s[colon] != ':'; colon++)
		;
	slash = at;
	while (slash < colon && s[slash] != '/')
		slash++;
	if (colon == end || slash == colon || !parse_id(s + at, slash - at, &pid) ||
	    !parse_id(s + slash + 1, colon - slash - 1, &tid)) {
		syntax_error(&syn, s, at, colon, "PID/TID: after the MMAP record name");
		return fail_syntax(r, &syn);
	}
	if (parse_mmap_body(r, colon + 1, &start, &len, &pgoff, &prot, &path))
		return -1;
	tid_learn(r, pid, tid);
	path_end = trim_end(s, path, end);
	if (!memchr(s + prot, 'x', path > prot ? path - prot : 0) || path_end == path || !len)
		return 0;
	/* the kernel map is named "[kernel.kallsyms]_text"; frames say "[kernel.kallsyms]" */
	if (s[path] == '[') {
		const char *close = memchr(s + path, ']', path_end - path);

		if (close && has_prefix(close + 1, (size_t)(s + path_end - close - 1), "_"))
			path_end = (size_t)(close - s) + 1;
	}
	add_mapping(r, pid, s + path, path_end - path, start, len, pgoff);
	return 0;
}

/* "...:PID/TID" at the end (COMM) or "(PID:TID)" first (FORK, EXIT). */
static void side_learn_tid(struct ps_reader *r, size_t at)
{
	const char *s = r->line;
	size_t end = trim_end(s, at, r->len), i = end;
	int64_t pid, tid;
	const char *open = memchr(s + at, '(', end - at);

	if (open) {
		const char *colon = memchr(open, ':', (size_t)(s + end - open));
		const char *close = colon ? memchr(colon, ')', (size_t)(s + end - colon)) : NULL;

		if (close && parse_id(open + 1, (size_t)(colon - open - 1), &pid) &&
		    parse_id(colon + 1, (size_t)(close - colon - 1), &tid))
			tid_learn(r, pid, tid);
		return;
	}
	while (i > at && s[i - 1] != ':')
		i--;
	if (i > at) {
		const char *slash = memchr(s + i, '/', end - i);

		if (slash && parse_id(s + i, (size_t)(slash - (s + i)), &pid) &&
		    parse_id(slash + 1, (size_t)(s + end - slash - 1), &tid))
			tid_learn(r, pid, tid);
	}
}

static void side_lost(struct ps_reader *r, size_t at)
{
	const char *s = r->line;
	size_t end = trim_end(s, at, r->len), start = end;
	uint64_t n;

	while (start > at && is_digit(s[start - 1]))
		start--;
	if (parse_decimal(s + start, end - start, &n) && n <= UINT64_MAX - r->lost)
		r->lost += n;
}

static int side_record(struct ps_reader *r, size_t at)
{
	const char *s = r->line + at;
	size_t n = r->len - at;

	if (has_prefix(s, n, "PERF_RECORD_MMAP2"))
		return side_mmap(r, at + strlen("PERF_RECORD_MMAP2"));
	if (has_prefix(s, n, "PERF_RECORD_MMAP") &&
	    (n == strlen("PERF_RECORD_MMAP") || is_blank(s[strlen("PERF_RECORD_MMAP")])))
		return side_mmap(r, at + strlen("PERF_RECORD_MMAP"));
	if (has_prefix(s, n, "PERF_RECORD_COMM") || has_prefix(s, n, "PERF_RECORD_FORK") ||
	    has_prefix(s, n, "PERF_RECORD_EXIT"))
		side_learn_tid(r, at + strlen("PERF_RECORD_COMM"));
	else if (has_prefix(s, n, "PERF_RECORD_LOST"))
		side_lost(r, at + strlen("PERF_RECORD_LOST"));
	return 0;
}

/* ---- header comments ---- */

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
static int64_t parse_captured_on(const char *s, size_t n)
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

static void header_event_line(struct ps_reader *r, const char *value, size_t n)
{
	size_t end;
	pc_str_id name;

	if (!has_prefix(value, n, "name = "))
		return;
	value += strlen("name = ");
	n -= strlen("name = ");
	for (end = 0; end < n && value[end] != ','; end++)
		;
	end = trim_end(value, 0, end);
	if (!end)
		return;
	name = pc_model_intern(r->m, value, end);
	for (size_t i = 0; i < r->ndeclared; i++)
		if (r->declared[i] == name)
			return;
	pc_grow(&r->declared, &r->declared_cap, r->ndeclared + 1, sizeof(*r->declared));
	r->declared[r->ndeclared++] = name;
}

/* "# key : value" lines of perf script --header. */
static void comment_line(struct ps_reader *r)
{
	const char *s = r->line;
	size_t at = skip_blanks(s, 1, r->len), colon, key_end, value, end;
	char key[64];

	if (r->saw_sample)
		return;
	for (colon = at; colon < r->len && s[colon] != ':'; colon++)
		;
	if (colon >= r->len || colon == at)
		return;
	key_end = trim_end(s, at, colon);
	value = skip_blanks(s, colon + 1, r->len);
	end = trim_end(s, value, r->len);
	if (key_end - at >= sizeof(key) - 8 || memchr(s + at, '\0', key_end - at))
		return;
	snprintf(key, sizeof(key), "perf.%.*s", (int)(key_end - at), s + at);
	for (char *p = key; *p; p++)
		if (*p == ' ')
			*p = '_';
	if (!strcmp(key, "perf.event"))
		header_event_line(r, s + value, end - value);
	else if (!strcmp(key, "perf.cmdline"))
		pc_model_add_comment(r->m, "perf-command:%.*s", (int)(end - value), s + value);
	else if (!strcmp(key, "perf.perf_version"))
		pc_model_add_comment(r->m, "perf-version:%.*s", (int)(end - value), s + value);
	else if (!strcmp(key, "perf.captured_on") && !r->m->time_nanos)
		r->m->time_nanos = parse_captured_on(s + value, end - value);
	if (!memchr(s + value, '\0', end - value)) {
		char *text = scratch(r, end - value + 1);

		memcpy(text, s + value, end - value);
		text[end - value] = '\0';
		pc_model_add_fact(r->m, key, text);
	}
}

/* ---- lines ---- */

static bool is_trace_error(const struct ps_reader *r)
{
	return r->first > 0 && has_prefix(r->line + r->first, r->len - r->first,
					  "instruction trace error");
}

static bool is_perf_message(const struct ps_reader *r)
{
	const char *s = r->line;

	return has_prefix(s, r->len, "Warning:") || has_prefix(s, r->len, "Error:") ||
	       has_prefix(s, r->len, "Failed to open");
}

/* The end of the current line's first token when it is an address, else 0. */
static size_t line_address_end(const struct ps_reader *r)
{
	return r->first < r->len ? address_token_end(r->line, r->first, r->len) : 0;
}

static size_t line_end(const struct ps_reader *r)
{
	return trim_end(r->line, r->first, r->len);
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
	if (parse_frame(r->line, at, end, &f, &syn))
		return fail_syntax(r, &syn);
	for (size_t i = at; i < end; i++)
		depth += r->line[i] == '(' ? 1 : r->line[i] == ')' ? -1 : 0;
	if (depth <= 0 && (f.dso || f.inlined || !r->saw_dso))
		return 0;
	fail_at(r, end, "the input ends inside this frame line (expected the rest of it, up to "
		"its '(DSO)')");
	r->recoverable = true;
	return -1;
}

static int stack_frame_line(struct ps_reader *r)
{
	uint32_t id;
	size_t end = line_end(r);

	if (check_truncated_frame(r, r->first, end) || resolve_frame(r, r->first, end, &id))
		return -1;
	push_frame(r, id);
	r->prev_frame = true;
	return 0;
}

/* "  FILE:LINE [(inlined)]" after a frame (-F +srcline). */
static int srcline_line(struct ps_reader *r)
{
	struct ps_sample *c = &r->cur;
	const char *s = r->line;
	size_t start = r->first, end = line_end(r), colon;
	struct pc_frame frame = *pc_model_frame(r->m, c->frames[c->nframes - 1]);
	uint64_t number;

	r->prev_frame = false;
	if (has_suffix(s + start, end - start, " (inlined)")) {
		end = trim_end(s, start, end - strlen(" (inlined)"));
		frame.flags |= PC_FRAME_INLINE;
		frame.module = 0;
		frame.flags |= PC_FRAME_ABSOLUTE;
	}
	for (colon = end; colon > start && s[colon - 1] != ':'; colon--)
		;
	if (colon > start + 1 && parse_decimal(s + colon, end - colon, &number) &&
	    number <= UINT32_MAX && !equals(s + start, colon - 1 - start, "??")) {
		frame.file = pc_model_intern(r->m, s + start, colon - 1 - start);
		frame.line = (uint32_t)number;
	}
	c->frames[c->nframes - 1] = pc_model_add_frame(r->m, &frame);
	if (frame.flags & PC_FRAME_INLINE) {
		mark_inline(r, c->frames[c->nframes - 1]);
		c->has_inline = true;
	}
	return 0;
}

/* A brstack line ends its sample (llvm-profgen's hybrid form). */
static int branch_line(struct ps_reader *r)
{
	if (add_branches(r, r->first, line_end(r)))
		return -1;
	return emit_sample(r);
}

static int idle_line(struct ps_reader *r);

static bool looks_like_branch_line(const struct ps_reader *r)
{
	size_t end = r->first;

	while (end < r->len && !is_blank(r->line[end]))
		end++;
	return r->first > 0 && is_branch_entry(r->line, r->first, end);
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
	if (addr_end && (r->first > 0 || parse_header(s, r->len, &h, &syn) || !h.has_time))
		return stack_frame_line(r);
	r->prev_frame = false;
	if (looks_like_branch_line(r))
		return branch_line(r);
	if (is_trace_error(r)) {
		r->trace_errors++;
		return 0;
	}
	return header_line(r, true);
}

/* Opens a sample that has no header line (-F ip,...). */
static void open_headerless(struct ps_reader *r)
{
	open_sample(r);
}

static int headerless_single(struct ps_reader *r)
{
	const char *s = r->line;
	size_t end = line_end(r), br = trailing_branches(s, r->first, end);
	size_t frame_end = trim_end(s, r->first, br);
	uint32_t id;

	open_headerless(r);
	if (resolve_frame(r, r->first, frame_end, &id))
		return -1;
	push_frame(r, id);
	if (br < end && add_branches(r, br, end))
		return -1;
	r->state = ST_SINGLE;
	return 0;
}

static int repeat_line(struct ps_reader *r)
{
	uint64_t n;

	if (!parse_decimal(r->line, r->len, &n) || !n)
		return fail_at(r, 0, "a repeat count must be from 1 to 2^64-1");
	r->repeat = n;
	return 0;
}

static bool is_repeat_line(const struct ps_reader *r)
{
	for (size_t i = 0; i < r->len; i++)
		if (!is_digit(r->line[i]))
			return false;
	return r->len > 0;
}

static int idle_line(struct ps_reader *r)
{
	size_t addr_end;
	struct ps_token tok;

	if (is_repeat_line(r))
		return repeat_line(r);
	addr_end = r->first > 0 ? line_address_end(r) : 0;
	if (addr_end && r->line[0] == '\t') {
		open_headerless(r);
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	tok = (struct ps_token){ (uint32_t)r->first, (uint32_t)addr_end, (uint32_t)r->first };
	if (addr_end && tok_is_wide_hex(r->line, &tok))
		return headerless_single(r);
	if (is_trace_error(r)) {
		r->trace_errors++;
		return 0;
	}
	if (is_perf_message(r)) {
		r->perf_messages++;
		return 0;
	}
	return header_line(r, false);
}

static int open_from_header(struct ps_reader *r, const struct ps_header *h)
{
	struct ps_sample *c = &r->cur;
	struct ps_label_key fields = { 0 };
	int64_t pid = h->pid;
	bool has_pid = h->has_pid;

	open_sample(r);
	if (h->has_pid && h->has_tid)
		tid_learn(r, h->pid, h->tid);
	else if (h->has_tid)
		has_pid = tid_lookup(r, h->tid, &pid);
	if (has_pid) {
		fields.mask |= 1;
		fields.pid = pid;
		c->space = pid >= 0 ? (uint32_t)pid + 1 : 0;
	}
	if (h->has_tid) {
		fields.mask |= 2;
		fields.tid = h->tid;
	}
	if (h->has_cpu) {
		fields.mask |= 4;
		fields.cpu = h->cpu;
	}
	c->labels = labels_for(r, r->line + h->comm_start, h->comm_end - h->comm_start, &fields);
	c->has_period = h->has_period;
	c->period = h->period;
	if (h->has_time) {
		if (!r->any_time || h->time_ns < r->first_time)
			r->first_time = h->time_ns;
		if (!r->any_time || h->time_ns > r->last_time)
			r->last_time = h->time_ns;
		r->any_time = true;
	}
	if (h->has_event)
		return find_event(r, r->line + h->event_start, h->event_end - h->event_start,
				  &c->event);
	return default_event(r, &c->event);
}

/* Fills the open sample from the header's remainder. */
static int apply_rest(struct ps_reader *r, const struct ps_rest *rest)
{
	struct ps_sample *c = &r->cur;
	uint32_t from, to;

	switch (rest->kind) {
	case REST_NONE:
	case REST_PAYLOAD:
		c->callchain_header = true;
		r->state = ST_STACK;
		return 0;
	case REST_BRANCH:
		if (resolve_frame(r, rest->frame_start, rest->frame_end, &from) ||
		    resolve_frame(r, rest->to_start, rest->to_end, &to))
			return -1;
		push_frame(r, from);
		pc_grow(&c->branches, &c->branches_cap, 1, sizeof(*c->branches));
		c->branches[0] = (struct pc_branch){ .from = from, .to = to };
		c->nbranches = 1;
		break;
	case REST_SINGLE:
		if (resolve_frame(r, rest->frame_start, rest->frame_end, &from))
			return -1;
		push_frame(r, from);
		break;
	case REST_ENTRIES:
		break;
	}
	if (rest->br_end > rest->br_start && add_branches(r, rest->br_start, rest->br_end))
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

	if (parse_header(r->line, r->len, &h, &syn) ||
	    (!h.side && classify_rest(r->line, r->len, &h, &rest, &syn))) {
		if (in_stack && r->first > 0) {
			size_t end = r->first;

			while (end < r->len && !is_blank(r->line[end]))
				end++;
			syntax_error(&syn, r->line, r->first, end,
				     "a callchain line (HEXADDRESS [SYMBOL] [(DSO)])");
		}
		return fail_syntax(r, &syn);
	}
	if (in_stack && emit_sample(r))
		return -1;
	r->state = ST_IDLE;
	if (h.side)
		return side_record(r, h.side_at);
	if (open_from_header(r, &h))
		return -1;
	return apply_rest(r, &rest);
}

/* After a complete single-line sample: tab-indented frames make it a callchain. */
static int single_next_line(struct ps_reader *r)
{
	if (r->line[0] == '\t' && line_address_end(r)) {
		r->cur.nframes = 0;
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	if (emit_sample(r))
		return -1;
	return idle_line(r);
}

static int pending_line(struct ps_reader *r)
{
	if (r->first > 0 && line_address_end(r)) {
		if (pc_warn(r->ctx, FORMAT, "took a blank line between a sample header and its "
			    "callchain as part of the sample (first at line %u)", r->lineno - 1))
			return -1;
		r->state = ST_STACK;
		return stack_frame_line(r);
	}
	if (emit_sample(r))
		return -1;
	return idle_line(r);
}

/* --skip-bad: the rest of a bad sample's callchain is skipped too. */
static int skip_line(struct ps_reader *r)
{
	struct ps_header h;
	struct ps_syntax syn;

	if (r->first > 0 && (line_address_end(r) || looks_like_branch_line(r) ||
			     parse_header(r->line, r->len, &h, &syn)))
		return 0;
	r->state = ST_IDLE;
	return idle_line(r);
}

/*
 * ---- callchains read whole from the window ----
 *
 * Right after a header whose callchain follows, the lines up to the empty
 * line that ends it are looked at in the window at once. When every one
 * is a plain frame line (indented address, no srcline or brstack line,
 * no CRLF, the whole within 1 MiB), the callchain is identified by the
 * hashes of its lines: one seen before (same lines, space and mappings)
 * gives its stack id in one probe; a new one is resolved line by line
 * without the per-line state machine and then cached. Anything else is
 * left to the line-by-line path, which reads the same lines the same way.
 */

/*
 * Finds the empty line that ends the callchain at the window's start:
 * its offset in *blank, false when the callchain does not end cleanly
 * within 1 MiB (a line not indented, CRLF, the end of the input).
 */
static bool find_block(struct ps_reader *r, const uint8_t **data, size_t *nlines,
		       size_t *blank)
{
	size_t have = pc_input_fill(r->in, 1, data), at = 0, n = 0;
	uint64_t seed = cache_seed(r, 0);

	for (;;) {
		const uint8_t *nl = at < have ? memchr(*data + at, '\n', have - at) : NULL;
		const char *s = (const char *)*data;
		struct ps_block_line *line;
		size_t end;

		if (!nl) {
			size_t more;

			if (have >= BLOCK_MAX_BYTES)
				return false;
			more = pc_input_fill(r->in, have + READ_AHEAD, data);
			if (more <= have)
				return false;
			have = more;
			continue;
		}
		end = (size_t)(nl - *data);
		if (end == at) {
			*nlines = n;
			*blank = at;
			return n > 0;
		}
		if (!is_blank(s[at]) || s[end - 1] == '\r')
			return false;
		if (n == r->block_cap)
			pc_grow(&r->block, &r->block_cap, n + 1, sizeof(*r->block));
		line = &r->block[n++];
		line->start = (uint32_t)at;
		line->first = (uint32_t)skip_blanks(s, at, end);
		line->end = (uint32_t)trim_end(s, line->first, end);
		line->next = (uint32_t)(end + 1);
		line->h = hash_text(s + line->first, line->end - line->first, seed);
		at = end + 1;
	}
}

/* The callchain's identity, from its lines'. */
static struct ps_hash block_hash(const struct ps_reader *r, size_t n)
{
	struct ps_hash h = { 0x1b873593ULL ^ n, 0xcc9e2d51ULL + n };

	for (size_t i = 0; i < n; i++) {
		h.h1 = rotl64(h.h1 ^ r->block[i].h.h1, 27) * 0x9e3779b97f4a7c15ULL;
		h.h2 = rotl64(h.h2 + r->block[i].h.h2, 31) * 0xff51afd7ed558ccdULL;
	}
	h.h1 = pc_hash_u64(h.h1 ^ rotl64(h.h2, 17));
	h.h2 = pc_hash_u64(h.h2 + 0x2545f4914f6cdd1dULL);
	return h;
}

/* A plain frame line: an address first, and no srcline ("  file:12" after a frame). */
static bool plain_line(const char *s, const struct ps_block_line *line, bool after_frame)
{
	size_t addr = line->first < line->end ? address_token_end(s, line->first, line->end) : 0;
	bool two_spaces = line->first == line->start + 2 && s[line->start] == ' ' &&
			  s[line->start + 1] == ' ';

	return addr && !(two_spaces && after_frame && memchr(s + line->first, ':', addr - line->first));
}

/*
 * Resolves the block's lines into the sample's frames: 0, -1 on an error
 * (the line loop then goes on after the bad line), or 1 when a new line is
 * not a plain frame line and the block must be read line by line.
 */
static int resolve_block(struct ps_reader *r, const uint8_t *data, size_t n)
{
	uint32_t header_line = r->lineno;
	const char *s = (const char *)data;

	/* the lines' cache slots are far apart: ask for all of them at once */
	for (size_t i = 0; i < n && r->frames.slots; i++)
		PREFETCH(&r->frames.slots[r->block[i].h.h1 & r->frames.mask]);
	for (size_t i = 0; i < n; i++) {
		const struct ps_block_line *line = &r->block[i];
		uint32_t id = cached_frame(r, line->h);

		if (!id) {
			if (!plain_line(s, line, i > 0))
				return 1;
			r->line = s + line->start;
			r->len = line->next - 1 - line->start;
			r->first = line->first - line->start;
			r->lineno = header_line + (uint32_t)i + 1;
			if (new_frame(r, r->first, line->end - line->start, line->h, &id)) {
				pc_input_consume(r->in, line->start);
				r->consume = r->len + 1;
				return -1;
			}
		}
		push_frame(r, id);
	}
	return 0;
}

/*
 * After a header whose callchain follows: reads the callchain whole when
 * it can (see above). *done says the sample is then complete.
 */
static int try_block(struct ps_reader *r, bool *done)
{
	const uint8_t *data;
	size_t n = 0, blank;
	struct ps_hash h;
	const struct ps_hslot *slot;
	uint32_t header_line = r->lineno;
	int rc;

	*done = false;
	pc_input_consume(r->in, r->consume);
	r->consume = 0;
	if (!find_block(r, &data, &n, &blank))
		return pc_input_check_io(r->in, &r->ctx->err);
	h = block_hash(r, n);
	slot = htable_get(&r->blocks, h);
	if (slot) {
		r->cur.stack = slot->value;
	} else if ((rc = resolve_block(r, data, n))) {
		if (rc < 0)
			return -1;
		r->lineno = header_line; /* not plain: read it line by line */
		r->cur.nframes = 0;
		r->cur.has_inline = false;
		return 0;
	}
	r->lineno = header_line + (uint32_t)n + 1;
	pc_input_consume(r->in, blank + 1);
	*done = true;
	if (emit_sample(r))
		return -1;
	if (!slot)
		htable_put(&r->blocks, h, r->cur.stack);
	return 0;
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
		return emit_sample(r);
	case ST_SINGLE:
		return emit_sample(r);
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
		comment_line(r);
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
	char message[600];
	bool had_sample = r->state != ST_IDLE && r->state != ST_SKIP;

	snprintf(message, sizeof(message), "line %u:%u: %s", r->ctx->err.line, r->ctx->err.column,
		 r->ctx->err.message);
	pc_error_clear(&r->ctx->err);
	if (pc_warn(r->ctx, FORMAT, "skipped an unparseable line (first: %s)", message))
		return -1;
	if (had_sample &&
	    pc_warn(r->ctx, FORMAT, "dropped a sample that had an unparseable line (first at line %u)",
		    r->cur.line))
		return -1;
	r->state = ST_SKIP;
	r->prev_frame = false;
	return 0;
}

static int finish(struct ps_reader *r)
{
	if ((r->state == ST_STACK || r->state == ST_PENDING_ZERO || r->state == ST_SINGLE) &&
	    emit_sample(r))
		return -1;
	if (make_declared_events(r))
		return -1;
	pc_model_add_source(r->m, FORMAT);
	if (r->any_time && r->last_time > r->first_time && !r->m->duration_nanos &&
	    r->last_time - r->first_time <= (uint64_t)INT64_MAX)
		r->m->duration_nanos = (int64_t)(r->last_time - r->first_time);
	if (r->lost)
		pc_model_add_comment(r->m, "perf-script: the input reports %llu lost events",
				     (unsigned long long)r->lost);
	if (r->trace_errors)
		pc_model_add_comment(r->m, "perf-script: %llu instruction trace error line(s) skipped",
				     (unsigned long long)r->trace_errors);
	if (r->perf_messages)
		pc_model_add_comment(r->m, "perf-script: %llu line(s) of perf's own messages skipped",
				     (unsigned long long)r->perf_messages);
	return 0;
}

static int read_lines(struct ps_reader *r)
{
	for (;;) {
		bool got;

		if (next_line(r, &got))
			return -1;
		if (!got)
			return finish(r);
		r->recoverable = false;
		if (handle_line(r) &&
		    (!r->recoverable || !r->ctx->opt.skip_bad || skip_bad_line(r)))
			return -1;
		if (r->state == ST_STACK && r->cur.line == r->lineno && !r->cur.nframes &&
		    r->cur.callchain_header) {
			bool done;

			r->recoverable = false;
			if (try_block(r, &done) &&
			    (!r->recoverable || !r->ctx->opt.skip_bad || skip_bad_line(r)))
				return -1;
		}
	}
}

static int perf_script_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct ps_reader r;
	int ret;

	reader_init(&r, ctx, in, m);
	ret = read_lines(&r);
	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	reader_release(&r);
	return ret;
}

/* ---- probe ---- */

/*
 * Scores one line: 2 a sample header with time and event, a frame with a
 * dso or a side record; 1 a tab-indented frame or brstack entries; 0 a line
 * that reads but proves little; -1 a line that is not perf script.
 */
static int probe_line(const char *s, size_t len)
{
	struct ps_header h;
	struct ps_rest rest;
	struct ps_syntax syn;
	struct ps_frame_text f;
	size_t first = skip_blanks(s, 0, len), end = trim_end(s, 0, len);

	size_t addr = first < end ? address_token_end(s, first, end) : 0;

	if (first == len)
		return 0;
	/* frames: indented, or in column 0 with a long address (old perf) */
	if (addr && (first > 0 || addr >= 6) && !parse_frame(s, first, end, &f, &syn)) {
		if (f.dso || f.inlined)
			return 2;
		if (s[0] == '\t')
			return 1;
	}
	if (first > 0 && trailing_branches(s, first, end) < end)
		return 1;
	if (hex_run(s, 0, end) == end && s[0] >= '0' && s[0] <= '9' && is_digit(s[end - 1])) {
		uint64_t repeat;

		return parse_decimal(s, end, &repeat) ? 0 : -1; /* llvm-profgen's repeat count */
	}
	if (parse_header(s, len, &h, &syn))
		return -1;
	if (h.side)
		return 2;
	if (classify_rest(s, len, &h, &rest, &syn))
		return -1;
	if (h.has_time && h.has_event)
		return 2;
	return h.has_event && h.has_tid ? 1 : 0;
}

static int perf_script_probe(const uint8_t *head, size_t len)
{
	const char *s = (const char *)head;
	size_t at = 0, lines = 0;
	int good = 0;
	bool comments = false;

	while (at < len && lines < 24) {
		const char *nl = memchr(s + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - s) : len, n = end - at;
		int score;

		if (!nl && len >= PC_PROBE_BYTES)
			break; /* a line cut by the probe window */
		if (n && s[end - 1] == '\r')
			n--;
		if (memchr(s + at, '\0', n))
			return PC_PROBE_NO;
		lines++;
		if (n && s[at] == '#') {
			comments |= has_prefix(s + at, n, "# ========") ||
				    has_prefix(s + at, n, "# captured on") ||
				    has_prefix(s + at, n, "# perf version") ||
				    has_prefix(s + at, n, "# cmdline");
		} else if ((score = probe_line(s + at, n)) < 0) {
			/* a bad line after good ones: perf script with an error the reader locates */
			return good >= 4 || (comments && good) ? PC_PROBE_STRONG : PC_PROBE_NO;
		} else {
			good += score;
		}
		at = end + 1;
	}
	if (good >= 4 || (comments && good >= 2))
		return PC_PROBE_CERTAIN;
	if (good >= 2 || comments)
		return PC_PROBE_STRONG;
	return good ? PC_PROBE_WEAK : PC_PROBE_NO;
}

static const char *const perf_script_aliases[] = { "perf", "perf-script-text", NULL };
static const char *const perf_script_extensions[] = { ".perf", ".perf.txt", ".perfscript",
						      ".script", NULL };

const struct pc_reader pc_perf_script_reader = {
	.name = "perf-script",
	.aliases = perf_script_aliases,
	.extensions = perf_script_extensions,
	.summary = "Linux perf script text (callchains, single-line, brstack, Intel PT, mmap events)",
	.provides = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS | PC_PART_BRANCHES,
	.probe = perf_script_probe,
	.read = perf_script_read,
};
