/*
 * sampler_reader.c - reads Apple Sampler traces ("@supersamplerV1.0"),
 * the mixed text and binary call-stack files of Sampler.app (Mac OS X
 * 10.2 to 10.4) that SBCL's sb-sprof could also write.
 *
 * Source: Kevin Reid's description and writer (2008, seeds/001),
 * research/sampler.md, DESIGN.md section 3.2. The grammar read:
 *
 *   "@supersamplerV1.0" LF "@symboltableV1.1" LF
 *   ( TAB u32<id> TAB u32<unknown> TAB name TAB path TAB path LF )*
 *   [ "@end" LF ]                          optional (sb-sprof omits it)
 *   ( "@threadV1.0" TAB hex4<thread-id> LF
 *     ( TAB u32<p0> u32<p1> u32<p2> u32<n> u32<frame-id> * n LF )* )*
 *   "@end" LF
 *
 * u32 are big-endian, 4 raw bytes each, and may hold TAB, LF or '@'
 * bytes: the file is parsed by structure with a byte cursor, never split
 * at LF. Text fields are any bytes but TAB and LF (kept as they are).
 * hex4 is four hex digits, either case. A file whose symbol table is
 * followed by "@end" and nothing else is an empty profile.
 *
 * What maps where:
 *   symbol entry       -> a frame: function = the name (none when empty),
 *                         module = the first path (the second when the
 *                         first is empty; none when both are), address =
 *                         the entry's unknown field << 32 | its id, with
 *                         PC_FRAME_HAS_ADDRESS unset: Sampler has no
 *                         addresses; the id keeps symbols with the same
 *                         name and library distinct, and the Sampler
 *                         writer writes both fields back
 *   stack line         -> one sample of count 1 in the sampled-count
 *                         column: "samples" (unit "count", role
 *                         PC_ROLE_SAMPLES), or the samples column of an
 *                         earlier input's default event, which then
 *                         becomes the default (merged inputs share the
 *                         column of the same meaning); frames in file
 *                         order (leaf first); identical stacks of one
 *                         thread add up
 *   @threadV1.0 block  -> labels thread = the thread symbol's name, tid =
 *                         its id (numeric, unit "tid") and, when the
 *                         thread entry's unknown field is not 0,
 *                         sampler_unknown = that field (numeric); two
 *                         blocks with the same id are one thread
 *   p0, p1, p2         -> numeric labels sampler_p0, sampler_p1,
 *                         sampler_p2, only on lines where they are not the
 *                         usual 1, 0, 1 (not interpreted)
 *   the file           -> source "sampler", comment "Apple Sampler
 *                         (@supersamplerV1.0): N threads, M symbols", facts
 *                         sampler.threads and sampler.symbols (and
 *                         sampler.nonzero_unknown, sampler.second_path_differs
 *                         counting those entries)
 * A file without thread blocks (or with empty ones) is a profile without
 * samples, of which the pipeline warns.
 * What is lost: the second path when it differs from the first, a thread
 * entry's paths, symbols no stack uses, the order of the stack lines and
 * whether the symbol table had its own "@end".
 *
 * Errors, each at the byte offset of the offending field: a bad header,
 * a symbol id defined twice, a thread or frame id not in the symbol table,
 * a frame count that overruns the file or is not followed by LF, a bad
 * thread line, a missing final "@end", bytes after it, truncation
 * anywhere. Reading streams through struct pc_input with no allocation
 * per line: memory grows with the symbols and distinct stacks.
 */
#include "model/format.h"

#define FORMAT "sampler"
#define MAGIC "@supersamplerV1.0\n"
#define SYMBOLS_TAG "@symboltableV1.1\n"
#define THREAD_TAG "@threadV1.0\t"
#define END_TAG "@end\n"
#define MAX_TEXT_BYTES (1u << 20)   /* one name or path */
#define MAX_FRAMES (1u << 22)       /* one stack line */
#define STACK_HEAD_BYTES 16         /* p0, p1, p2, n */
#define QUOTE_MAX 24

struct sampler_symbol {
	uint32_t id, unknown;
	uint32_t frame;  /* model frame id, 0 until a stack uses the symbol */
	pc_str_id name, path1, path2;
};

struct sampler_reader {
	struct pc_ctx *ctx;
	struct pc_input *in;
	struct pc_model *m;
	size_t column;
	pc_str_id key_thread, key_tid, unit_tid, key_unknown, key_p[3];
	/* symbols, found by id through the shared index (symbol index + 1) */
	struct sampler_symbol *symbols;
	size_t nsymbols, symbols_cap;
	struct pc_index symbol_index;
	uint64_t nonzero_unknown, second_path_differs, nthreads;
	/* the current thread and stack line */
	uint32_t thread_labels;
	uint32_t *frames;
	size_t frames_cap;
};

static uint64_t offset(const struct sampler_reader *r)
{
	return pc_input_offset(r->in);
}

/* --- the symbol table by id --- */

static bool symbol_equal(const void *ctx, uint32_t index_id, const void *key)
{
	const struct sampler_reader *r = ctx;

	return r->symbols[index_id - 1].id == *(const uint32_t *)key;
}

static struct sampler_symbol *find_symbol(const struct sampler_reader *r, uint32_t id)
{
	uint32_t found = pc_index_find(&r->symbol_index, pc_hash_u64(id), symbol_equal, r, &id);

	return found ? &r->symbols[found - 1] : NULL;
}

/* Adds a symbol whose id is not there yet. */
static void add_symbol(struct sampler_reader *r, const struct sampler_symbol *symbol)
{
	pc_grow(&r->symbols, &r->symbols_cap, r->nsymbols + 1, sizeof(*r->symbols));
	r->symbols[r->nsymbols++] = *symbol;
	pc_index_add(&r->symbol_index, pc_hash_u64(symbol->id), (uint32_t)r->nsymbols);
}

/* --- the byte cursor --- */

static int truncated(struct sampler_reader *r, const char *what)
{
	if (pc_input_check_io(r->in, &r->ctx->err))
		return -1;
	return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "file ends inside %s", what);
}

/* Makes n bytes readable at *data; a located error when the file ends first. */
static int need(struct sampler_reader *r, size_t n, const uint8_t **data, const char *what)
{
	if (pc_input_fill(r->in, n, data) < n)
		return truncated(r, what);
	return 0;
}

static int expect_byte(struct sampler_reader *r, uint8_t want, const char *what)
{
	const uint8_t *data;

	if (need(r, 1, &data, what))
		return -1;
	if (data[0] != want)
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "expected %s in %s, "
				  "found byte 0x%02x", want == '\t' ? "TAB" : "LF", what,
				  data[0]);
	pc_input_consume(r->in, 1);
	return 0;
}

static int read_u32(struct sampler_reader *r, uint32_t *value, const char *what)
{
	const uint8_t *data;

	if (need(r, 4, &data, what))
		return -1;
	*value = pc_be32(data);
	pc_input_consume(r->in, 4);
	return 0;
}

/* True (and consumed) when the next bytes are tag; false at a mismatch or the end. */
static bool accept(struct sampler_reader *r, const char *tag)
{
	const uint8_t *data;
	size_t len = strlen(tag);

	if (pc_input_fill(r->in, len, &data) < len || memcmp(data, tag, len))
		return false;
	pc_input_consume(r->in, len);
	return true;
}

/* Whether the next byte is c (without consuming it). */
static bool next_is(struct sampler_reader *r, uint8_t c)
{
	const uint8_t *data;

	return pc_input_fill(r->in, 1, &data) >= 1 && data[0] == c;
}

/*
 * Reads a text field up to the delimiter end (TAB or LF), which is
 * consumed; the text is interned. A LF before a TAB delimiter is an error.
 */
static int read_text(struct sampler_reader *r, uint8_t end, const char *what,
		     pc_str_id *id)
{
	const uint8_t *data, *stop = NULL;
	size_t have = pc_input_fill(r->in, 1, &data), scanned = 0, len;

	for (;;) {
		size_t more;

		for (size_t i = scanned; i < have && !stop; i++)
			if (data[i] == '\t' || data[i] == '\n')
				stop = data + i;
		if (stop || have > MAX_TEXT_BYTES)
			break;
		more = pc_input_fill(r->in, have + 4096, &data);
		if (more == have)
			break;
		scanned = have;
		have = more;
	}
	len = stop ? (size_t)(stop - data) : have;
	if (len > MAX_TEXT_BYTES) /* the same limit whatever the buffer held */
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "%s longer than %u bytes",
				  what, MAX_TEXT_BYTES);
	if (!stop)
		return truncated(r, what);
	if (*stop != end)
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r) + len,
				  "expected %s after %s, found %s", end == '\t' ? "TAB" : "LF",
				  what, *stop == '\t' ? "TAB" : "LF");
	*id = pc_model_intern(r->m, data, len);
	pc_input_consume(r->in, len + 1);
	return 0;
}

/* --- header and symbol table --- */

static int read_header(struct sampler_reader *r)
{
	if (!accept(r, MAGIC))
		return pc_fail_at(&r->ctx->err, FORMAT, 0, "expected \"@supersamplerV1.0\" "
				  "and LF at the start (is this a Sampler trace?)");
	if (!accept(r, SYMBOLS_TAG))
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "expected "
				  "\"@symboltableV1.1\" and LF after the first line");
	return 0;
}

/* The frame of a symbol, made on first use (unused symbols add no module). */
static uint32_t symbol_frame(struct sampler_reader *r, struct sampler_symbol *symbol)
{
	struct pc_module module = { .name = symbol->path1 ? symbol->path1 : symbol->path2 };
	struct pc_frame frame = { .address = (uint64_t)symbol->unknown << 32 | symbol->id,
				  .function = symbol->name };

	if (symbol->frame)
		return symbol->frame;
	if (module.name)
		frame.module = pc_model_add_module(r->m, &module);
	symbol->frame = pc_model_add_frame(r->m, &frame);
	return symbol->frame;
}

static int read_symbol(struct sampler_reader *r)
{
	struct sampler_symbol symbol = { 0 };
	uint64_t at;

	pc_input_consume(r->in, 1); /* the TAB */
	at = offset(r);
	if (read_u32(r, &symbol.id, "a symbol id") ||
	    expect_byte(r, '\t', "a symbol entry") ||
	    read_u32(r, &symbol.unknown, "a symbol entry") ||
	    expect_byte(r, '\t', "a symbol entry") ||
	    read_text(r, '\t', "a symbol name", &symbol.name) ||
	    read_text(r, '\t', "a library path", &symbol.path1) ||
	    read_text(r, '\n', "a library path", &symbol.path2))
		return -1;
	if (find_symbol(r, symbol.id))
		return pc_fail_at(&r->ctx->err, FORMAT, at, "symbol id 0x%08x is defined twice",
				  symbol.id);
	r->nonzero_unknown += symbol.unknown != 0;
	r->second_path_differs += symbol.path1 && symbol.path2 && symbol.path1 != symbol.path2;
	add_symbol(r, &symbol);
	return 0;
}

static int read_symbols(struct sampler_reader *r)
{
	while (next_is(r, '\t'))
		if (read_symbol(r))
			return -1;
	return pc_input_check_io(r->in, &r->ctx->err);
}

/* --- thread blocks --- */

static int read_thread_id(struct sampler_reader *r, uint32_t *id)
{
	const uint8_t *data;
	char quoted[64];

	if (need(r, 4, &data, "a thread id"))
		return -1;
	*id = 0;
	for (size_t i = 0; i < 4; i++) {
		int digit = pc_hex_digit(data[i]);

		if (digit < 0) {
			pc_quote(quoted, sizeof(quoted), data, 4, 4);
			return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "expected a "
					  "thread id of 4 hex digits, found \"%s\"", quoted);
		}
		*id = *id << 4 | (uint32_t)digit;
	}
	pc_input_consume(r->in, 4);
	return 0;
}

static int start_thread(struct sampler_reader *r)
{
	const struct sampler_symbol *symbol;
	struct pc_label labels[3];
	uint64_t at = offset(r);
	uint32_t id;
	size_t n = 0;

	if (read_thread_id(r, &id) || expect_byte(r, '\n', "a thread line"))
		return -1;
	symbol = find_symbol(r, id);
	if (!symbol)
		return pc_fail_at(&r->ctx->err, FORMAT, at, "thread id %04x is not in the "
				  "symbol table", id);
	if (symbol->name) /* an empty name: the tid alone */
		labels[n++] = (struct pc_label){ .key = r->key_thread, .str = symbol->name };
	labels[n++] = (struct pc_label){ .key = r->key_tid, .num = id, .unit = r->unit_tid };
	if (symbol->unknown)
		labels[n++] = (struct pc_label){ .key = r->key_unknown, .num = symbol->unknown };
	r->thread_labels = pc_model_add_labels(r->m, labels, n);
	r->nthreads++;
	return 0;
}

/* The label set of a stack line: the thread's, plus p0..p2 when unusual. */
static uint32_t line_labels(struct sampler_reader *r, const uint32_t p[3])
{
	struct pc_label labels[6];
	size_t n = 0, set_len;
	const uint32_t *set;

	if (p[0] == 1 && p[1] == 0 && p[2] == 1)
		return r->thread_labels;
	set = pc_model_labelset(r->m, r->thread_labels, &set_len);
	for (size_t i = 0; i < set_len; i++)
		labels[n++] = *pc_model_label(r->m, set[i]);
	for (size_t i = 0; i < 3; i++)
		labels[n++] = (struct pc_label){ .key = r->key_p[i], .num = p[i] };
	return pc_model_add_labels(r->m, labels, n);
}

static int check_frame_count(struct sampler_reader *r, uint32_t n, uint64_t at)
{
	uint64_t end = offset(r) + 4 * (uint64_t)n + 1;

	if (n > MAX_FRAMES)
		return pc_fail_at(&r->ctx->err, FORMAT, at, "frame count %u is more than %u",
				  n, MAX_FRAMES);
	if (r->in->size != PC_SIZE_UNKNOWN && end > r->in->size)
		return pc_fail_at(&r->ctx->err, FORMAT, at, "frame count %u overruns the file "
				  "(%llu bytes needed, %llu left)", n,
				  (unsigned long long)(end - offset(r)),
				  (unsigned long long)(r->in->size - offset(r)));
	return 0;
}

/* Checks every id of the line before any frame is made. */
static int read_frames(struct sampler_reader *r, uint32_t n)
{
	const uint8_t *data;

	if (need(r, 4 * (size_t)n, &data, "a stack line"))
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = pc_be32(data + 4 * i);

		if (!find_symbol(r, id))
			return pc_fail_at(&r->ctx->err, FORMAT, offset(r) + 4 * i,
					  "frame %zu of %u: symbol id 0x%08x is not in the "
					  "symbol table", i + 1, n, id);
	}
	pc_grow(&r->frames, &r->frames_cap, n, sizeof(*r->frames));
	for (size_t i = 0; i < n; i++)
		r->frames[i] = symbol_frame(r, find_symbol(r, pc_be32(data + 4 * i)));
	pc_input_consume(r->in, 4 * (size_t)n);
	return 0;
}

static int read_stack_line(struct sampler_reader *r)
{
	struct pc_sample sample = { 0 };
	const uint8_t *data;
	uint32_t p[3], n;
	uint64_t at;

	pc_input_consume(r->in, 1); /* the TAB */
	if (need(r, STACK_HEAD_BYTES, &data, "a stack line"))
		return -1;
	for (size_t i = 0; i < 3; i++)
		p[i] = pc_be32(data + 4 * i);
	n = pc_be32(data + 12);
	at = offset(r) + 12;
	pc_input_consume(r->in, STACK_HEAD_BYTES);
	if (check_frame_count(r, n, at) || read_frames(r, n))
		return -1;
	if (!next_is(r, '\n')) {
		if (pc_input_fill(r->in, 1, &data) < 1)
			return truncated(r, "a stack line");
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "expected LF after the %u "
				  "frames counted at offset 0x%llx, found byte 0x%02x", n,
				  (unsigned long long)at, data[0]);
	}
	pc_input_consume(r->in, 1);
	sample.stack = pc_model_add_stack(r->m, r->frames, n);
	sample.labels = line_labels(r, p);
	if (pc_model_add_sample(r->m, &sample, r->column, 1))
		return pc_fail_at(&r->ctx->err, FORMAT, at, "a stack's count passes %llu",
				  (unsigned long long)PC_COUNT_MAX);
	return 0;
}

static int read_thread(struct sampler_reader *r)
{
	if (start_thread(r))
		return -1;
	while (next_is(r, '\t'))
		if (read_stack_line(r))
			return -1;
	return pc_input_check_io(r->in, &r->ctx->err);
}

static int bad_tag(struct sampler_reader *r, const char *expected)
{
	const uint8_t *data;
	size_t have = pc_input_fill(r->in, QUOTE_MAX, &data);
	char quoted[4 * QUOTE_MAX + 8];

	if (pc_input_check_io(r->in, &r->ctx->err))
		return -1;
	if (!have)
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "missing final \"@end\" "
				  "(the file ends after the last %s)", expected);
	pc_quote(quoted, sizeof(quoted), data, have, QUOTE_MAX);
	return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "expected %s, found \"%s\"",
			  expected, quoted);
}

static int read_body(struct sampler_reader *r)
{
	const uint8_t *data;
	bool table_end;

	if (read_header(r) || read_symbols(r))
		return -1;
	table_end = accept(r, END_TAG);
	if (table_end && !pc_input_fill(r->in, 1, &data))
		return pc_input_check_io(r->in, &r->ctx->err); /* no threads, one @end */
	while (accept(r, THREAD_TAG))
		if (read_thread(r))
			return -1;
	if (!accept(r, END_TAG))
		return bad_tag(r, r->nthreads ? "a stack line, \"@threadV1.0\" or \"@end\"" :
				  table_end ? "\"@threadV1.0\" or \"@end\"" :
				  "a symbol entry, \"@threadV1.0\" or \"@end\"");
	if (pc_input_fill(r->in, 1, &data))
		return pc_fail_at(&r->ctx->err, FORMAT, offset(r), "unexpected bytes after "
				  "the final \"@end\"");
	return pc_input_check_io(r->in, &r->ctx->err);
}

/* --- the model side --- */

/*
 * The samples column of an earlier input (perf's NAME_sample of its
 * default event, else its first one), or -1: Sampler lines join it, and it
 * becomes the default, the one column that holds every input's counts.
 */
static int earlier_samples_column(const struct pc_model *m)
{
	size_t counted = pc_model_default_count_column(m);

	if (counted < pc_model_ncolumns(m) && pc_model_column(m, counted)->role == PC_ROLE_SAMPLES)
		return (int)counted;
	return pc_model_find_column(m, PC_ROLE_SAMPLES, 0);
}

static int start_model(struct sampler_reader *r)
{
	static const char *const p_names[3] = { "sampler_p0", "sampler_p1", "sampler_p2" };
	int column = earlier_samples_column(r->m);

	if (column >= 0)
		pc_model_set_default_column(r->m, column);
	else
		column = pc_model_add_event_column(r->m, "samples", "count", "samples",
						   PC_ROLE_SAMPLES);
	if (column < 0)
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "too many columns: the "
			       "profile already has %d", PC_MAX_COLUMNS);
	r->column = (size_t)column;
	if (pc_model_default_column(r->m) < 0)
		pc_model_set_default_column(r->m, column);
	r->key_thread = pc_model_intern_cstr(r->m, "thread");
	r->key_tid = pc_model_intern_cstr(r->m, "tid");
	r->unit_tid = r->key_tid;
	r->key_unknown = pc_model_intern_cstr(r->m, "sampler_unknown");
	for (size_t i = 0; i < 3; i++)
		r->key_p[i] = pc_model_intern_cstr(r->m, p_names[i]);
	pc_model_add_source(r->m, FORMAT);
	return 0;
}

static void add_fact_u64(struct pc_model *m, const char *key, uint64_t value)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu", (unsigned long long)value);
	pc_model_add_fact(m, key, text);
}

static void finish_model(struct sampler_reader *r)
{
	pc_model_add_comment(r->m, "Apple Sampler (@supersamplerV1.0): %llu threads, "
			     "%zu symbols", (unsigned long long)r->nthreads, r->nsymbols);
	add_fact_u64(r->m, "sampler.threads", r->nthreads);
	add_fact_u64(r->m, "sampler.symbols", r->nsymbols);
	if (r->nonzero_unknown)
		add_fact_u64(r->m, "sampler.nonzero_unknown", r->nonzero_unknown);
	if (r->second_path_differs)
		add_fact_u64(r->m, "sampler.second_path_differs", r->second_path_differs);
}

static int sampler_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct sampler_reader r = { .ctx = ctx, .in = in, .m = m };
	int ret = start_model(&r) || read_body(&r) ? -1 : 0;

	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	else
		finish_model(&r);
	free(r.symbols);
	pc_index_release(&r.symbol_index);
	free(r.frames);
	return ret;
}

/* --- probe and descriptor --- */

static int sampler_probe(const uint8_t *head, size_t len)
{
	size_t magic = strlen(MAGIC), symbols = strlen(SYMBOLS_TAG);

	if (len < magic || memcmp(head, MAGIC, magic))
		return PC_PROBE_NO;
	if (len >= magic + symbols && !memcmp(head + magic, SYMBOLS_TAG, symbols))
		return PC_PROBE_CERTAIN;
	return PC_PROBE_STRONG;
}

static const char *const sampler_aliases[] = { "supersampler", NULL };
static const char *const sampler_extensions[] = { ".trace", NULL };

const struct pc_reader pc_sampler_reader = {
	.name = "sampler",
	.aliases = sampler_aliases,
	.extensions = sampler_extensions,
	.summary = "Apple Sampler trace (@supersamplerV1.0: symbol table, per-thread stacks)",
	.provides = PC_PART_SYMBOLS | PC_PART_STACKS,
	.probe = sampler_probe,
	.read = sampler_read,
};
