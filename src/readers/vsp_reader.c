/*
 * vsp_reader.c - reads the fixed header of Visual Studio profiler session
 * files (.vsp) and prints it for `profconv info`.
 *
 * Source: the one public description of the layout, a third-party write-up
 * said to be derived from the VS Performance Tools code (seeds/003_*.txt,
 * the _FILEHEADER table), checked and completed in research/vsperf.md
 * section 8 and DESIGN.md section 3.4. No real .vsp file was available:
 * everything but the magic and the header size is best-effort.
 *
 * Versions: the one layout known, a 19,752-byte header. The write-up
 * gives the magic two ways that disagree: the decimal 1162561869, which
 * its code compares the first u32 with, is 0x454B494D (little-endian
 * bytes 4D 49 4B 45, "MIKE"); the hex 0x454C504D it pairs with it is
 * 1162629197 (bytes 4D 50 4C 45, "MPLE"; the write-up spells it "ELPM",
 * the bytes read backwards). All three byte orders are accepted: "MIKE",
 * "MPLE", and 45 4C 50 4D ("ELPM" as bytes). Every other field is read
 * little-endian in all cases. A header-size field other than 19,752 is an error: the offsets
 * below would not be known to hold.
 *
 * Decoding decisions (all fields are bounds-checked: a file shorter than
 * the header is a "truncated header" error at the offset where it ends):
 *   version_string (20, 64 bytes)  8-bit text up to the first NUL (or all
 *                                  64 bytes); shown as UTF-8, with bytes
 *                                  that are not UTF-8 as \xNN
 *   creation_time (88, 16 bytes)   a Win32 SYSTEMTIME: 8 x u16 year, month,
 *                                  day of week, day, hour, minute, second,
 *                                  milliseconds; taken as UTC. Out-of-range
 *                                  parts make it "invalid" (shown, not an
 *                                  error); all zero is "not set"
 *   product_version (12)           major = low 16 bits, minor = high 16 bits
 *   counter names (544, 80 bytes   UTF-16LE when the name's byte 1 is NUL
 *   each)                          and byte 0 is not (a first character
 *                                  below U+0100), else 8-bit text as
 *                                  version_string (so a UTF-16 name that
 *                                  starts above U+00FF shows as escaped
 *                                  bytes); only number_of_counters
 *                                  names are read, at most the 20 that fit
 *                                  before offset 2192 (more: a warning)
 *   machine_name (2220, 16 chars), UTF-16LE up to the first NUL unit (or
 *   kernel_etl_path (18696),       the whole field); an unpaired surrogate
 *   app_etl_path (19216, 260 each) is an error at the offset of its unit
 *   cpu_info (2264)                read as a CPUID leaf-1 signature
 *                                  (stepping, model, family bit fields)
 *   cpu_architecture (2260)        Windows PROCESSOR_ARCHITECTURE values
 *                                  (the seed's 0-5, plus 6 IA-64, 9 x64,
 *                                  12 ARM64)
 * Unknown enum values are shown as numbers; unnamed flag bits as hex.
 * Text is printed in double quotes, as UTF-8; control characters (C0,
 * DEL, C1), '"' and bytes that are not UTF-8 as \xNN; backslashes as they
 * are, so that Windows paths stay readable (a literal "\x41" in a name
 * therefore looks like an escape).
 * Checks, in order: the magic (4 bytes), the header size (8), the length
 * (19,752), then the strings; the first failure is the error.
 *
 * What maps where (convert): the header adds metadata only, no samples:
 *   source "vsp"; one fact "vsp.KEY" per field, valued as `info` shows it
 *   (strings without the quotes); time_nanos = creation_time (when valid
 *   and representable); period_type and period from sampling_type and
 *   sampling_interval: cycles -> ("cycles", "count"), page faults ->
 *   ("page-faults", "count"), syscalls -> ("syscalls", "count"),
 *   performance counter -> ("performance-counter", "count"); comments
 *   "VSP collection: ...", "VSP machine: ...", "VSP CPU: ...", "VSP OS: ...".
 *   An earlier input's time or period is kept (a differing one: a warning).
 * Because a header alone has nothing to convert, reading a .vsp into a
 * model that has no samples yet is an error saying to give the report made
 * from it first (`convert -o out.pb.gz report.csv session.vsp`).
 *
 * What is lost: everything after the header (the raw collection blocks,
 * never read), the unnamed gaps between the fields, and the counter-name
 * slots past number_of_counters. `info` also resolves each ETL path as
 * VSPerfReader's EtwReader does (as written, its file name in the current
 * directory, its file name beside the .vsp); convert never looks at the
 * file system.
 */
#include "model/format.h"
#include "readers/etl_reader.h"
#include "base/utf16.h"
#include "base/utf8.h"

#include <sys/stat.h>
#include <unistd.h>

#define FORMAT "vsp"
#define VSP_HEADER_BYTES 19752u
#define VSP_MAGIC_MIKE 0x454b494du     /* bytes 4d 49 4b 45: "MIKE", = 1162561869 */
#define VSP_MAGIC_MPLE 0x454c504du     /* bytes 4d 50 4c 45: "MPLE", = 1162629197 */
#define VSP_MAGIC_REVERSED 0x4d504c45u /* bytes 45 4c 50 4d: "ELPM" */
#define OFF_HEADER_SIZE 4u
#define OFF_COUNTER_NAMES 544u
#define COUNTER_NAME_BYTES 80u
#define OFF_AFTER_COUNTER_NAMES 2192u
#define MAX_COUNTERS ((OFF_AFTER_COUNTER_NAMES - OFF_COUNTER_NAMES) / COUNTER_NAME_BYTES)
#define MAX_TEXT_BYTES PC_UTF16_UTF8_MAX(520u) /* 260 UTF-16 units as UTF-8 */
#define VALUE_BYTES 4096u          /* a value escaped: 4 bytes per input byte */
#define BESIDE_BYTES (512u + MAX_TEXT_BYTES + 1u) /* the .vsp's directory + a file name */

/* Decoded strings, by slot. */
enum vsp_slot {
	SLOT_VERSION,
	SLOT_MACHINE,
	SLOT_KERNEL_ETL,
	SLOT_APP_ETL,
	SLOT_COUNTER0,
	NSLOTS = SLOT_COUNTER0 + MAX_COUNTERS,
};

enum vsp_kind {
	KIND_MAGIC,
	KIND_U32,
	KIND_U64,
	KIND_PRODUCT,
	KIND_TEXT8,
	KIND_UTF16,
	KIND_TIME,
	KIND_FLAGS,
	KIND_ENUM,
	KIND_CPU_INFO,
	KIND_COUNTERS, /* number_of_counters, followed by the names */
};

struct vsp_name {
	uint32_t value;
	const char *name;
};

#define NAMES(table) table, PC_ARRAY_SIZE(table)

static const struct vsp_name collection_types[] = {
	{ 1, "resource contention" }, { 2, "instrumentation" }, { 4, "sampling" },
	{ 8, "coverage" }, { 16, "concurrency" },
};
static const struct vsp_name sampling_types[] = {
	{ 1, "cycles" }, { 3, "page faults" }, { 4, "syscalls" },
	{ 5, "performance counter" },
};
static const struct vsp_name exit_kinds[] = { { 0, "no" }, { 1, "yes" } };
static const struct vsp_name cpu_vendors[] = {
	{ 1, "Intel" }, { 2, "UMC" }, { 3, "AMD" }, { 4, "Cyrix" }, { 5, "NexGen" },
	{ 6, "Centaur" },
};
static const struct vsp_name cpu_architectures[] = {
	{ 0, "x86" }, { 1, "MIPS" }, { 2, "Alpha" }, { 3, "PowerPC" },
	{ 4, "SHx (Hitachi)" }, { 5, "ARM" }, { 6, "IA-64" }, { 9, "x64" },
	{ 12, "ARM64" },
};
/* Flag bits (value = bit number). */
static const struct vsp_name flag_bits[] = {
	{ 3, "allocation" }, { 5, "64-bit" }, { 6, "lifetime" }, { 7, "managed" },
	{ 8, "unsupported CLR" }, { 9, "DHP happened" }, { 10, "TIP" },
	{ 11, "JScript" }, { 12, "UMS app terminated" },
};
/* Period types of the model, by sampling type. */
static const struct vsp_name period_types[] = {
	{ 1, "cycles" }, { 3, "page-faults" }, { 4, "syscalls" },
	{ 5, "performance-counter" },
};

struct vsp_field {
	uint32_t offset, size;
	const char *key;
	enum vsp_kind kind;
	int slot;                    /* KIND_TEXT8, KIND_UTF16 */
	const struct vsp_name *names; /* KIND_ENUM */
	size_t nnames;
};

#define U32(off, key) { off, 4, key, KIND_U32, -1, NULL, 0 }
#define U64(off, key) { off, 8, key, KIND_U64, -1, NULL, 0 }
#define ENUM(off, key, table) { off, 4, key, KIND_ENUM, -1, NAMES(table) }

/* The seed's table, in offset order. */
static const struct vsp_field fields[] = {
	{ 0, 4, "magic", KIND_MAGIC, -1, NULL, 0 },
	U32(4, "header_size"),
	U32(8, "file_version_major"),
	{ 12, 4, "product_version", KIND_PRODUCT, -1, NULL, 0 },
	U32(16, "build_number"),
	{ 20, 64, "version_string", KIND_TEXT8, SLOT_VERSION, NULL, 0 },
	U32(84, "file_version_minor"),
	{ 88, 16, "creation_time", KIND_TIME, -1, NULL, 0 },
	U32(104, "process_high_water"),
	U32(108, "total_processes"),
	U32(112, "number_of_processes"),
	U32(116, "thread_high_water"),
	U32(120, "total_threads"),
	U32(124, "number_of_threads"),
	U32(140, "buffer_size"),
	U32(144, "number_of_buffers"),
	U32(148, "max_threads"),
	U32(152, "max_processes"),
	{ 156, 4, "flags", KIND_FLAGS, -1, NULL, 0 },
	ENUM(164, "collection_type", collection_types),
	ENUM(168, "sampling_type", sampling_types),
	U32(172, "sampling_interval"),
	ENUM(180, "graceful_exit", exit_kinds),
	U32(184, "total_samples"),
	U32(188, "application_samples"),
	U32(192, "overhead_samples"),
	U32(196, "kernel_samples"),
	U32(200, "other_app_samples"),
	U32(204, "callback_samples"),
	U32(208, "stack_walks"),
	U32(212, "broken_stacks"),
	U32(216, "aborted_samples"),
	{ 524, 4, "number_of_counters", KIND_COUNTERS, -1, NULL, 0 },
	U64(2192, "last_index_block_offset"),
	U32(2200, "number_of_index_blocks"),
	U64(2204, "last_symbol_block_offset"),
	U32(2212, "number_of_symbol_blocks"),
	U32(2216, "number_of_blocks"),
	{ 2220, 32, "machine_name", KIND_UTF16, SLOT_MACHINE, NULL, 0 },
	U32(2252, "number_of_cpus"),
	ENUM(2256, "cpu_vendor", cpu_vendors),
	ENUM(2260, "cpu_architecture", cpu_architectures),
	{ 2264, 4, "cpu_info", KIND_CPU_INFO, -1, NULL, 0 },
	U32(2268, "cpu_mhz"),
	U32(2276, "os_version_major"),
	U32(2280, "os_version_minor"),
	U32(2284, "os_build_number"),
	U32(2548, "number_of_messages"),
	{ 18696, 520, "kernel_etl_path", KIND_UTF16, SLOT_KERNEL_ETL, NULL, 0 },
	{ 19216, 520, "app_etl_path", KIND_UTF16, SLOT_APP_ETL, NULL, 0 },
};

enum vsp_time_state { TIME_UNSET, TIME_INVALID, TIME_VALID };

struct vsp_time {
	uint16_t year, month, day_of_week, day, hour, minute, second, ms;
	enum vsp_time_state state;
	unsigned weekday;   /* of the date (0 = Sunday), when valid */
	bool representable; /* fits pprof's int64 nanoseconds since 1970 */
	int64_t nanos;
};

struct vsp_string {
	char text[MAX_TEXT_BYTES + 1]; /* UTF-8 (from UTF-16) or the raw bytes */
	size_t len;
	bool utf16;
};

struct vsp_header {
	const uint8_t *raw; /* VSP_HEADER_BYTES, in the input's window */
	uint32_t magic;     /* one of the VSP_MAGIC_* values */
	uint32_t ncounters; /* names read */
	struct vsp_time time;
	struct vsp_string strings[NSLOTS];
};

static const char *const weekdays[] = {
	"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
};

/* --- raw values --- */

static uint32_t field_u32(const struct vsp_header *h, uint32_t offset)
{
	return pc_le32(h->raw + offset);
}

static const struct vsp_field *field_named(const char *key)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].key, key))
			return &fields[i];
	return NULL;
}

static uint32_t value_of(const struct vsp_header *h, const char *key)
{
	return field_u32(h, field_named(key)->offset);
}

static const char *name_of(const struct vsp_name *names, size_t n, uint32_t value)
{
	for (size_t i = 0; i < n; i++)
		if (names[i].value == value)
			return names[i].name;
	return NULL;
}

/* --- strings --- */

static int fail_surrogate(struct pc_ctx *ctx, const char *key, uint32_t offset,
			  uint32_t unit_offset, uint32_t unit)
{
	return pc_fail_at(&ctx->err, FORMAT, unit_offset,
			  "bad UTF-16 in %s (the field at 0x%x): unpaired %s surrogate 0x%04x "
			  "at character %u (expected UTF-16LE text)", key, offset,
			  unit >= 0xdc00 ? "low" : "high", unit, (unit_offset - offset) / 2);
}

/* UTF-16LE text of units units at offset, up to the first NUL unit. */
static int decode_utf16(struct pc_ctx *ctx, const struct vsp_header *h, const char *key,
			uint32_t offset, uint32_t units, struct vsp_string *s)
{
	const uint8_t *p = h->raw + offset;
	uint32_t n = 0;
	size_t bad;

	while (n < units && pc_le16(p + 2 * n))
		n++;
	s->utf16 = true;
	if (pc_utf16_to_utf8(p, 2 * n, PC_UTF16_LE, (uint8_t *)s->text, &s->len, &bad))
		return fail_surrogate(ctx, key, offset, offset + (uint32_t)bad, pc_le16(p + bad));
	s->text[s->len] = '\0';
	return 0;
}

/* 8-bit text of size bytes at offset, up to the first NUL. */
static void decode_text8(const struct vsp_header *h, uint32_t offset, uint32_t size,
			 struct vsp_string *s)
{
	const uint8_t *p = h->raw + offset;
	const uint8_t *nul = memchr(p, 0, size);

	s->len = nul ? (size_t)(nul - p) : size;
	s->utf16 = false;
	memcpy(s->text, p, s->len);
	s->text[s->len] = '\0';
}

static bool counter_name_is_utf16(const uint8_t *p)
{
	return p[0] && !p[1];
}

/*
 * Escapes text for display: '"', control characters (C0, DEL, C1) and
 * bytes that are not UTF-8 as \xNN; everything else, backslashes
 * included, as it is. out has VALUE_BYTES.
 */
static void escape_text(const char *text, size_t len, char *out)
{
	const uint8_t *s = (const uint8_t *)text;
	size_t used = 0;

	for (size_t i = 0; i < len && used + 9 < VALUE_BYTES;) {
		size_t seq = pc_utf8_char_len(s + i, len - i);
		bool c1 = seq == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0;

		if (!seq || c1 || s[i] < 0x20 || s[i] == 0x7f || s[i] == '"') {
			size_t n = c1 ? 2 : 1;

			for (size_t k = 0; k < n; k++)
				used += (size_t)snprintf(out + used, VALUE_BYTES - used, "\\x%02x",
							 s[i + k]);
			i += n;
		} else {
			memcpy(out + used, s + i, seq);
			used += seq;
			i += seq;
		}
	}
	out[used] = '\0';
}

/* --- creation time --- */

static bool is_leap(unsigned year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

static unsigned days_in_month(unsigned year, unsigned month)
{
	static const unsigned char days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return month == 2 && is_leap(year) ? 29 : days[month - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t year, unsigned month, unsigned day)
{
	int64_t y = year - (month <= 2);
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

static bool time_in_range(const struct vsp_time *t)
{
	return t->year >= 1601 && t->year <= 30827 && t->month >= 1 && t->month <= 12 &&
	       t->day_of_week <= 6 && t->day >= 1 &&
	       t->day <= days_in_month(t->year, t->month) && t->hour < 24 &&
	       t->minute < 60 && t->second < 60 && t->ms < 1000;
}

static void decode_time(const struct vsp_header *h, struct vsp_time *t)
{
	const uint8_t *p = h->raw + field_named("creation_time")->offset;
	int64_t days, seconds;
	bool zero = true;

	for (size_t i = 0; i < 16; i++)
		zero = zero && !p[i];
	*t = (struct vsp_time){
		.year = pc_le16(p), .month = pc_le16(p + 2), .day_of_week = pc_le16(p + 4),
		.day = pc_le16(p + 6), .hour = pc_le16(p + 8), .minute = pc_le16(p + 10),
		.second = pc_le16(p + 12), .ms = pc_le16(p + 14),
	};
	t->state = zero ? TIME_UNSET : time_in_range(t) ? TIME_VALID : TIME_INVALID;
	if (t->state != TIME_VALID)
		return;
	days = days_from_civil(t->year, t->month, t->day);
	t->weekday = (unsigned)(((days + 4) % 7 + 7) % 7);
	seconds = days * 86400 + t->hour * 3600 + t->minute * 60 + t->second;
	/* int64 nanoseconds reach from 1677-09-21 to 2262-04-11 */
	t->representable = seconds > INT64_MIN / 1000000000 + 1 &&
			   seconds < INT64_MAX / 1000000000 - 1;
	if (t->representable)
		t->nanos = seconds * 1000000000 + (int64_t)t->ms * 1000000;
}

static void format_time(const struct vsp_time *t, char *out, size_t size)
{
	int used;

	if (t->state == TIME_UNSET) {
		snprintf(out, size, "not set (all zero)");
		return;
	}
	if (t->state == TIME_INVALID) {
		snprintf(out, size, "invalid (year %u, month %u, day_of_week %u, day %u, "
			 "hour %u, minute %u, second %u, milliseconds %u)", t->year, t->month,
			 t->day_of_week, t->day, t->hour, t->minute, t->second, t->ms);
		return;
	}
	used = snprintf(out, size, "%04u-%02u-%02u %02u:%02u:%02u.%03u UTC (%s", t->year,
			t->month, t->day, t->hour, t->minute, t->second, t->ms,
			weekdays[t->weekday]);
	if (t->day_of_week != t->weekday)
		used += snprintf(out + used, size - (size_t)used,
				 "; the stored day_of_week %u says %s", t->day_of_week,
				 weekdays[t->day_of_week]);
	snprintf(out + used, size - (size_t)used, ")");
}

/* --- loading the header --- */

static const char *truncation_place(uint64_t end, char *out, size_t size)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++) {
		const struct vsp_field *f = &fields[i];
		uint32_t last = f->kind == KIND_COUNTERS ? OFF_AFTER_COUNTER_NAMES :
			f->offset + f->size;

		if (end < last) {
			snprintf(out, size, end > f->offset ? "inside %s" : "before %s", f->key);
			return out;
		}
	}
	snprintf(out, size, "after the last field");
	return out;
}

static int fail_truncated(struct pc_ctx *ctx, size_t have)
{
	char place[64];

	return pc_fail_at(&ctx->err, FORMAT, have,
			  "truncated header: expected %u bytes, found %zu (the file ends %s)",
			  VSP_HEADER_BYTES, have, truncation_place(have, place, sizeof(place)));
}

/* Whether the first u32 is a VSP magic; *magic is it. */
static bool magic_ok(const uint8_t *p, uint32_t *magic)
{
	*magic = pc_le32(p);
	return *magic == VSP_MAGIC_MIKE || *magic == VSP_MAGIC_MPLE ||
	       *magic == VSP_MAGIC_REVERSED;
}

static int check_frame(struct pc_ctx *ctx, struct pc_input *in, struct vsp_header *h)
{
	const uint8_t *p;
	size_t have = pc_input_fill(in, VSP_HEADER_BYTES, &p);
	uint32_t size;

	if (pc_input_check_io(in, &ctx->err))
		return -1;
	if (have < 4)
		return fail_truncated(ctx, have);
	if (!magic_ok(p, &h->magic))
		return pc_fail_at(&ctx->err, FORMAT, 0,
				  "bad magic %02x %02x %02x %02x (expected the bytes 4d 50 4c 45, "
				  "\"MPLE\": the little-endian value 0x454c504d = 1162629197; "
				  "4d 49 4b 45, \"MIKE\": 0x454b494d = 1162561869; or 45 4c 50 4d, "
				  "\"ELPM\")", p[0], p[1], p[2], p[3]);
	if (have < 8)
		return fail_truncated(ctx, have);
	size = pc_le32(p + OFF_HEADER_SIZE);
	if (size != VSP_HEADER_BYTES)
		return pc_fail_at(&ctx->err, FORMAT, OFF_HEADER_SIZE,
				  "header size %u is not the %u bytes of the only VSP header "
				  "layout known", size, VSP_HEADER_BYTES);
	if (have < VSP_HEADER_BYTES)
		return fail_truncated(ctx, have);
	h->raw = p;
	return 0;
}

static int decode_counters(struct pc_ctx *ctx, struct vsp_header *h)
{
	uint32_t count = value_of(h, "number_of_counters");

	h->ncounters = count < MAX_COUNTERS ? count : MAX_COUNTERS;
	if (count > MAX_COUNTERS &&
	    pc_warn(ctx, FORMAT, "number_of_counters is %u, but only %u counter names fit "
		    "before offset 0x%x; the first %u are read", count, MAX_COUNTERS,
		    OFF_AFTER_COUNTER_NAMES, MAX_COUNTERS))
		return -1;
	for (uint32_t i = 0; i < h->ncounters; i++) {
		uint32_t offset = OFF_COUNTER_NAMES + i * COUNTER_NAME_BYTES;
		struct vsp_string *s = &h->strings[SLOT_COUNTER0 + i];
		char key[32];

		snprintf(key, sizeof(key), "counter_name[%u]", i);
		if (!counter_name_is_utf16(h->raw + offset))
			decode_text8(h, offset, COUNTER_NAME_BYTES, s);
		else if (decode_utf16(ctx, h, key, offset, COUNTER_NAME_BYTES / 2, s))
			return -1;
	}
	return 0;
}

static int decode_strings(struct pc_ctx *ctx, struct vsp_header *h)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++) {
		const struct vsp_field *f = &fields[i];

		if (f->kind == KIND_TEXT8)
			decode_text8(h, f->offset, f->size, &h->strings[f->slot]);
		else if (f->kind == KIND_UTF16 &&
			 decode_utf16(ctx, h, f->key, f->offset, f->size / 2, &h->strings[f->slot]))
			return -1;
	}
	return decode_counters(ctx, h);
}

/* Checks and decodes the header; h->raw stays valid until the input moves. */
static int load_header(struct pc_ctx *ctx, struct pc_input *in, struct vsp_header *h)
{
	if (check_frame(ctx, in, h) || decode_strings(ctx, h))
		return -1;
	decode_time(h, &h->time);
	return 0;
}

/* --- field values, as info prints them and facts hold them --- */

static void format_flags(uint32_t flags, char *out, size_t size)
{
	uint32_t unnamed = flags;
	int used = snprintf(out, size, "0x%08x (", flags);
	const char *sep = "";

	for (size_t i = 0; i < PC_ARRAY_SIZE(flag_bits); i++) {
		uint32_t bit = 1u << flag_bits[i].value;

		if (flags & bit) {
			used += snprintf(out + used, size - (size_t)used, "%s%s", sep,
					 flag_bits[i].name);
			sep = ", ";
			unnamed &= ~bit;
		}
	}
	if (unnamed)
		used += snprintf(out + used, size - (size_t)used, "%sunnamed bits 0x%x", sep,
				 unnamed);
	snprintf(out + used, size - (size_t)used, "%s)", flags ? "" : "none");
}

/* A CPUID leaf-1 signature: family and model with their extended parts. */
static void cpu_signature(uint32_t v, unsigned *family, unsigned *model, unsigned *stepping)
{
	unsigned base_family = v >> 8 & 0xf;

	*stepping = v & 0xf;
	*model = v >> 4 & 0xf;
	*family = base_family;
	if (base_family == 0xf)
		*family += v >> 20 & 0xff;
	if (base_family == 0x6 || base_family == 0xf)
		*model += (v >> 16 & 0xf) << 4;
}

static void format_number(const struct vsp_header *h, const struct vsp_field *f,
			  char *out, size_t size)
{
	uint32_t v = field_u32(h, f->offset);
	const char *name;
	unsigned family, model, stepping;

	switch (f->kind) {
	case KIND_MAGIC:
		snprintf(out, size, h->magic == VSP_MAGIC_REVERSED ?
			 "0x%08x (bytes 45 4c 50 4d, \"ELPM\": the reversed byte order)" :
			 h->magic == VSP_MAGIC_MIKE ?
			 "0x%08x (bytes 4d 49 4b 45, \"MIKE\": 1162561869, the write-up's decimal)" :
			 "0x%08x (bytes 4d 50 4c 45, \"MPLE\")", v);
		break;
	case KIND_U64:
		snprintf(out, size, "0x%016llx", (unsigned long long)pc_le64(h->raw + f->offset));
		break;
	case KIND_PRODUCT:
		snprintf(out, size, "%u.%u (0x%08x)", v & 0xffff, v >> 16, v);
		break;
	case KIND_FLAGS:
		format_flags(v, out, size);
		break;
	case KIND_ENUM:
		name = name_of(f->names, f->nnames, v);
		snprintf(out, size, "%u (%s)", v, name ? name : "unknown");
		break;
	case KIND_CPU_INFO:
		cpu_signature(v, &family, &model, &stepping);
		snprintf(out, size, "0x%08x (as a CPUID signature: family %u, model %u, "
			 "stepping %u)", v, family, model, stepping);
		break;
	case KIND_COUNTERS:
		if (v > MAX_COUNTERS)
			snprintf(out, size, "%u (only %u names fit)", v, MAX_COUNTERS);
		else
			snprintf(out, size, "%u", v);
		break;
	default:
		snprintf(out, size, "%u", v);
		break;
	}
}

/* What walk_fields hands over for each field. */
struct vsp_value {
	uint32_t offset;
	const char *key;
	const char *text;     /* escaped, without quotes */
	bool quoted;          /* a string */
	const char *encoding; /* of a counter name, else NULL */
};

typedef void (*vsp_value_fn)(void *data, const struct vsp_value *value);

static void walk_counter_names(const struct vsp_header *h, vsp_value_fn fn, void *data)
{
	char key[32], text[VALUE_BYTES];

	for (uint32_t i = 0; i < h->ncounters; i++) {
		const struct vsp_string *s = &h->strings[SLOT_COUNTER0 + i];

		snprintf(key, sizeof(key), "counter_name[%u]", i);
		escape_text(s->text, s->len, text);
		fn(data, &(struct vsp_value){
			.offset = OFF_COUNTER_NAMES + i * COUNTER_NAME_BYTES, .key = key,
			.text = text, .quoted = true, .encoding = s->utf16 ? "UTF-16LE" : "8-bit",
		});
	}
}

/* Calls fn for every field, in offset order. */
static void walk_fields(const struct vsp_header *h, vsp_value_fn fn, void *data)
{
	char text[VALUE_BYTES];

	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++) {
		const struct vsp_field *f = &fields[i];
		bool quoted = f->kind == KIND_TEXT8 || f->kind == KIND_UTF16;

		if (quoted)
			escape_text(h->strings[f->slot].text, h->strings[f->slot].len, text);
		else if (f->kind == KIND_TIME)
			format_time(&h->time, text, sizeof(text));
		else
			format_number(h, f, text, sizeof(text));
		fn(data, &(struct vsp_value){
			.offset = f->offset, .key = f->key, .text = text, .quoted = quoted,
		});
		if (f->kind == KIND_COUNTERS)
			walk_counter_names(h, fn, data);
	}
}

/* --- read: metadata --- */

static void add_fact(void *data, const struct vsp_value *value)
{
	char key[64];

	snprintf(key, sizeof(key), "vsp.%s", value->key);
	pc_model_add_fact(data, key, value->text);
}

static const char *os_name(uint32_t major, uint32_t minor, uint32_t build)
{
	static const struct { uint32_t major, minor; const char *name; } names[] = {
		{ 5, 0, "Windows 2000" }, { 5, 1, "Windows XP" },
		{ 5, 2, "Windows XP x64 or Server 2003" }, { 6, 0, "Windows Vista or Server 2008" },
		{ 6, 1, "Windows 7 or Server 2008 R2" }, { 6, 2, "Windows 8 or Server 2012" },
		{ 6, 3, "Windows 8.1 or Server 2012 R2" },
	};

	if (major == 10 && minor == 0)
		return build >= 22000 ? "Windows 11 or Server 2025" :
			"Windows 10 or Server 2016-2022";
	for (size_t i = 0; i < PC_ARRAY_SIZE(names); i++)
		if (names[i].major == major && names[i].minor == minor)
			return names[i].name;
	return "unknown Windows version";
}

static void add_comments(struct pc_model *m, const struct vsp_header *h)
{
	uint32_t collection = value_of(h, "collection_type");
	uint32_t sampling = value_of(h, "sampling_type");
	uint32_t vendor = value_of(h, "cpu_vendor"), arch = value_of(h, "cpu_architecture");
	uint32_t major = value_of(h, "os_version_major"), minor = value_of(h, "os_version_minor");
	uint32_t build = value_of(h, "os_build_number");
	const char *collection_name = name_of(NAMES(collection_types), collection);
	const char *sampling_name = name_of(NAMES(sampling_types), sampling);
	const char *vendor_name = name_of(NAMES(cpu_vendors), vendor);
	const char *arch_name = name_of(NAMES(cpu_architectures), arch);
	char machine[VALUE_BYTES];
	unsigned family, model, stepping;

	escape_text(h->strings[SLOT_MACHINE].text, h->strings[SLOT_MACHINE].len, machine);
	cpu_signature(value_of(h, "cpu_info"), &family, &model, &stepping);
	if (sampling_name)
		pc_model_add_comment(m, "VSP collection: %s (%u), %s every %u",
				     collection_name ? collection_name : "unknown", collection,
				     sampling_name, value_of(h, "sampling_interval"));
	else
		pc_model_add_comment(m, "VSP collection: %s (%u)",
				     collection_name ? collection_name : "unknown", collection);
	pc_model_add_comment(m, "VSP machine: %s, %u CPUs", machine, value_of(h, "number_of_cpus"));
	pc_model_add_comment(m, "VSP CPU: vendor %s, architecture %s, family %u model %u "
			     "stepping %u, %u MHz", vendor_name ? vendor_name : "unknown",
			     arch_name ? arch_name : "unknown", family, model, stepping,
			     value_of(h, "cpu_mhz"));
	pc_model_add_comment(m, "VSP OS: Windows NT %u.%u build %u (%s)", major, minor, build,
			     os_name(major, minor, build));
}

static int add_period(struct pc_ctx *ctx, struct pc_model *m, const struct vsp_header *h)
{
	uint32_t interval = value_of(h, "sampling_interval");
	const char *type = name_of(NAMES(period_types), value_of(h, "sampling_type"));
	pc_str_id type_id, unit_id;

	if (!type || !interval)
		return 0;
	type_id = pc_model_intern_cstr(m, type);
	unit_id = pc_model_intern_cstr(m, "count");
	if (!pc_model_period_type(m)->type && !pc_model_period_type(m)->unit && !pc_model_period(m)) {
		pc_model_set_period(m, type_id, unit_id, interval);
		return 0;
	}
	if (pc_model_period_type(m)->type != type_id || pc_model_period_type(m)->unit != unit_id ||
	    pc_model_period(m) != interval) /* kept as a fact: a notice */
		pc_notice(ctx, FORMAT, "the period of an earlier input is kept; the VSP "
			  "header's (%s every %u) is only a fact", type, interval);
	return 0;
}

static int add_time(struct pc_ctx *ctx, struct pc_model *m, const struct vsp_header *h)
{
	if (h->time.state != TIME_VALID)
		return 0;
	if (!h->time.representable)
		return pc_warn(ctx, FORMAT, "creation_time %04u-%02u-%02u is outside what a "
			       "profile's time (int64 nanoseconds since 1970) can hold",
			       h->time.year, h->time.month, h->time.day);
	if (!pc_model_time_nanos(m)) {
		pc_model_set_time(m, h->time.nanos, pc_model_duration_nanos(m));
		return 0;
	}
	if (pc_model_time_nanos(m) != h->time.nanos) /* kept as a fact: a notice */
		pc_notice(ctx, FORMAT, "the time of an earlier input is kept; the VSP "
			  "creation_time is only a fact");
	return 0;
}

static bool file_exists(const char *path)
{
	struct stat st;

	return path[0] && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* The file name of a Windows or POSIX path: after the last '\' or '/'. */
static const char *file_name_of(const char *path)
{
	const char *name = path;

	for (const char *p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			name = p + 1;
	return name;
}

/*
 * Where an ETL path of the header is, for reading: beside the .vsp (by its
 * file name), as written, in the current directory; false if nowhere.
 */
static bool find_etl(const struct vsp_string *path, const char *vsp_name, bool from_stdin,
		     char *found, size_t size)
{
	const char *name = file_name_of(path->text);
	const char *slash = strrchr(vsp_name, '/');
	int dir_len = slash ? (int)(slash - vsp_name + 1) : 0;

	if (!path->len)
		return false;
	snprintf(found, size, "%.*s%s", dir_len, vsp_name, name);
	if (!from_stdin && name[0] && file_exists(found))
		return true;
	snprintf(found, size, "%s", path->text);
	if (file_exists(found))
		return true;
	snprintf(found, size, "%s", name);
	return name[0] && file_exists(found);
}

/*
 * A session without a report: the ETL files its header names, read as
 * ETW traces (kernel first, then the application's), merged.
 */
static int read_etl_files(struct pc_ctx *ctx, const struct pc_input *in,
			  const struct vsp_header *h, struct pc_model *m)
{
	static const int slots[] = { SLOT_KERNEL_ETL, SLOT_APP_ETL };
	bool from_stdin = in->fd == STDIN_FILENO && !in->owns_fd;
	size_t read = 0;

	for (size_t i = 0; i < PC_ARRAY_SIZE(slots); i++) {
		char path[BESIDE_BYTES];
		struct pc_input etl;
		int ret;

		if (!find_etl(&h->strings[slots[i]], in->name, from_stdin, path, sizeof(path)))
			continue;
		if (pc_input_open(&etl, path, &ctx->err))
			return -1;
		ret = etl_read(ctx, &etl, m);
		if (ret)
			pc_error_set_path(&ctx->err, etl.name);
		pc_input_close(&etl);
		if (ret)
			return -1;
		read++;
	}
	if (read)
		return 0;
	pc_fail(&ctx->err, PC_STATUS_INPUT,
		"a VSP header holds no samples, and none of the ETL files it names was found "
		"(beside it, as written, in the current directory; see 'profconv info'): put "
		"them beside it, or give the report made from it first, e.g. 'profconv convert "
		"-o out.pb.gz report.csv session.vsp'");
	ctx->err.format = FORMAT;
	return -1;
}

static int vsp_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct vsp_header *h = pc_xcalloc(1, sizeof(*h));
	int ret = -1;

	if (load_header(ctx, in, h))
		goto out;
	if (!pc_model_nsamples(m) && !pc_model_narcs(m) && read_etl_files(ctx, in, h, m))
		goto out;
	pc_model_add_source(m, FORMAT);
	walk_fields(h, add_fact, m);
	add_comments(m, h);
	if (add_period(ctx, m, h) || add_time(ctx, m, h))
		goto out;
	pc_input_consume(in, VSP_HEADER_BYTES);
	ret = 0;
out:
	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	free(h);
	return ret;
}

/* --- info ---
 *
 * `profconv info FILE.vsp` (any view that includes --header, the default)
 * prints one line per field, in offset order: the offset, the key, the
 * value as the facts hold it (strings in quotes, counter names followed by
 * their encoding), then where each ETL file was found:
 *
 *   vsp header: 19752 bytes
 *     0x0000  magic                     0x454c504d (bytes 4d 50 4c 45, "MPLE")
 *     ...
 *     0x4908  kernel_etl_path           "C:\Trace\session.kernel.etl"
 *   ETL files (looked for as written, then by file name in the current
 *   directory, then by file name beside the .vsp):
 *     kernel_etl_path  found beside the .vsp: "data/session.kernel.etl"
 *     app_etl_path     none (the path is empty)
 *
 * Other outcomes: "found as written: PATH", "found in the current
 * directory: NAME", "missing (tried "A", "B", "C")"; for standard input the
 * third place does not exist and the line says so.
 */

static void print_value(void *data, const struct vsp_value *value)
{
	FILE *out = data;

	fprintf(out, "  0x%04x  %-24s  ", value->offset, value->key);
	if (value->quoted)
		fprintf(out, "\"%s\"", value->text);
	else
		fputs(value->text, out);
	if (value->encoding)
		fprintf(out, " (%s)", value->encoding);
	fputc('\n', out);
}



static void print_quoted(FILE *out, const char *text)
{
	char escaped[VALUE_BYTES];

	escape_text(text, strlen(text), escaped);
	fprintf(out, "\"%s\"", escaped);
}

/* One ETL path, searched as VSPerfReader's EtwReader.ResolveFileLocation does. */
static void print_etl(FILE *out, const char *key, const struct vsp_string *path,
		      const char *vsp_name, bool from_stdin)
{
	const char *name = file_name_of(path->text);
	const char *slash = strrchr(vsp_name, '/');
	int dir_len = slash ? (int)(slash - vsp_name + 1) : 0;
	char beside[BESIDE_BYTES];

	snprintf(beside, sizeof(beside), "%.*s%s", dir_len, vsp_name, name);
	fprintf(out, "  %-15s  ", key);
	if (!path->len) {
		fputs("none (the path is empty)", out);
	} else if (file_exists(path->text)) {
		fputs("found as written: ", out);
		print_quoted(out, path->text);
	} else if (file_exists(name)) {
		fputs("found in the current directory: ", out);
		print_quoted(out, name);
	} else if (!from_stdin && file_exists(beside)) {
		fputs("found beside the .vsp: ", out);
		print_quoted(out, beside);
	} else {
		fputs("missing (tried ", out);
		print_quoted(out, path->text);
		if (!name[0]) {
			fputs("; it names no file to look for elsewhere)", out);
		} else {
			fputs(", ", out);
			print_quoted(out, name);
			if (from_stdin) {
				fputs("; not beside the .vsp: it is standard input)", out);
			} else {
				fputs(", ", out);
				print_quoted(out, beside);
				fputc(')', out);
			}
		}
	}
	fputc('\n', out);
}

static int vsp_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views)
{
	struct vsp_header *h = pc_xcalloc(1, sizeof(*h));
	bool from_stdin = in->fd == STDIN_FILENO && !in->owns_fd;
	int ret = -1;

	if (load_header(ctx, in, h)) {
		pc_error_set_path(&ctx->err, in->name);
		goto out;
	}
	if (views & PC_INFO_HEADER) {
		fprintf(out, "vsp header: %u bytes\n", VSP_HEADER_BYTES);
		walk_fields(h, print_value, out);
		fputs("ETL files (looked for as written, then by file name in the current "
		      "directory, then by file name beside the .vsp):\n", out);
		print_etl(out, "kernel_etl_path", &h->strings[SLOT_KERNEL_ETL], in->name,
			  from_stdin);
		print_etl(out, "app_etl_path", &h->strings[SLOT_APP_ETL], in->name, from_stdin);
	}
	ret = 0;
out:
	free(h);
	return ret;
}

/* --- probe and descriptor --- */

/* Between WEAK and STRONG: the magic alone, without the header size. */
#define PROBE_MAGIC_ONLY ((PC_PROBE_WEAK + PC_PROBE_STRONG) / 2)

static int vsp_probe(const uint8_t *head, size_t len)
{
	uint32_t magic;

	if (len < 4 || !magic_ok(head, &magic))
		return PC_PROBE_NO;
	if (len >= 8 && pc_le32(head + OFF_HEADER_SIZE) == VSP_HEADER_BYTES)
		return PC_PROBE_CERTAIN;
	return PROBE_MAGIC_ONLY;
}

static const char *const vsp_extensions[] = { ".vsp", NULL };

const struct pc_reader pc_vsp_reader = {
	.name = "vsp",
	.extensions = vsp_extensions,
	.summary = "Visual Studio profiler session header (metadata for a report)",
	.provides = 0,
	.probe = vsp_probe,
	.read = vsp_read,
	.info = vsp_info,
};
