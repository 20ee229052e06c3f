/*
 * etl_file.c - ETW trace buffers and event headers (etl_file.h).
 */
#include "readers/etl_file.h"

#include "base/xpress.h"

#include <stdarg.h>
#include <unistd.h>

#define MAX_BUFFER_BYTES ((uint32_t)64 << 20)
#define MAX_PLAIN_BYTES ((uint32_t)2 << 20) /* a compressed buffer's events: ETW buffers are <= 1 MiB */
#define FLAG_COMPRESSED 0x40
#define FLAG_EVENTS_LOST 0x02
#define COMPRESSED_MODE 0x04000000u /* LogFileMode: EVENT_TRACE_COMPRESSED_MODE */
#define FORMAT_XPRESS 3
#define HEADER_BUFFER_TYPE 4

struct etl_reader_state {
	struct pc_ctx *ctx;
	struct pc_input *in;
	etl_event_fn fn;
	void *data;
	struct etl_file_stats *stats;
	uint64_t offset;            /* of the buffer being read */
	unsigned cpu;
	uint32_t compression;       /* the header buffer's format; 0 before it is known */
	bool compressed_mode;
	bool first_event_seen;
	bool past_first_buffer;     /* the trace's first buffer has been read */
	uint8_t *plain;             /* a decompressed buffer's events */
	size_t plain_cap;
};

/* ---- errors ---- */

static int fail(struct etl_reader_state *s, const char *fmt, ...) PC_PRINTF(2, 3);

static int fail(struct etl_reader_state *s, const char *fmt, ...)
{
	char message[300];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return pc_fail_at(&s->ctx->err, ETL_FORMAT, s->offset, "buffer: %s", message);
}

/* ---- event headers ---- */

struct header_form {
	uint8_t type;
	enum etl_header_kind kind;
	unsigned pointer_size;
	size_t fixed;      /* bytes before the payload */
	bool size_at_4;    /* the u16 size is at 4 (kernel headers), else at 0 */
};

static const struct header_form forms[] = {
	{ 0x01, ETL_SYSTEM, 4, 0x20, true },   { 0x02, ETL_SYSTEM, 8, 0x20, true },
	{ 0x03, ETL_SYSTEM, 4, 0x18, true },   { 0x04, ETL_SYSTEM, 8, 0x18, true },
	{ 0x10, ETL_PERFINFO, 4, 0x10, true }, { 0x11, ETL_PERFINFO, 8, 0x10, true },
	{ 0x0A, ETL_CLASSIC, 4, 0x30, false }, { 0x14, ETL_CLASSIC, 8, 0x30, false },
	{ 0x0B, ETL_CLASSIC, 4, 0x48, false }, { 0x15, ETL_CLASSIC, 8, 0x48, false },
	{ 0x12, ETL_MODERN, 4, 0x50, false },  { 0x13, ETL_MODERN, 8, 0x50, false },
};

static const struct header_form *form_of(uint8_t type)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(forms); i++)
		if (forms[i].type == type)
			return &forms[i];
	return NULL;
}

static uint16_t le16(const uint8_t *p)
{
	return pc_le16(p);
}

/* PERFINFO: PEBS and PMC counters sit between the header and the payload. */
static size_t perfinfo_extra(uint16_t version)
{
	return ((version & 0x8000) ? 8 : 0) + 8 * ((version >> 8) & 7);
}

/* MODERN: extended data items (8-aligned) between the header and the payload. */
static bool skip_extended(const uint8_t *p, size_t size, size_t *at)
{
	for (;;) {
		uint16_t item, linkage;

		if (*at > size || size - *at < 8)
			return false;
		item = le16(p + *at);
		linkage = le16(p + *at + 4);
		if (item < 8 || item > size - *at)
			return false;
		*at += ((size_t)item + 7) & ~(size_t)7;
		if (*at > size)
			*at = size;
		if (!(linkage & 1))
			return true;
	}
}

static void decode_ids(struct etl_event *ev, const uint8_t *p)
{
	ev->has_ids = true;
	ev->tid = pc_le32(p + 8);
	ev->pid = pc_le32(p + 12);
	ev->time = pc_le64(p + 16);
}

/* The size of the event at p, header included, as its header form gives it. */
static size_t event_size(const struct header_form *form, const uint8_t *p)
{
	return form->size_at_4 ? le16(p + 4) : le16(p);
}

/* Decodes the header of the event at p (size bytes); false when its parts do not fit. */
static bool decode_event(const struct header_form *form, const uint8_t *p, size_t size,
			 struct etl_event *ev)
{
	size_t payload_at = form->fixed;

	if (size < form->fixed) /* (the first buffer's look at its first event holds less) */
		return false;
	ev->kind = form->kind;
	ev->pointer_size = form->pointer_size;
	switch (form->kind) {
	case ETL_SYSTEM:
		ev->version = le16(p);
		ev->hook = (uint16_t)(p[7] << 8 | p[6]);
		decode_ids(ev, p);
		break;
	case ETL_PERFINFO:
		ev->version = le16(p);
		ev->hook = (uint16_t)(p[7] << 8 | p[6]);
		ev->time = pc_le64(p + 8);
		payload_at += perfinfo_extra(ev->version);
		break;
	case ETL_CLASSIC:
		ev->opcode = p[4];
		ev->version = le16(p + 6);
		decode_ids(ev, p);
		memcpy(ev->guid, p + 0x18, 16);
		break;
	case ETL_MODERN:
		decode_ids(ev, p);
		memcpy(ev->guid, p + 0x18, 16);
		ev->id = le16(p + 0x28);
		ev->version = p[0x2A];
		ev->opcode = p[0x2D];
		if ((le16(p + 4) & 1) && !skip_extended(p, size, &payload_at))
			return false;
		break;
	}
	if (payload_at > size)
		return false;
	ev->payload = p + payload_at;
	ev->payload_len = size - payload_at;
	return true;
}

/* The first event of the file: the EventTrace header (hook 0), with LogFileMode. */
static void note_trace_header(struct etl_reader_state *s, const struct etl_event *ev)
{
	s->first_event_seen = true;
	if (ev->kind == ETL_SYSTEM && ev->hook == 0)
		s->compressed_mode = (etl_u32(ev, 32) & COMPRESSED_MODE) != 0;
}

static int walk_events(struct etl_reader_state *s, const uint8_t *events, size_t len)
{
	for (size_t at = 0; len - at >= 4;) {
		const uint8_t *p = events + at;
		const struct header_form *form;
		struct etl_event ev = { .cpu = s->cpu, .offset = s->offset,
					.at = at + ETL_BUFFER_HEADER_BYTES };
		size_t size;

		if (pc_le32(p) == 0xFFFFFFFFu)
			break; /* the fill after the last event */
		form = form_of(p[2]);
		if (!form)
			return fail(s, "event at 0x%zx: unknown header type 0x%02x (flags 0x%02x)",
				    ev.at, p[2], p[3]);
		if (len - at < form->fixed)
			return fail(s, "event at 0x%zx: its %zu-byte header runs past the buffer's "
				    "%zu bytes of events", ev.at, form->fixed, len);
		size = event_size(form, p);
		if (size < form->fixed || size > len - at)
			return fail(s, "event at 0x%zx: size %zu, expected %zu to %zu (its header, up "
				    "to the buffer's end)", ev.at, size, form->fixed, len - at);
		if (!decode_event(form, p, size, &ev))
			return fail(s, "event at 0x%zx: its header parts run past its %zu bytes",
				    ev.at, size);
		if (!s->first_event_seen)
			note_trace_header(s, &ev);
		s->stats->events++;
		if (s->fn(s->data, &ev))
			return -1;
		at += (size + 7) & ~(size_t)7;
		if (at > len)
			break;
	}
	return 0;
}

/* ---- buffers ---- */

static int decompress(struct etl_reader_state *s, const uint8_t *buffer, uint32_t size,
		      uint32_t filled, const uint8_t **events)
{
	char err[200];
	size_t out_len = filled - ETL_BUFFER_HEADER_BYTES;

	if (!s->compressed_mode)
		return fail(s, "flagged compressed (0x40 at 0x34), but the trace header's "
			    "LogFileMode has no EVENT_TRACE_COMPRESSED_MODE");
	if (s->compression != FORMAT_XPRESS)
		return fail(s, "compressed with format %u (2 LZNT1, 3 Xpress, 4 Xpress Huffman): "
			    "only Xpress (plain LZ77) is read", s->compression);
	if (out_len > MAX_PLAIN_BYTES)
		return fail(s, "filled bytes 0x%x: a compressed buffer decompresses to at most "
			    "0x%x bytes (ETW buffers are at most 1 MiB)", filled,
			    MAX_PLAIN_BYTES + ETL_BUFFER_HEADER_BYTES);
	pc_grow(&s->plain, &s->plain_cap, out_len ? out_len : 1, 1);
	if (pc_xpress_decompress(buffer + ETL_BUFFER_HEADER_BYTES, size - ETL_BUFFER_HEADER_BYTES,
				 s->plain, out_len, err, sizeof(err)))
		return fail(s, "its compressed events do not decompress to %zu bytes: %s",
			    out_len, err);
	*events = s->plain;
	s->stats->compressed_buffers++;
	return 0;
}

static int read_buffer(struct etl_reader_state *s, const uint8_t *b, uint32_t size)
{
	uint32_t filled = pc_le32(b + 0x30);
	uint16_t flags = le16(b + 0x34);
	const uint8_t *events = b + ETL_BUFFER_HEADER_BYTES;

	s->cpu = b[0x28];
	if (le16(b + 0x36) == HEADER_BUFFER_TYPE && !s->past_first_buffer)
		s->compression = pc_le32(b + 0x2C) & 0xFFFF;
	s->past_first_buffer = true;
	s->stats->buffers++;
	if (flags & FLAG_EVENTS_LOST)
		s->stats->lost_buffers++;
	if (filled <= ETL_BUFFER_HEADER_BYTES)
		return 0; /* no events */
	if (filled > MAX_BUFFER_BYTES || (!(flags & FLAG_COMPRESSED) && filled > size))
		return fail(s, "filled bytes 0x%x (at 0x30): more than the buffer's 0x%x", filled,
			    size);
	if ((flags & FLAG_COMPRESSED) && decompress(s, b, size, filled, &events))
		return -1;
	return walk_events(s, events, filled - ETL_BUFFER_HEADER_BYTES);
}

bool etl_looks_like(const uint8_t *head, size_t len)
{
	uint32_t size, filled;

	if (len < ETL_BUFFER_HEADER_BYTES + 8)
		return false;
	size = pc_le32(head);
	filled = pc_le32(head + 0x30);
	/* the header buffer, its first event the EventTrace header: a SYSTEM header, hook 0 */
	return size >= ETL_BUFFER_HEADER_BYTES && size <= MAX_BUFFER_BYTES &&
	       filled > ETL_BUFFER_HEADER_BYTES && filled <= size &&
	       pc_le16(head + 0x36) == HEADER_BUFFER_TYPE &&
	       (head[0x48 + 2] == 0x01 || head[0x48 + 2] == 0x02) && head[0x48 + 6] == 0 &&
	       head[0x48 + 7] == 0;
}

/* Reads the buffers of in from where it stands to its end, in state s. */
static int read_buffers(struct etl_reader_state *s)
{
	int ret = 0;

	for (;;) {
		const uint8_t *b;
		size_t got;
		uint32_t size;

		s->offset = pc_input_offset(s->in);
		got = pc_input_fill(s->in, ETL_BUFFER_HEADER_BYTES, &b);
		if (!got && s->in->io_errno) {
			ret = fail(s, "a read error before the buffer: %s", strerror(s->in->io_errno));
			break;
		}
		if (!got)
			break;
		if (got < ETL_BUFFER_HEADER_BYTES) {
			ret = fail(s, "the trace ends inside a buffer header (%zu of %d bytes)", got,
				   ETL_BUFFER_HEADER_BYTES);
			break;
		}
		size = pc_le32(b);
		if (size < ETL_BUFFER_HEADER_BYTES || size > MAX_BUFFER_BYTES) {
			ret = fail(s, "BufferSize 0x%x (at 0): expected 0x48 to 0x%x", size,
				   MAX_BUFFER_BYTES);
			break;
		}
		got = pc_input_fill(s->in, size, &b);
		if (got < size) {
			ret = fail(s, "the trace ends inside a buffer: %zu of its 0x%x bytes", got,
				   size);
			break;
		}
		ret = read_buffer(s, b, size);
		if (ret)
			break;
		pc_input_consume(s->in, size);
	}
	free(s->plain);
	return ret;
}

int etl_read_events(struct pc_ctx *ctx, struct pc_input *in, etl_event_fn fn, void *data,
		    struct etl_file_stats *stats)
{
	struct etl_reader_state s = { .ctx = ctx, .in = in, .fn = fn, .data = data, .stats = stats };
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = read_buffers(&s);
	if (!ret && !stats->buffers)
		ret = pc_fail_at(&ctx->err, ETL_FORMAT, 0, "empty input: no buffer");
	return ret;
}

/* ---- two ranges at once ---- */

/*
 * The state that the trace's first buffer sets, as read_buffer and
 * note_trace_header set it: false unless that buffer is plain and starts
 * with an event whose header decodes (the EventTrace header, whose
 * LogFileMode says whether buffers may be compressed).
 */
static bool first_buffer_state(const struct pc_input *in, struct etl_split *split,
			       uint32_t *size)
{
	uint8_t head[ETL_BUFFER_HEADER_BYTES + 0x20 + 36]; /* up to LogFileMode */
	struct etl_reader_state s = { 0 };
	const struct header_form *form;
	struct etl_event ev = { 0 };
	size_t size_of_event;
	uint32_t filled;

	if (pread(in->fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return false;
	*size = pc_le32(head);
	filled = pc_le32(head + 0x30);
	form = form_of(head[ETL_BUFFER_HEADER_BYTES + 2]);
	if (*size < sizeof(head) || *size > MAX_BUFFER_BYTES || filled < sizeof(head) ||
	    filled > *size || (le16(head + 0x34) & FLAG_COMPRESSED) || !form)
		return false;
	size_of_event = event_size(form, head + ETL_BUFFER_HEADER_BYTES);
	if (size_of_event > sizeof(head) - ETL_BUFFER_HEADER_BYTES)
		size_of_event = sizeof(head) - ETL_BUFFER_HEADER_BYTES;
	if (!decode_event(form, head + ETL_BUFFER_HEADER_BYTES, size_of_event, &ev))
		return false;
	note_trace_header(&s, &ev);
	split->compression = le16(head + 0x36) == HEADER_BUFFER_TYPE ? pc_le32(head + 0x2C) & 0xFFFF
								     : 0;
	split->compressed_mode = s.compressed_mode;
	return true;
}

bool etl_find_split(const struct pc_input *in, struct etl_split *split)
{
	uint64_t at, middle = in->size / 2;
	uint32_t size;

	if (!first_buffer_state(in, split, &size))
		return false;
	at = size;
	for (unsigned hops = 0; at < middle; hops++) {
		uint8_t head[4];

		if (hops == ETL_SPLIT_MAX_HOPS ||
		    pread(in->fd, head, sizeof(head), (off_t)at) != (ssize_t)sizeof(head))
			return false;
		size = pc_le32(head);
		if (size < ETL_BUFFER_HEADER_BYTES || size > MAX_BUFFER_BYTES)
			return false;
		at += size;
	}
	split->at = at;
	return at < in->size;
}

int etl_read_range(struct pc_ctx *ctx, struct pc_input *in, const struct etl_split *split,
		   etl_event_fn fn, void *data, struct etl_file_stats *stats)
{
	struct etl_reader_state s = {
		.ctx = ctx, .in = in, .fn = fn, .data = data, .stats = stats,
		.compression = split->compression, .compressed_mode = split->compressed_mode,
		.first_event_seen = true, .past_first_buffer = true,
	};

	memset(stats, 0, sizeof(*stats));
	return read_buffers(&s);
}

void etl_add_stats(struct etl_file_stats *into, const struct etl_file_stats *from)
{
	into->buffers += from->buffers;
	into->compressed_buffers += from->compressed_buffers;
	into->events += from->events;
	into->skipped_events += from->skipped_events;
	into->lost_buffers += from->lost_buffers;
}
