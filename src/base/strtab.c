/* strtab.c - interned strings (see strtab.h). */
#include "base/strtab.h"

#define INTERN_BATCH 16 /* strings whose index lookups pc_strtab_intern_range overlaps */

struct string_key {
	const void *text;
	size_t len;
};

void pc_strtab_init(struct pc_strtab *t)
{
	memset(t, 0, sizeof(*t));
	pc_arena_init(&t->arena);
	pc_grow(&t->strings, &t->cap, 1, sizeof(*t->strings));
	t->strings[0] = (struct pc_strtab_entry){ .text = "", .len = 0 };
	t->count = 1;
}

void pc_strtab_release(struct pc_strtab *t)
{
	pc_arena_release(&t->arena);
	free(t->strings);
	pc_index_release(&t->index);
	memset(t, 0, sizeof(*t));
}

static bool string_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct pc_strtab *t = ctx;
	const struct string_key *key = key_ptr;

	return t->strings[id].len == key->len && !memcmp(t->strings[id].text, key->text, key->len);
}

static uint64_t string_hash(const void *text, size_t len)
{
	return pc_hash_bytes(text, len, 0x57);
}

/* pc_strtab_intern of text (len 1 to UINT32_MAX - 1), which hashes to hash. */
static uint32_t intern_hashed(struct pc_strtab *t, const void *text, size_t len, uint64_t hash)
{
	struct string_key key = { .text = text, .len = len };
	uint32_t id = pc_index_find(&t->index, hash, string_equal, t, &key);
	char *copy;

	if (id)
		return id;
	if (t->count >= UINT32_MAX)
		pc_die_oom(t->count);
	copy = pc_arena_alloc(&t->arena, len + 1);
	memcpy(copy, text, len);
	copy[len] = '\0';
	pc_grow(&t->strings, &t->cap, t->count + 1, sizeof(*t->strings));
	t->strings[t->count] = (struct pc_strtab_entry){ .text = copy, .len = (uint32_t)len };
	id = (uint32_t)t->count++;
	pc_index_add(&t->index, hash, id);
	return id;
}

uint32_t pc_strtab_intern(struct pc_strtab *t, const void *text, size_t len)
{
	if (!len)
		return 0;
	if (len > UINT32_MAX - 1)
		pc_die_oom(len);
	return intern_hashed(t, text, len, string_hash(text, len));
}

uint32_t pc_strtab_find(const struct pc_strtab *t, const void *text, size_t len)
{
	struct string_key key = { .text = text, .len = len };

	if (!len || len > UINT32_MAX - 1)
		return 0;
	return pc_index_find(&t->index, string_hash(text, len), string_equal, t, &key);
}

/* In batches whose index slots, then likely strings, are fetched together. */
void pc_strtab_intern_range(struct pc_strtab *t, const struct pc_strtab *from, uint32_t *map,
			    size_t first, size_t end)
{
	uint64_t hashes[INTERN_BATCH];

	for (size_t start = first; start < end; start += INTERN_BATCH) {
		size_t k = end - start < INTERN_BATCH ? end - start : INTERN_BATCH;
		const struct pc_strtab_entry *batch = &from->strings[start];

		for (size_t i = 0; i < k; i++) {
			hashes[i] = string_hash(batch[i].text, batch[i].len);
			pc_index_prefetch(&t->index, hashes[i]);
		}
		for (size_t i = 0; i < k; i++) {
			uint32_t candidate = pc_index_candidate(&t->index, hashes[i]);

			if (candidate)
				PC_PREFETCH(&t->strings[candidate]);
		}
		for (size_t i = 0; i < k; i++)
			map[start + i] = intern_hashed(t, batch[i].text, batch[i].len, hashes[i]);
	}
}

void pc_strtab_intern_all(struct pc_strtab *t, const struct pc_strtab *from, uint32_t *map)
{
	map[0] = 0;
	pc_strtab_intern_range(t, from, map, 1, from->count);
}

void pc_strtab_reserve(struct pc_strtab *t, size_t count)
{
	pc_index_reserve(&t->index, count);
}
