/*
 * perf_script_split.c - a big perf script text read in two halves at once.
 *
 * The text is cut at a sample boundary near its middle: a blank line, then
 * a line that starts with neither a blank nor '#' (in a text of one line
 * per sample, such a line). The reader reads the
 * first half as always; a second reader, on a thread, reads the second
 * half into a model of its own, which is then appended to the first's
 * (pc_model_append: every table gains its new entries in the order the
 * second reader made them, which is the order reading on past the cut
 * would have made them).
 *
 * The state that lines leave for later lines is mostly the side records'
 * (MMAP, MMAP2, COMM, FORK, EXIT: mappings, the pids of threads), so the
 * second reader first applies those of the first half, found by a quick
 * scan for "PERF_RECORD_". Beyond that, reading the halves apart is
 * reading in one go only when the second half needs nothing else the
 * first half's lines set, and the second reader checks what it needed as
 * it goes (first_is_plain and half_is_alone say what counts). When it
 * needed something, or warned, or failed, its model is thrown away and
 * the first reader reads on past the cut, as it would have anyway: so the
 * model, the warnings and the errors are always those of reading in one
 * go, and a text that takes the fallback costs what it did before, the
 * second thread's time aside. A text without callchains (one line per
 * sample, no blank lines) is cut at a line boundary; the first reader
 * ends its last sample there, as the next line would.
 */
#include "readers/perf_script_reader.h"

#include "base/threads.h"
#include "model/copy.h"

#include <unistd.h>

#ifndef PS_SPLIT_MIN_BYTES
#define PS_SPLIT_MIN_BYTES ((uint64_t)4 << 20)
#endif
#define SPLIT_SEARCH_BYTES ((size_t)1 << 20) /* how far past the middle a cut is looked for */
#define REPLAY_LINE_MAX ((size_t)1 << 25)    /* past the reader's longest line (16 MiB) */

/* A thread's pid as the second reader knew it before its own lines (tids: tid -> pid + 2). */
struct ps_known_tid {
	uint32_t tid, value;
};

/* The second half and its reader. */
struct ps_half {
	struct pc_ctx ctx;
	struct pc_input in;
	struct pc_model *m;
	struct ps_reader r;
	int ret;
	struct pc_input first; /* the first half, for its side records */
	/* after the first half's side records, before its own lines */
	uint64_t replayed, replayed_globals;
	struct ps_known_tid *tids;
	size_t ntids;
};

static bool is_line_start(char c)
{
	return c != ' ' && c != '\t' && c != '#' && c != '\r' && c != '\n';
}

/*
 * In a text of one line per sample (no callchains: text[0, got) holds no
 * blank and no indented line after its first, partial one), the first
 * line after that one that starts neither with a blank nor '#'; else -1.
 */
static ssize_t one_line_cut(const char *text, ssize_t got)
{
	const char *newline = memchr(text, '\n', (size_t)got);
	ssize_t cut = -1;

	for (ssize_t i = newline ? newline - text : got; i + 1 < got; i++) {
		if (text[i] != '\n')
			continue;
		if (text[i + 1] == '\n' || text[i + 1] == '\r' || text[i + 1] == ' ' ||
		    text[i + 1] == '\t')
			return -1; /* a blank or indented line: callchains */
		if (cut < 0 && is_line_start(text[i + 1]))
			cut = i + 1;
	}
	return cut;
}

/*
 * The offset of the first line at or after the middle of in that follows a
 * blank line and starts neither with a blank nor '#'; in a text of one
 * line per sample, of the first line that starts neither with a blank nor
 * '#'; 0 when there is none within SPLIT_SEARCH_BYTES.
 */
static uint64_t find_cut(const struct pc_input *in)
{
	uint64_t middle = in->size / 2;
	char *text = pc_xmalloc(SPLIT_SEARCH_BYTES);
	ssize_t got = pread(in->fd, text, SPLIT_SEARCH_BYTES, (off_t)middle), one_line;
	uint64_t cut = 0;

	for (ssize_t i = 0; i + 2 < got && !cut; i++) {
		ssize_t next = i + 1 + (text[i + 1] == '\r');

		if (text[i] == '\n' && next + 1 < got && text[next] == '\n' &&
		    is_line_start(text[next + 1]))
			cut = middle + (uint64_t)next + 1;
	}
	if (!cut && got > 0 && (one_line = one_line_cut(text, got)) > 0)
		cut = middle + (uint64_t)one_line;
	free(text);
	return cut;
}

/* The first line of text[at, end) that holds "PERF_RECORD_": its start, or end. */
static size_t next_record_line(const char *text, size_t at, size_t end)
{
	static const char name[] = "PERF_RECORD_";
	const char *p;

	for (size_t from = at; (p = memchr(text + from, 'P', end - from)); from = (size_t)(p - text) + 1) {
		size_t hit = (size_t)(p - text);

		if (end - hit < sizeof(name) - 1 || memcmp(p, name, sizeof(name) - 1))
			continue;
		while (hit > at && text[hit - 1] != '\n')
			hit--;
		return hit;
	}
	return end;
}

/* Applies line[0, len) to the second reader if it is an MMAP, MMAP2, COMM, FORK or EXIT record. */
static int replay_line(struct ps_reader *b, const char *line, size_t len)
{
	struct ps_header h;
	struct ps_syntax syn;
	size_t body;
	enum ps_side_kind kind;

	if (len && line[len - 1] == '\r')
		len--;
	if (!len || line[0] == '#' || ps_parse_header(line, len, &h, &syn) || !h.side)
		return 0;
	kind = ps_side_kind(line, len, h.side_at, &body);
	if (kind != PS_SIDE_MMAP && kind != PS_SIDE_TASK)
		return 0; /* LOST records only count, and the first half counts them */
	b->line = line;
	b->len = len;
	b->first = ps_skip_blanks(line, 0, len);
	return ps_side_record(b, h.side_at);
}

/*
 * The first half's side records, applied to the second reader before its
 * own lines, as reading in one go would have: mappings and the pids of
 * threads. Reading in one go applies those that the first half's reader
 * met, which first_is_plain checks are all of these. -1 when one cannot be
 * read (the first half's reader fails on it too) or a line is too long.
 */
static int replay_side_records(struct ps_half *h)
{
	struct pc_input *in = &h->first;
	size_t want = SPLIT_SEARCH_BYTES;
	int ret = 0;

	for (;;) {
		const uint8_t *data;
		size_t have = pc_input_fill(in, want, &data), done = have, at = 0;
		const char *text = (const char *)data;

		if (!have)
			break;
		while (done > 0 && text[done - 1] != '\n')
			done--;
		if (!done && have == want) { /* a line longer than the window */
			if (want >= REPLAY_LINE_MAX) {
				ret = -1; /* the first half's reader fails on it */
				break;
			}
			want *= 2;
			continue;
		}
		if (!done)
			done = have; /* the last line, without a newline */
		while ((at = next_record_line(text, at, done)) < done && !ret) {
			const char *nl = memchr(text + at, '\n', done - at);
			size_t end = nl ? (size_t)(nl - text) : done;

			ret = replay_line(&h->r, text + at, end - at);
			at = end + 1;
		}
		pc_input_consume(in, done);
		if (ret)
			break;
	}
	return ret ? ret : pc_input_check_io(in, &h->ctx.err);
}

/* What the second reader knows of threads' pids before its own lines. */
static void note_known_tids(struct ps_half *h)
{
	const struct ps_table *t = &h->r.tids;

	h->tids = pc_xmalloc((t->nkeys ? t->nkeys : 1) * sizeof(*h->tids));
	for (size_t i = 0; i < t->nkeys; i++) {
		memcpy(&h->tids[i].tid, t->bytes + t->keys[i].start, sizeof(h->tids[i].tid));
		h->tids[i].value = t->keys[i].value;
	}
	h->ntids = t->nkeys;
}

static void *read_half(void *arg)
{
	struct ps_half *h = arg;

	h->ret = replay_side_records(h);
	h->replayed = h->r.side_records;
	h->replayed_globals = h->r.nglobals;
	note_known_tids(h);
	h->ret = h->ret || ps_read_range(&h->r) || ps_end_input(&h->r) ? -1 : 0;
	ps_reader_drop_caches(&h->r);
	return NULL;
}

static bool has_side_event(const struct ps_reader *r)
{
	for (size_t i = 0; i < r->nevents; i++) {
		pc_str_id name = r->events[i].name;

		if (ps_pt_is_side_event(pc_str(r->m, name), pc_str_len(r->m, name)))
			return true;
	}
	return false;
}

/*
 * Whether the first reader, stopped at the cut, is where reading in one
 * go would be, as far as the second half can tell: between samples, with
 * no repeat count waiting, its event columns made and a default one set,
 * no Intel PT chains, and having met the side records the second reader
 * replayed (not fewer, as --skip-bad can skip some).
 */
static bool first_is_plain(const struct ps_reader *a, const struct ps_half *h)
{
	return a->state == ST_IDLE && !a->repeat && a->saw_sample && !a->npending &&
	       pc_model_default_column(a->m) >= 0 && !a->pt_nchains &&
	       a->side_records == h->replayed;
}

/* Whether the first reader's threads have the pids the second one knew before its own lines. */
static bool same_tids(const struct ps_reader *a, const struct ps_half *h)
{
	if (a->tids.nkeys != h->ntids)
		return false;
	for (size_t i = 0; i < h->ntids; i++) {
		uint32_t tid = h->tids[i].tid;

		if (ps_table_get(&a->tids, pc_hash_u64(tid), 0, (const char *)&tid, sizeof(tid)) !=
		    h->tids[i].value)
			return false;
	}
	return true;
}

/*
 * Whether the second half read alone reads as it would after the first:
 * it met nothing whose meaning the first half's state could change (a
 * kernel mapping, which widens the modules of every process; Intel PT
 * branches and side events, brstacksym ends, header comments, a tid looked
 * up while the first half learnt other pids than the replayed records
 * say, a missing event that the first half's header names, an
 * unterminated last frame that the first half's dsos would fault), and it
 * warned of nothing.
 */
static bool half_is_alone(const struct ps_reader *a, const struct ps_half *h)
{
	const struct ps_reader *b = &h->r;

	return !h->ret && !h->ctx.nwarnings && !h->ctx.dropped_warnings &&
	       b->nglobals == h->replayed_globals && !b->pt_nchains && !b->pt_text_chained &&
	       !b->unknown_frame && !b->npending && !has_side_event(b) && !b->learn_bases &&
	       !b->nbases && !b->unresolved_ends && !b->ndeclared &&
	       !pc_model_ncomments(h->m) && !pc_model_nfacts(h->m) &&
	       !pc_model_time_nanos(h->m) && !(b->tid_lookups && !same_tids(a, h)) &&
	       !(b->took_default_event && a->ndeclared == 1) &&
	       !(b->unterminated && a->saw_dso && !b->saw_dso);
}

/* The largest count of any sample in any column of m. */
static uint64_t largest_count(const struct pc_model *m)
{
	uint64_t largest = 0;

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		const uint64_t *values = pc_model_values(m, i);

		for (size_t c = 0; c < pc_model_ncolumns(m); c++)
			if (values[c] > largest)
				largest = values[c];
	}
	return largest;
}

/*
 * Whether the second model appends to the first without an error: the
 * columns fit, and no sum of two counts can pass PC_COUNT_MAX (else
 * reading on reports the overflow where it happens); and the lost events
 * add up as one reader would add them.
 */
static bool append_fits(const struct ps_reader *a, const struct ps_half *h)
{
	return pc_model_ncolumns(a->m) + pc_model_ncolumns(h->m) <= PC_MAX_COLUMNS &&
	       a->nevents + h->r.nevents <= PC_MAX_COLUMNS / 2 &&
	       largest_count(h->m) <= PC_COUNT_MAX - largest_count(a->m) &&
	       h->r.lost <= UINT64_MAX - a->lost; /* one reader skips a LOST record past that */
}

/*
 * The first reader's event of the second's event ev, whose columns went to
 * column_map's (and whose name is the event of its columns, a string of
 * the first's model now): made, in order, when the first had none.
 */
static struct perf_event_columns *event_in_first(struct ps_reader *a,
						  const struct perf_event_columns *ev,
						  const int *column_map)
{
	int col_sample = column_map[ev->col_sample];
	pc_str_id name = pc_model_column(a->m, (size_t)col_sample)->event;

	for (size_t i = 0; i < a->nevents; i++)
		if (a->events[i].name == name)
			return &a->events[i];
	pc_grow(&a->events, &a->events_cap, a->nevents + 1, sizeof(*a->events));
	a->events[a->nevents] = (struct perf_event_columns){
		.name = name, .col_sample = col_sample, .col_event = column_map[ev->col_event],
	};
	return &a->events[a->nevents++];
}

/* The second reader's events, in its order, onto the first's: their samples and periods. */
static void add_events(struct ps_reader *a, const struct ps_reader *b, const int *column_map)
{
	for (size_t i = 0; i < b->nevents; i++) {
		const struct perf_event_columns *ev = &b->events[i];
		struct perf_event_columns *into = event_in_first(a, ev, column_map);

		into->samples = pc_add_saturated(into->samples, ev->samples);
		into->weight = pc_add_saturated(into->weight, ev->weight);
		into->missing_period |= ev->missing_period;
		if (ev->any_period) {
			into->periods_vary |= ev->periods_vary ||
					      (into->any_period && into->first_period != ev->first_period);
			if (!into->any_period)
				into->first_period = ev->first_period;
			into->any_period = true;
		}
	}
}

/* The second reader's samples per stack, onto the first's stack ids. */
static void add_stack_samples(struct ps_reader *a, const struct ps_reader *b,
			      const uint32_t *stack_map)
{
	for (size_t s = 1; s < b->stack_samples_cap; s++)
		if (b->stack_samples[s]) /* none past the last stack, where the map ends */
			ps_count_stack(a, stack_map[s], b->stack_samples[s]);
}

/* The second half's model and what its reader counted, onto the first reader's. */
static int append_half(struct ps_reader *a, struct ps_half *h)
{
	const struct ps_reader *b = &h->r;
	int column_map[PC_MAX_COLUMNS];
	uint32_t *stack_map;
	char why[PC_ERROR_MESSAGE];

	if (pc_model_append(a->m, h->m, column_map, &stack_map, pc_ctx_threads(a->ctx), why,
			    sizeof(why))) {
		free(stack_map);
		return pc_fail(&a->ctx->err, PC_STATUS_INPUT, "%s", why);
	}
	add_events(a, b, column_map);
	add_stack_samples(a, b, stack_map);
	free(stack_map);
	if (b->any_time)
		ps_note_times(a, b->first_time, b->last_time);
	a->saw_dso |= b->saw_dso;
	a->lost += b->lost; /* append_fits: the sum fits, so one reader would have added each */
	a->trace_errors += b->trace_errors;
	a->perf_messages += b->perf_messages;
	return 0;
}

static void half_init(struct ps_half *h, const struct ps_reader *a, uint64_t cut)
{
	pc_ctx_init(&h->ctx);
	h->ctx.opt = a->ctx->opt;
	memcpy(h->ctx.settings, a->ctx->settings, sizeof(h->ctx.settings));
	h->ctx.nsettings = a->ctx->nsettings;
	pc_input_open_range(&h->in, a->in, cut, a->in->size);
	pc_input_open_range(&h->first, a->in, 0, cut);
	h->m = pc_model_new();
	ps_reader_init(&h->r, &h->ctx, &h->in, h->m);
}

static void half_release(struct ps_half *h)
{
	free(h->tids);
	ps_reader_release(&h->r);
	pc_model_free(h->m);
	pc_input_close(&h->in);
	pc_input_close(&h->first);
}

/*
 * Reads the first half while a thread reads the second; then appends the
 * second or reads on. 1: no thread to be had (nothing read).
 */
static int read_halves(struct ps_reader *a, uint64_t cut)
{
	struct ps_half *h;
	struct pc_threads *second;
	bool appended = false;
	int ret;

	/* the progress bar counts the first half's bytes: half way at the cut, whatever follows */
	if (!pc_input_set_limit(a->in, cut))
		return 1;
	h = pc_xcalloc(1, sizeof(*h));
	half_init(h, a, cut);
	second = pc_threads_start(1, read_half, (void *const[]){ h }, false);
	if (!pc_threads_count(second)) {
		pc_threads_join(second);
		half_release(h);
		free(h);
		pc_input_set_limit(a->in, UINT64_MAX);
		return 1;
	}
	ret = ps_read_range(a);
	/*
	 * A sample of one line is complete at the cut: the line after it
	 * starts with neither a blank nor '#', so reading on would end the
	 * sample before anything else (single_next_line), whatever that line is.
	 */
	if (!ret && a->state == ST_SINGLE)
		ret = ps_emit_sample(a);
	ps_reader_drop_caches(a); /* memos: not held while waiting (reading on makes them anew) */
	pc_threads_join(second);
	pc_input_set_limit(a->in, UINT64_MAX);
	if (!ret && first_is_plain(a, h) && half_is_alone(a, h) && append_fits(a, h)) {
		ret = append_half(a, h);
		appended = true;
		if (a->ctx->threads_used < 2) /* -v: what was read on two threads was kept */
			a->ctx->threads_used = 2;
	}
	half_release(h);
	free(h);
	if (!appended)
		return ret ? -1 : ps_read_range(a);
	/* the input is read to its end (what -v counts) */
	if (!ret && !pc_input_skip_to(a->in, a->in->size))
		ret = pc_input_check_io(a->in, &a->ctx->err);
	return ret;
}

/*
 * Whether the model holds nothing of an earlier input (several inputs are
 * read into one model): their modules' ranges and columns would count in
 * the second half, which the second reader's model does not have.
 */
static bool model_is_new(const struct pc_model *m)
{
	return !pc_model_nmodules(m) && !pc_model_nframes(m) && !pc_model_ncolumns(m) &&
	       !pc_model_nsamples(m) && !pc_model_time_nanos(m) && !pc_model_duration_nanos(m);
}

int ps_read_input(struct ps_reader *r)
{
	const struct pc_input *in = r->in;
	uint64_t cut = 0;
	int ret = 1;

	if (pc_ctx_threads(r->ctx) >= 2 && !pc_model_keeps_times(r->m) && model_is_new(r->m) &&
	    pc_input_is_whole_file(in) && in->size >= PS_SPLIT_MIN_BYTES && (cut = find_cut(in)))
		ret = read_halves(r, cut);
	if (ret == 1)
		ret = ps_read_range(r);
	if (ret || ps_end_input(r))
		return -1;
	return ps_finish_profile(r);
}
