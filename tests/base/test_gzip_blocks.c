/* test_gzip_blocks.c - block-parallel gzip: readable, and the same bytes on any threads. */
#include "base/gzip_blocks.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <zlib.h>

/* Writes len bytes of data through pc_gzip on threads threads; returns the file's bytes. */
static uint8_t *compress_with(const uint8_t *data, size_t len, unsigned threads, size_t *size)
{
	FILE *fp = tmpfile();
	struct pc_gzip *gz;
	uint8_t *bytes;
	long end;

	assert_non_null(fp);
	gz = pc_gzip_open(fp, threads);
	/* in uneven pieces, as a writer appends */
	for (size_t at = 0, piece = 1; at < len; at += piece, piece = piece * 7 % 9973 + 1)
		pc_gzip_write(gz, data + at, piece < len - at ? piece : len - at);
	assert_int_equal(pc_gzip_close(gz), 0);
	end = ftell(fp);
	assert_true(end > 0);
	bytes = pc_xmalloc((size_t)end);
	rewind(fp);
	assert_int_equal(fread(bytes, 1, (size_t)end, fp), (size_t)end);
	fclose(fp);
	*size = (size_t)end;
	return bytes;
}

/* Inflates every member of a gzip stream; returns the bytes. */
static uint8_t *gunzip_all(const uint8_t *gz, size_t gz_size, size_t cap, size_t *size)
{
	z_stream stream = { .next_in = (Bytef *)gz, .avail_in = (uInt)gz_size };
	uint8_t *out = pc_xmalloc(cap + 1);
	size_t members = 0;
	int rc;

	assert_int_equal(inflateInit2(&stream, 16 + MAX_WBITS), Z_OK);
	stream.next_out = out;
	stream.avail_out = (uInt)(cap + 1);
	for (;;) {
		rc = inflate(&stream, Z_NO_FLUSH);
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
		if (rc == Z_STREAM_END) {
			members++;
			if (!stream.avail_in)
				break;
			assert_int_equal(inflateReset(&stream), Z_OK);
		}
	}
	*size = cap + 1 - stream.avail_out;
	inflateEnd(&stream);
	assert_int_equal(members, *size ? (*size + PC_GZIP_BLOCK_BYTES - 1) / PC_GZIP_BLOCK_BYTES : 1);
	return out;
}

static void check_round_trip(size_t len)
{
	uint8_t *data = pc_xmalloc(len + 1), *one, *three, *back;
	size_t one_size, three_size, back_size;
	uint64_t x = 42;

	for (size_t i = 0; i < len; i++) { /* compressible, but not trivially */
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		data[i] = (uint8_t)("profconv"[i % 8] + (x >> 61));
	}
	one = compress_with(data, len, 1, &one_size);
	three = compress_with(data, len, 3, &three_size);
	assert_int_equal(one_size, three_size);
	assert_memory_equal(one, three, one_size);
	/* the fixed header: deflate, no flags, mtime 0, XFL 4, OS 3 */
	assert_memory_equal(one, "\x1f\x8b\x08\x00\x00\x00\x00\x00\x04\x03", 10);
	back = gunzip_all(one, one_size, len, &back_size);
	assert_int_equal(back_size, len);
	if (len)
		assert_memory_equal(back, data, len);
	free(data);
	free(one);
	free(three);
	free(back);
}

static void test_empty_stream_is_one_member(void **state)
{
	(void)state;
	check_round_trip(0);
}

static void test_small_stream(void **state)
{
	(void)state;
	check_round_trip(1000);
}

static void test_many_blocks_same_bytes_on_any_threads(void **state)
{
	(void)state;
	check_round_trip(5 * PC_GZIP_BLOCK_BYTES);
	check_round_trip(7 * PC_GZIP_BLOCK_BYTES + 12345);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_stream_is_one_member),
		cmocka_unit_test(test_small_stream),
		cmocka_unit_test(test_many_blocks_same_bytes_on_any_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
