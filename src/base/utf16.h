/*
 * utf16.h - UTF-16 (either byte order) to UTF-8, for Windows text: the
 * "Unicode" reports of vsperfreport /U and UTF-16 fields of binary
 * headers.
 */
#ifndef PC_UTF16_H
#define PC_UTF16_H

#include "base/pc.h"

enum pc_utf16_order {
	PC_UTF16_LE,
	PC_UTF16_BE,
};

/* UTF-8 bytes that nbytes of UTF-16 can need at most (3 per code unit). */
#define PC_UTF16_UTF8_MAX(nbytes) ((nbytes) / 2 * 3)

/* The code unit at src (2 bytes) in the given byte order. */
static inline uint16_t pc_utf16_unit(const uint8_t *src, enum pc_utf16_order order)
{
	return order == PC_UTF16_LE ? (uint16_t)(src[0] | src[1] << 8) :
				      (uint16_t)(src[0] << 8 | src[1]);
}

/*
 * Converts the nbytes / 2 code units at src (an odd last byte is ignored)
 * to UTF-8 at dst, which has room for PC_UTF16_UTF8_MAX(nbytes) bytes,
 * and sets *out_len to the bytes written. Returns 0, or -1 at a lone
 * surrogate (a low one, or a high one not followed by a low one): then
 * *bad is its byte offset in src and *out_len counts the bytes written
 * before it. U+0000 is converted like any other character.
 */
int pc_utf16_to_utf8(const uint8_t *src, size_t nbytes, enum pc_utf16_order order,
		     uint8_t *dst, size_t *out_len, size_t *bad);

#endif
