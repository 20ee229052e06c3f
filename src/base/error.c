/* error.c - filling and formatting struct pc_error. */
#include "base/error.h"

#include <stdarg.h>

static void set_message(struct pc_error *err, const char *fmt, va_list ap) PC_PRINTF(2, 0);

static void set_message(struct pc_error *err, const char *fmt, va_list ap)
{
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

int pc_fail(struct pc_error *err, enum pc_status status, const char *fmt, ...)
{
	va_list ap;

	err->status = status;
	err->where = PC_WHERE_NONE;
	err->format = NULL;
	va_start(ap, fmt);
	set_message(err, fmt, ap);
	va_end(ap);
	return -1;
}

int pc_fail_at(struct pc_error *err, const char *format, uint64_t offset,
	       const char *fmt, ...)
{
	va_list ap;

	err->status = PC_STATUS_INPUT;
	err->where = PC_WHERE_OFFSET;
	err->format = format;
	err->offset = offset;
	va_start(ap, fmt);
	set_message(err, fmt, ap);
	va_end(ap);
	return -1;
}

int pc_fail_line(struct pc_error *err, const char *format, uint32_t line,
		 uint32_t column, const char *fmt, ...)
{
	va_list ap;

	err->status = PC_STATUS_INPUT;
	err->where = PC_WHERE_LINE;
	err->format = format;
	err->line = line;
	err->column = column;
	va_start(ap, fmt);
	set_message(err, fmt, ap);
	va_end(ap);
	return -1;
}

void pc_error_set_path(struct pc_error *err, const char *path)
{
	if (!err->path[0] && path)
		snprintf(err->path, sizeof(err->path), "%s", path);
}

void pc_error_clear(struct pc_error *err)
{
	memset(err, 0, sizeof(*err));
}

void pc_error_format(const struct pc_error *err, char *buf, size_t size)
{
	char where[96] = "";
	char format[40] = "";

	switch (err->where) {
	case PC_WHERE_OFFSET:
		snprintf(where, sizeof(where), "%soffset 0x%llx: ",
			 err->path[0] ? ": " : "", (unsigned long long)err->offset);
		break;
	case PC_WHERE_LINE:
		snprintf(where, sizeof(where), ":%u:%u: ", err->line, err->column);
		break;
	case PC_WHERE_NONE:
		if (err->path[0])
			snprintf(where, sizeof(where), ": ");
		break;
	}
	if (err->format)
		snprintf(format, sizeof(format), "%s: ", err->format);
	snprintf(buf, size, "%s%s%s%s", err->path, where, format, err->message);
}

void pc_quote(char *buf, size_t size, const void *s, size_t len, size_t max)
{
	const unsigned char *bytes = s;
	size_t used = 0;

	if (!size)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < len && i < max; i++) {
		unsigned char c = bytes[i];
		int n;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			n = snprintf(buf + used, size - used, "%c", c);
		else
			n = snprintf(buf + used, size - used, "\\x%02x", c);
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
	if (len > max)
		snprintf(buf + used, size - used, "...");
}
