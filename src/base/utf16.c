/* utf16.c - UTF-16 to UTF-8 (RFC 2781, RFC 3629). */
#include "base/utf16.h"

static size_t put_utf8(uint8_t *dst, uint32_t code)
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

int pc_utf16_to_utf8(const uint8_t *src, size_t nbytes, enum pc_utf16_order order,
		     uint8_t *dst, size_t *out_len, size_t *bad)
{
	size_t used = 0, end = nbytes & ~(size_t)1;

	for (size_t i = 0; i < end; i += 2) {
		uint32_t code = pc_utf16_unit(src + i, order);

		if (code >= 0xd800 && code <= 0xdfff) {
			uint32_t low = i + 4 <= end ? pc_utf16_unit(src + i + 2, order) : 0;

			if (code >= 0xdc00 || low < 0xdc00 || low > 0xdfff) {
				*out_len = used;
				*bad = i;
				return -1;
			}
			code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
			i += 2;
		}
		used += put_utf8(dst + used, code);
	}
	*out_len = used;
	return 0;
}
