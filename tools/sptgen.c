/*
 * sptgen.c - writes SPT (Microsoft SPGO Sample Profile Trace, version 1)
 * files, from a text spec or at random. A standalone tool: it links
 * nothing but libc and takes only the format constants of
 * src/readers/spt_format.h.
 *
 *   sptgen SPEC OUT.spt
 *   sptgen --random SEED --bytes N [--modules M] [--spread PCT]
 *          [--ip-items N] [--seq-items N] OUT.spt
 *
 * The spec is line based; blank lines and lines starting with '#' are
 * ignored. Numbers are decimal or 0x hex. Directives:
 *
 *   header key=value ...    values written into the 32-byte header instead
 *                           of the true ones, to make malformed files; the
 *                           tables and events stay where the layout puts
 *                           them. Keys: signature=le|text|NUMBER, version,
 *                           strtab_offset, strtab_capacity, strtab_used,
 *                           progid_offset, progid_capacity, progids_used.
 *   layout key=value ...    where the tables really go (extension of the
 *                           brief's grammar, for small valid files): keys
 *                           strtab_offset (default 0x20), strtab_capacity
 *                           (default 0x4000, or the bytes used if more),
 *                           progid_offset (default strtab_offset +
 *                           strtab_capacity) and progid_capacity (default
 *                           0x100, or the programs if more). The header
 *                           states the layout unless `header` says else.
 *   program {GUID} AGE NAME the next program id (0, 1, ...): GUID as
 *                           {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}, AGE,
 *                           NAME = the rest of the line (UTF-8, may hold
 *                           spaces); each name is appended to the string
 *                           table with its NUL.
 *   segment PROGID [length=N]
 *                           a BINARY_ID record; its length (which counts
 *                           the 4-byte length field) is computed over the
 *                           records up to the next segment or the end,
 *                           unless length=N forces one. PROGID is not
 *                           checked, so it may be out of range.
 *   repeat N                a REPEAT record (the next record counts 1+N).
 *   ip KIND RVA ...         an IP record of up to 255 RVAs; KIND is one of
 *                           unhalt_cycle retire_instr retire_br_instr
 *                           l1_icache_miss l1_dcache_miss etw_instr.
 *   lbr FROM->TO ...        an LBR record of up to 255 pairs, written on
 *                           disk as (to, from) in the order given.
 *   callstack RVA ...       an ETW_CALLSTACK record, leaf first.
 *   raw HEXBYTES ...        bytes appended verbatim to the event stream
 *                           (e.g. `raw 77 00` or `raw 7700`); they count
 *                           toward the current segment's length.
 *
 * Records before the first `segment` are written as they come (a reader
 * must reject them). --random writes many modules, a skewed set of hot
 * RVAs per module, REPEATs and every record kind, until the file holds at
 * least N bytes; the same SEED (and options) gives the same file. Its
 * options shape the trace: --modules M programs (default 12), --spread PCT
 * of the IP RVAs drawn uniformly from the whole 32-bit range instead of
 * the hot set (default 0: the many distinct one-frame stacks of a big
 * application sampled for long), --ip-items N at most per IP record
 * (default 255) and --seq-items N at most per LBR and call-stack record
 * (default 32). The defaults give the bytes they always gave.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/spt.h"

#define MAX_PROGRAMS 65535u

#if defined(__GNUC__)
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args), noreturn))
#define NORETURN __attribute__((noreturn))
#else
#define PRINTF_LIKE(fmt, args)
#define NORETURN
#endif

struct bytes {
	uint8_t *data;
	size_t len, cap;
};

struct program {
	uint32_t data1;
	uint16_t data2, data3;
	uint8_t data4[8];
	uint32_t age;
	uint32_t name_index;
};

enum field {
	F_SIGNATURE,
	F_VERSION,
	F_STRTAB_OFFSET,
	F_STRTAB_CAPACITY,
	F_STRTAB_USED,
	F_PROGID_OFFSET,
	F_PROGID_CAPACITY,
	F_PROGIDS_USED,
	NFIELDS,
};

static const char *const field_names[NFIELDS] = {
	[F_SIGNATURE] = "signature",
	[F_VERSION] = "version",
	[F_STRTAB_OFFSET] = "strtab_offset",
	[F_STRTAB_CAPACITY] = "strtab_capacity",
	[F_STRTAB_USED] = "strtab_used",
	[F_PROGID_OFFSET] = "progid_offset",
	[F_PROGID_CAPACITY] = "progid_capacity",
	[F_PROGIDS_USED] = "progids_used",
};

struct spec {
	const char *path;
	unsigned line;

	struct program *programs;
	size_t nprograms, programs_cap;
	struct bytes strtab;
	struct bytes events;

	/* header lies (header directive) and real layout (layout directive) */
	uint64_t header[NFIELDS];
	bool header_set[NFIELDS];
	uint64_t layout[NFIELDS];
	bool layout_set[NFIELDS];

	/* the open segment: where its length goes, unless forced */
	bool segment_open, segment_forced;
	size_t segment_length_at;
};

static void die(const char *fmt, ...) PRINTF_LIKE(1, 2);
static void spec_die(const struct spec *spec, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void usage(void) NORETURN;

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sptgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *ptr, size_t size)
{
	void *grown = realloc(ptr, size ? size : 1);

	if (!grown)
		die("out of memory (%zu bytes)", size);
	return grown;
}

static void bytes_reserve(struct bytes *b, size_t more)
{
	if (b->len + more <= b->cap)
		return;
	while (b->len + more > b->cap)
		b->cap = b->cap ? b->cap * 2 : 4096;
	b->data = xrealloc(b->data, b->cap);
}

static void put8(struct bytes *b, unsigned v)
{
	bytes_reserve(b, 1);
	b->data[b->len++] = (uint8_t)v;
}

static void put16(struct bytes *b, unsigned v)
{
	put8(b, v & 0xff);
	put8(b, (v >> 8) & 0xff);
}

static void put32(struct bytes *b, uint32_t v)
{
	put16(b, v & 0xffff);
	put16(b, v >> 16);
}

static void put64(struct bytes *b, uint64_t v)
{
	put32(b, (uint32_t)v);
	put32(b, (uint32_t)(v >> 32));
}

static void poke32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void poke16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* --- spec parsing --- */

static void spec_die(const struct spec *spec, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sptgen: %s:%u: ", spec->path, spec->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static bool parse_u64(const char *s, uint64_t *out)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	*out = strtoull(s, &end, base);
	return !errno && !*end;
}

static uint64_t need_u64(const struct spec *spec, const char *s, uint64_t max,
			 const char *what)
{
	uint64_t value;

	if (!parse_u64(s, &value))
		spec_die(spec, "bad %s '%s' (expected a decimal or 0x hex number)", what, s);
	if (value > max)
		spec_die(spec, "%s %s is too large (at most %llu)", what, s,
			 (unsigned long long)max);
	return value;
}

/* Splits line in place on blanks; returns the word count (at most max). */
static size_t split_words(char *line, char **words, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		words[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return n;
}

static int hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads 2*n hex digits at s into out (n bytes); false when not hex. */
static bool hex_bytes(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hex_digit(s[2 * i]), lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

/* {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX} */
static void parse_guid(const struct spec *spec, const char *s, struct program *prog)
{
	uint8_t d1[4], d2[2], d3[2];

	if (strlen(s) != 38 || s[0] != '{' || s[37] != '}' || s[9] != '-' ||
	    s[14] != '-' || s[19] != '-' || s[24] != '-' ||
	    !hex_bytes(s + 1, d1, 4) || !hex_bytes(s + 10, d2, 2) ||
	    !hex_bytes(s + 15, d3, 2) || !hex_bytes(s + 20, prog->data4, 2) ||
	    !hex_bytes(s + 25, prog->data4 + 2, 6))
		spec_die(spec, "bad GUID '%s' (expected {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX})", s);
	prog->data1 = (uint32_t)d1[0] << 24 | (uint32_t)d1[1] << 16 |
		      (uint32_t)d1[2] << 8 | d1[3];
	prog->data2 = (uint16_t)(d2[0] << 8 | d2[1]);
	prog->data3 = (uint16_t)(d3[0] << 8 | d3[1]);
}

static void add_program(struct spec *spec, const struct program *prog,
			const char *name, size_t name_len)
{
	struct program *slot;

	if (spec->nprograms == MAX_PROGRAMS)
		spec_die(spec, "too many programs (at most %u)", MAX_PROGRAMS);
	if (spec->nprograms == spec->programs_cap) {
		spec->programs_cap = spec->programs_cap ? 2 * spec->programs_cap : 16;
		spec->programs = xrealloc(spec->programs,
					  spec->programs_cap * sizeof(*spec->programs));
	}
	slot = &spec->programs[spec->nprograms++];
	*slot = *prog;
	slot->name_index = (uint32_t)spec->strtab.len;
	bytes_reserve(&spec->strtab, name_len + 1);
	memcpy(spec->strtab.data + spec->strtab.len, name, name_len);
	spec->strtab.len += name_len;
	put8(&spec->strtab, 0);
}

/* "program {GUID} AGE NAME": the name is the rest of the raw line. */
static void parse_program(struct spec *spec, const char *raw)
{
	struct program prog = { 0 };
	char guid[64], age[32];
	const char *p = raw, *name, *end;
	size_t len;

	p += strspn(p, " \t");
	p += strcspn(p, " \t"); /* "program" */
	p += strspn(p, " \t");
	len = strcspn(p, " \t");
	if (len >= sizeof(guid))
		spec_die(spec, "bad GUID (expected {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX})");
	memcpy(guid, p, len);
	guid[len] = '\0';
	parse_guid(spec, guid, &prog);
	p += len;
	p += strspn(p, " \t");
	len = strcspn(p, " \t");
	if (!len || len >= sizeof(age))
		spec_die(spec, "expected 'program {GUID} AGE NAME'");
	memcpy(age, p, len);
	age[len] = '\0';
	prog.age = (uint32_t)need_u64(spec, age, UINT32_MAX, "age");
	name = p + len;
	name += strspn(name, " \t");
	end = name + strlen(name);
	while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == name)
		spec_die(spec, "expected 'program {GUID} AGE NAME' (the name is missing)");
	add_program(spec, &prog, name, (size_t)(end - name));
}

static enum field find_field(const struct spec *spec, const char *key, size_t len)
{
	for (int f = 0; f < NFIELDS; f++)
		if (strlen(field_names[f]) == len && !strncmp(field_names[f], key, len))
			return (enum field)f;
	spec_die(spec, "unknown key '%.*s' (expected one of signature, version, "
		 "strtab_offset, strtab_capacity, strtab_used, progid_offset, "
		 "progid_capacity, progids_used)", (int)len, key);
	return NFIELDS;
}

static uint64_t field_max(enum field f)
{
	switch (f) {
	case F_STRTAB_USED:
	case F_STRTAB_CAPACITY:
	case F_PROGIDS_USED:
	case F_PROGID_CAPACITY:
		return UINT16_MAX;
	default:
		return UINT32_MAX;
	}
}

static void parse_settings(struct spec *spec, char **words, size_t n, bool is_layout)
{
	for (size_t i = 1; i < n; i++) {
		const char *eq = strchr(words[i], '=');
		enum field f;
		uint64_t value;

		if (!eq)
			spec_die(spec, "expected key=value, found '%s'", words[i]);
		f = find_field(spec, words[i], (size_t)(eq - words[i]));
		if (f == F_SIGNATURE && !strcmp(eq + 1, "le"))
			value = SPT_SIGNATURE;
		else if (f == F_SIGNATURE && !strcmp(eq + 1, "text"))
			value = SPT_SIGNATURE_TEXT_VALUE;
		else
			value = need_u64(spec, eq + 1, field_max(f), field_names[f]);
		if (is_layout) {
			if (f != F_STRTAB_OFFSET && f != F_STRTAB_CAPACITY &&
			    f != F_PROGID_OFFSET && f != F_PROGID_CAPACITY)
				spec_die(spec, "layout takes only strtab_offset, strtab_capacity, "
					 "progid_offset and progid_capacity");
			spec->layout[f] = value;
			spec->layout_set[f] = true;
		} else {
			spec->header[f] = value;
			spec->header_set[f] = true;
		}
	}
}

static void close_segment(struct spec *spec)
{
	if (spec->segment_open && !spec->segment_forced) {
		size_t length = spec->events.len - spec->segment_length_at;

		if (length > UINT32_MAX)
			spec_die(spec, "segment longer than 4 GiB");
		poke32(spec->events.data + spec->segment_length_at, (uint32_t)length);
	}
	spec->segment_open = false;
}

static void parse_segment(struct spec *spec, char **words, size_t n)
{
	uint64_t progid, length = 0;
	bool forced = false;

	if (n < 2 || n > 3)
		spec_die(spec, "expected 'segment PROGID [length=N]'");
	progid = need_u64(spec, words[1], UINT16_MAX, "program id");
	if (n == 3) {
		if (strncmp(words[2], "length=", 7))
			spec_die(spec, "expected length=N, found '%s'", words[2]);
		length = need_u64(spec, words[2] + 7, UINT32_MAX, "length");
		forced = true;
	}
	close_segment(spec);
	put8(&spec->events, SPT_OP_BINARY_ID);
	put8(&spec->events, 0);
	put16(&spec->events, (unsigned)progid);
	spec->segment_length_at = spec->events.len;
	put32(&spec->events, (uint32_t)length);
	spec->segment_open = true;
	spec->segment_forced = forced;
}

static unsigned ip_kind_op(const struct spec *spec, const char *kind)
{
	static const struct {
		const char *name;
		unsigned op;
	} kinds[] = {
		{ "unhalt_cycle", SPT_OP_UNHALT_CYCLE },
		{ "retire_instr", SPT_OP_RETIRE_INSTR },
		{ "retire_br_instr", SPT_OP_RETIRE_BR_INSTR },
		{ "l1_icache_miss", SPT_OP_L1_ICACHE_MISS },
		{ "l1_dcache_miss", SPT_OP_L1_DCACHE_MISS },
		{ "etw_instr", SPT_OP_ETW_INSTR },
	};

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, kind))
			return kinds[i].op;
	spec_die(spec, "unknown ip kind '%s' (expected unhalt_cycle, retire_instr, "
		 "retire_br_instr, l1_icache_miss, l1_dcache_miss or etw_instr)", kind);
	return 0;
}

static void check_items(const struct spec *spec, size_t n)
{
	if (n > SPT_MAX_ITEMS)
		spec_die(spec, "%zu items in one record (at most %u)", n, SPT_MAX_ITEMS);
}

/* ip KIND RVA... and callstack RVA...: first is the index of the first RVA. */
static void parse_rva_record(struct spec *spec, unsigned op, char **words,
			     size_t first, size_t n)
{
	check_items(spec, n - first);
	put8(&spec->events, op);
	put8(&spec->events, (unsigned)(n - first));
	for (size_t i = first; i < n; i++)
		put32(&spec->events, (uint32_t)need_u64(spec, words[i], UINT32_MAX, "RVA"));
}

static void parse_lbr(struct spec *spec, char **words, size_t n)
{
	check_items(spec, n - 1);
	put8(&spec->events, SPT_OP_LBR);
	put8(&spec->events, (unsigned)(n - 1));
	for (size_t i = 1; i < n; i++) {
		char *arrow = strstr(words[i], "->");
		uint32_t from, to;

		if (!arrow)
			spec_die(spec, "expected FROM->TO, found '%s'", words[i]);
		*arrow = '\0';
		from = (uint32_t)need_u64(spec, words[i], UINT32_MAX, "LBR from");
		to = (uint32_t)need_u64(spec, arrow + 2, UINT32_MAX, "LBR to");
		put32(&spec->events, to);
		put32(&spec->events, from);
	}
}

static void parse_raw(struct spec *spec, char **words, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		size_t len = strlen(words[i]);
		uint8_t byte;

		if (len % 2)
			spec_die(spec, "odd number of hex digits in '%s'", words[i]);
		for (size_t j = 0; j < len; j += 2) {
			if (!hex_bytes(words[i] + j, &byte, 1))
				spec_die(spec, "bad hex byte in '%s'", words[i]);
			put8(&spec->events, byte);
		}
	}
}

#define MAX_WORDS 1024

static void parse_line(struct spec *spec, char *line)
{
	char *words[MAX_WORDS];
	char raw[4096];
	size_t n;

	snprintf(raw, sizeof(raw), "%s", line);
	n = split_words(line, words, MAX_WORDS);
	if (n > MAX_WORDS)
		spec_die(spec, "too many words on one line (at most %d)", MAX_WORDS);
	if (!n || words[0][0] == '#')
		return;
	if (!strcmp(words[0], "header")) {
		parse_settings(spec, words, n, false);
	} else if (!strcmp(words[0], "layout")) {
		parse_settings(spec, words, n, true);
	} else if (!strcmp(words[0], "program")) {
		parse_program(spec, raw);
	} else if (!strcmp(words[0], "segment")) {
		parse_segment(spec, words, n);
	} else if (!strcmp(words[0], "repeat")) {
		if (n != 2)
			spec_die(spec, "expected 'repeat N'");
		put8(&spec->events, SPT_OP_REPEAT);
		put8(&spec->events, 0);
		put64(&spec->events, need_u64(spec, words[1], UINT64_MAX, "repeat count"));
	} else if (!strcmp(words[0], "ip")) {
		if (n < 2)
			spec_die(spec, "expected 'ip KIND RVA...'");
		parse_rva_record(spec, ip_kind_op(spec, words[1]), words, 2, n);
	} else if (!strcmp(words[0], "callstack")) {
		parse_rva_record(spec, SPT_OP_ETW_CALLSTACK, words, 1, n);
	} else if (!strcmp(words[0], "lbr")) {
		parse_lbr(spec, words, n);
	} else if (!strcmp(words[0], "raw")) {
		parse_raw(spec, words, n);
	} else {
		spec_die(spec, "unknown directive '%s' (expected header, layout, program, "
			 "segment, repeat, ip, lbr, callstack or raw)", words[0]);
	}
}

static void parse_spec(struct spec *spec, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[4096];

	if (!fp)
		die("cannot open %s: %s", path, strerror(errno));
	spec->path = path;
	while (fgets(line, sizeof(line), fp)) {
		size_t len = strlen(line);

		spec->line++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n')
			spec_die(spec, "line too long (at most %zu bytes)", sizeof(line) - 2);
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		parse_line(spec, line);
	}
	if (ferror(fp))
		die("cannot read %s: %s", path, strerror(errno));
	fclose(fp);
	close_segment(spec);
}

/* --- layout and output --- */

struct layout {
	uint64_t strtab_offset, strtab_capacity, progid_offset, progid_capacity;
	uint64_t events_offset;
};

static uint64_t layout_or(const struct spec *spec, enum field f, uint64_t dflt)
{
	return spec->layout_set[f] ? spec->layout[f] : dflt;
}

static void compute_layout(const struct spec *spec, struct layout *lay)
{
	uint64_t used = spec->strtab.len;

	lay->strtab_offset = layout_or(spec, F_STRTAB_OFFSET, SPT_HEADER_SIZE);
	lay->strtab_capacity = layout_or(spec, F_STRTAB_CAPACITY,
					 used > SPT_STRTAB_CAPACITY_DEFAULT ? used :
					 SPT_STRTAB_CAPACITY_DEFAULT);
	lay->progid_offset = layout_or(spec, F_PROGID_OFFSET,
				       lay->strtab_offset + lay->strtab_capacity);
	lay->progid_capacity = layout_or(spec, F_PROGID_CAPACITY,
					 spec->nprograms > SPT_PROGID_CAPACITY_DEFAULT ?
					 spec->nprograms : SPT_PROGID_CAPACITY_DEFAULT);
	lay->events_offset = lay->progid_offset + lay->progid_capacity * SPT_PROGID_SIZE;
	if (used > UINT16_MAX)
		die("the names need %llu bytes of string table (at most 65535)",
		    (unsigned long long)used);
	if (lay->strtab_offset < SPT_HEADER_SIZE ||
	    lay->strtab_capacity < used ||
	    lay->progid_offset < lay->strtab_offset + lay->strtab_capacity ||
	    lay->progid_capacity < spec->nprograms ||
	    lay->events_offset > UINT32_MAX)
		die("impossible layout: string table 0x%llx+0x%llx (%llu bytes used), "
		    "program-id table 0x%llx, %llu slots for %zu programs",
		    (unsigned long long)lay->strtab_offset,
		    (unsigned long long)lay->strtab_capacity, (unsigned long long)used,
		    (unsigned long long)lay->progid_offset,
		    (unsigned long long)lay->progid_capacity, spec->nprograms);
}

static uint64_t header_or(const struct spec *spec, enum field f, uint64_t truth)
{
	return spec->header_set[f] ? spec->header[f] : truth;
}

static void build_header(const struct spec *spec, const struct layout *lay,
			 uint8_t *hdr)
{
	memset(hdr, 0, SPT_HEADER_SIZE);
	poke32(hdr + SPT_OFF_SIGNATURE,
	       (uint32_t)header_or(spec, F_SIGNATURE, SPT_SIGNATURE));
	poke32(hdr + SPT_OFF_VERSION, (uint32_t)header_or(spec, F_VERSION, SPT_VERSION));
	poke32(hdr + SPT_OFF_STRTAB_OFFSET,
	       (uint32_t)header_or(spec, F_STRTAB_OFFSET, lay->strtab_offset));
	poke32(hdr + SPT_OFF_PROGID_OFFSET,
	       (uint32_t)header_or(spec, F_PROGID_OFFSET, lay->progid_offset));
	poke16(hdr + SPT_OFF_STRTAB_USED,
	       (unsigned)header_or(spec, F_STRTAB_USED, spec->strtab.len));
	poke16(hdr + SPT_OFF_STRTAB_CAPACITY,
	       (unsigned)header_or(spec, F_STRTAB_CAPACITY, lay->strtab_capacity));
	poke16(hdr + SPT_OFF_PROGIDS_USED,
	       (unsigned)header_or(spec, F_PROGIDS_USED, spec->nprograms));
	poke16(hdr + SPT_OFF_PROGID_CAPACITY,
	       (unsigned)header_or(spec, F_PROGID_CAPACITY, lay->progid_capacity));
}

/* Header, string table and program-id table: everything before the events. */
static void build_tables(const struct spec *spec, struct bytes *image)
{
	struct layout lay;

	compute_layout(spec, &lay);
	image->len = 0;
	bytes_reserve(image, (size_t)lay.events_offset);
	memset(image->data, 0, (size_t)lay.events_offset);
	image->len = (size_t)lay.events_offset;
	build_header(spec, &lay, image->data);
	if (spec->strtab.len)
		memcpy(image->data + lay.strtab_offset, spec->strtab.data, spec->strtab.len);
	for (size_t i = 0; i < spec->nprograms; i++) {
		const struct program *prog = &spec->programs[i];
		uint8_t *entry = image->data + lay.progid_offset + i * SPT_PROGID_SIZE;

		poke32(entry, prog->data1);
		poke16(entry + 4, prog->data2);
		poke16(entry + 6, prog->data3);
		memcpy(entry + 8, prog->data4, 8);
		poke32(entry + SPT_PROGID_OFF_AGE, prog->age);
		poke32(entry + SPT_PROGID_OFF_NAME, prog->name_index);
	}
}

static FILE *open_output(const char *path)
{
	FILE *fp = fopen(path, "wb");

	if (!fp)
		die("cannot create %s: %s", path, strerror(errno));
	return fp;
}

static void write_bytes(FILE *fp, const char *path, const void *data, size_t len)
{
	if (len && fwrite(data, 1, len, fp) != len)
		die("cannot write %s: %s", path, strerror(errno));
}

static void close_output(FILE *fp, const char *path)
{
	if (fclose(fp))
		die("cannot write %s: %s", path, strerror(errno));
}

static void spec_release(struct spec *spec)
{
	free(spec->programs);
	free(spec->strtab.data);
	free(spec->events.data);
}

static int run_spec(const char *spec_path, const char *out_path)
{
	struct spec spec = { 0 };
	struct bytes image = { 0 };
	FILE *fp;

	parse_spec(&spec, spec_path);
	build_tables(&spec, &image);
	fp = open_output(out_path);
	write_bytes(fp, out_path, image.data, image.len);
	write_bytes(fp, out_path, spec.events.data, spec.events.len);
	close_output(fp, out_path);
	free(image.data);
	spec_release(&spec);
	return 0;
}

/* --- random traces --- */

#define HOT_RVAS 4096
#define SEGMENT_BYTES (64u * 1024)

struct rng {
	uint64_t state;
};

static uint64_t rng_next(struct rng *rng)
{
	uint64_t z = (rng->state += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint32_t rng_below(struct rng *rng, uint32_t n)
{
	return (uint32_t)((rng_next(rng) >> 32) * n >> 32);
}

/* An index below n, skewed towards 0 (a few hot entries, a long tail). */
static uint32_t rng_skewed(struct rng *rng, uint32_t n)
{
	double u = (double)(rng_next(rng) >> 11) / 9007199254740992.0;

	return (uint32_t)(u * u * u * u * n);
}

#define POOL_RECORDS 512
#define POOL_RECORD_BYTES (SPT_DATA_HEADER_SIZE + SPT_MAX_ITEMS * SPT_LBR_PAIR_SIZE)

/* What --random makes (see the options at the top). */
struct shape {
	uint32_t modules, spread, ip_items, seq_items;
};

/* A recurring LBR or call-stack record, encoded. */
struct pooled_record {
	uint8_t bytes[POOL_RECORD_BYTES];
	size_t len;
};

/*
 * A module's hot RVAs, and the LBR and call-stack records that recur in
 * it (real stacks repeat: the same paths are sampled again and again).
 */
struct random_module {
	const struct shape *shape;
	uint32_t rvas[HOT_RVAS];
	struct pooled_record lbrs[POOL_RECORDS], stacks[POOL_RECORDS];
};

static void random_lbr(struct bytes *out, struct rng *rng,
		       const struct random_module *mod);
static void random_stack(struct bytes *out, struct rng *rng,
			 const struct random_module *mod);
static void fill_pool(struct pooled_record *pool, struct rng *rng,
		      const struct random_module *mod,
		      void (*make)(struct bytes *, struct rng *,
				   const struct random_module *));

static void random_programs(struct spec *spec, struct rng *rng,
			    struct random_module *mods, const struct shape *shape)
{
	static const char *const utf8_name = "b\xc3\xa4" "ckend-\xe6\xa8\xa1\xe5\x9d\x97" ".dll";

	for (uint32_t i = 0; i < shape->modules; i++) {
		struct program prog = {
			.data1 = (uint32_t)rng_next(rng),
			.data2 = (uint16_t)rng_next(rng),
			.data3 = (uint16_t)rng_next(rng),
			.age = 1 + rng_below(rng, 40),
		};
		char name[64];
		uint32_t rva = 0x1000 + 0x10 * rng_below(rng, 0x1000);

		for (int b = 0; b < 8; b++)
			prog.data4[b] = (uint8_t)rng_next(rng);
		if (i == 0)
			snprintf(name, sizeof(name), "app.exe");
		else if (i == shape->modules - 1)
			snprintf(name, sizeof(name), "%s", utf8_name);
		else
			snprintf(name, sizeof(name), "lib%02u.dll", (unsigned)i);
		add_program(spec, &prog, name, strlen(name));
		mods[i].shape = shape;
		for (uint32_t r = 0; r < HOT_RVAS; r++) {
			mods[i].rvas[r] = rva;
			rva += 1 + rng_below(rng, 64);
		}
		fill_pool(mods[i].lbrs, rng, &mods[i], random_lbr);
		fill_pool(mods[i].stacks, rng, &mods[i], random_stack);
	}
}

static uint32_t hot_rva(struct rng *rng, const struct random_module *mod)
{
	return mod->rvas[rng_skewed(rng, HOT_RVAS)];
}

/* An IP record's RVA: anywhere in 32 bits for --spread PCT of them. */
static uint32_t spread_or_hot_rva(struct rng *rng, const struct random_module *mod)
{
	if (mod->shape->spread && rng_below(rng, 100) < mod->shape->spread)
		return (uint32_t)(rng_next(rng) >> 32);
	return hot_rva(rng, mod);
}

static void random_lbr(struct bytes *out, struct rng *rng,
		       const struct random_module *mod)
{
	uint32_t n = 1 + rng_below(rng, mod->shape->seq_items);

	put8(out, SPT_OP_LBR);
	put8(out, n);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t from = hot_rva(rng, mod);

		put32(out, from + 0x20 + rng_below(rng, 0x200)); /* to */
		put32(out, from);
	}
}

static void random_stack(struct bytes *out, struct rng *rng,
			 const struct random_module *mod)
{
	uint32_t n = 2 + rng_below(rng, mod->shape->seq_items - 1);

	put8(out, SPT_OP_ETW_CALLSTACK);
	put8(out, n);
	for (uint32_t i = 0; i < n; i++)
		put32(out, hot_rva(rng, mod));
}

static void fill_pool(struct pooled_record *pool, struct rng *rng,
		      const struct random_module *mod,
		      void (*make)(struct bytes *, struct rng *,
				   const struct random_module *))
{
	struct bytes record = { 0 };

	for (size_t i = 0; i < POOL_RECORDS; i++) {
		record.len = 0;
		make(&record, rng, mod);
		memcpy(pool[i].bytes, record.data, record.len);
		pool[i].len = record.len;
	}
	free(record.data);
}

/* Mostly a pooled record (skewed), sometimes a fresh one. */
static void pooled_or_fresh(struct bytes *seg, struct rng *rng,
			    const struct random_module *mod,
			    const struct pooled_record *pool,
			    void (*make)(struct bytes *, struct rng *,
					 const struct random_module *))
{
	const struct pooled_record *rec;

	if (rng_below(rng, 100) < 5) {
		make(seg, rng, mod);
		return;
	}
	rec = &pool[rng_skewed(rng, POOL_RECORDS)];
	bytes_reserve(seg, rec->len);
	memcpy(seg->data + seg->len, rec->bytes, rec->len);
	seg->len += rec->len;
}

static void random_record(struct bytes *seg, struct rng *rng,
			  const struct random_module *mod)
{
	static const unsigned ip_ops[] = {
		SPT_OP_UNHALT_CYCLE, SPT_OP_UNHALT_CYCLE, SPT_OP_UNHALT_CYCLE,
		SPT_OP_RETIRE_INSTR, SPT_OP_RETIRE_BR_INSTR, SPT_OP_L1_ICACHE_MISS,
		SPT_OP_L1_DCACHE_MISS, SPT_OP_ETW_INSTR,
	};
	uint32_t pick = rng_below(rng, 100);
	uint32_t n;

	if (rng_below(rng, 100) < 15) {
		put8(seg, SPT_OP_REPEAT);
		put8(seg, 0);
		put64(seg, rng_below(rng, 100) ? 1 + rng_below(rng, 1000) :
			   1 + rng_below(rng, 1000000));
	}
	if (pick < 80) {
		n = 1 + rng_below(rng, mod->shape->ip_items);
		put8(seg, ip_ops[rng_below(rng, sizeof(ip_ops) / sizeof(ip_ops[0]))]);
		put8(seg, n);
		for (uint32_t i = 0; i < n; i++)
			put32(seg, spread_or_hot_rva(rng, mod));
	} else if (pick < 90) {
		pooled_or_fresh(seg, rng, mod, mod->lbrs, random_lbr);
	} else {
		pooled_or_fresh(seg, rng, mod, mod->stacks, random_stack);
	}
}

static int run_random(uint64_t seed, uint64_t target, const struct shape *shape,
		      const char *out_path)
{
	struct spec spec = { .path = "<random>" };
	struct random_module *mods = calloc(shape->modules, sizeof(*mods));
	struct rng rng = { .state = seed };
	struct bytes image = { 0 }, seg = { 0 };
	uint64_t written;
	FILE *fp;

	if (!mods)
		die("out of memory");
	random_programs(&spec, &rng, mods, shape);
	build_tables(&spec, &image);
	fp = open_output(out_path);
	write_bytes(fp, out_path, image.data, image.len);
	written = image.len;
	while (written < target) {
		uint32_t progid = rng_skewed(&rng, shape->modules);
		uint8_t head[SPT_BINARY_ID_SIZE] = { SPT_OP_BINARY_ID, 0 };
		size_t want = SEGMENT_BYTES / 4 + rng_below(&rng, SEGMENT_BYTES);

		seg.len = 0;
		while (seg.len < want)
			random_record(&seg, &rng, &mods[progid]);
		poke16(head + SPT_BINARY_ID_OFF_PROGID, progid);
		poke32(head + SPT_BINARY_ID_OFF_LENGTH, (uint32_t)(seg.len + 4));
		write_bytes(fp, out_path, head, sizeof(head));
		write_bytes(fp, out_path, seg.data, seg.len);
		written += sizeof(head) + seg.len;
	}
	close_output(fp, out_path);
	free(seg.data);
	free(image.data);
	free(mods);
	spec_release(&spec);
	return 0;
}

static void usage(void)
{
	fputs("usage: sptgen SPEC OUT.spt\n"
	      "   or: sptgen --random SEED --bytes N [--modules M] [--spread PCT]\n"
	      "              [--ip-items N] [--seq-items N] OUT.spt\n", stderr);
	exit(2);
}

/* The value of option `name` at argv[i] (and argv[i + 1]), if it is that one. */
static bool shape_option(char **argv, int i, const char *name, uint64_t min,
			 uint64_t max, uint32_t *value)
{
	uint64_t v;

	if (strcmp(argv[i], name))
		return false;
	if (!parse_u64(argv[i + 1], &v) || v < min || v > max)
		usage();
	*value = (uint32_t)v;
	return true;
}

int main(int argc, char **argv)
{
	struct shape shape = { .modules = 12, .spread = 0, .ip_items = SPT_MAX_ITEMS,
			       .seq_items = 32 };
	uint64_t seed, bytes;

	if (argc == 3 && argv[1][0] != '-')
		return run_spec(argv[1], argv[2]);
	if (argc < 6 || argc % 2 || strcmp(argv[1], "--random") || strcmp(argv[3], "--bytes") ||
	    !parse_u64(argv[2], &seed) || !parse_u64(argv[4], &bytes))
		usage();
	for (int i = 5; i + 1 < argc; i += 2)
		if (!shape_option(argv, i, "--modules", 1, 4096, &shape.modules) &&
		    !shape_option(argv, i, "--spread", 0, 100, &shape.spread) &&
		    !shape_option(argv, i, "--ip-items", 1, SPT_MAX_ITEMS, &shape.ip_items) &&
		    !shape_option(argv, i, "--seq-items", 2, SPT_MAX_ITEMS, &shape.seq_items))
			usage();
	return run_random(seed, bytes, &shape, argv[argc - 1]);
}
