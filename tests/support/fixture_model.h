/*
 * fixture_model.h - building a fixture's model as a reader would, for
 * writer tests: modules by name, frames with function, file and line,
 * labels, and samples added to one column.
 */
#ifndef TESTS_FIXTURE_MODEL_H
#define TESTS_FIXTURE_MODEL_H

#include "support/fixture.h"

uint32_t pct_module(struct fixture *f, const char *name);
/* A frame at address of mod (0: none), with function, file and line (NULL, 0: none). */
uint32_t pct_frame(struct fixture *f, uint32_t mod, uint64_t address, const char *function,
		   const char *file, uint32_t line);
struct pc_label pct_str_label(struct fixture *f, const char *key, const char *value);
/* A numeric label whose unit is its key. */
struct pc_label pct_num_label(struct fixture *f, const char *key, int64_t num);
/* Adds count to column of the sample with these frames (leaf first) and labels; fails the test on error. */
void pct_add(struct fixture *f, const uint32_t *frames, size_t n, const struct pc_label *labels,
	     size_t nlabels, int column, uint64_t count);
/* Whether a warning of the last run contains part. */
bool pct_has_warning(const struct fixture *f, const char *part);

#endif
