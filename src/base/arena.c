/* arena.c - bump allocation in growing blocks. */
#include "base/arena.h"

#define MIN_BLOCK (64u << 10)

struct pc_arena_block {
	struct pc_arena_block *next;
	max_align_t align[];
};

void pc_arena_init(struct pc_arena *arena)
{
	memset(arena, 0, sizeof(*arena));
}

void pc_arena_release(struct pc_arena *arena)
{
	struct pc_arena_block *block = arena->head;

	while (block) {
		struct pc_arena_block *next = block->next;

		free(block);
		block = next;
	}
	memset(arena, 0, sizeof(*arena));
}

void *pc_arena_alloc(struct pc_arena *arena, size_t size)
{
	size = (size + 7) & ~(size_t)7;
	if (!arena->head || arena->size - arena->used < size) {
		size_t block_size = size > MIN_BLOCK ? size : MIN_BLOCK;
		struct pc_arena_block *block;

		if (arena->size > block_size && arena->size < (64u << 20))
			block_size = arena->size * 2;
		block = pc_xmalloc(sizeof(*block) + block_size);
		block->next = arena->head;
		arena->head = block;
		arena->size = block_size;
		arena->used = 0;
		arena->total += block_size;
	}
	void *ptr = (char *)arena->head->align + arena->used;
	arena->used += size;
	return ptr;
}
