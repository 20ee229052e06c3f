/*
 * fuzz_xpress.c - libFuzzer target for MS-XCA plain LZ77 decompression
 * (built by `make fuzz-build`, run by `make fuzz`; seeds in
 * tests/fuzz/corpus/xpress/, written by tests/fuzz/seeds/xpress_seeds.py).
 *
 * An input is a little-endian u16, the output size, then the compressed
 * bytes. These are copied to a buffer of their own and decompressed into
 * a heap buffer of exactly the output size, so that ASan sees any access
 * past either. A failure must leave a message; a success must fail with
 * one byte of output more or less (the size is exact).
 * The compressed bytes (their first ROUND_TRIP_BYTES: the compressor is
 * slow under coverage instrumentation) are then taken as data: compressed
 * by the test compressor (tests/support/xpress_compress.h, with a window
 * of 1 to 8192 bytes picked by the size), they must decompress to
 * themselves.
 */
#include "base/xpress.h"
#include "support/xpress_compress.h"

#define ROUND_TRIP_BYTES 1024

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decompresses in into exactly out_len bytes; a failure must leave a message. */
static int decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	uint8_t *exact = malloc(out_len ? out_len : 1);
	char err[160] = "";
	int rc;

	if (!exact)
		abort();
	rc = pc_xpress_decompress(in, in_len, exact, out_len, err, sizeof(err));
	if (rc && (err[0] == '\0' || !memchr(err, '\0', sizeof(err))))
		abort();
	if (!rc && out)
		memcpy(out, exact, out_len);
	free(exact);
	return rc;
}

static void check_round_trip(const uint8_t *bytes, size_t len, size_t max_distance)
{
	size_t packed_len;
	uint8_t *packed = xpc_compress(bytes, len, max_distance, &packed_len);
	uint8_t *back = malloc(len + 1);

	if (!back || decompress(packed, packed_len, back, len) || memcmp(back, bytes, len))
		abort();
	if ((len && !decompress(packed, packed_len, NULL, len - 1)) ||
	    !decompress(packed, packed_len, NULL, len + 1))
		abort();
	free(back);
	free(packed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t out_len, in_len;
	uint8_t *in;

	if (size < 2)
		return 0;
	out_len = pc_le16(data);
	in_len = size - 2;
	in = malloc(in_len ? in_len : 1);
	if (!in)
		abort();
	memcpy(in, data + 2, in_len);
	if (!decompress(in, in_len, NULL, out_len)) {
		if ((out_len && !decompress(in, in_len, NULL, out_len - 1)) ||
		    !decompress(in, in_len, NULL, out_len + 1))
			abort();
	}
	check_round_trip(in, in_len < ROUND_TRIP_BYTES ? in_len : ROUND_TRIP_BYTES,
			 1 + out_len % XPC_MAX_DISTANCE);
	free(in);
	return 0;
}
