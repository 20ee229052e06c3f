/*
 * strtab.h - interned strings: each distinct byte string once, known by a
 * 32-bit id in the order first interned (0 is the empty string), its bytes
 * in an arena (NUL-terminated; they may hold NUL bytes within their
 * length). The model's strings; built on the one interning hash,
 * base/index.h.
 */
#ifndef PC_STRTAB_H
#define PC_STRTAB_H

#include "base/arena.h"
#include "base/index.h"

struct pc_strtab_entry {
	const char *text;
	uint32_t len;
};

struct pc_strtab {
	struct pc_arena arena;
	struct pc_strtab_entry *strings; /* [0] is "" */
	size_t count, cap;
	struct pc_index index;
};

void pc_strtab_init(struct pc_strtab *t);
void pc_strtab_release(struct pc_strtab *t);
/* The id of text[0, len), added if new; 0 for len 0. */
uint32_t pc_strtab_intern(struct pc_strtab *t, const void *text, size_t len);
/* The id of text[0, len), or 0 when it is not there (or len is 0). */
uint32_t pc_strtab_find(const struct pc_strtab *t, const void *text, size_t len);
/*
 * Interns every string of from, in from's order: map[id] is t's id of
 * from's string id (from->count entries). Batched, so that the index
 * lookups of many strings overlap.
 */
void pc_strtab_intern_all(struct pc_strtab *t, const struct pc_strtab *from, uint32_t *map);
/* pc_strtab_intern_all of from's ids first .. end - 1 only (first >= 1). */
void pc_strtab_intern_range(struct pc_strtab *t, const struct pc_strtab *from, uint32_t *map,
			    size_t first, size_t end);
/* Makes room in the index for more strings, up to count in all. */
void pc_strtab_reserve(struct pc_strtab *t, size_t count);

static inline const char *pc_strtab_text(const struct pc_strtab *t, uint32_t id)
{
	return t->strings[id].text;
}

static inline uint32_t pc_strtab_len(const struct pc_strtab *t, uint32_t id)
{
	return t->strings[id].len;
}

#endif
