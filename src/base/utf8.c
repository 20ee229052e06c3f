/* utf8.c - strict UTF-8 decoding and encoding of one character (RFC 3629). */
#include "base/utf8.h"

size_t pc_utf8_char_len(const unsigned char *s, size_t avail)
{
	uint32_t code, min;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2, code = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, code = s[0] & 0x0f, min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4, code = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		code = code << 6 | (s[i] & 0x3f);
	}
	if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
		return 0;
	return len;
}

size_t pc_utf8_put(uint8_t *dst, uint32_t code)
{
	if (code < 0x80) {
		dst[0] = (uint8_t)code;
		return 1;
	}
	if (code < 0x800) {
		dst[0] = (uint8_t)(0xc0 | code >> 6);
		dst[1] = (uint8_t)(0x80 | (code & 0x3f));
		return 2;
	}
	if (code < 0x10000) {
		dst[0] = (uint8_t)(0xe0 | code >> 12);
		dst[1] = (uint8_t)(0x80 | (code >> 6 & 0x3f));
		dst[2] = (uint8_t)(0x80 | (code & 0x3f));
		return 3;
	}
	dst[0] = (uint8_t)(0xf0 | code >> 18);
	dst[1] = (uint8_t)(0x80 | (code >> 12 & 0x3f));
	dst[2] = (uint8_t)(0x80 | (code >> 6 & 0x3f));
	dst[3] = (uint8_t)(0x80 | (code & 0x3f));
	return 4;
}
