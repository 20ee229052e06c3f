/*
 * reconstruct.h - approximate call stacks from per-function totals and
 * caller -> callee arcs (Visual Studio CallerCallee data, see
 * model.h: arc_self_column, arc_total_column), by the VsPerfView method
 * (seeds/002, DESIGN.md section 3.3):
 *
 *   - entry points are the functions with no callers other than
 *     themselves; an entry point's value is its inclusive count;
 *   - callees are expanded depth first; a callee's value on a path is the
 *     arc's count x (the parent's value on this path / the parent's
 *     inclusive count); a callee already on the path is not expanded
 *     (recursion stops there);
 *   - each node of each path holds its function's exclusive count x (its
 *     value on the path / its inclusive count), as a sample whose stack is
 *     the path (leaf first) and whose labels are the function's;
 *   - the values are rounded to integers by the largest-remainder method,
 *     top down, so that they add up exactly to the total of
 *     arc_self_column (the total sample count) and every subtree stays
 *     within one of its real value: the total is split among the entry
 *     points' subtrees, each path's share among its own value and its
 *     children's subtrees; ties go to the earlier path in the walk.
 *
 * Paths whose value falls below a millionth of the total are not
 * expanded further, and the walk stops after PC_RECONSTRUCT_MAX_PATHS
 * paths with a counted warning, so a dense call graph cannot explode.
 */
#ifndef PC_RECONSTRUCT_H
#define PC_RECONSTRUCT_H

#include "model/model.h"
#include "base/ctx.h"

#define PC_RECONSTRUCT_MAX_PATHS 1000000

/* Whether src holds arc data that pc_model_reconstruct_stacks can use. */
bool pc_model_has_arc_data(const struct pc_model *src);

/*
 * Fills dst (freshly initialized) with src's metadata, modules, frames and
 * labels and with reconstructed stack samples in one column, the type and
 * unit of src's arc_self_column (the default column of dst), plus a
 * comment saying the stacks are approximate. dst has no arcs and
 * arc_self_column = arc_total_column = -1. src must be finalized; dst is
 * finalized on return. -1 with ctx->err set on failure (a count
 * overflow).
 */
int pc_model_reconstruct_stacks(struct pc_ctx *ctx, const struct pc_model *src,
				struct pc_model *dst);
/*
 * The same with another limit on the paths walked (tests use small ones),
 * without the warning that the stacks are approximate: for callers that
 * say so themselves (the report's tree) and tests.
 */
int pc_model_reconstruct_stacks_limited(struct pc_ctx *ctx, const struct pc_model *src,
					struct pc_model *dst, size_t max_paths);

#endif
