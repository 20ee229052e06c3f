/* json_text.c - JSON strings, valid UTF-8 whatever the bytes (json_text.h). */
#include "writers/json_text.h"
#include "base/utf8.h"

/* Writes the escape of control or quoting byte c. */
static void put_escape(FILE *fp, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	switch (c) {
	case '"':
		fputs("\\\"", fp);
		break;
	case '\\':
		fputs("\\\\", fp);
		break;
	case '\b':
		fputs("\\b", fp);
		break;
	case '\f':
		fputs("\\f", fp);
		break;
	case '\n':
		fputs("\\n", fp);
		break;
	case '\r':
		fputs("\\r", fp);
		break;
	case '\t':
		fputs("\\t", fp);
		break;
	default:
		fputs("\\u00", fp);
		fputc(hex[c >> 4], fp);
		fputc(hex[c & 0xf], fp);
	}
}

bool pc_json_put_string(FILE *fp, const char *s, size_t len)
{
	const unsigned char *bytes = (const unsigned char *)s;
	size_t run = 0; /* the start of the bytes that need no escape */
	bool replaced = false;

	fputc('"', fp);
	for (size_t i = 0; i < len;) {
		unsigned char c = bytes[i];
		size_t n = c < 0x80 ? 1 : pc_utf8_char_len(bytes + i, len - i);

		if (n && c >= 0x20 && c != '"' && c != '\\') {
			i += n;
			continue;
		}
		fwrite(s + run, 1, i - run, fp);
		if (n) {
			put_escape(fp, c);
		} else {
			fputs("\xef\xbf\xbd", fp); /* U+FFFD */
			replaced = true;
		}
		run = ++i;
	}
	fwrite(s + run, 1, len - run, fp);
	fputc('"', fp);
	return replaced;
}
