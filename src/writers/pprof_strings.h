/*
 * pprof_strings.h - the pprof writer's string table (pprof_strings.c).
 */
#ifndef PC_PPROF_STRINGS_H
#define PC_PPROF_STRINGS_H

#include "base/arena.h"
#include "base/index.h"

/*
 * The output's string table, interned by content. The index holds the
 * writer's own and repaired strings; the model's clean strings, unique in
 * the model already, are appended without it (the writer finds them
 * through the model, see pprof_writer.c model_string).
 */
struct string_table {
	char **texts;      /* [0] is ""; borrowed from the model or the arena */
	size_t *lens;
	size_t count, cap, lens_cap;
	struct pc_index index;  /* ids are output index + 1 */
	uint32_t *model_ids;    /* model string id -> output index + 1, 0 = not yet */
	struct pc_arena arena;  /* repaired and writer-made strings */
	size_t repaired;        /* strings that held invalid UTF-8 or NUL */
};

/* An empty table ("" at index 0), with room for a model of model_strings strings. */
void string_table_init(struct string_table *table, size_t model_strings);
void string_table_release(struct string_table *table);
/*
 * The index of len bytes at text, interned. Clean text that lives as long
 * as the table (borrow) is not copied; other text is copied, repaired when
 * needed.
 */
int64_t string_table_intern(struct string_table *table, const void *text, size_t len,
			    bool borrow);

/* Appends text (living as long as the table) without indexing it; its index. */
int64_t string_table_append(struct string_table *table, const char *text, size_t len);
/* Adds text (living as long as the table) to the index unless it is there; its index. */
int64_t string_table_add_indexed(struct string_table *table, const char *text, size_t len);
/* Whether text is valid UTF-8 without NUL. */
bool string_table_clean(const void *text, size_t len);
/* A copy of text with invalid bytes and NUL as U+FFFD, counted as repaired. */
const char *string_table_repair(struct string_table *table, const void *text, size_t len,
				size_t *out_len);

#endif
