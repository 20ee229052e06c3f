/* columns.h - value columns for hand-built models, as readers make them. */
#ifndef TESTS_COLUMNS_H
#define TESTS_COLUMNS_H

#include "model/model.h"

/*
 * A column as the readers make it from its name: perf script's NAME_sample
 * (samples of NAME) and NAME_event (its weight), SPT's lbr_branch and
 * callstack records; anything else a plain value column.
 */
int pct_column_as_read(struct pc_model *m, const char *name);

#endif
