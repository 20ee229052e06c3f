/*
 * progress.h - a progress bar on stderr for large inputs: bytes read,
 * MB/s and time left. The input layer reports its offset after each
 * refill of its window; the bar redraws at most ten times a second.
 */
#ifndef PC_PROGRESS_H
#define PC_PROGRESS_H

#include "base/pc.h"

#include <time.h>

/* Inputs smaller than this get no bar. */
#define PC_PROGRESS_MIN_BYTES (50u << 20)

struct pc_progress {
	FILE *out;
	const char *name;
	uint64_t total;         /* bytes, PC_SIZE_UNKNOWN-like UINT64_MAX if unknown */
	struct timespec start, last;
	bool drawn;
};

/* Starts a bar for an input of total bytes; false (and no bar) when too small. */
bool pc_progress_start(struct pc_progress *p, FILE *out, const char *name, uint64_t total);
void pc_progress_update(struct pc_progress *p, uint64_t done);
/* Erases the bar. */
void pc_progress_finish(struct pc_progress *p);

#endif
