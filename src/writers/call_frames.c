/* call_frames.c - a model's distinct call frames (call_frames.h). */
#include "writers/call_frames.h"
#include "writers/frame_name.h"

void pc_call_frames_init(struct pc_call_frames *frames, const struct pc_model *m)
{
	*frames = (struct pc_call_frames){ .m = m };
	frames->of_frame = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*frames->of_frame));
	pc_index_init(&frames->index);
	pc_arena_init(&frames->names);
}

void pc_call_frames_release(struct pc_call_frames *frames)
{
	free(frames->items);
	free(frames->of_frame);
	pc_index_release(&frames->index);
	pc_arena_release(&frames->names);
}

static bool call_frame_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct pc_call_frames *frames = ctx;
	const struct pc_call_frame *a = &frames->items[id - 1], *b = key_ptr;

	return a->name_len == b->name_len && a->file == b->file && a->line == b->line &&
	       a->module == b->module && a->named == b->named &&
	       !memcmp(a->name, b->name, a->name_len);
}

static uint64_t call_frame_hash(const struct pc_call_frame *key)
{
	uint64_t hash = pc_hash_bytes(key->name, key->name_len, 0xca11);

	hash = pc_hash_u64(hash ^ ((uint64_t)key->file << 32 | key->line));
	return pc_hash_u64(hash ^ ((uint64_t)key->module << 1 | key->named));
}

uint32_t pc_call_frames_of(struct pc_call_frames *frames, uint32_t frame_id)
{
	const struct pc_frame *frame;
	struct pc_call_frame key;
	char text[600];
	uint64_t hash;
	uint32_t id;

	if (frames->of_frame[frame_id])
		return frames->of_frame[frame_id] - 1;
	frame = pc_model_frame(frames->m, frame_id);
	key = (struct pc_call_frame){ .file = frame->file, .line = frame->line,
				      .module = frame->module, .named = frame->function != 0 };
	if (frame->function) {
		key.name = pc_str(frames->m, frame->function);
		key.name_len = pc_str_len(frames->m, frame->function);
	} else {
		key.name = text;
		key.name_len = (uint32_t)pc_frame_fallback_name(frames->m, frame, text, sizeof(text));
	}
	hash = call_frame_hash(&key);
	id = pc_index_find(&frames->index, hash, call_frame_equal, frames, &key);
	if (!id) {
		if (!frame->function) { /* keep the made-up name */
			char *copy = pc_arena_alloc(&frames->names, key.name_len + 1);

			memcpy(copy, text, key.name_len + 1);
			key.name = copy;
		}
		pc_grow(&frames->items, &frames->cap, frames->count + 1, sizeof(*frames->items));
		frames->items[frames->count] = key;
		id = (uint32_t)++frames->count;
		pc_index_add(&frames->index, hash, id);
	}
	frames->of_frame[frame_id] = id;
	return id - 1;
}
