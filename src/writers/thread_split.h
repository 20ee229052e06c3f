/*
 * thread_split.h - the threads of a model's samples, for writers that show
 * one profile (speedscope) or one subtree (cpuprofile) per thread: a
 * thread is a distinct (comm, pid, tid) of a sample's labels, each part
 * optional; a sample without any of the three is in the "(no thread)"
 * thread. Named "COMM PID/TID": the PID when some thread has a pid, the
 * "/TID" when some thread has a tid (without the '/' when none has a
 * pid), "?" for an id that this thread lacks; "COMM" alone when no thread
 * has either id; no "COMM " without a comm.
 */
#ifndef PC_THREAD_SPLIT_H
#define PC_THREAD_SPLIT_H

#include "model/model.h"

struct pc_thread {
	pc_str_id comm; /* 0 = none */
	bool has_pid, has_tid;
	int64_t pid, tid;
};

struct pc_threads {
	const struct pc_model *m;
	pc_str_id key_comm, key_pid, key_tid; /* 0 when the model has no such key */
	struct pc_thread *items;              /* threads, 0-based */
	size_t count, cap;
	uint32_t *of_set;                     /* label set id -> thread + 1, 0 = not yet */
	struct pc_index index;                /* thread + 1 by content */
	bool any_pid, any_tid; /* some thread has a pid, a tid */
	bool lost_labels; /* a sample has a label other than comm, pid and tid */
};

void pc_threads_init(struct pc_threads *threads, const struct pc_model *m);
void pc_threads_release(struct pc_threads *threads);

/* Whether any sample of m has a comm, pid or tid label. */
bool pc_threads_any(const struct pc_model *m);

/* The thread (0-based) of the samples of label set `set` (0: no labels). */
uint32_t pc_threads_of(struct pc_threads *threads, uint32_t set);

/*
 * Writes the name of thread `thread` into buf (cut to size - 1 bytes,
 * NUL-terminated); returns its length. The comm's bytes are copied as
 * they are (they may hold any byte but NUL).
 */
size_t pc_threads_name(const struct pc_threads *threads, uint32_t thread, char *buf, size_t size);

/*
 * The threads in order (pid, then tid, a missing one first, then comm
 * bytewise), in a malloc'd array of count entries.
 */
uint32_t *pc_threads_sorted(const struct pc_threads *threads);

#endif
