/*
 * xpress.h - MS-XCA "plain LZ77" (Xpress) decompression, the compression
 * of ETW .etl buffers (format 3 of the header buffer's State).
 *
 * Follows [MS-XCA] section 2.4 (Plain LZ77 Decompression Algorithm
 * Details), its pseudocode step by step. Not handled: LZNT1 (format 2)
 * and LZ77+Huffman (format 4, [MS-XCA] 2.1/2.2); callers reject those.
 * No compression (a test-only compressor is in tests/support).
 */
#ifndef PC_XPRESS_H
#define PC_XPRESS_H

#include "base/pc.h"

/*
 * Decompresses MS-XCA plain LZ77 in[0, in_len) into out[0, out_len)
 * exactly: 0 when the input decodes to exactly out_len bytes; -1
 * otherwise, with a message in err (err_size bytes; none when 0) saying
 * what and where (input offset), e.g. "a match at input offset 0x1234
 * reaches back 0x500 bytes, before the start of the output" or "the
 * input ends inside a match length at offset 0x..".
 *
 * As in the spec, decoding ends only at a match flag met when the whole
 * input has been read (the compressor pads its last flag word with 1
 * bits): then the output must be exactly out_len bytes. Anything that
 * would read past the input or write past out_len is an error, and so
 * is an empty input (no flag word). The bytes of out past what was
 * decoded are unspecified after an error. No allocation, no recursion.
 */
int pc_xpress_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			 char *err, size_t err_size);

#endif
