/*
 * perf_events.c - the value columns of perf's events; see perf_events.h.
 */
#include "readers/perf_events.h"

int perf_event_columns_add(struct pc_model *m, const char *name, size_t len,
			   struct perf_event_columns *ev)
{
	char *type = pc_xmalloc(2 * len + sizeof("_sample") + 1);
	char *event = type + len + sizeof("_sample"); /* NAME, after NAME_sample */

	memset(ev, 0, sizeof(*ev));
	memcpy(event, name, len);
	event[len] = '\0';
	memcpy(type, name, len);
	memcpy(type + len, "_sample", sizeof("_sample"));
	ev->col_sample = pc_model_add_event_column(m, type, "count", event, PC_ROLE_SAMPLES);
	memcpy(type + len, "_event", sizeof("_event"));
	ev->col_event = pc_model_add_event_column(m, type, "count", event, PC_ROLE_WEIGHT);
	free(type);
	if (ev->col_sample < 0 || ev->col_event < 0)
		return -1;
	ev->name = pc_model_intern(m, name, len);
	return 0;
}

void perf_event_note(struct perf_event_columns *ev, bool has_period, uint64_t period,
		     uint64_t repeat, uint64_t value)
{
	ev->samples = pc_add_saturated(ev->samples, repeat);
	ev->weight = pc_add_saturated(ev->weight, value * repeat);
	if (!has_period) {
		ev->missing_period = true;
		return;
	}
	if (ev->any_period && period != ev->first_period)
		ev->periods_vary = true;
	if (!ev->any_period)
		ev->first_period = period;
	ev->any_period = true;
}

/* The period of an event: the one its samples share, else the rounded mean. */
static int64_t event_period(const struct perf_event_columns *ev)
{
	uint64_t mean, rest;

	if (!ev->periods_vary && !ev->missing_period)
		return ev->first_period > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ev->first_period;
	mean = ev->weight / ev->samples;
	rest = ev->weight % ev->samples;
	if (rest >= ev->samples - rest)
		mean++;
	return mean > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)mean;
}

void perf_events_finish(struct pc_model *m, const struct perf_event_columns *events, size_t n)
{
	int def = pc_model_default_column(m);
	const struct pc_value_type *known = pc_model_period_type(m);

	for (size_t i = 0; i < n; i++) {
		const struct perf_event_columns *ev = &events[i];
		const struct pc_column *column;

		if (ev->any_period && !ev->missing_period &&
		    pc_event_is_clock(pc_str(m, ev->name), pc_str_len(m, ev->name)))
			pc_model_set_column_unit(m, (size_t)ev->col_event, "nanoseconds");
		if (ev->col_event != def || !ev->any_period || !ev->samples || known->type ||
		    known->unit || pc_model_period(m))
			continue;
		column = pc_model_column(m, (size_t)def);
		pc_model_set_period(m, column->type, column->unit, event_period(ev));
	}
}
