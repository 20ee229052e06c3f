/*
 * sampler_writer.c - writes Apple Sampler traces ("@supersamplerV1.0").
 *
 * Source: the grammar of Kevin Reid's description (seeds/001), with the
 * "@end" after the symbol table that the grammar shows (the 2008 code left
 * it out), research/sampler.md, DESIGN.md section 4.3:
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   ( TAB u32<id> TAB u32<unknown> TAB name TAB path TAB path LF )*  "@end" LF
 *   ( "@threadV1.0" TAB hex4<thread-id> LF
 *     ( TAB u32<p0> u32<p1> u32<p2> u32<n> u32<frame-id> * n LF )* )*
 *   "@end" LF
 *
 * u32 are big-endian; hex4 is four upper-case hex digits. Symbol entries
 * are written in ascending id order (threads' and frames' together).
 *
 * Ids: what the input says, where it says it and the id is free:
 *   - a thread's id is its tid label when that is from 0 to 0xffff (a
 *     Sampler thread id is 16-bit); the samples without thread labels
 *     (thread, comm or tid) are thread 0000, "Thread_0000": the thread
 *     the input did not name;
 *   - when every input was a Sampler trace (the model's sources are all
 *     "sampler"), a frame without PC_FRAME_HAS_ADDRESS is the symbol entry
 *     the Sampler reader made it from: its address holds the entry's id
 *     (low 32 bits) and unknown field (high 32 bits), written back as
 *     they were;
 *   - anything else, and an id already taken (merged traces, a tid that
 *     two threads share), gets the lowest free id from 0x2122 up (the
 *     2008 writer's first), threads first, then frames in first use;
 *     their unknown field is 0.
 * So Sampler -> Sampler gives the input back byte for byte when it is in
 * this writer's form (entries in id order, each used by a stack, both
 * paths equal and a thread entry's paths its name, the "@end" after the
 * symbol table, each thread's lines in the model's order), and any trace
 * once written is written again identically.
 *
 * What maps where:
 *   thread             -> one @threadV1.0 block and one symbol entry whose
 *                         name and paths are the thread's name: the
 *                         sample's "thread" label; else, with a "comm"
 *                         label, "comm-PID/TID" as folded --tid writes a
 *                         root ('?' for a missing pid or tid; blanks in
 *                         the comm become '_'); else "Thread_XXXX" (XXXX
 *                         its id). A thread is a distinct (thread, tid),
 *                         (comm, pid, tid) or (pid, tid); its entry's
 *                         unknown field is the sample's sampler_unknown
 *                         label (0 without one)
 *   frame              -> a symbol entry per distinct (function, module,
 *                         and for frames without PC_FRAME_HAS_ADDRESS their
 *                         address, which the Sampler reader sets to the
 *                         entry's id and unknown field, so that Sampler ->
 *                         Sampler keeps same-named symbols apart):
 *                         name = the function, both paths = the module's
 *                         name; a frame without a function gets an empty
 *                         name (read back as an unknown frame of its
 *                         module, which folded output names "[BASENAME]"
 *                         or "[unknown]"); TAB and LF in names and paths
 *                         become spaces
 *   sample             -> its stack line (frames leaf first) written as many
 *                         times as the counted column says: --event NAME
 *                         picks the samples column of event NAME, else the
 *                         column named NAME; by default the default column,
 *                         or its event's samples column when the default is
 *                         a weight (Sampler counts samples, never weighted
 *                         values). Prefix 1, 0, 1, or the
 *                         sampler_p0/p1/p2 labels when the sample has them
 * A stack's lines go to its thread's block in model order (the finalized
 * model's order, so output is deterministic). Writing more than
 * MAX_LINES stack lines in all is refused. A profile without samples is
 * the symbol table's header, "@end" and the final "@end".
 *
 * Caller/callee data (Visual Studio CallerCallee summaries, which have no
 * stacks) reaches this writer as the stacks that model/reconstruct.h
 * rebuilds from it (pipeline/convert.c does that for stack-only writers):
 * approximate, with counts that add up to the exclusive total exactly.
 *
 * What is lost, each with one warning: labels other than thread, tid,
 * comm, pid, tid, sampler_unknown and sampler_p0/p1/p2; the other
 * columns; samples without a call stack; TAB and LF bytes in names.
 * Addresses, source lines, branch stacks and arcs are reported by the
 * conversion as parts this format cannot keep. A tid above 0xffff, or
 * taken, does not survive as the thread's id (the name keeps it).
 */
#include "model/format.h"
#include "base/sort.h"

#define SAMPLER "sampler"
#define FIRST_ID 0x2122u
#define MAX_THREAD_ID 0xffffu
#define MAX_LINES (UINT64_C(1) << 28)

enum thread_kind {
	THREAD_UNNAMED,   /* no thread labels: thread 0000 */
	THREAD_NAMED,     /* a "thread" label (Sampler) */
	THREAD_COMM,      /* comm, pid, tid (perf) */
	THREAD_TID,       /* pid and tid without a comm */
};

/* An id the input asks for (want, when wanted) and the one given. */
struct sampler_id {
	uint32_t want, id, unknown;
	bool wanted, given;
};

struct sampler_thread {
	struct sampler_id id;
	char *name;
	size_t name_len;
};

struct sampler_symbol {
	struct sampler_id id;
	char *name, *path;
	size_t name_len, path_len;
};

struct sampler_writer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	FILE *out;
	size_t column;
	bool from_sampler; /* every input was a Sampler trace: frames carry entry ids */
	pc_str_id key_thread, key_comm, key_pid, key_tid, key_unknown, key_p[3];
	/* threads: keyed by their label tuple, in first use */
	struct pc_seqs thread_keys;
	struct sampler_thread *threads; /* by key id - 1 */
	size_t nthreads, threads_cap;
	uint32_t *sample_thread;        /* by sample: thread index */
	/* symbols: keyed by (function, module, Sampler id, unknown) */
	struct pc_seqs symbol_keys;
	struct sampler_symbol *symbols; /* by key id - 1 */
	size_t nsymbols, symbols_cap;
	uint32_t *frame_symbol;         /* by frame id: symbol key id, 0 = not yet */
	struct pc_seqs taken;           /* the ids given, as one-item sequences */
	uint32_t *line;
	size_t line_cap;
	bool lost_labels, cleaned_text, stackless;
};

static char *copy_clean(struct sampler_writer *w, const char *s, size_t n)
{
	char *copy = pc_xmalloc(n + 1);

	for (size_t i = 0; i < n; i++) {
		copy[i] = s[i] == '\t' || s[i] == '\n' ? ' ' : s[i];
		w->cleaned_text |= copy[i] != s[i];
	}
	copy[n] = '\0';
	return copy;
}

static void put_u32(FILE *out, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	fwrite(b, 1, 4, out);
}

/* --- threads --- */

struct thread_labels {
	const struct pc_label *thread, *comm, *pid, *tid, *unknown, *p[3];
};

/* The label's slot in out when it is one this writer uses, else NULL. */
static const struct pc_label **label_slot(struct sampler_writer *w, const struct pc_label *label,
					  struct thread_labels *out)
{
	bool numeric = !label->str;

	if (label->key == w->key_thread && !numeric)
		return &out->thread;
	if (label->key == w->key_comm && !numeric)
		return &out->comm;
	if (!numeric)
		return NULL;
	if (label->key == w->key_pid)
		return &out->pid;
	if (label->key == w->key_tid)
		return &out->tid;
	if (label->key == w->key_unknown)
		return &out->unknown;
	for (size_t i = 0; i < 3; i++)
		if (label->key == w->key_p[i])
			return &out->p[i];
	return NULL;
}

static void find_labels(struct sampler_writer *w, uint32_t set, struct thread_labels *out)
{
	size_t n;
	const uint32_t *ids = pc_model_labelset(w->m, set, &n);

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(w->m, ids[i]);
		const struct pc_label **slot = label_slot(w, label, out);

		if (slot)
			*slot = label;
		else
			w->lost_labels = true;
	}
}

static size_t put_number(char *buf, size_t size, const struct pc_label *label)
{
	int n = label ? snprintf(buf, size, "%lld", (long long)label->num) :
			snprintf(buf, size, "?");

	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

/* The name of a thread with a comm: comm-PID/TID, blanks as '_'. */
static char *comm_name(struct sampler_writer *w, const struct thread_labels *l, size_t *len)
{
	size_t n = pc_str_len(w->m, l->comm->str), at;
	char *name = copy_clean(w, pc_str(w->m, l->comm->str), n);
	char ids[64];

	for (size_t i = 0; i < n; i++)
		if (name[i] == ' ')
			name[i] = '_';
		else if (name[i] == ';')
			name[i] = ':';
	ids[0] = '-';
	at = 1 + put_number(ids + 1, sizeof(ids) - 1, l->pid);
	ids[at++] = '/';
	at += put_number(ids + at, sizeof(ids) - at, l->tid);
	name = pc_xrealloc(name, n + at + 1);
	memcpy(name + n, ids, at);
	name[n + at] = '\0';
	*len = n + at;
	return name;
}

static uint32_t label_u32(const struct pc_label *label)
{
	return label ? (uint32_t)label->num : UINT32_MAX;
}

/* The thread's key: its kind, then what tells threads of that kind apart. */
static void thread_key(const struct thread_labels *l, uint32_t key[4])
{
	key[0] = l->thread ? THREAD_NAMED : l->comm ? THREAD_COMM :
		 l->tid ? THREAD_TID : THREAD_UNNAMED;
	key[1] = l->thread ? l->thread->str : l->comm ? l->comm->str : 0;
	key[2] = key[0] == THREAD_COMM || key[0] == THREAD_TID ? label_u32(l->pid) : 0;
	key[3] = key[0] == THREAD_UNNAMED ? 0 : label_u32(l->tid);
}

/* The id a new thread asks for: its tid when 16-bit, 0 for the unnamed thread. */
static struct sampler_id thread_id_wanted(const struct thread_labels *l, const uint32_t key[4])
{
	struct sampler_id id = { .unknown = l->unknown ? (uint32_t)l->unknown->num : 0 };

	if (key[0] == THREAD_UNNAMED)
		id.wanted = true;
	else if (l->tid && l->tid->num >= 0 && l->tid->num <= MAX_THREAD_ID)
		id = (struct sampler_id){ .want = (uint32_t)l->tid->num, .wanted = true,
					  .unknown = id.unknown };
	return id;
}

/* The thread index of a label set (new threads get no id yet). */
static uint32_t thread_of(struct sampler_writer *w, uint32_t set)
{
	struct thread_labels l;
	uint32_t key[4], id;
	size_t known = w->thread_keys.count;
	struct sampler_thread *thread;

	find_labels(w, set, &l);
	thread_key(&l, key);
	id = pc_seqs_add(&w->thread_keys, key, 4);
	if (w->thread_keys.count == known)
		return id - 1;
	pc_grow(&w->threads, &w->threads_cap, id, sizeof(*w->threads));
	thread = &w->threads[id - 1];
	*thread = (struct sampler_thread){ .id = thread_id_wanted(&l, key) };
	w->nthreads = id;
	if (l.thread) {
		thread->name_len = pc_str_len(w->m, l.thread->str);
		thread->name = copy_clean(w, pc_str(w->m, l.thread->str), thread->name_len);
	} else if (l.comm) {
		thread->name = comm_name(w, &l, &thread->name_len);
	}
	return id - 1;
}

/* --- symbols --- */

static uint32_t symbol_of(struct sampler_writer *w, uint32_t frame_id)
{
	const struct pc_frame *frame = pc_model_frame(w->m, frame_id);
	/* a frame without an address keeps its own (a Sampler id and unknown field) */
	uint64_t own = frame->flags & PC_FRAME_HAS_ADDRESS ? 0 : frame->address;
	uint32_t key[4] = { frame->function, frame->module, (uint32_t)own, (uint32_t)(own >> 32) };
	uint32_t id;
	size_t known = w->symbol_keys.count;
	struct sampler_symbol *symbol;
	pc_str_id path = frame->module ? pc_model_module(w->m, frame->module)->name : 0;

	if (w->frame_symbol[frame_id])
		return w->frame_symbol[frame_id];
	id = pc_seqs_add(&w->symbol_keys, key, 4);
	w->frame_symbol[frame_id] = id;
	if (w->symbol_keys.count == known)
		return id;
	pc_grow(&w->symbols, &w->symbols_cap, id, sizeof(*w->symbols));
	symbol = &w->symbols[id - 1];
	*symbol = (struct sampler_symbol){ 0 };
	w->nsymbols = id;
	if (w->from_sampler && !(frame->flags & PC_FRAME_HAS_ADDRESS))
		symbol->id = (struct sampler_id){ .want = key[2], .unknown = key[3], .wanted = true };
	symbol->name_len = pc_str_len(w->m, frame->function);
	symbol->name = copy_clean(w, pc_str(w->m, frame->function), symbol->name_len);
	symbol->path_len = pc_str_len(w->m, path);
	symbol->path = copy_clean(w, pc_str(w->m, path), symbol->path_len);
	return id;
}

/* --- ids --- */

/* Gives id its wanted value when no entry has it yet. */
static void give_wanted(struct sampler_writer *w, struct sampler_id *id)
{
	if (!id->wanted || pc_seqs_find(&w->taken, &id->want, 1))
		return;
	pc_seqs_add(&w->taken, &id->want, 1);
	id->id = id->want;
	id->given = true;
}

static bool is_taken(struct sampler_writer *w, uint64_t id)
{
	uint32_t item = (uint32_t)id;

	return pc_seqs_find(&w->taken, &item, 1) != 0;
}

/* Gives id the lowest free value from *next on; false past max. */
static bool give_free(struct sampler_writer *w, struct sampler_id *id, uint64_t *next,
		      uint64_t max)
{
	uint32_t item;

	if (id->given)
		return true;
	while (*next <= max && is_taken(w, *next))
		(*next)++;
	if (*next > max)
		return false;
	item = (uint32_t)*next;
	pc_seqs_add(&w->taken, &item, 1);
	id->id = item;
	id->given = true;
	return true;
}

static void name_unnamed_threads(struct sampler_writer *w)
{
	for (size_t i = 0; i < w->nthreads; i++) {
		struct sampler_thread *thread = &w->threads[i];
		char name[16];

		if (thread->name)
			continue;
		snprintf(name, sizeof(name), "Thread_%04X", thread->id.id);
		thread->name_len = strlen(name);
		thread->name = copy_clean(w, name, thread->name_len);
	}
}

/* The input's ids first (threads', then frames'), then the free ones from FIRST_ID. */
static int assign_ids(struct sampler_writer *w)
{
	uint64_t next = FIRST_ID;

	for (size_t i = 0; i < w->nthreads; i++)
		give_wanted(w, &w->threads[i].id);
	for (size_t i = 0; i < w->nsymbols; i++)
		give_wanted(w, &w->symbols[i].id);
	for (size_t i = 0; i < w->nthreads; i++)
		if (!give_free(w, &w->threads[i].id, &next, MAX_THREAD_ID))
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT, "%zu threads: Sampler "
				       "thread ids are 16-bit, and no id from 0x%X to 0x%X is "
				       "left for thread %zu", w->nthreads, FIRST_ID,
				       MAX_THREAD_ID, i + 1);
	for (size_t i = 0; i < w->nsymbols; i++)
		if (!give_free(w, &w->symbols[i].id, &next, UINT32_MAX))
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT, "no symbol id is left "
				       "for %zu symbols", w->nsymbols);
	name_unnamed_threads(w);
	return 0;
}

/* --- the column --- */

static int pick_column(struct sampler_writer *w)
{
	const struct pc_model *m = w->m;
	const char *event = w->ctx->opt.event;
	int column;

	if (event) {
		column = pc_model_pick_column(m, event, PC_ROLE_SAMPLES);
		if (column < 0)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT, "no event '%s' in the "
				       "input", event);
		w->column = (size_t)column;
		return 0;
	}
	/* a weight (period sum) by default: its event's samples are what Sampler counts */
	w->column = pc_model_default_count_column(m);
	return 0;
}

/* --- the output --- */

static void put_symbol(FILE *out, const struct sampler_id *id, const char *name,
		       size_t name_len, const char *path, size_t path_len)
{
	fputc('\t', out);
	put_u32(out, id->id);
	fputc('\t', out);
	put_u32(out, id->unknown);
	fputc('\t', out);
	fwrite(name, 1, name_len, out);
	fputc('\t', out);
	fwrite(path, 1, path_len, out);
	fputc('\t', out);
	fwrite(path, 1, path_len, out);
	fputc('\n', out);
}

/* Entry i: thread i, or symbol i - nthreads. */
static void put_entry(struct sampler_writer *w, size_t i)
{
	const struct sampler_thread *t;
	const struct sampler_symbol *s;

	if (i < w->nthreads) {
		t = &w->threads[i];
		put_symbol(w->out, &t->id, t->name, t->name_len, t->name, t->name_len);
	} else {
		s = &w->symbols[i - w->nthreads];
		put_symbol(w->out, &s->id, s->name, s->name_len, s->path, s->path_len);
	}
}

/* Threads' and frames' entries, in ascending id order. */
static void put_symbol_table(struct sampler_writer *w)
{
	size_t n = w->nthreads + w->nsymbols;
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));
	uint64_t *keys = pc_xmalloc((n ? n : 1) * sizeof(*keys));

	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		keys[i] = i < w->nthreads ? w->threads[i].id.id :
					    w->symbols[i - w->nthreads].id.id;
	}
	pc_sort_by_keys(order, keys, n);
	fputs("@supersamplerV1.0\n@symboltableV1.1\n", w->out);
	for (size_t i = 0; i < n; i++)
		put_entry(w, order[i]);
	fputs("@end\n", w->out);
	free(order);
	free(keys);
}

static void put_prefix(struct sampler_writer *w, uint32_t set)
{
	static const uint32_t usual[3] = { 1, 0, 1 };
	struct thread_labels l;

	find_labels(w, set, &l);
	for (size_t i = 0; i < 3; i++)
		put_u32(w->out, l.p[i] ? (uint32_t)l.p[i]->num : usual[i]);
}

static void put_sample(struct sampler_writer *w, size_t i, uint64_t count)
{
	const struct pc_sample *sample = pc_model_sample(w->m, i);
	size_t n;
	const uint32_t *frames = pc_model_stack(w->m, sample->stack, &n);

	pc_grow(&w->line, &w->line_cap, n + 1, sizeof(*w->line));
	for (size_t k = 0; k < n; k++)
		w->line[k] = w->symbols[w->frame_symbol[frames[k]] - 1].id.id;
	for (uint64_t c = 0; c < count; c++) {
		fputc('\t', w->out);
		put_prefix(w, sample->labels);
		put_u32(w->out, (uint32_t)n);
		for (size_t k = 0; k < n; k++)
			put_u32(w->out, w->line[k]);
		fputc('\n', w->out);
	}
}

static void put_threads(struct sampler_writer *w)
{
	for (size_t t = 0; t < w->nthreads; t++) {
		fprintf(w->out, "@threadV1.0\t%04X\n", w->threads[t].id.id);
		for (size_t i = 0; i < pc_model_nsamples(w->m); i++) {
			uint64_t count = pc_model_values(w->m, i)[w->column];

			if (count && pc_model_sample(w->m, i)->stack && w->sample_thread[i] == t)
				put_sample(w, i, count);
		}
	}
	fputs("@end\n", w->out);
}

/* --- gathering --- */

static int gather(struct sampler_writer *w)
{
	const struct pc_model *m = w->m;
	uint64_t lines = 0;

	w->sample_thread = pc_xcalloc(pc_model_nsamples(m) + 1, sizeof(*w->sample_thread));
	w->frame_symbol = pc_xcalloc(pc_model_nframes(m) + 1, sizeof(*w->frame_symbol));
	for (size_t i = 0; i < pc_model_nsamples(m) && pc_model_ncolumns(m); i++) {
		uint64_t count = pc_model_values(m, i)[w->column];
		size_t n;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

		if (!count)
			continue;
		if (!n) {
			w->stackless = true;
			continue;
		}
		if (count > MAX_LINES - lines)
			return pc_fail(&w->ctx->err, PC_STATUS_INPUT, "the %s column counts more "
				       "than %llu samples: Sampler writes one line per sample "
				       "(pick a sample count with --event)",
				       pc_str(m, pc_model_column(m, w->column)->type),
				       (unsigned long long)MAX_LINES);
		lines += count;
		w->sample_thread[i] = thread_of(w, pc_model_sample(m, i)->labels);
		for (size_t k = 0; k < n; k++)
			symbol_of(w, frames[k]);
	}
	return assign_ids(w);
}

static int warn_lost(struct sampler_writer *w)
{
	const struct pc_model *m = w->m;

	/* notices: what Sampler has no place for; losses: the warnings below */
	if (w->lost_labels)
		pc_notice(w->ctx, SAMPLER, "labels other than thread, comm, pid and tid are lost");
	if (pc_model_ncolumns(m) > 1)
		pc_notice(w->ctx, SAMPLER, "only column '%s' is written, as sample lines; the "
			  "other columns are lost", pc_str(m, pc_model_column(m, w->column)->type));
	if (w->stackless &&
	    pc_warn(w->ctx, SAMPLER, "samples without a call stack are lost"))
		return -1;
	if (w->cleaned_text &&
	    pc_warn(w->ctx, SAMPLER, "TAB and LF bytes in names were written as spaces"))
		return -1;
	return 0;
}

static void writer_release(struct sampler_writer *w)
{
	for (size_t i = 0; i < w->nthreads; i++)
		free(w->threads[i].name);
	for (size_t i = 0; i < w->nsymbols; i++) {
		free(w->symbols[i].name);
		free(w->symbols[i].path);
	}
	free(w->threads);
	free(w->symbols);
	free(w->sample_thread);
	free(w->frame_symbol);
	free(w->line);
	pc_seqs_release(&w->thread_keys);
	pc_seqs_release(&w->symbol_keys);
	pc_seqs_release(&w->taken);
}

static pc_str_id find_string(const struct pc_model *m, const char *text)
{
	pc_str_id id = pc_model_find_string(m, text, strlen(text));

	return id ? id : UINT32_MAX; /* never a key */
}

/* Whether every input was a Sampler trace. */
static bool all_from_sampler(const struct pc_model *m)
{
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		if (strcmp(pc_str(m, pc_model_source(m, i)), SAMPLER))
			return false;
	return pc_model_nsources(m) > 0;
}

static void find_keys(struct sampler_writer *w)
{
	static const char *const p_names[3] = { "sampler_p0", "sampler_p1", "sampler_p2" };

	w->key_thread = find_string(w->m, "thread");
	w->key_comm = find_string(w->m, "comm");
	w->key_pid = find_string(w->m, "pid");
	w->key_tid = find_string(w->m, "tid");
	w->key_unknown = find_string(w->m, "sampler_unknown");
	for (size_t i = 0; i < 3; i++)
		w->key_p[i] = find_string(w->m, p_names[i]);
	w->from_sampler = all_from_sampler(w->m);
}

static int sampler_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	struct sampler_writer w = { .ctx = ctx, .m = m, .out = out->fp };
	int ret = -1;

	pc_seqs_init(&w.thread_keys);
	pc_seqs_init(&w.symbol_keys);
	pc_seqs_init(&w.taken);
	find_keys(&w);
	if (pick_column(&w) || gather(&w) || warn_lost(&w))
		goto cleanup;
	put_symbol_table(&w);
	put_threads(&w);
	ret = 0;
cleanup:
	writer_release(&w);
	return ret;
}

static const char *const sampler_extensions[] = { ".trace", NULL };
static const char *const sampler_aliases[] = { "supersampler", NULL };

const struct pc_writer pc_sampler_writer = {
	.name = "sampler",
	.aliases = sampler_aliases,
	.extensions = sampler_extensions,
	.summary = "Apple Sampler trace (@supersamplerV1.0: one line per sample, per thread)",
	.needs = PC_PART_STACKS,
	.keeps = PC_PART_SYMBOLS | PC_PART_STACKS,
	.write = sampler_write,
};
