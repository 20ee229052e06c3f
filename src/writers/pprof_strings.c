/*
 * pprof_strings.c - the pprof writer's string table (pprof_writer.c):
 * strings interned by content, index 0 = "", every one valid UTF-8 without
 * NUL, as proto3 consumers need (invalid bytes and NUL become U+FFFD, and
 * are counted for the writer's warning).
 */
#include "writers/pprof_strings.h"

#include "base/utf8.h"

/* Length of the valid UTF-8 character at s (NUL excluded), or 0. */
static size_t utf8_char_len(const unsigned char *s, size_t avail)
{
	return s[0] ? pc_utf8_char_len(s, avail) : 0;
}

/* Whether the 8 bytes at s are all ASCII and none is NUL. */
static bool plain_ascii_word(const unsigned char *s)
{
	const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
	uint64_t word;

	memcpy(&word, s, 8);
	return !((word | ((word - ones) & ~word)) & highs);
}

static bool utf8_clean(const unsigned char *s, size_t len)
{
	size_t start = 0;

	/* symbol names are nearly always ASCII: eight bytes at a time first */
	while (len - start >= 8 && plain_ascii_word(s + start))
		start += 8;
	for (size_t i = start; i < len;) {
		size_t n = utf8_char_len(s + i, len - i);

		if (!n)
			return false;
		i += n;
	}
	return true;
}

/* Copies s into the arena with every invalid byte (and NUL) as U+FFFD. */
static char *utf8_repair(struct pc_arena *arena, const unsigned char *s, size_t len,
			 size_t *out_len)
{
	char *text = pc_arena_alloc(arena, len * 3 + 1);
	size_t used = 0;

	for (size_t i = 0; i < len;) {
		size_t n = utf8_char_len(s + i, len - i);

		if (n) {
			memcpy(text + used, s + i, n);
			used += n;
			i += n;
		} else {
			memcpy(text + used, "\xef\xbf\xbd", 3);
			used += 3;
			i++;
		}
	}
	text[used] = '\0';
	*out_len = used;
	return text;
}

struct string_key {
	const char *text;
	size_t len;
};

static bool string_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct string_table *table = ctx;
	const struct string_key *key = key_ptr;

	return table->lens[id - 1] == key->len &&
	       !memcmp(table->texts[id - 1], key->text, key->len);
}

int64_t string_table_append(struct string_table *table, const char *text, size_t len)
{
	pc_grow(&table->texts, &table->cap, table->count + 1, sizeof(*table->texts));
	pc_grow(&table->lens, &table->lens_cap, table->count + 1, sizeof(*table->lens));
	table->texts[table->count] = (char *)text;
	table->lens[table->count] = len;
	return (int64_t)table->count++;
}

static int64_t string_table_find(const struct string_table *table, const char *text,
				 size_t len)
{
	struct string_key key = { .text = text, .len = len };
	uint32_t id;

	if (!table->index.count)
		return -1;
	id = pc_index_find(&table->index, pc_hash_bytes(text, len, 0), string_equal, table, &key);
	return id ? (int64_t)id - 1 : -1;
}

static int64_t string_table_add(struct string_table *table, char *text, size_t len)
{
	int64_t found = string_table_find(table, text, len);
	int64_t index;

	if (found >= 0)
		return found;
	index = string_table_append(table, text, len);
	pc_index_add(&table->index, pc_hash_bytes(text, len, 0), (uint32_t)index + 1);
	return index;
}

bool string_table_clean(const void *text, size_t len)
{
	return utf8_clean(text, len);
}

const char *string_table_repair(struct string_table *table, const void *text, size_t len,
				size_t *out_len)
{
	table->repaired++;
	return utf8_repair(&table->arena, text, len, out_len);
}

int64_t string_table_add_indexed(struct string_table *table, const char *text, size_t len)
{
	return string_table_add(table, (char *)text, len);
}

int64_t string_table_intern(struct string_table *table, const void *text, size_t len,
			    bool borrow)
{
	size_t out_len = len;
	char *copy;

	if (!len)
		return 0;
	if (!utf8_clean(text, len)) {
		table->repaired++;
		copy = utf8_repair(&table->arena, text, len, &out_len);
		return string_table_add(table, copy, out_len);
	}
	if (borrow)
		return string_table_add(table, (char *)text, out_len);
	copy = pc_arena_alloc(&table->arena, len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	return string_table_add(table, copy, out_len);
}

void string_table_init(struct string_table *table, size_t model_strings)
{
	memset(table, 0, sizeof(*table));
	pc_arena_init(&table->arena);
	table->model_ids = pc_xcalloc(model_strings ? model_strings : 1,
				      sizeof(*table->model_ids));
	string_table_add(table, (char *)"", 0);
}

void string_table_release(struct string_table *table)
{
	free(table->texts);
	free(table->lens);
	free(table->model_ids);
	pc_index_release(&table->index);
	pc_arena_release(&table->arena);
	memset(table, 0, sizeof(*table));
}

