/*
 * vspgen.c - writes synthetic Visual Studio profiler session headers
 * (.vsp, the 19,752-byte header that src/readers/vsp_reader.c reads), for
 * tests and samples/vsperf/session.vsp. A standalone tool: it links
 * nothing but libc, and knows the layout from the seed's table on its own.
 *
 *   vspgen [--spec=FILE] [--KEY=VALUE ...] OUT.vsp
 *
 * Settings are applied in order: those of a spec file (one KEY=VALUE per
 * line; blank lines and lines starting with '#' are ignored; the value is
 * the rest of the line, spaces included) where --spec stands, the others
 * as given. Every field not set is zero, except magic (the little-endian
 * value) and header_size (19752). Numbers are decimal or 0x hex.
 *
 * Keys (the field names `profconv info` prints):
 *   magic=le|reversed|NUMBER     le: bytes 4d 50 4c 45; reversed: 45 4c 50 4d
 *   header_size, file_version_major, build_number, file_version_minor,
 *   process_high_water, total_processes, number_of_processes,
 *   thread_high_water, total_threads, number_of_threads, buffer_size,
 *   number_of_buffers, max_threads, max_processes, flags,
 *   collection_type, sampling_type, sampling_interval, graceful_exit,
 *   total_samples, application_samples, overhead_samples, kernel_samples,
 *   other_app_samples, callback_samples, stack_walks, broken_stacks,
 *   aborted_samples, number_of_index_blocks, number_of_symbol_blocks,
 *   number_of_blocks, number_of_cpus, cpu_vendor, cpu_architecture,
 *   cpu_info, cpu_mhz, os_version_major, os_version_minor,
 *   os_build_number, number_of_messages           u32 NUMBER
 *   last_index_block_offset, last_symbol_block_offset   u64 NUMBER
 *   product_version=MAJOR.MINOR|NUMBER   major in the low 16 bits
 *   version_string=TEXT          8-bit, at most 64 bytes, as given
 *   creation_time=YYYY-MM-DD hh:mm:ss.mmm   the day of week is computed
 *   creation_time=Y,M,DOW,D,h,m,s,ms        the 8 SYSTEMTIME words as given
 *   counter_name=TEXT            the next counter name, 8-bit (80 bytes max)
 *   counter_name_utf16=TEXT      the next counter name, UTF-16LE (40 units)
 *   number_of_counters=NUMBER    default: how many names were given
 *   machine_name=TEXT            UTF-8 in, UTF-16LE out (16 units max)
 *   kernel_etl_path=TEXT, app_etl_path=TEXT   likewise (260 units max)
 *   poke=OFFSET:HEXBYTES         bytes written at OFFSET (after the rest)
 *   truncate=N                   write only the first N bytes
 *   append=N                     N bytes 0xa5 after the header
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER_BYTES 19752u
#define MAX_COUNTERS 20u
#define MAX_POKES 64

struct field {
	const char *key;
	unsigned offset, size; /* size 4 or 8 for numbers, bytes for text */
	enum { NUM, TEXT8, UTF16, PRODUCT, TIME } kind;
};

static const struct field fields[] = {
	{ "header_size", 4, 4, NUM },
	{ "file_version_major", 8, 4, NUM },
	{ "product_version", 12, 4, PRODUCT },
	{ "build_number", 16, 4, NUM },
	{ "version_string", 20, 64, TEXT8 },
	{ "file_version_minor", 84, 4, NUM },
	{ "creation_time", 88, 16, TIME },
	{ "process_high_water", 104, 4, NUM },
	{ "total_processes", 108, 4, NUM },
	{ "number_of_processes", 112, 4, NUM },
	{ "thread_high_water", 116, 4, NUM },
	{ "total_threads", 120, 4, NUM },
	{ "number_of_threads", 124, 4, NUM },
	{ "buffer_size", 140, 4, NUM },
	{ "number_of_buffers", 144, 4, NUM },
	{ "max_threads", 148, 4, NUM },
	{ "max_processes", 152, 4, NUM },
	{ "flags", 156, 4, NUM },
	{ "collection_type", 164, 4, NUM },
	{ "sampling_type", 168, 4, NUM },
	{ "sampling_interval", 172, 4, NUM },
	{ "graceful_exit", 180, 4, NUM },
	{ "total_samples", 184, 4, NUM },
	{ "application_samples", 188, 4, NUM },
	{ "overhead_samples", 192, 4, NUM },
	{ "kernel_samples", 196, 4, NUM },
	{ "other_app_samples", 200, 4, NUM },
	{ "callback_samples", 204, 4, NUM },
	{ "stack_walks", 208, 4, NUM },
	{ "broken_stacks", 212, 4, NUM },
	{ "aborted_samples", 216, 4, NUM },
	{ "number_of_counters", 524, 4, NUM },
	{ "last_index_block_offset", 2192, 8, NUM },
	{ "number_of_index_blocks", 2200, 4, NUM },
	{ "last_symbol_block_offset", 2204, 8, NUM },
	{ "number_of_symbol_blocks", 2212, 4, NUM },
	{ "number_of_blocks", 2216, 4, NUM },
	{ "machine_name", 2220, 32, UTF16 },
	{ "number_of_cpus", 2252, 4, NUM },
	{ "cpu_vendor", 2256, 4, NUM },
	{ "cpu_architecture", 2260, 4, NUM },
	{ "cpu_info", 2264, 4, NUM },
	{ "cpu_mhz", 2268, 4, NUM },
	{ "os_version_major", 2276, 4, NUM },
	{ "os_version_minor", 2280, 4, NUM },
	{ "os_build_number", 2284, 4, NUM },
	{ "number_of_messages", 2548, 4, NUM },
	{ "kernel_etl_path", 18696, 520, UTF16 },
	{ "app_etl_path", 19216, 520, UTF16 },
};

struct poke {
	unsigned long offset;
	unsigned char bytes[256];
	size_t len;
};

struct gen {
	unsigned char header[HEADER_BYTES];
	unsigned ncounters;
	bool counters_set;
	struct poke pokes[MAX_POKES];
	size_t npokes;
	unsigned long truncate, append;
	bool truncated;
	const char *where; /* for messages */
};

static void die(const struct gen *g, const char *what, const char *subject)
{
	fprintf(stderr, "vspgen: %s%s%s '%s'\n", g->where ? g->where : "",
		g->where ? ": " : "", what, subject);
	exit(1);
}

static void put_le(unsigned char *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t number(const struct gen *g, const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 0);
	if (errno || end == text || *end || *text == '-')
		die(g, "not a number:", text);
	return v;
}

/* The next code point of UTF-8 text, or dies. */
static uint32_t next_code_point(const struct gen *g, const unsigned char **s)
{
	const unsigned char *p = *s;
	uint32_t c = p[0];
	int more = c < 0x80 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : -1;

	if (more < 0)
		die(g, "bad UTF-8 in", (const char *)p);
	c &= more ? 0x3fu >> more : 0x7fu;
	for (int i = 1; i <= more; i++) {
		if ((p[i] & 0xc0) != 0x80)
			die(g, "bad UTF-8 in", (const char *)p);
		c = c << 6 | (p[i] & 0x3fu);
	}
	*s = p + 1 + more;
	return c;
}

static void put_utf16(struct gen *g, unsigned offset, unsigned bytes, const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	unsigned at = 0;

	memset(g->header + offset, 0, bytes);
	while (*s) {
		uint32_t c = next_code_point(g, &s);
		unsigned need = c >= 0x10000 ? 4 : 2;

		if (at + need > bytes)
			die(g, "too long for its field:", text);
		if (c >= 0x10000) {
			c -= 0x10000;
			put_le(g->header + offset + at, 0xd800 + (c >> 10), 2);
			put_le(g->header + offset + at + 2, 0xdc00 + (c & 0x3ff), 2);
		} else {
			put_le(g->header + offset + at, c, 2);
		}
		at += need;
	}
}

static void put_text8(struct gen *g, unsigned offset, unsigned bytes, const char *text)
{
	size_t len = strlen(text);

	if (len > bytes)
		die(g, "too long for its field:", text);
	memset(g->header + offset, 0, bytes);
	memcpy(g->header + offset, text, len);
}

static unsigned weekday(long y, unsigned m, unsigned d)
{
	static const unsigned t[] = { 0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4 };

	y -= m < 3;
	return (unsigned)((y + y / 4 - y / 100 + y / 400 + (long)t[m - 1] + (long)d) % 7);
}

static void put_time(struct gen *g, unsigned offset, const char *text)
{
	unsigned v[8] = { 0 };
	int used = 0;

	if (sscanf(text, "%u,%u,%u,%u,%u,%u,%u,%u%n", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5], &v[6], &v[7], &used) == 8 && !text[used]) {
		/* the words as given */
	} else if (sscanf(text, "%u-%u-%u %u:%u:%u.%u%n", &v[0], &v[1], &v[3], &v[4], &v[5],
			  &v[6], &v[7], &used) == 7 && !text[used] && v[1] >= 1 && v[1] <= 12) {
		v[2] = weekday((long)v[0], v[1], v[3]);
	} else {
		die(g, "creation_time is neither Y,M,DOW,D,h,m,s,ms nor YYYY-MM-DD hh:mm:ss.mmm:",
		    text);
	}
	for (int i = 0; i < 8; i++)
		put_le(g->header + offset + 2 * i, v[i], 2);
}

static void put_product(struct gen *g, unsigned offset, const char *text)
{
	unsigned major, minor;
	int used = 0;

	if (sscanf(text, "%u.%u%n", &major, &minor, &used) == 2 && !text[used])
		put_le(g->header + offset, (uint64_t)(major & 0xffff) | (uint64_t)(minor & 0xffff) << 16, 4);
	else
		put_le(g->header + offset, number(g, text), 4);
}

static void add_counter(struct gen *g, const char *text, bool utf16)
{
	unsigned offset = 544 + 80 * g->ncounters;

	if (g->ncounters == MAX_COUNTERS)
		die(g, "more than 20 counter names:", text);
	if (utf16)
		put_utf16(g, offset, 80, text);
	else
		put_text8(g, offset, 80, text);
	g->ncounters++;
}

static void add_poke(struct gen *g, const char *text)
{
	struct poke *p = &g->pokes[g->npokes];
	const char *hex = strchr(text, ':');
	char *end;

	if (g->npokes == MAX_POKES || !hex)
		die(g, "bad poke (expected OFFSET:HEXBYTES, at most 64):", text);
	errno = 0;
	p->offset = strtoul(text, &end, 0);
	if (errno || end != hex)
		die(g, "bad poke offset:", text);
	for (hex++; hex[0] && hex[1] && p->len < sizeof(p->bytes); hex += 2) {
		unsigned byte;

		if (sscanf(hex, "%2x", &byte) != 1)
			die(g, "bad poke bytes:", text);
		p->bytes[p->len++] = (unsigned char)byte;
	}
	if (*hex || !p->len)
		die(g, "bad poke bytes:", text);
	g->npokes++;
}

static void set_magic(struct gen *g, const char *value)
{
	if (!strcmp(value, "le"))
		memcpy(g->header, "\x4d\x50\x4c\x45", 4);
	else if (!strcmp(value, "reversed"))
		memcpy(g->header, "\x45\x4c\x50\x4d", 4);
	else
		put_le(g->header, number(g, value), 4);
}

static bool set_special(struct gen *g, const char *key, const char *value)
{
	if (!strcmp(key, "magic"))
		set_magic(g, value);
	else if (!strcmp(key, "counter_name"))
		add_counter(g, value, false);
	else if (!strcmp(key, "counter_name_utf16"))
		add_counter(g, value, true);
	else if (!strcmp(key, "poke"))
		add_poke(g, value);
	else if (!strcmp(key, "truncate"))
		g->truncate = (unsigned long)number(g, value), g->truncated = true;
	else if (!strcmp(key, "append"))
		g->append = (unsigned long)number(g, value);
	else
		return false;
	return true;
}

static void set(struct gen *g, const char *key, const char *value)
{
	if (set_special(g, key, value))
		return;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const struct field *f = &fields[i];

		if (strcmp(f->key, key))
			continue;
		switch (f->kind) {
		case NUM:
			put_le(g->header + f->offset, number(g, value), f->size);
			if (!strcmp(key, "number_of_counters"))
				g->counters_set = true;
			break;
		case TEXT8: put_text8(g, f->offset, f->size, value); break;
		case UTF16: put_utf16(g, f->offset, f->size, value); break;
		case PRODUCT: put_product(g, f->offset, value); break;
		case TIME: put_time(g, f->offset, value); break;
		}
		return;
	}
	die(g, "unknown key", key);
}

static void set_assignment(struct gen *g, char *text)
{
	char *eq = strchr(text, '=');

	if (!eq)
		die(g, "expected KEY=VALUE, not", text);
	*eq = '\0';
	set(g, text, eq + 1);
}

static void read_spec(struct gen *g, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[2048], where[600];
	unsigned long lineno = 0;

	if (!fp)
		die(g, "cannot open the spec", path);
	while (fgets(line, sizeof(line), fp)) {
		size_t len = strcspn(line, "\r\n");

		line[len] = '\0';
		lineno++;
		snprintf(where, sizeof(where), "%s:%lu", path, lineno);
		g->where = where;
		if (line[0] && line[0] != '#')
			set_assignment(g, line);
	}
	g->where = NULL;
	fclose(fp);
}

static void write_file(const struct gen *g, const char *path)
{
	FILE *fp = fopen(path, "wb");
	size_t size = g->truncated && g->truncate < HEADER_BYTES ? g->truncate : HEADER_BYTES;

	if (!fp || fwrite(g->header, 1, size, fp) != size)
		die(g, "cannot write", path);
	for (unsigned long i = 0; i < g->append && !g->truncated; i++)
		fputc(0xa5, fp);
	if (fclose(fp))
		die(g, "cannot write", path);
}

int main(int argc, char **argv)
{
	static struct gen g;
	const char *out = NULL;

	set_magic(&g, "le");
	put_le(g.header + 4, HEADER_BYTES, 4);
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--spec=", 7))
			read_spec(&g, argv[i] + 7);
		else if (!strncmp(argv[i], "--", 2))
			set_assignment(&g, argv[i] + 2);
		else if (!out)
			out = argv[i];
		else
			die(&g, "more than one output:", argv[i]);
	}
	if (!out) {
		fputs("usage: vspgen [--spec=FILE] [--KEY=VALUE ...] OUT.vsp\n", stderr);
		return 2;
	}
	if (!g.counters_set)
		put_le(g.header + 524, g.ncounters, 4);
	for (size_t i = 0; i < g.npokes; i++) {
		const struct poke *p = &g.pokes[i];

		if (p->offset > HEADER_BYTES || p->len > HEADER_BYTES - p->offset)
			die(&g, "poke past the header at", "offset");
		memcpy(g.header + p->offset, p->bytes, p->len);
	}
	write_file(&g, out);
	return 0;
}
