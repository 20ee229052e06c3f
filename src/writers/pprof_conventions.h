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

/*
 * The module of the profiled program, which pprof shows as mapping 1; 0 =
 * none (also for a profile read from pprof: its mappings keep their order).
 */
uint32_t pprof_program_module(const struct pc_model *m);

/*
 * Whether every input of m was a pprof profile: the pprof written from it
 * is the input again (its comments, mapping order and flags, default
 * sample type), with nothing of profconv's own added.
 */
bool pprof_model_from_pprof(const struct pc_model *m);

/* The value of the model's first fact named key, or NULL. */
const char *pprof_fact(const struct pc_model *m, const char *key, size_t *len);

#endif
