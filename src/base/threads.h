/*
 * threads.h - the one place profconv starts threads: a group of workers
 * that each run one function, started together and joined together. The
 * pipeline gives a conversion its thread budget (--threads); stages that
 * can use more than one thread (the SPT reader's two halves, the pprof
 * writer's gzip members) ask for workers here within that budget.
 */
#ifndef PC_THREADS_H
#define PC_THREADS_H

#include "base/pc.h"

struct pc_threads;

/*
 * Starts up to n workers, worker i running fn(args[i]) (or fn(args[0])
 * for every worker when all is set). Returns the group, whose count may be
 * lower than n when the system refuses threads (0: the caller does the
 * work itself); never NULL.
 */
struct pc_threads *pc_threads_start(unsigned n, void *(*fn)(void *), void *const *args,
				    bool all);
/* How many workers were started. */
unsigned pc_threads_count(const struct pc_threads *t);
/* Waits for every worker to return, and frees the group. */
void pc_threads_join(struct pc_threads *t);

#endif
