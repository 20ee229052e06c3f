/*
 * test_vsp_reader.c - the VSP header reader: every decoded field of
 * samples/vsperf/session.vsp (facts, time, period, comments), the
 * decoding decisions (SYSTEMTIME validity, counter-name encoding, flags,
 * enums, escaping), every error class at its exact offset (truncation at
 * each field boundary, bad magic, header size, unpaired UTF-16
 * surrogates, no samples before it), warnings, the probe, and `info`
 * output including the ETL search.
 *
 * Headers are built in memory here (a 19,752-byte buffer with the magic
 * and header size, every other byte zero) or read from samples/ (the
 * tests run from the top directory).
 */
#include "pipeline/registry.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct pc_reader pc_vsp_reader;

#define HEADER_BYTES 19752u
#define SAMPLE "samples/vsperf/session.vsp"

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	uint8_t hdr[HEADER_BYTES + 64]; /* room for bytes past the header */
};

/* ASCII text as UTF-16LE at p. */
static void put_utf16(uint8_t *p, const char *text)
{
	for (size_t i = 0; text[i]; i++)
		pc_put_le(p + 2 * i, (uint8_t)text[i], 2);
}

static void put_time(uint8_t *hdr, const uint16_t words[8])
{
	for (int i = 0; i < 8; i++)
		pc_put_le(hdr + 88 + 2 * i, words[i], 2);
}

/* A model that already holds a sample, as after reading a report. */
static void seed_sample(struct pc_model *m)
{
	int column = pc_model_add_column(m, "samples", "count");
	struct pc_frame frame = { .function = pc_model_intern_cstr(m, "main") };
	uint32_t frame_id = pc_model_add_frame(m, &frame);
	struct pc_sample sample = { .stack = pc_model_add_stack(m, &frame_id, 1) };

	assert_true(column >= 0);
	assert_int_equal(pc_model_add_sample(m, &sample, (size_t)column, 1), 0);
}

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	seed_sample(f->m);
	memcpy(f->hdr, "\x4d\x50\x4c\x45", 4);
	pc_put_le(f->hdr + 4, HEADER_BYTES, 4);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	free(f);
	return 0;
}

static int read_bytes(struct fixture *f, const uint8_t *data, size_t size, bool unknown_size)
{
	struct pc_input in;
	int rc;

	pc_input_from_memory(&in, "test.vsp", data, size);
	if (unknown_size)
		in.size = PC_SIZE_UNKNOWN;
	rc = pc_vsp_reader.read(&f->ctx, &in, f->m);
	if (!rc)
		assert_int_equal(pc_input_offset(&in), HEADER_BYTES);
	pc_input_close(&in);
	return rc;
}

static int read_header(struct fixture *f)
{
	return read_bytes(f, f->hdr, HEADER_BYTES, false);
}

static uint8_t *load_sample(size_t *size)
{
	FILE *fp = fopen(SAMPLE, "rb");
	uint8_t *data = pc_xmalloc(HEADER_BYTES + 1);

	assert_non_null(fp);
	*size = fread(data, 1, HEADER_BYTES + 1, fp);
	fclose(fp);
	return data;
}

static const char *fact(const struct pc_model *m, const char *key)
{
	for (size_t i = 0; i < pc_model_nfacts(m); i++)
		if (!strcmp(pc_str(m, pc_model_fact(m, i)->key), key))
			return pc_str(m, pc_model_fact(m, i)->value);
	return NULL;
}

static void assert_fact(const struct pc_model *m, const char *key, const char *value)
{
	const char *got = fact(m, key);

	if (!got)
		fail_msg("no fact %s", key);
	assert_string_equal(got, value);
}

/* The error is "test.vsp: offset 0x..: vsp: " + message_start... */
static void assert_error_at(const struct fixture *f, uint64_t offset, const char *message_start)
{
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_OFFSET);
	assert_string_equal(f->ctx.err.format, "vsp");
	assert_string_equal(f->ctx.err.path, "test.vsp");
	assert_int_equal(f->ctx.err.offset, offset);
	if (strncmp(f->ctx.err.message, message_start, strlen(message_start)))
		fail_msg("message '%s' does not start with '%s'", f->ctx.err.message, message_start);
}

static char *info_text(struct fixture *f, const uint8_t *data, size_t size, const char *name,
		       bool from_stdin, int *rc)
{
	struct pc_input in;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	pc_input_from_memory(&in, name, data, size);
	if (from_stdin)
		in.fd = STDIN_FILENO; /* not owned: close leaves it alone */
	*rc = pc_vsp_reader.info(&f->ctx, &in, out, PC_INFO_ALL);
	pc_input_close(&in);
	fclose(out);
	return text;
}

/* --- the sample: every field --- */

static const char *const sample_facts[][2] = {
	{ "vsp.magic", "0x454c504d (bytes 4d 50 4c 45, \"MPLE\")" },
	{ "vsp.header_size", "19752" },
	{ "vsp.file_version_major", "3" },
	{ "vsp.product_version", "10.0 (0x0000000a)" },
	{ "vsp.build_number", "40219" },
	{ "vsp.version_string", "10.0.40219.1" },
	{ "vsp.file_version_minor", "1" },
	{ "vsp.creation_time", "2024-03-05 14:07:09.250 UTC (Tuesday)" },
	{ "vsp.process_high_water", "1" },
	{ "vsp.total_processes", "1" },
	{ "vsp.number_of_processes", "1" },
	{ "vsp.thread_high_water", "6" },
	{ "vsp.total_threads", "7" },
	{ "vsp.number_of_threads", "4" },
	{ "vsp.buffer_size", "65536" },
	{ "vsp.number_of_buffers", "32" },
	{ "vsp.max_threads", "64" },
	{ "vsp.max_processes", "8" },
	{ "vsp.flags", "0x000000a0 (64-bit, managed)" },
	{ "vsp.collection_type", "4 (sampling)" },
	{ "vsp.sampling_type", "1 (cycles)" },
	{ "vsp.sampling_interval", "10000000" },
	{ "vsp.graceful_exit", "1 (yes)" },
	{ "vsp.total_samples", "1234" },
	{ "vsp.application_samples", "1100" },
	{ "vsp.overhead_samples", "12" },
	{ "vsp.kernel_samples", "100" },
	{ "vsp.other_app_samples", "20" },
	{ "vsp.callback_samples", "2" },
	{ "vsp.stack_walks", "1222" },
	{ "vsp.broken_stacks", "3" },
	{ "vsp.aborted_samples", "1" },
	{ "vsp.number_of_counters", "2" },
	{ "vsp.counter_name[0]", "Instructions Retired" },
	{ "vsp.counter_name[1]", "Branch Mispredictions" },
	{ "vsp.last_index_block_offset", "0x00000000001a2b3c" },
	{ "vsp.number_of_index_blocks", "3" },
	{ "vsp.last_symbol_block_offset", "0x00000000001b0000" },
	{ "vsp.number_of_symbol_blocks", "2" },
	{ "vsp.number_of_blocks", "57" },
	{ "vsp.machine_name", "BUILD-PC-07" },
	{ "vsp.number_of_cpus", "8" },
	{ "vsp.cpu_vendor", "1 (Intel)" },
	{ "vsp.cpu_architecture", "9 (x64)" },
	{ "vsp.cpu_info", "0x000906ea (as a CPUID signature: family 6, model 158, stepping 10)" },
	{ "vsp.cpu_mhz", "3600" },
	{ "vsp.os_version_major", "10" },
	{ "vsp.os_version_minor", "0" },
	{ "vsp.os_build_number", "19045" },
	{ "vsp.number_of_messages", "0" },
	{ "vsp.kernel_etl_path", "C:\\Users\\Zo\xc3\xab\\Documents\\Profiles\\session.kernel.etl" },
	{ "vsp.app_etl_path", "C:\\Users\\Zo\xc3\xab\\Documents\\Profiles\\session.app.etl" },
};

static void test_sample_every_field(void **state)
{
	struct fixture *f = *state;
	size_t size;
	uint8_t *data = load_sample(&size);

	assert_int_equal(size, HEADER_BYTES);
	assert_int_equal(read_bytes(f, data, size, false), 0);
	assert_int_equal(pc_model_nfacts(f->m), PC_ARRAY_SIZE(sample_facts));
	for (size_t i = 0; i < PC_ARRAY_SIZE(sample_facts); i++) {
		assert_string_equal(pc_str(f->m, pc_model_fact(f->m, i)->key), sample_facts[i][0]);
		assert_string_equal(pc_str(f->m, pc_model_fact(f->m, i)->value), sample_facts[i][1]);
	}
	assert_int_equal(pc_model_nsources(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "vsp");
	/* 2024-03-05 14:07:09.250 UTC */
	assert_true(pc_model_time_nanos(f->m) == INT64_C(1709647629250000000));
	assert_string_equal(pc_str(f->m, pc_model_period_type(f->m)->type), "cycles");
	assert_string_equal(pc_str(f->m, pc_model_period_type(f->m)->unit), "count");
	assert_int_equal(pc_model_period(f->m), 10000000);
	assert_int_equal(pc_model_ncomments(f->m), 4);
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 0)),
			    "VSP collection: sampling (4), cycles every 10000000");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 1)), "VSP machine: BUILD-PC-07, 8 CPUs");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 2)),
			    "VSP CPU: vendor Intel, architecture x64, family 6 model 158 "
			    "stepping 10, 3600 MHz");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 3)),
			    "VSP OS: Windows NT 10.0 build 19045 (Windows 10 or Server 2016-2022)");
	assert_int_equal(pc_model_nsamples(f->m), 1); /* metadata only */
	assert_int_equal(f->ctx.nwarnings, 0);
	free(data);
}

static void test_sample_through_pipe(void **state)
{
	struct fixture *f = *state;
	size_t size;
	uint8_t *data = load_sample(&size);

	assert_int_equal(read_bytes(f, data, size, true), 0);
	assert_fact(f->m, "vsp.machine_name", "BUILD-PC-07");
	free(data);
}

static void test_sample_info(void **state)
{
	struct fixture *f = *state;
	size_t size, lines = 0;
	uint8_t *data = load_sample(&size);
	int rc;
	char *text = info_text(f, data, size, "data/session.vsp", false, &rc);

	assert_int_equal(rc, 0);
	for (const char *p = text; *p; p++)
		lines += *p == '\n';
	/* title, 53 fields, ETL title, 2 ETL lines */
	assert_int_equal(lines, 1 + PC_ARRAY_SIZE(sample_facts) + 1 + 2);
	assert_non_null(strstr(text, "vsp header: 19752 bytes\n"
			       "  0x0000  magic                     0x454c504d (bytes 4d 50 4c 45, \"MPLE\")\n"));
	assert_non_null(strstr(text, "  0x0058  creation_time             "
			       "2024-03-05 14:07:09.250 UTC (Tuesday)\n"));
	assert_non_null(strstr(text, "  0x0220  counter_name[0]           "
			       "\"Instructions Retired\" (UTF-16LE)\n"));
	assert_non_null(strstr(text, "  0x08ac  machine_name              \"BUILD-PC-07\"\n"));
	assert_non_null(strstr(text, "  kernel_etl_path  missing (tried "
			       "\"C:\\Users\\Zo\xc3\xab\\Documents\\Profiles\\session.kernel.etl\", "
			       "\"session.kernel.etl\", \"data/session.kernel.etl\")\n"));
	free(text);
	free(data);
}

/* --- the layout: magic, size, truncation --- */

static void test_never_reads_past_the_header(void **state)
{
	struct fixture *f = *state;

	memset(f->hdr + HEADER_BYTES, 0xa5, 64);
	assert_int_equal(read_bytes(f, f->hdr, sizeof(f->hdr), false), 0); /* checks the offset */
}

static void test_reversed_magic(void **state)
{
	struct fixture *f = *state;

	memcpy(f->hdr, "\x45\x4c\x50\x4d", 4);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.magic",
		    "0x4d504c45 (bytes 45 4c 50 4d, \"ELPM\": the reversed byte order)");
}

static void test_bad_magic(void **state)
{
	struct fixture *f = *state;

	memcpy(f->hdr, "\x00\x11\x22\x33", 4);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 0, "bad magic 00 11 22 33 (expected the bytes 4d 50 4c 45, \"MPLE\": "
			"the little-endian value 0x454c504d = 1162629197; 4d 49 4b 45, \"MIKE\": "
			"0x454b494d = 1162561869; or 45 4c 50 4d, \"ELPM\")");
}

/*
 * The magic as the write-up's code checks it, the decimal 1162561869:
 * 0x454b494d, bytes 4d 49 4b 45 ("MIKE"), read and probed like the others.
 */
static void test_decimal_magic_of_the_write_up(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(1162561869u, 0x454b494du);
	memcpy(f->hdr, "MIKE", 4);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, sizeof(f->hdr)), PC_PROBE_CERTAIN);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.magic",
		    "0x454b494d (bytes 4d 49 4b 45, \"MIKE\": 1162561869, the write-up's decimal)");
}

static void test_wrong_header_size(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 4, HEADER_BYTES + 1, 4);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 4, "header size 19753 is not the 19752 bytes of the only VSP "
			"header layout known");
}

static void expect_truncated(struct fixture *f, size_t cut, bool unknown_size,
			     const char *where)
{
	char message[160];

	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_bytes(f, f->hdr, cut, unknown_size), -1);
	snprintf(message, sizeof(message), "truncated header: expected 19752 bytes, found %zu "
		 "(the file ends %s", cut, where);
	assert_error_at(f, cut, message);
}

static void test_truncated_at_every_field_boundary(void **state)
{
	static const size_t boundaries[] = {
		4, 8, 12, 16, 20, 84, 88, 104, 108, 112, 116, 120, 124, 128, 140, 144, 148,
		152, 156, 160, 164, 168, 172, 176, 180, 184, 188, 192, 196, 200, 204, 208,
		212, 216, 220, 524, 528, 544, 624, 2192, 2200, 2204, 2212, 2216, 2220, 2252,
		2256, 2260, 2264, 2268, 2272, 2276, 2280, 2284, 2288, 2548, 2552, 18696,
		19216, 19736,
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < PC_ARRAY_SIZE(boundaries); i++)
		for (size_t delta = 0; delta < 2; delta++) {
			size_t cut = boundaries[i] + delta;

			expect_truncated(f, cut, false, "");
			expect_truncated(f, cut, true, "");
		}
	expect_truncated(f, 0, false, "before magic)");
	for (size_t cut = 1; cut < 4; cut++)
		expect_truncated(f, cut, false, "inside magic)");
	expect_truncated(f, 6, false, "inside header_size)");
	expect_truncated(f, 20, false, "before version_string)");
	expect_truncated(f, 90, false, "inside creation_time)");
	expect_truncated(f, 600, false, "inside number_of_counters)");
	expect_truncated(f, 18696, false, "before kernel_etl_path)");
	expect_truncated(f, 19300, false, "inside app_etl_path)");
	expect_truncated(f, 19740, false, "after the last field)");
	expect_truncated(f, HEADER_BYTES - 1, true, "after the last field)");
}

/* A truncated file whose magic is wrong says so first. */
static void test_short_file_with_bad_magic(void **state)
{
	struct fixture *f = *state;

	memcpy(f->hdr, "SPT:", 4);
	assert_int_equal(read_bytes(f, f->hdr, 100, false), -1);
	assert_error_at(f, 0, "bad magic 53 50 54 3a");
}

static void test_no_samples_yet(void **state)
{
	struct fixture *f = *state;
	struct pc_model *empty;
	struct pc_input in;

	empty = pc_model_new();
	pc_input_from_memory(&in, "test.vsp", f->hdr, HEADER_BYTES);
	assert_int_equal(pc_vsp_reader.read(&f->ctx, &in, empty), -1);
	pc_input_close(&in);
	assert_int_equal(f->ctx.err.where, PC_WHERE_NONE);
	assert_string_equal(f->ctx.err.format, "vsp");
	assert_string_equal(f->ctx.err.path, "test.vsp");
	assert_non_null(strstr(f->ctx.err.message, "a VSP header holds no samples"));
	assert_non_null(strstr(f->ctx.err.message, "report.csv session.vsp"));
	assert_int_equal(pc_model_nfacts(empty), 0);
	pc_model_free(empty);
}

/* --- UTF-16 --- */

static void test_surrogate_pair_decoded(void **state)
{
	struct fixture *f = *state;

	put_utf16(f->hdr + 2220, "PC-");
	pc_put_le(f->hdr + 2226, 0xd83d, 2); /* U+1F600 */
	pc_put_le(f->hdr + 2228, 0xde00, 2);
	put_utf16(f->hdr + 2230, "!");
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.machine_name", "PC-\xf0\x9f\x98\x80!");
}

static void test_lone_low_surrogate(void **state)
{
	struct fixture *f = *state;

	put_utf16(f->hdr + 2220, "abc");
	pc_put_le(f->hdr + 2226, 0xdc00, 2);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 2226, "bad UTF-16 in machine_name (the field at 0x8ac): unpaired "
			"low surrogate 0xdc00 at character 3 (expected UTF-16LE text)");
}

static void test_high_surrogate_without_low(void **state)
{
	struct fixture *f = *state;

	put_utf16(f->hdr + 18696, "C:\\x");
	pc_put_le(f->hdr + 18704, 0xd800, 2);
	put_utf16(f->hdr + 18706, "y");
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 18704, "bad UTF-16 in kernel_etl_path (the field at 0x4908): "
			"unpaired high surrogate 0xd800 at character 4");
}

static void test_high_surrogate_before_nul(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 19216, 0xdbff, 2);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 19216, "bad UTF-16 in app_etl_path (the field at 0x4b10): "
			"unpaired high surrogate 0xdbff at character 0");
}

static void test_high_surrogate_last_of_field(void **state)
{
	struct fixture *f = *state;

	for (uint32_t i = 0; i < 259; i++)
		pc_put_le(f->hdr + 19216 + 2 * i, 'a', 2);
	pc_put_le(f->hdr + 19216 + 518, 0xd800, 2);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 19216 + 518, "bad UTF-16 in app_etl_path (the field at 0x4b10): "
			"unpaired high surrogate 0xd800 at character 259");
}

static void test_full_field_without_nul(void **state)
{
	struct fixture *f = *state;
	char expected[17];

	for (uint32_t i = 0; i < 16; i++)
		pc_put_le(f->hdr + 2220 + 2 * i, 'A' + i, 2);
	for (int i = 0; i < 16; i++)
		expected[i] = (char)('A' + i);
	expected[16] = '\0';
	put_utf16(f->hdr + 2252, "x"); /* the next field: not part of the name */
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.machine_name", expected);
}

static void test_bad_utf16_counter_name(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 524, 2, 4);
	put_utf16(f->hdr + 544, "Cycles");
	put_utf16(f->hdr + 624, "Mi");
	pc_put_le(f->hdr + 628, 0xdfff, 2);
	assert_int_equal(read_header(f), -1);
	assert_error_at(f, 628, "bad UTF-16 in counter_name[1] (the field at 0x270): unpaired "
			"low surrogate 0xdfff at character 2");
}

/* Names past number_of_counters are not read, whatever they hold. */
static void test_counter_names_past_the_count_ignored(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 524, 1, 4);
	put_utf16(f->hdr + 544, "Cycles");
	pc_put_le(f->hdr + 624, 'x', 2);
	pc_put_le(f->hdr + 626, 0xdc00, 2);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.counter_name[0]", "Cycles");
	assert_null(fact(f->m, "vsp.counter_name[1]"));
}

/* --- counter names: encoding and bound --- */

static void test_counter_name_encodings(void **state)
{
	struct fixture *f = *state;
	int rc;
	char *text;

	pc_put_le(f->hdr + 524, 4, 4);
	put_utf16(f->hdr + 544, "Instructions Retired");
	memcpy(f->hdr + 624, "L2 Misses", 9);            /* 8-bit */
	memcpy(f->hdr + 704, "Caf\xe9", 4);              /* 8-bit, not UTF-8 */
	memcpy(f->hdr + 784, "X", 1);                    /* 1 char: either reading */
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.number_of_counters", "4");
	assert_fact(f->m, "vsp.counter_name[0]", "Instructions Retired");
	assert_fact(f->m, "vsp.counter_name[1]", "L2 Misses");
	assert_fact(f->m, "vsp.counter_name[2]", "Caf\\xe9");
	assert_fact(f->m, "vsp.counter_name[3]", "X");
	text = info_text(f, f->hdr, HEADER_BYTES, "test.vsp", false, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "  0x0270  counter_name[1]           \"L2 Misses\" (8-bit)\n"));
	assert_non_null(strstr(text, "  0x02c0  counter_name[2]           \"Caf\\xe9\" (8-bit)\n"));
	assert_non_null(strstr(text, "  0x0310  counter_name[3]           \"X\" (UTF-16LE)\n"));
	free(text);
}

static void test_too_many_counters(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 524, 25, 4);
	for (uint32_t i = 0; i < 20; i++) {
		char name[16];

		snprintf(name, sizeof(name), "C%u", i);
		put_utf16(f->hdr + 544 + 80 * i, name);
	}
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.number_of_counters", "25 (only 20 names fit)");
	assert_fact(f->m, "vsp.counter_name[19]", "C19");
	assert_null(fact(f->m, "vsp.counter_name[20]"));
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text,
			    "vsp: number_of_counters is 25, but only 20 counter names fit before "
			    "offset 0x890; the first 20 are read");
}

static void test_too_many_counters_strict(void **state)
{
	struct fixture *f = *state;

	f->ctx.opt.strict = true;
	pc_put_le(f->hdr + 524, 21, 4);
	assert_int_equal(read_header(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "number_of_counters is 21"));
}

/* --- text escaping --- */

static void test_version_string_escaped(void **state)
{
	struct fixture *f = *state;

	memcpy(f->hdr + 20, "v\"1\x01\\2", 6);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.version_string", "v\\x221\\x01\\2");
}

static void test_version_string_fills_field(void **state)
{
	struct fixture *f = *state;
	char expected[65];

	memset(f->hdr + 20, 'v', 64);
	memset(expected, 'v', 64);
	expected[64] = '\0';
	pc_put_le(f->hdr + 84, 7, 4); /* file_version_minor follows: not part of it */
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.version_string", expected);
	assert_fact(f->m, "vsp.file_version_minor", "7");
}

static void test_utf16_control_characters_escaped(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 2220, 'a', 2);
	pc_put_le(f->hdr + 2222, 0x0009, 2);
	pc_put_le(f->hdr + 2224, 0x0085, 2); /* NEL, a C1 control */
	pc_put_le(f->hdr + 2226, 0x00e9, 2);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.machine_name", "a\\x09\\xc2\\x85\xc3\xa9");
}

/* --- creation time --- */

static void test_time_not_set(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.creation_time", "not set (all zero)");
	assert_true(pc_model_time_nanos(f->m) == 0);
}

static void test_time_invalid(void **state)
{
	static const uint16_t bad[][8] = {
		{ 2024, 13, 2, 5, 14, 7, 9, 250 },   /* month */
		{ 2023, 2, 3, 29, 0, 0, 0, 0 },      /* not a leap year */
		{ 2024, 3, 7, 5, 0, 0, 0, 0 },       /* day of week */
		{ 2024, 3, 2, 5, 24, 0, 0, 0 },      /* hour */
		{ 2024, 3, 2, 5, 0, 60, 0, 0 },      /* minute */
		{ 2024, 3, 2, 5, 0, 0, 60, 0 },      /* second */
		{ 2024, 3, 2, 5, 0, 0, 0, 1000 },    /* milliseconds */
		{ 1600, 3, 2, 5, 0, 0, 0, 0 },       /* before 1601 */
		{ 30828, 3, 2, 5, 0, 0, 0, 0 },      /* after 30827 */
		{ 2024, 3, 2, 0, 0, 0, 0, 0 },       /* day 0 */
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < PC_ARRAY_SIZE(bad); i++) {
		pc_model_free(f->m);
		f->m = pc_model_new();
		seed_sample(f->m);
		put_time(f->hdr, bad[i]);
		assert_int_equal(read_header(f), 0);
		assert_true(pc_model_time_nanos(f->m) == 0);
		assert_int_equal(strncmp(fact(f->m, "vsp.creation_time"), "invalid (year ", 14), 0);
	}
	assert_fact(f->m, "vsp.creation_time", "invalid (year 2024, month 3, day_of_week 2, "
		    "day 0, hour 0, minute 0, second 0, milliseconds 0)");
}

static void test_time_leap_day_and_wrong_weekday(void **state)
{
	static const uint16_t leap[8] = { 2024, 2, 1, 29, 23, 59, 59, 999 };
	struct fixture *f = *state;

	put_time(f->hdr, leap); /* 2024-02-29 was a Thursday, not a Monday */
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.creation_time", "2024-02-29 23:59:59.999 UTC (Thursday; the "
		    "stored day_of_week 1 says Monday)");
	assert_true(pc_model_time_nanos(f->m) == INT64_C(1709251199999000000));
}

static void test_time_before_1970(void **state)
{
	static const uint16_t old[8] = { 1969, 12, 3, 31, 23, 59, 59, 0 };
	struct fixture *f = *state;

	put_time(f->hdr, old);
	assert_int_equal(read_header(f), 0);
	assert_true(pc_model_time_nanos(f->m) == INT64_C(-1000000000));
}

static void test_time_not_representable(void **state)
{
	static const uint16_t far[8] = { 3000, 1, 3, 1, 0, 0, 0, 0 };
	struct fixture *f = *state;

	put_time(f->hdr, far);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.creation_time", "3000-01-01 00:00:00.000 UTC (Wednesday)");
	assert_true(pc_model_time_nanos(f->m) == 0);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "creation_time 3000-01-01 is outside"));
}

static void test_earlier_time_kept(void **state)
{
	static const uint16_t t[8] = { 2024, 3, 2, 5, 14, 7, 9, 250 };
	struct fixture *f = *state;

	pc_model_set_time(f->m, 42, pc_model_duration_nanos(f->m));
	put_time(f->hdr, t);
	assert_int_equal(read_header(f), 0);
	assert_true(pc_model_time_nanos(f->m) == 42);
	assert_int_equal(f->ctx.nwarnings, 1);
}

/* --- enums, flags, period --- */

static void test_flags(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 156, 0xffffffff, 4);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.flags", "0xffffffff (allocation, 64-bit, lifetime, managed, "
		    "unsupported CLR, DHP happened, TIP, JScript, UMS app terminated, "
		    "unnamed bits 0xffffe017)");
	assert_fact(f->m, "vsp.magic", "0x454c504d (bytes 4d 50 4c 45, \"MPLE\")");
}

static void test_no_flags(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.flags", "0x00000000 (none)");
}

static void test_unknown_enums(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 164, 3, 4);
	pc_put_le(f->hdr + 168, 2, 4);
	pc_put_le(f->hdr + 172, 1000, 4);
	pc_put_le(f->hdr + 180, 7, 4);
	pc_put_le(f->hdr + 2256, 0, 4);
	pc_put_le(f->hdr + 2260, 7, 4);
	pc_put_le(f->hdr + 2276, 4, 4);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.collection_type", "3 (unknown)");
	assert_fact(f->m, "vsp.sampling_type", "2 (unknown)");
	assert_fact(f->m, "vsp.graceful_exit", "7 (unknown)");
	assert_fact(f->m, "vsp.cpu_vendor", "0 (unknown)");
	assert_fact(f->m, "vsp.cpu_architecture", "7 (unknown)");
	assert_int_equal(pc_model_period_type(f->m)->type, 0);
	assert_int_equal(pc_model_period(f->m), 0);
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 0)), "VSP collection: unknown (3)");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 2)),
			    "VSP CPU: vendor unknown, architecture unknown, family 0 model 0 "
			    "stepping 0, 0 MHz");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 3)),
			    "VSP OS: Windows NT 4.0 build 0 (unknown Windows version)");
}

static void test_period_per_sampling_type(void **state)
{
	static const struct { uint32_t type; const char *name; } kinds[] = {
		{ 1, "cycles" }, { 3, "page-faults" }, { 4, "syscalls" },
		{ 5, "performance-counter" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < PC_ARRAY_SIZE(kinds); i++) {
		pc_model_free(f->m);
		f->m = pc_model_new();
		seed_sample(f->m);
		pc_put_le(f->hdr + 164, 4, 4);
		pc_put_le(f->hdr + 168, kinds[i].type, 4);
		pc_put_le(f->hdr + 172, 1000 + (uint32_t)i, 4);
		assert_int_equal(read_header(f), 0);
		assert_string_equal(pc_str(f->m, pc_model_period_type(f->m)->type), kinds[i].name);
		assert_string_equal(pc_str(f->m, pc_model_period_type(f->m)->unit), "count");
		assert_int_equal(pc_model_period(f->m), 1000 + i);
	}
}

static void test_no_period_without_interval(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 168, 1, 4);
	assert_int_equal(read_header(f), 0);
	assert_int_equal(pc_model_period(f->m), 0);
	assert_int_equal(pc_model_period_type(f->m)->type, 0);
}

static void test_earlier_period_kept(void **state)
{
	struct fixture *f = *state;

	pc_model_set_period(f->m, pc_model_intern_cstr(f->m, "cpu"),
			    pc_model_intern_cstr(f->m, "nanoseconds"), 1000);
	pc_put_le(f->hdr + 168, 1, 4);
	pc_put_le(f->hdr + 172, 5000, 4);
	assert_int_equal(read_header(f), 0);
	assert_int_equal(pc_model_period(f->m), 1000);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text, "vsp: the period of an earlier input is kept; "
			    "the VSP header's (cycles every 5000) is only a fact");
}

static void test_cpu_info_extended_family(void **state)
{
	struct fixture *f = *state;

	pc_put_le(f->hdr + 2264, 0x00a20f12, 4); /* AMD Zen 3: family 0x19, model 0x21 */
	pc_put_le(f->hdr + 2276, 6, 4);
	pc_put_le(f->hdr + 2280, 1, 4);
	pc_put_le(f->hdr + 2284, 7601, 4);
	assert_int_equal(read_header(f), 0);
	assert_fact(f->m, "vsp.cpu_info", "0x00a20f12 (as a CPUID signature: family 25, "
		    "model 33, stepping 2)");
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 3)),
			    "VSP OS: Windows NT 6.1 build 7601 (Windows 7 or Server 2008 R2)");
}

/* --- info: views, ETL search --- */

static void test_info_other_views_print_nothing(void **state)
{
	struct fixture *f = *state;
	struct pc_input in;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	pc_input_from_memory(&in, "test.vsp", f->hdr, HEADER_BYTES);
	assert_int_equal(pc_vsp_reader.info(&f->ctx, &in, out, PC_INFO_EVENTS), 0);
	pc_input_close(&in);
	fclose(out);
	assert_string_equal(text, "");
	free(text);
}

static void test_info_error_prints_nothing(void **state)
{
	struct fixture *f = *state;
	int rc;
	char *text;

	pc_put_le(f->hdr + 2220, 0xdc00, 2);
	text = info_text(f, f->hdr, HEADER_BYTES, "test.vsp", false, &rc);
	assert_int_equal(rc, -1);
	assert_string_equal(text, "");
	assert_error_at(f, 2220, "bad UTF-16 in machine_name");
	free(text);
}

static const char *etl_section(const char *text)
{
	const char *at = strstr(text, "ETL files");

	assert_non_null(at);
	return at;
}

static void test_info_etl_none_and_missing(void **state)
{
	struct fixture *f = *state;
	int rc;
	char *text;

	put_utf16(f->hdr + 18696, "C:\\Trace\\no-such.kernel.etl");
	text = info_text(f, f->hdr, HEADER_BYTES, "nowhere/x.vsp", false, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(etl_section(text),
			    "ETL files (looked for as written, then by file name in the current "
			    "directory, then by file name beside the .vsp):\n"
			    "  kernel_etl_path  missing (tried \"C:\\Trace\\no-such.kernel.etl\", "
			    "\"no-such.kernel.etl\", \"nowhere/no-such.kernel.etl\")\n"
			    "  app_etl_path     none (the path is empty)\n");
	free(text);
}

static void test_info_etl_from_stdin(void **state)
{
	struct fixture *f = *state;
	int rc;
	char *text;

	put_utf16(f->hdr + 18696, "C:\\Trace\\no-such.kernel.etl");
	put_utf16(f->hdr + 19216, "C:\\Trace\\");
	text = info_text(f, f->hdr, HEADER_BYTES, "<stdin>", true, &rc);
	assert_int_equal(rc, 0);
	assert_string_equal(etl_section(text),
			    "ETL files (looked for as written, then by file name in the current "
			    "directory, then by file name beside the .vsp):\n"
			    "  kernel_etl_path  missing (tried \"C:\\Trace\\no-such.kernel.etl\", "
			    "\"no-such.kernel.etl\"; not beside the .vsp: it is standard input)\n"
			    "  app_etl_path     missing (tried \"C:\\Trace\\\"; it names no file to "
			    "look for elsewhere)\n");
	free(text);
}

/* Found in each of the three places: a scratch directory as the current one. */
static void test_info_etl_found(void **state)
{
	struct fixture *f = *state;
	char top[4096], scratch[] = "/tmp/vsp-test.XXXXXX", abs_path[64];
	int rc;
	char *text;
	FILE *fp;

	assert_non_null(getcwd(top, sizeof(top)));
	assert_non_null(mkdtemp(scratch));
	assert_int_equal(chdir(scratch), 0);
	assert_int_equal(mkdir("vspdir", 0700), 0);
	snprintf(abs_path, sizeof(abs_path), "%s/abs.etl", scratch);
	fp = fopen(abs_path, "w");
	fclose(fp);
	fp = fopen("vspdir/beside.etl", "w");
	fclose(fp);
	put_utf16(f->hdr + 18696, abs_path);
	put_utf16(f->hdr + 19216, "D:\\traces\\beside.etl");
	text = info_text(f, f->hdr, HEADER_BYTES, "vspdir/s.vsp", false, &rc);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(text, "  app_etl_path     found beside the .vsp: "
			       "\"vspdir/beside.etl\"\n"));
	assert_non_null(strstr(text, "  kernel_etl_path  found as written: \"/tmp/vsp-test."));
	free(text);
	fp = fopen("beside.etl", "w"); /* now in the current directory too: found there first */
	fclose(fp);
	text = info_text(f, f->hdr, HEADER_BYTES, "vspdir/s.vsp", false, &rc);
	assert_non_null(strstr(text, "  app_etl_path     found in the current directory: "
			       "\"beside.etl\"\n"));
	free(text);
	unlink("beside.etl");
	unlink("vspdir/beside.etl");
	unlink(abs_path);
	rmdir("vspdir");
	assert_int_equal(chdir(top), 0);
	rmdir(scratch);
}

/* --- probe --- */

static void test_probe(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(pc_vsp_reader.probe(f->hdr, HEADER_BYTES), PC_PROBE_CERTAIN);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, 8), PC_PROBE_CERTAIN);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, 4), 50);
	pc_put_le(f->hdr + 4, 100, 4);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, 8), 50);
	memcpy(f->hdr, "\x45\x4c\x50\x4d", 4);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, 8), 50);
	assert_int_equal(pc_vsp_reader.probe(f->hdr, 3), PC_PROBE_NO);
	assert_int_equal(pc_vsp_reader.probe((const uint8_t *)"main;foo 1\n", 11), PC_PROBE_NO);
	assert_ptr_equal(pc_reader_find("vsp"), &pc_vsp_reader);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sample_every_field),
		T(test_sample_through_pipe),
		T(test_sample_info),
		T(test_never_reads_past_the_header),
		T(test_reversed_magic),
		T(test_bad_magic),
		T(test_decimal_magic_of_the_write_up),
		T(test_wrong_header_size),
		T(test_truncated_at_every_field_boundary),
		T(test_short_file_with_bad_magic),
		T(test_no_samples_yet),
		T(test_surrogate_pair_decoded),
		T(test_lone_low_surrogate),
		T(test_high_surrogate_without_low),
		T(test_high_surrogate_before_nul),
		T(test_high_surrogate_last_of_field),
		T(test_full_field_without_nul),
		T(test_bad_utf16_counter_name),
		T(test_counter_names_past_the_count_ignored),
		T(test_counter_name_encodings),
		T(test_too_many_counters),
		T(test_too_many_counters_strict),
		T(test_version_string_escaped),
		T(test_version_string_fills_field),
		T(test_utf16_control_characters_escaped),
		T(test_time_not_set),
		T(test_time_invalid),
		T(test_time_leap_day_and_wrong_weekday),
		T(test_time_before_1970),
		T(test_time_not_representable),
		T(test_earlier_time_kept),
		T(test_flags),
		T(test_no_flags),
		T(test_unknown_enums),
		T(test_period_per_sampling_type),
		T(test_no_period_without_interval),
		T(test_earlier_period_kept),
		T(test_cpu_info_extended_family),
		T(test_info_other_views_print_nothing),
		T(test_info_error_prints_nothing),
		T(test_info_etl_none_and_missing),
		T(test_info_etl_from_stdin),
		T(test_info_etl_found),
		T(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
