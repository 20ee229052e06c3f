/* utf16.c - UTF-16 to UTF-8 (RFC 2781, RFC 3629). */
#include "base/utf16.h"
#include "base/utf8.h"

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
		used += pc_utf8_put(dst + used, code);
	}
	*out_len = used;
	return 0;
}
