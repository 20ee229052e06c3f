/*
 * perf_events.h - the value columns of perf's events, shared by the perf
 * script and perf.data readers so that both give the model the same
 * columns: per event NAME, NAME_sample (role SAMPLES, count: +1 a sample)
 * and NAME_event (role WEIGHT: + the sample's period; nanoseconds for
 * perf's clocks, cpu-clock and task-clock, when every sample had its
 * period, else count). The model's period is that of the default column's
 * event: the one period its samples share, else their rounded mean.
 */
#ifndef PC_PERF_EVENTS_H
#define PC_PERF_EVENTS_H

#include "model/model.h"

struct perf_event_columns {
	pc_str_id name;
	int col_sample, col_event;
	/* its samples and their periods, for the model's unit and period */
	uint64_t samples, weight;  /* both capped at UINT64_MAX */
	uint64_t first_period;
	bool any_period;           /* some sample had its period */
	bool missing_period;       /* some sample had none */
	bool periods_vary;         /* two periods differ */
};

/* Adds the two columns of event name[0, len) to m; -1 past the model's columns. */
int perf_event_columns_add(struct pc_model *m, const char *name, size_t len,
			   struct perf_event_columns *ev);
/* Notes a sample (repeat times, of weight value each) and its period, if it has one. */
void perf_event_note(struct perf_event_columns *ev, bool has_period, uint64_t period,
		     uint64_t repeat, uint64_t value);
/* After the input: the clocks' units, and the model's period (unless one is set). */
void perf_events_finish(struct pc_model *m, const struct perf_event_columns *events, size_t n);

#endif
