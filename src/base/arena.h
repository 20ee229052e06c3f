/*
 * arena.h - a block arena: many small allocations, freed all at once.
 * The model keeps its strings and sequences here.
 */
#ifndef PC_ARENA_H
#define PC_ARENA_H

#include "base/pc.h"

struct pc_arena_block;

struct pc_arena {
	struct pc_arena_block *head;
	size_t used, size; /* of the head block */
	size_t total;      /* bytes in all blocks, for statistics */
};

void pc_arena_init(struct pc_arena *arena);
void pc_arena_release(struct pc_arena *arena);
/* 8-byte aligned memory that lives until pc_arena_release. */
void *pc_arena_alloc(struct pc_arena *arena, size_t size);

#endif
