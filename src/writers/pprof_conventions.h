/*
 * pprof_conventions.h - what pprof users expect of a profile, decided from
 * the model (pprof_conventions.c), for the pprof writer.
 */
#ifndef PC_PPROF_CONVENTIONS_H
#define PC_PPROF_CONVENTIONS_H

#include "model/model.h"

/*
 * pprof's names for the model's columns: names[c] (malloc'd, for the
 * caller to free) for the columns of perf event pairs, NULL for the others,
 * which keep their type as name; all NULL when a name would then be taken
 * twice. names has room for every column.
 */
void pprof_column_names(const struct pc_model *m, char **names);

/* The module of the profiled program, which pprof shows as mapping 1; 0 = none. */
uint32_t pprof_program_module(const struct pc_model *m);

#endif
