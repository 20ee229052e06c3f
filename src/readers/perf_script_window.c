/*
 * perf_script_window.c - the perf script reader's fast path. Frame lines
 * are resolved through caches keyed by a 96-bit hash of their text and
 * context (the sample's address space and the mapping generation): a
 * small direct-mapped hot cache in front of a table from a line to its
 * model frame id, so a line seen before costs no parsing.
 *
 * A callchain that follows its header is looked at whole in the input
 * window: right after the header, the lines up to the empty line that ends
 * it are found at once. When every one is a plain frame line (indented
 * address, no srcline or brstack line, no CRLF, the whole within 1 MiB),
 * the callchain is identified by the hashes of its lines: one seen before
 * (same lines, space and mappings) gives its stack id in one probe; a new
 * one is resolved line by line without the per-line state machine and
 * then cached. Anything else is left to the line-by-line path
 * (perf_script_lines.c), which reads the same lines the same way.
 */
#include "readers/perf_script_reader.h"

#define BLOCK_MAX_BYTES ((size_t)1 << 20) /* callchains cached whole */
#define HOT_BITS 13                       /* 8192 hot frame lines, 128 KiB */

/* ---- frame lines through the caches ---- */

static struct ps_hot *hot_slot(struct ps_reader *r, struct ps_hash h)
{
	if (!r->hot)
		r->hot = pc_xcalloc((size_t)1 << HOT_BITS, sizeof(*r->hot));
	return &r->hot[(h.h1 >> 40) & (((size_t)1 << HOT_BITS) - 1)];
}

/* The cached frame id of a frame line that hashes to h, or 0. */
static uint32_t cached_frame(struct ps_reader *r, struct ps_hash h)
{
	struct ps_hot *hot = hot_slot(r, h);
	uint32_t id;

	if (hot->value && hot->h1 == h.h1 && hot->h2 == (uint32_t)h.h2)
		return hot->value;
	id = ps_cache_get(&r->frames, h);
	if (id)
		*hot = (struct ps_hot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = id };
	return id;
}

/* Parses line[at, end) (which hashes to h) into a new frame and caches it. */
static int new_frame(struct ps_reader *r, size_t at, size_t end, struct ps_hash h, uint32_t *id)
{
	struct ps_frame_text f;
	struct ps_syntax syn;

	if (ps_parse_frame(r->line, at, end, &f, &syn))
		return ps_fail_syntax(r, &syn);
	if (f.dso)
		r->saw_dso = true;
	*id = ps_frame_for(r, &f);
	ps_cache_offer(&r->frames, h, *id);
	*hot_slot(r, h) = (struct ps_hot){ .h1 = h.h1, .h2 = (uint32_t)h.h2, .value = *id };
	return 0;
}

/* The frame id of line[at, end) whose text hashes to h, through the caches. */
static int resolve_hashed(struct ps_reader *r, size_t at, size_t end, struct ps_hash h,
			  uint32_t *id)
{
	*id = cached_frame(r, h);
	return *id ? 0 : new_frame(r, at, end, h, id);
}

int ps_resolve_frame(struct ps_reader *r, size_t at, size_t end, uint32_t *id)
{
	struct ps_hash h = ps_hash_text(r->line + at, end - at,
					ps_cache_seed(r, PS_CACHE_FRAME_LINE));

	return resolve_hashed(r, at, end, h, id);
}

/* ---- callchains read whole from the window ---- */

/*
 * Finds the empty line that ends the callchain at the window's start:
 * its offset in *blank, false when the callchain does not end cleanly
 * within 1 MiB (a line not indented, CRLF, the end of the input).
 */
static bool find_block(struct ps_reader *r, const uint8_t **data, size_t *nlines,
		       size_t *blank)
{
	size_t have = pc_input_fill(r->in, 1, data), at = 0, n = 0;
	uint64_t seed = ps_cache_seed(r, PS_CACHE_FRAME_LINE);

	for (;;) {
		const uint8_t *nl = at < have ? memchr(*data + at, '\n', have - at) : NULL;
		const char *s = (const char *)*data;
		struct ps_block_line *line;
		size_t end;

		if (!nl) {
			size_t more;

			if (have >= BLOCK_MAX_BYTES)
				return false;
			more = pc_input_fill(r->in, have + PS_READ_AHEAD, data);
			if (more <= have)
				return false;
			have = more;
			continue;
		}
		end = (size_t)(nl - *data);
		if (end == at) {
			*nlines = n;
			*blank = at;
			return n > 0;
		}
		if (!ps_is_blank(s[at]) || s[end - 1] == '\r')
			return false;
		if (n == r->block_cap)
			pc_grow(&r->block, &r->block_cap, n + 1, sizeof(*r->block));
		line = &r->block[n++];
		line->start = (uint32_t)at;
		line->first = (uint32_t)ps_skip_blanks(s, at, end);
		line->end = (uint32_t)ps_trim_end(s, line->first, end);
		line->next = (uint32_t)(end + 1);
		line->h = ps_hash_text(s + line->first, line->end - line->first, seed);
		at = end + 1;
	}
}

/* The callchain's identity, from its lines'. */
static struct ps_hash block_hash(const struct ps_reader *r, size_t n)
{
	struct ps_hash h = { 0x1b873593ULL ^ n, 0xcc9e2d51ULL + n };

	for (size_t i = 0; i < n; i++) {
		h.h1 = ps_rotl64(h.h1 ^ r->block[i].h.h1, 27) * 0x9e3779b97f4a7c15ULL;
		h.h2 = ps_rotl64(h.h2 + r->block[i].h.h2, 31) * 0xff51afd7ed558ccdULL;
	}
	h.h1 = pc_hash_u64(h.h1 ^ ps_rotl64(h.h2, 17));
	h.h2 = pc_hash_u64(h.h2 + 0x2545f4914f6cdd1dULL);
	return h;
}

/* A plain frame line: an address first, and no srcline ("  file:12" after a frame). */
static bool plain_line(const char *s, const struct ps_block_line *line, bool after_frame)
{
	size_t addr = line->first < line->end ? ps_address_token_end(s, line->first, line->end) : 0;
	bool two_spaces = line->first == line->start + 2 && s[line->start] == ' ' &&
			  s[line->start + 1] == ' ';

	return addr && !(two_spaces && after_frame && memchr(s + line->first, ':', addr - line->first));
}

/*
 * Resolves the block's lines into the sample's frames: 0, -1 on an error
 * (the line loop then goes on after the bad line), or 1 when a new line is
 * not a plain frame line and the block must be read line by line.
 */
static int resolve_block(struct ps_reader *r, const uint8_t *data, size_t n)
{
	uint32_t header_line = r->lineno;
	const char *s = (const char *)data;

	/* the lines' cache slots are far apart: ask for all of them at once */
	for (size_t i = 0; i < n; i++)
		ps_cache_prefetch(&r->frames, r->block[i].h);
	for (size_t i = 0; i < n; i++) {
		const struct ps_block_line *line = &r->block[i];
		uint32_t id = cached_frame(r, line->h);

		if (!id) {
			if (!plain_line(s, line, i > 0))
				return 1;
			r->line = s + line->start;
			r->len = line->next - 1 - line->start;
			r->first = line->first - line->start;
			r->lineno = header_line + (uint32_t)i + 1;
			if (new_frame(r, r->first, line->end - line->start, line->h, &id)) {
				pc_input_consume(r->in, line->start);
				r->consume = r->len + 1;
				return -1;
			}
		}
		ps_push_frame(r, id);
	}
	return 0;
}

/* Reads the callchain after a header whole when it can (see the top). */
int ps_try_block(struct ps_reader *r)
{
	const uint8_t *data;
	size_t n = 0, blank;
	struct ps_hash h;
	uint32_t stack, header_line = r->lineno;
	int rc;

	pc_input_consume(r->in, r->consume);
	r->consume = 0;
	if (!find_block(r, &data, &n, &blank))
		return pc_input_check_io(r->in, &r->ctx->err);
	h = block_hash(r, n);
	stack = ps_cache_get(&r->blocks, h);
	if (stack) {
		r->cur.stack = stack;
	} else if ((rc = resolve_block(r, data, n))) {
		if (rc < 0)
			return -1;
		r->lineno = header_line; /* not plain: read it line by line */
		r->cur.nframes = 0;
		r->cur.has_inline = false;
		return 0;
	}
	r->lineno = header_line + (uint32_t)n + 1;
	pc_input_consume(r->in, blank + 1);
	if (ps_emit_sample(r))
		return -1;
	if (!stack)
		ps_cache_offer(&r->blocks, h, r->cur.stack);
	return 0;
}
