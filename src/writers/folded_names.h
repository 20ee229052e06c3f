/*
 * folded_names.h - the folded view of a model that writers drawing stacks
 * by name share (folded text, the flame graph SVG): each frame named as
 * stackcollapse-perf.pl names it (folded_writer.c's head comment gives
 * the rules: the function tidied, else "[MODULE]", with addrs
 * "[MODULE <ADDR>]"; an inline chain "a->b" is several names; a root frame
 * "comm[-PID[/TID]]" from the labels), interned once per writer, and the
 * column such a one-value writer counts.
 *
 * Memory follows the distinct names and the model's frames and label
 * sets, not the samples: a frame's names are made once (per java-ness).
 */
#ifndef PC_FOLDED_NAMES_H
#define PC_FOLDED_NAMES_H

#include "model/format.h"

/* What the names carry besides the function (stackcollapse-perf.pl's flags). */
struct pc_folded_names_options {
	bool kernel; /* "_[k]" after kernel frames */
	bool jit;    /* "_[j]" after JIT frames */
	bool addrs;  /* "[MODULE <ADDR>]" for frames without a function */
	bool pid;    /* root frame "comm-PID" */
	bool tid;    /* root frame "comm-PID/TID" */
};

struct pc_folded_name {
	uint32_t off, len; /* in text */
};

struct pc_folded_frame; /* a model frame's names: private */
struct pc_folded_root;  /* a label set's root frame: private */

struct pc_folded_names {
	const struct pc_model *m;
	struct pc_folded_names_options opt;
	char *text; /* the names' bytes */
	size_t text_len, text_cap;
	struct pc_folded_name *names;
	size_t nnames, names_cap;
	struct pc_index name_index; /* name id + 1 by content */
	uint32_t *ids;              /* the names of the model's frames */
	size_t nids, ids_cap;
	struct pc_folded_frame *frames[2]; /* [java] by frame id */
	struct pc_folded_root *roots;      /* by label set id */
	pc_str_id key_comm, key_pid, key_tid;
	bool lost_labels; /* a label other than comm, pid and tid was seen */
	bool replaced;    /* a NUL, CR or LF byte of a name was written as U+FFFD */
};

void pc_folded_names_init(struct pc_folded_names *names, const struct pc_model *m,
			  const struct pc_folded_names_options *opt);
void pc_folded_names_release(struct pc_folded_names *names);

/*
 * The name ids of model frame `frame` (1-based), root first: one, several
 * for an inline chain (all but the first are inlined parts), or none for
 * a frame the script skips (a function that starts with '('). java: the
 * sample's comm is "java". The array is valid until the next call.
 */
const uint32_t *pc_folded_names_frame(struct pc_folded_names *names, uint32_t frame, bool java,
				      size_t *n);

/*
 * The root frame of label set `set`: its name id + 1, or 0 when the set
 * has no comm. *java says whether the comm is "java".
 */
uint32_t pc_folded_names_root(struct pc_folded_names *names, uint32_t set, bool *java);

/* The bytes of name id (no NUL after them), *len of them. */
static inline const char *pc_folded_name(const struct pc_folded_names *names, uint32_t id,
					 size_t *len)
{
	*len = names->names[id].len;
	return names->text + names->names[id].off;
}

/* Kernel frames' modules, as the script's --kernel sees them ("[...]", .ko, vmlinux). */
bool pc_folded_is_kernel_module(const char *name, size_t len);
/* JIT frames' modules: a perf map "/tmp/perf-PID.map" or ".../jitted-PID-N.so". */
bool pc_folded_is_jit_module(const char *name, size_t len);

/*
 * The column a one-value writer counts: --event NAME (ctx->opt.event) picks
 * the weight column of event NAME, else the column named NAME; by default
 * the model's default column. *column is 0 when the model has no columns
 * and no --event was given. -1 with ctx->err set for an unknown event.
 */
int pc_folded_pick_column(struct pc_ctx *ctx, const struct pc_model *m, size_t *column);

/*
 * A column with some value other than `column` and the samples column of
 * its event (lost by a one-value writer), or pc_model_ncolumns(m).
 */
size_t pc_folded_lost_column(const struct pc_model *m, size_t column);

#endif
