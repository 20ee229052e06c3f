/* columns.c - value columns for hand-built models, as readers make them. */
#include "columns.h"

int pct_column_as_read(struct pc_model *m, const char *name)
{
	size_t len = strlen(name);
	char event[64];

	if (!strcmp(name, "lbr_branch"))
		return pc_model_add_event_column(m, name, "count", name, PC_ROLE_BRANCHES);
	if (!strcmp(name, "callstack"))
		return pc_model_add_event_column(m, name, "count", name, PC_ROLE_STACKS);
	if (len > 7 && len < sizeof(event) && !strcmp(name + len - 7, "_sample")) {
		snprintf(event, sizeof(event), "%.*s", (int)(len - 7), name);
		return pc_model_add_event_column(m, name, "count", event, PC_ROLE_SAMPLES);
	}
	if (len > 6 && len < sizeof(event) && !strcmp(name + len - 6, "_event")) {
		snprintf(event, sizeof(event), "%.*s", (int)(len - 6), name);
		return pc_model_add_event_column(m, name, "count", event, PC_ROLE_WEIGHT);
	}
	return pc_model_add_column(m, name, "count");
}
