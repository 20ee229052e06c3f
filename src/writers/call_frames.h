/*
 * call_frames.h - the distinct call frames of a model, for the viewer
 * writers (speedscope, cpuprofile) whose frames are (name, source file,
 * line) records: a model frame's call frame is its function, file, line
 * and module, or for a frame without a function the name that
 * writers/frame_name.h gives it (MODULE+0xRVA, [MODULE], ...). Model frames
 * that differ only by address (several addresses of one function line)
 * share a call frame, so a viewer shows them as one. Call frames are
 * numbered from 0 in the order they are first asked for.
 */
#ifndef PC_CALL_FRAMES_H
#define PC_CALL_FRAMES_H

#include "model/model.h"

struct pc_call_frame {
	const char *name; /* not NUL-terminated: name_len bytes */
	uint32_t name_len;
	pc_str_id file;   /* 0 = unknown */
	uint32_t line;    /* 1-based, 0 = unknown */
	uint32_t module;  /* 0 = unknown */
	bool named;       /* the name is the frame's function (not a made-up one) */
};

struct pc_call_frames {
	const struct pc_model *m;
	struct pc_call_frame *items;
	size_t count, cap;
	uint32_t *of_frame;    /* model frame id -> call frame + 1, 0 = not yet */
	struct pc_index index; /* call frame + 1 by content */
	struct pc_arena names; /* the made-up names */
};

void pc_call_frames_init(struct pc_call_frames *frames, const struct pc_model *m);
void pc_call_frames_release(struct pc_call_frames *frames);

/* The call frame (0-based) of model frame id `frame` (1-based). */
uint32_t pc_call_frames_of(struct pc_call_frames *frames, uint32_t frame);

#endif
