/* progress.c - a one-line progress bar redrawn in place with \r. */
#include "base/progress.h"

#define BAR_WIDTH 24

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

bool pc_progress_start(struct pc_progress *p, FILE *out, const char *name, uint64_t total)
{
	memset(p, 0, sizeof(*p));
	if (total == UINT64_MAX || total < PC_PROGRESS_MIN_BYTES)
		return false;
	p->out = out;
	p->name = name;
	p->total = total;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
	p->last = p->start;
	return true;
}

void pc_progress_update(struct pc_progress *p, uint64_t done)
{
	struct timespec now;
	char bar[BAR_WIDTH + 1];
	double elapsed, rate, left;
	size_t filled;

	if (!p->out)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (p->drawn && seconds_between(&p->last, &now) < 0.1)
		return;
	p->last = now;
	elapsed = seconds_between(&p->start, &now);
	if (done > p->total)
		done = p->total;
	rate = elapsed > 0 ? (double)done / elapsed : 0;
	left = rate > 0 ? (double)(p->total - done) / rate : 0;
	filled = (size_t)((double)BAR_WIDTH * (double)done / (double)p->total);
	memset(bar, '#', filled);
	memset(bar + filled, '.', BAR_WIDTH - filled);
	bar[BAR_WIDTH] = '\0';
	fprintf(p->out, "\rprofconv: [%s] %.0f/%.0f MB  %.0f MB/s  %d:%02d left ", bar,
		(double)done / 1048576, (double)p->total / 1048576, rate / 1048576,
		(int)left / 60, (int)left % 60);
	fflush(p->out);
	p->drawn = true;
}

void pc_progress_finish(struct pc_progress *p)
{
	if (p->out && p->drawn) {
		fprintf(p->out, "\r%*s\r", 79, "");
		fflush(p->out);
	}
	p->out = NULL;
}
