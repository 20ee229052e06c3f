/*
 * caller_callee.h - hand-built caller/callee models, shaped as the vsperf
 * readers build Visual Studio CallerCallee data (src/readers/vsperf_model.h):
 * one frame and one one-frame sample per function with its exclusive
 * (samples) and inclusive (inclusive_samples) counts, call arcs with the
 * callee's inclusive count through the caller. The helpers abort on a
 * model error, so a test never goes on with a half-built model.
 */
#ifndef TESTS_CALLER_CALLEE_H
#define TESTS_CALLER_CALLEE_H

#include "model/format.h"

/* Source "vsperf", columns samples (default) and inclusive_samples, arc columns set. */
void pct_cc_columns(struct pc_model *m);
/* The label set comm = COMM, pid = PID (unit "pid") of one process. */
uint32_t pct_cc_process(struct pc_model *m, const char *comm, int64_t pid);
/* A module (Module Path) in address space space (pid + 1, or 0). */
uint32_t pct_cc_module(struct pc_model *m, const char *path, uint32_t space);
/*
 * A function and its one-frame sample (labels 0 = none). With a module
 * it has an absolute address and widens the module's range to cover it,
 * as the reader does; module 0 gives the unknown frame's shape: no module,
 * no address.
 */
uint32_t pct_cc_function(struct pc_model *m, const char *name, uint32_t module,
			 uint64_t address, uint32_t labels, uint64_t self, uint64_t total);
/* A function without module, address or labels. */
uint32_t pct_cc_named(struct pc_model *m, const char *name, uint64_t self, uint64_t total);
/* The call arc caller -> callee with count. */
void pct_cc_call(struct pc_model *m, uint32_t caller, uint32_t callee, uint64_t count);

#endif
