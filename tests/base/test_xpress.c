/*
 * test_xpress.c - MS-XCA plain LZ77 decompression: the spec's examples,
 * round trips through tests/support/xpress_compress.h, every length
 * encoding, truncated and corrupt inputs, and the real compressed
 * buffers of an ETW trace (SHARED/corpus/etl/net.4.5.2.x64.etl, SHARED
 * defaulting to ../shared; a missing corpus fails the test).
 */
#include "base/xpress.h"
#include "support/xpress_compress.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#define ETL_CORPUS "/corpus/etl/net.4.5.2.x64.etl"
#define ETL_BUFFER_HEADER 0x48
#define ETL_BUFFER_COMPRESSED 0x40

/* Decompresses into an exactly sized heap buffer (so that ASan sees any overrun). */
static int decompress(const uint8_t *in, size_t in_len, size_t out_len, uint8_t **out,
		      char *err, size_t err_size)
{
	int rc;

	*out = pc_xmalloc(out_len ? out_len : 1);
	err[0] = '\0';
	rc = pc_xpress_decompress(in, in_len, *out, out_len, err, err_size);
	if (rc)
		assert_true(err[0] != '\0');
	return rc;
}

static void assert_decodes_to(const uint8_t *in, size_t in_len, const uint8_t *want,
			      size_t want_len)
{
	char err[256];
	uint8_t *out;

	if (decompress(in, in_len, want_len, &out, err, sizeof(err)))
		fail_msg("%s", err);
	if (want_len)
		assert_memory_equal(out, want, want_len);
	free(out);
}

/* Fails, and returns the message (in err) for the caller to check. */
static void assert_fails(const uint8_t *in, size_t in_len, size_t out_len, char *err,
			 size_t err_size)
{
	uint8_t *out;

	assert_int_equal(decompress(in, in_len, out_len, &out, err, err_size), -1);
	free(out);
}

static void assert_fails_with(const uint8_t *in, size_t in_len, size_t out_len,
			      const char *message)
{
	char err[256];

	assert_fails(in, in_len, out_len, err, sizeof(err));
	if (!strstr(err, message))
		fail_msg("error \"%s\" does not say \"%s\"", err, message);
}

/* Compresses data, decompresses it again, and checks that a size off by one fails. */
static void check_round_trip(const uint8_t *data, size_t len, size_t max_distance)
{
	char err[256];
	size_t size;
	uint8_t *packed = xpc_compress(data, len, max_distance, &size);

	assert_decodes_to(packed, size, data, len);
	if (len)
		assert_fails(packed, size, len - 1, err, sizeof(err));
	assert_fails(packed, size, len + 1, err, sizeof(err));
	free(packed);
}

static uint64_t next_random(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* [MS-XCA] 3.1: the alphabet as 26 literals, and "abc" x 100 as 3 literals and one match. */
static void test_spec_examples(void **state)
{
	static const uint8_t alphabet_packed[] = {
		0x3f, 0x00, 0x00, 0x00, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j',
		'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z',
	};
	static const uint8_t abc_packed[] = {
		0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01,
	};
	const char *alphabet = "abcdefghijklmnopqrstuvwxyz";
	uint8_t abc[300], *packed;
	size_t size;

	(void)state;
	for (size_t i = 0; i < sizeof(abc); i++)
		abc[i] = (uint8_t)"abc"[i % 3];
	assert_decodes_to(alphabet_packed, sizeof(alphabet_packed), (const uint8_t *)alphabet, 26);
	assert_decodes_to(abc_packed, sizeof(abc_packed), abc, sizeof(abc));
	/* the test compressor makes the spec's bytes */
	packed = xpc_compress((const uint8_t *)alphabet, 26, XPC_MAX_DISTANCE, &size);
	assert_int_equal(size, sizeof(alphabet_packed));
	assert_memory_equal(packed, alphabet_packed, size);
	free(packed);
	packed = xpc_compress(abc, sizeof(abc), XPC_MAX_DISTANCE, &size);
	assert_int_equal(size, sizeof(abc_packed));
	assert_memory_equal(packed, abc_packed, size);
	free(packed);
}

/* Empty output is one all-ones flag word; the flag word boundaries around 32 items. */
static void test_flag_word_edges(void **state)
{
	static const uint8_t empty[] = { 0xff, 0xff, 0xff, 0xff };
	uint8_t data[100];

	(void)state;
	assert_decodes_to(empty, sizeof(empty), NULL, 0);
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7);
	for (size_t len = 0; len <= sizeof(data); len++)
		check_round_trip(data, len, XPC_MAX_DISTANCE);
}

static void test_round_trip_varied(void **state)
{
	size_t len = 300000;
	uint8_t *data = pc_xmalloc(len);
	uint64_t x = 7;

	(void)state;
	for (size_t i = 0; i < len; i++) /* random: literals only */
		data[i] = (uint8_t)next_random(&x);
	check_round_trip(data, 70000, XPC_MAX_DISTANCE);
	for (size_t i = 0; i < len; i++) /* text-like: short and medium matches */
		data[i] = (uint8_t)("profconv reads ETW "[i % 19] + (next_random(&x) % 16 == 0));
	check_round_trip(data, len, XPC_MAX_DISTANCE);
	check_round_trip(data, len, 64);
	check_round_trip(data, len, 1);
	for (size_t i = 0; i < len; i++) /* runs of every length, some far apart */
		data[i] = (uint8_t)((i / (1 + i % 600)) & 3 ? i / 300 : 0);
	check_round_trip(data, len, XPC_MAX_DISTANCE);
	memset(data, 'a', len); /* one run: a match of length 299999, distance 1 */
	check_round_trip(data, len, XPC_MAX_DISTANCE);
	for (size_t i = 0; i < len; i++) /* repeats exactly 8192 bytes back */
		data[i] = i < 8192 ? (uint8_t)next_random(&x) : data[i - 8192];
	check_round_trip(data, len, XPC_MAX_DISTANCE);
	free(data);
}

/*
 * Lengths at the edges of each encoding (3 bits, half-byte, byte, u16,
 * u32), each at both halves of a shared byte, with distances 1, 5, 8
 * and 9 (the match overlaps what it writes, copied byte by byte or 8 at
 * a time) and 8192 (the farthest). The last match of each stream ends
 * the output, where no 8-byte piece fits past it.
 */
static void test_every_length_class(void **state)
{
	static const uint64_t lengths[] = {
		3, 9, 10, 11, 24, 25, 26, 279, 280, 281, 1000, 65538, 65539, 65540, 100000,
	};
	static const size_t distances[] = { 1, 5, 8, 9, 8192 };
	size_t cap = 8192 + 4 * 100000 + 16, len;
	uint8_t *want = pc_xmalloc(cap), *packed;
	uint64_t x = 1;

	(void)state;
	for (size_t d = 0; d < PC_ARRAY_SIZE(distances); d++) {
		for (size_t l = 0; l < PC_ARRAY_SIZE(lengths); l++) {
			struct xpc c;
			size_t size;

			xpc_init(&c);
			for (len = 0; len < 8192; len++) {
				want[len] = (uint8_t)next_random(&x);
				xpc_literal(&c, want[len]);
			}
			for (int twice = 0; twice < 4; twice++) { /* low, high, low, high */
				xpc_match(&c, distances[d], lengths[l]);
				for (uint64_t i = 0; i < lengths[l]; i++, len++)
					want[len] = want[len - distances[d]];
			}
			packed = xpc_finish(&c, &size);
			assert_decodes_to(packed, size, want, len);
			free(packed);
		}
	}
	free(want);
}

/* Every length from 3 to 700 in a row: the half-bytes alternate through all of them. */
static void test_consecutive_lengths(void **state)
{
	struct xpc c;
	size_t len = 0, size;
	uint8_t *want = pc_xmalloc(300000), *packed;

	(void)state;
	xpc_init(&c);
	for (; len < 16; len++) {
		want[len] = (uint8_t)(len * 37);
		xpc_literal(&c, want[len]);
	}
	for (uint64_t length = 3; length <= 700; length++) {
		size_t distance = 1 + length % 16;

		xpc_match(&c, distance, length);
		for (uint64_t i = 0; i < length; i++, len++)
			want[len] = want[len - distance];
	}
	packed = xpc_finish(&c, &size);
	assert_decodes_to(packed, size, want, len);
	free(packed);
	free(want);
}

/*
 * The long forms as the spec reads them, not as the compressor writes
 * them: a u16 or u32 of at least 22 is the length - 3 whatever its size;
 * under 22 is an error.
 */
static void test_long_length_forms(void **state)
{
	/* 'x', then a match at distance 1 (u16 7), half 15, byte 255, u16 / u32 */
	uint8_t u16_form[] = { 0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0, 0 };
	uint8_t u32_form[] = { 0xff, 0xff, 0xff, 0x7f, 'x', 0x07, 0x00, 0x0f, 0xff, 0, 0,
			       0, 0, 0, 0 };
	uint8_t want[400];

	(void)state;
	memset(want, 'x', sizeof(want));
	for (unsigned value = 22; value < 300; value++) {
		pc_put_le(u16_form + 9, value, 2);
		assert_decodes_to(u16_form, sizeof(u16_form), want, 1 + value + 3);
		pc_put_le(u32_form + 11, value, 4);
		assert_decodes_to(u32_form, sizeof(u32_form), want, 1 + value + 3);
	}
	for (unsigned value = 1; value < 22; value++) {
		pc_put_le(u16_form + 9, value, 2);
		assert_fails_with(u16_form, sizeof(u16_form), 1 + value + 3,
				  "a match at input offset 0x5 has a long length of");
	}
	for (unsigned value = 0; value < 22; value++) {
		pc_put_le(u32_form + 11, value, 4);
		assert_fails_with(u32_form, sizeof(u32_form), 1 + 3, "below the minimum of 22");
	}
	pc_put_le(u32_form + 11, 0xffffffff, 4); /* 4 GiB + 2: passes any output */
	assert_fails_with(u32_form, sizeof(u32_form), 400, "of 0x100000002 bytes");
}

/* Every prefix of a compressed buffer fails cleanly, or decodes to the whole data. */
static void check_prefixes(const uint8_t *data, size_t len)
{
	char err[256];
	size_t size;
	uint8_t *packed = xpc_compress(data, len, XPC_MAX_DISTANCE, &size), *out;

	for (size_t cut = 0; cut <= size; cut++) {
		/* an exactly sized copy, so that ASan sees a read past the prefix */
		uint8_t *prefix = pc_xmalloc(cut ? cut : 1);

		memcpy(prefix, packed, cut);
		if (!decompress(prefix, cut, len, &out, err, sizeof(err)))
			assert_memory_equal(out, data, len);
		else
			assert_true(cut < size);
		free(out);
		free(prefix);
	}
	free(packed);
}

static void test_truncated_inputs(void **state)
{
	uint8_t data[3000];
	uint64_t x = 3;

	(void)state;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = i % 700 < 350 ? (uint8_t)next_random(&x) : (uint8_t)(i / 40);
	check_prefixes(data, sizeof(data));
	memset(data, 'z', sizeof(data));
	check_prefixes(data, sizeof(data));
	check_prefixes((const uint8_t *)"abcabcabcabcabc", 15);
}

static void test_truncation_messages(void **state)
{
	static const uint8_t lit[] = { 0x00, 0x00, 0x00, 0x00, 'a' };
	static const uint8_t half_item[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x07 };
	static const uint8_t no_half[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00 };
	static const uint8_t no_byte[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f };
	static const uint8_t no_u16[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff,
					  0x01 };
	static const uint8_t no_u32[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff,
					  0x00, 0x00, 0x01, 0x00, 0x00 };

	(void)state;
	assert_fails_with(NULL, 0, 0, "the input ends inside a flag word at offset 0x0");
	assert_fails_with(lit, 3, 0, "the input ends inside a flag word at offset 0x0");
	assert_fails_with(lit, 4, 1, "the input ends at offset 0x4 where a literal is due");
	assert_fails_with(lit, 5, 2, "the input ends at offset 0x5 where a literal is due");
	assert_fails_with(half_item, sizeof(half_item), 100,
			  "the input ends inside a match at offset 0x5");
	assert_fails_with(no_half, sizeof(no_half), 100,
			  "the input ends inside a match length at offset 0x7");
	assert_fails_with(no_byte, sizeof(no_byte), 100,
			  "the input ends inside a match length at offset 0x8");
	assert_fails_with(no_u16, sizeof(no_u16), 100,
			  "the input ends inside a match length at offset 0x9");
	assert_fails_with(no_u32, sizeof(no_u32), 100,
			  "the input ends inside a match length at offset 0xb");
}

static void test_corrupt_inputs(void **state)
{
	/* a match first: nothing to copy from */
	static const uint8_t first[] = { 0x00, 0x00, 0x00, 0x80, 0x00, 0x00 };
	/* 'a', then a match 2 bytes back */
	static const uint8_t too_far[] = { 0x00, 0x00, 0x00, 0x40, 'a', 0x08, 0x00 };
	/* 'a', a match of 3 at distance 1, then the end marker */
	static const uint8_t good[] = { 0xff, 0xff, 0xff, 0x7f, 'a', 0x00, 0x00 };
	uint8_t trailing[sizeof(good) + 1];
	struct xpc c;
	uint8_t *packed, want[8195];
	size_t size;

	(void)state;
	assert_fails_with(first, sizeof(first), 3, "a match at input offset 0x4 reaches back "
			  "0x1 bytes, before the start of the output (at output offset 0x0)");
	assert_fails_with(too_far, sizeof(too_far), 4, "a match at input offset 0x5 reaches "
			  "back 0x2 bytes");
	assert_decodes_to(good, sizeof(good), (const uint8_t *)"aaaa", 4);
	assert_fails_with(good, sizeof(good), 3, "a match at input offset 0x5 of 0x3 bytes at "
			  "output offset 0x1 passes the end of the output (0x3 bytes)");
	assert_fails_with(good, sizeof(good), 0, "a literal at input offset 0x4 passes the end");
	assert_fails_with(good, sizeof(good), 5, "the input ends at offset 0x7 with 0x4 bytes "
			  "of output, 0x5 expected");
	memcpy(trailing, good, sizeof(good)); /* a byte after the end marker: a match */
	trailing[sizeof(good)] = 0;
	assert_fails_with(trailing, sizeof(trailing), 4,
			  "the input ends inside a match at offset 0x7");

	/* 32 literals fill the output, but the end marker needs one more flag word */
	memset(want, 'q', sizeof(want));
	xpc_init(&c);
	for (int i = 0; i < 32; i++)
		xpc_literal(&c, 'q');
	packed = xpc_finish(&c, &size);
	assert_int_equal(size, 4 + 32 + 4);
	assert_decodes_to(packed, size, want, 32);
	assert_fails_with(packed, size - 4, 32, "the input ends inside a flag word at offset 0x24");
	free(packed);

	/* the farthest distance, 8192, from 8191 bytes: one short */
	xpc_init(&c);
	for (int i = 0; i < 8191; i++)
		xpc_literal(&c, 'q');
	xpc_match(&c, 8192, 3);
	packed = xpc_finish(&c, &size);
	assert_fails_with(packed, size, 8194, "reaches back 0x2000 bytes, before the start of "
			  "the output (at output offset 0x1fff)");
	free(packed);
	xpc_init(&c);
	for (int i = 0; i < 8192; i++)
		xpc_literal(&c, 'q');
	xpc_match(&c, 8192, 3);
	packed = xpc_finish(&c, &size);
	assert_decodes_to(packed, size, want, sizeof(want));
	free(packed);
}

/* Garbage never crashes; an error buffer of any size holds a terminated message. */
static void test_garbage_and_small_error_buffers(void **state)
{
	uint8_t in[64], out[256];
	char err[8];
	uint64_t x = 11;

	(void)state;
	for (int round = 0; round < 20000; round++) {
		size_t in_len = next_random(&x) % sizeof(in), out_len = next_random(&x) % 256;

		for (size_t i = 0; i < in_len; i++)
			in[i] = (uint8_t)next_random(&x);
		memset(err, 'X', sizeof(err));
		if (pc_xpress_decompress(in, in_len, out, out_len, err, sizeof(err)))
			assert_true(memchr(err, '\0', sizeof(err)) != NULL);
	}
	assert_int_equal(pc_xpress_decompress(NULL, 0, out, 0, NULL, 0), -1);
}

/* Reads a whole file; NULL when it cannot be opened. */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	uint8_t *bytes;
	long end;

	if (!fp)
		return NULL;
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	end = ftell(fp);
	assert_true(end >= 0);
	rewind(fp);
	bytes = pc_xmalloc((size_t)end + 1);
	assert_int_equal(fread(bytes, 1, (size_t)end, fp), (size_t)end);
	fclose(fp);
	*size = (size_t)end;
	return bytes;
}

/*
 * The events of a buffer tile [0, len): each event's size (u16 at 4 for
 * the kernel's SYSTEM and PERFINFO headers, types 0x01-0x04, 0x10, 0x11;
 * u16 at 0 for the others, 0x0A-0x15) rounded up to 8, up to the end or
 * to 0xFF fill. Returns the number of events.
 */
static size_t count_events(const uint8_t *events, size_t len, size_t buffer_at)
{
	size_t at = 0, n = 0;

	while (at < len) {
		uint8_t type;
		size_t size = 0;

		if (len - at < 8)
			fail_msg("buffer at 0x%zx: %zu bytes left at 0x%zx, under an event header",
				 buffer_at, len - at, at);
		if (pc_le32(events + at) == 0xffffffff) {
			for (; at < len; at++)
				assert_int_equal(events[at], 0xff);
			break;
		}
		type = events[at + 2];
		if ((type >= 0x01 && type <= 0x04) || type == 0x10 || type == 0x11)
			size = pc_le16(events + at + 4);
		else if (type >= 0x0a && type <= 0x15)
			size = pc_le16(events + at);
		else
			fail_msg("buffer at 0x%zx: event at 0x%zx has header type 0x%x", buffer_at,
				 at, type);
		if (size < 8 || size > len - at)
			fail_msg("buffer at 0x%zx: event at 0x%zx has size 0x%zx of 0x%zx left",
				 buffer_at, at, size, len - at);
		at += (size + 7) & ~(size_t)7;
		n++;
	}
	if (at != len)
		fail_msg("buffer at 0x%zx: the events end at 0x%zx, past 0x%zx", buffer_at, at, len);
	return n;
}

/*
 * PerfView's x64 test trace: every compressed buffer's bytes [0x48,
 * BufferSize) decompress to exactly Offset - 0x48 bytes of whole events.
 */
static void test_etl_corpus(void **state)
{
	const char *shared = getenv("SHARED");
	char path[1024], err[256];
	size_t size = 0, at, nbuffers = 0, ncompressed = 0, in_bytes = 0, out_bytes = 0, nevents = 0;
	uint8_t *file;

	(void)state;
	snprintf(path, sizeof(path), "%s" ETL_CORPUS, shared && *shared ? shared : "../shared");
	file = read_file(path, &size);
	if (!file)
		fail_msg("the ETL corpus is missing: cannot open %s (set SHARED to the shared "
			 "directory that holds corpus/etl)", path);
	for (at = 0; size - at >= ETL_BUFFER_HEADER; nbuffers++) {
		uint32_t buffer_size = pc_le32(file + at), filled = pc_le32(file + at + 0x30);
		uint8_t *out;

		if (buffer_size < ETL_BUFFER_HEADER || buffer_size > size - at)
			fail_msg("buffer at 0x%zx: BufferSize 0x%x", at, buffer_size);
		if (pc_le16(file + at + 0x34) & ETL_BUFFER_COMPRESSED) {
			assert_true(filled >= ETL_BUFFER_HEADER);
			if (decompress(file + at + ETL_BUFFER_HEADER, buffer_size - ETL_BUFFER_HEADER,
				       filled - ETL_BUFFER_HEADER, &out, err, sizeof(err)))
				fail_msg("buffer at 0x%zx: %s", at, err);
			nevents += count_events(out, filled - ETL_BUFFER_HEADER, at);
			free(out);
			ncompressed++;
			in_bytes += buffer_size - ETL_BUFFER_HEADER;
			out_bytes += filled - ETL_BUFFER_HEADER;
		}
		at += buffer_size;
	}
	assert_int_equal(at, size);
	assert_int_equal(nbuffers, 360);
	assert_int_equal(ncompressed, 359);
	assert_int_equal(out_bytes, 23016304);
	print_message("%zu compressed buffers of %zu: %zu bytes to %zu, %zu events\n",
		      ncompressed, nbuffers, in_bytes, out_bytes, nevents);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_examples),
		cmocka_unit_test(test_flag_word_edges),
		cmocka_unit_test(test_round_trip_varied),
		cmocka_unit_test(test_every_length_class),
		cmocka_unit_test(test_consecutive_lengths),
		cmocka_unit_test(test_long_length_forms),
		cmocka_unit_test(test_truncated_inputs),
		cmocka_unit_test(test_truncation_messages),
		cmocka_unit_test(test_corrupt_inputs),
		cmocka_unit_test(test_garbage_and_small_error_buffers),
		cmocka_unit_test(test_etl_corpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
