/*
 * filter.h - the sample filters of a run, between read and write
 * (profconv(1), FILTERS): --pids, --tids, --comms, --modules,
 * --kernel-only, --user-only, --focus, --ignore, --hide (pprof's frame
 * semantics) and --time (perf's forms, from the first sample). They are
 * pipeline options: pc_option_apply records them, pc_filter_check checks
 * their values, and the write path applies them to a copy of the profile.
 */
#ifndef PC_FILTER_H
#define PC_FILTER_H

#include "model/model.h"
#include "base/ctx.h"

/* Whether option name is a filter's. */
bool pc_filter_is_option(const char *name);
/* Checks a filter's value (a list, a regular expression, time ranges); -1 with a usage error. */
int pc_filter_check(struct pc_ctx *ctx, const char *name, const char *value);
/* Whether ctx has any filter; whether it filters by time (the read must keep times). */
bool pc_filters_given(const struct pc_ctx *ctx);
bool pc_filters_need_times(const struct pc_ctx *ctx);

/*
 * Fills dst (new) with what the filters of ctx keep of src (finalized;
 * caller/callee data is made into stacks first) and finalizes it. Each
 * filter notes (pc_note) how many samples it kept. Returns 0, or -1 with
 * ctx->err set (--time on a profile without sample times).
 */
int pc_filter_model(struct pc_ctx *ctx, const struct pc_model *src, struct pc_model *dst);

#endif
