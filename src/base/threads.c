/* threads.c - worker groups on POSIX threads (threads.h). */
#include "base/threads.h"

#include <pthread.h>

struct pc_threads {
	pthread_t *ids;
	unsigned count;
};

struct pc_threads *pc_threads_start(unsigned n, void *(*fn)(void *), void *const *args,
				    bool all)
{
	struct pc_threads *t = pc_xcalloc(1, sizeof(*t));

	t->ids = pc_xcalloc(n ? n : 1, sizeof(*t->ids));
	for (unsigned i = 0; i < n; i++) {
		if (pthread_create(&t->ids[i], NULL, fn, args[all ? 0 : i]))
			break;
		t->count++;
	}
	return t;
}

unsigned pc_threads_count(const struct pc_threads *t)
{
	return t->count;
}

void pc_threads_join(struct pc_threads *t)
{
	for (unsigned i = 0; i < t->count; i++)
		pthread_join(t->ids[i], NULL);
	free(t->ids);
	free(t);
}
