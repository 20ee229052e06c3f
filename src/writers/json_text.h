/*
 * json_text.h - JSON strings (RFC 8259) for the writers of JSON formats
 * (speedscope, cpuprofile): quoted, with '"', '\\' and the control
 * characters U+0000 to U+001F escaped (\b \f \n \r \t, else \u00XX), and
 * each byte that does not start valid UTF-8 (base/utf8.h: stray, overlong,
 * surrogate, past U+10FFFF, cut off) replaced by U+FFFD, so that any bytes
 * give a string every JSON parser reads.
 */
#ifndef PC_JSON_TEXT_H
#define PC_JSON_TEXT_H

#include "base/pc.h"

/* Writes s[0, len) to fp as a quoted JSON string; true when a byte was replaced. */
bool pc_json_put_string(FILE *fp, const char *s, size_t len);

#endif
