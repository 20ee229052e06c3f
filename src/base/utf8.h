/* utf8.h - UTF-8 validation shared by readers and writers. */
#ifndef PC_UTF8_H
#define PC_UTF8_H

#include "base/pc.h"

/*
 * Length (1-4) of the valid UTF-8 character at s, which has avail > 0
 * bytes, or 0 when it is not one: a stray continuation byte, an overlong
 * form, a surrogate, a code point past U+10FFFF or a cut-off sequence.
 * NUL counts as valid (length 1); callers that refuse it check for it.
 */
size_t pc_utf8_char_len(const unsigned char *s, size_t avail);

/* Writes code point code (at most U+10FFFF) as 1-4 bytes at dst; their count. */
size_t pc_utf8_put(uint8_t *dst, uint32_t code);

#endif
