/*
 * etl_file.h - the ETW trace file (.etl): its buffers (0x48-byte
 * WMI_BUFFER_HEADER, the filled bytes, compressed buffers decompressed
 * with MS-XCA plain LZ77) and the events in them, each header kind
 * decoded (SYSTEM_TRACE_HEADER full and compact, PERFINFO_TRACE_HEADER,
 * EVENT_TRACE_HEADER, EVENT_INSTANCE_GUID_HEADER, EVENT_HEADER; 32- and
 * 64-bit forms, which set the payload's pointer size). Events are handed
 * on in file order, with the processor of their buffer; nothing here
 * knows what an event means (etl_reader.c does).
 *
 * Source: ../shared/research/etl.md sections 2-4 (Geoff Chappell's
 * WMI_BUFFER_HEADER and trace-header pages, [MS-XCA] 2.4, PerfView's
 * TraceEvent, snail-server's etl_file.cpp as summarized there).
 * Not read: LZNT1 and Xpress-Huffman compressed buffers (refused with a
 * message), WPP message headers (skipped by their size).
 */
#ifndef PC_ETL_FILE_H
#define PC_ETL_FILE_H

#include "base/ctx.h"
#include "base/input.h"

#define ETL_FORMAT "etl"
#define ETL_BUFFER_HEADER_BYTES 0x48

enum etl_header_kind {
	ETL_SYSTEM,   /* SYSTEM_TRACE_HEADER (full or compact): kernel events with TID/PID */
	ETL_PERFINFO, /* PERFINFO_TRACE_HEADER: kernel events without TID/PID */
	ETL_CLASSIC,  /* EVENT_TRACE_HEADER / EVENT_INSTANCE_GUID_HEADER: GUID + type */
	ETL_MODERN,   /* EVENT_HEADER: provider GUID + event id */
};

struct etl_event {
	enum etl_header_kind kind;
	unsigned pointer_size;      /* 4 or 8: of the header form, for the payload */
	uint16_t hook;              /* SYSTEM, PERFINFO: group << 8 | type */
	uint16_t version;
	uint8_t opcode;             /* CLASSIC: Class.Type; MODERN: opcode */
	uint16_t id;                /* MODERN: event id */
	uint8_t guid[16];           /* CLASSIC, MODERN: provider / class GUID */
	bool has_ids;               /* tid and pid are known (not PERFINFO) */
	uint32_t tid, pid;
	uint64_t time;              /* QPC ticks */
	unsigned cpu;               /* of its buffer */
	const uint8_t *payload;
	size_t payload_len;
	uint64_t offset;            /* of its buffer in the file */
	size_t at;                  /* of the event in its buffer (decompressed) */
};

typedef int (*etl_event_fn)(void *data, const struct etl_event *ev);

struct etl_file_stats {
	uint64_t buffers, compressed_buffers, events, skipped_events;
	uint64_t lost_buffers;      /* buffers flagged as having lost events */
};

/*
 * Reads every buffer of in and hands each event to fn, in file order.
 * 0, or -1 with ctx->err set (a located error: the buffer's offset and
 * the event's place in it) or fn's -1.
 */
int etl_read_events(struct pc_ctx *ctx, struct pc_input *in, etl_event_fn fn, void *data,
		    struct etl_file_stats *stats);

/*
 * Where a trace in a regular file can be cut in two ranges read at once:
 * at the first buffer at or after the middle of the file, found by hopping
 * from buffer to buffer by their sizes (at most ETL_SPLIT_MAX_HOPS), with
 * the state that the trace's first buffer sets (its compression format and
 * LogFileMode), which the second range continues.
 */
#define ETL_SPLIT_MAX_HOPS (1u << 20)

struct etl_split {
	uint64_t at;                /* the second range's first buffer */
	uint32_t compression;       /* the header buffer's format */
	bool compressed_mode;       /* LogFileMode has EVENT_TRACE_COMPRESSED_MODE */
};

/*
 * For in, a whole regular file (pc_input_is_whole_file). False when its
 * first buffer is not plain or does not start with an event, or when a
 * buffer size on the way is out of range (a sequential read then reports
 * it); the cut is then not made.
 */
bool etl_find_split(const struct pc_input *in, struct etl_split *split);
/*
 * etl_read_events for a range that starts at split->at (in opened with
 * pc_input_open_range): no "empty input" error, and the state of the
 * trace's first buffer taken from split.
 */
int etl_read_range(struct pc_ctx *ctx, struct pc_input *in, const struct etl_split *split,
		   etl_event_fn fn, void *data, struct etl_file_stats *stats);
/* Adds the counts of from to into. */
void etl_add_stats(struct etl_file_stats *into, const struct etl_file_stats *from);

/* Whether head looks like the first buffer of an ETL file (probe). */
bool etl_looks_like(const uint8_t *head, size_t len);

/* Little-endian loads of a payload, 0 past its end (inline: events are many). */
static inline bool etl_has(const struct etl_event *ev, size_t at, size_t n)
{
	return at <= ev->payload_len && n <= ev->payload_len - at;
}

static inline uint16_t etl_u16(const struct etl_event *ev, size_t at)
{
	return etl_has(ev, at, 2) ? pc_le16(ev->payload + at) : 0;
}

static inline uint32_t etl_u32(const struct etl_event *ev, size_t at)
{
	return etl_has(ev, at, 4) ? pc_le32(ev->payload + at) : 0;
}

static inline uint64_t etl_u64(const struct etl_event *ev, size_t at)
{
	return etl_has(ev, at, 8) ? pc_le64(ev->payload + at) : 0;
}

static inline uint64_t etl_pointer(const struct etl_event *ev, size_t at)
{
	return ev->pointer_size == 8 ? etl_u64(ev, at) : etl_u32(ev, at);
}

#endif
