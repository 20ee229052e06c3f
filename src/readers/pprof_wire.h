/*
 * pprof_wire.h - the bytes of a pprof profile for its reader
 * (pprof_reader.c): the gzip layer (pprof_load) and protobuf's wire format
 * checked against profile.proto's schema (pb_next and friends), with every
 * error located at its byte offset. pprof_wire.c says why the reader
 * decodes the wire format itself.
 */
#ifndef PC_PPROF_WIRE_H
#define PC_PPROF_WIRE_H

#include "base/input.h"

#define PPROF_FORMAT "pprof"
/* The decompressed profile's default cap (--pprof-max-mib) and the most it may be set to. */
#define PPROF_DEFAULT_MAX_MIB 1024u
#define PPROF_MAX_MIB 4095u

/* The messages of profile.proto. */
enum pb_message {
	PB_PROFILE,
	PB_VALUE_TYPE,
	PB_SAMPLE,
	PB_LABEL,
	PB_MAPPING,
	PB_LOCATION,
	PB_LINE,
	PB_FUNCTION,
	PB_NMESSAGES,
};

enum pb_wire {
	PB_WIRE_VARINT = 0,
	PB_WIRE_FIXED64 = 1,
	PB_WIRE_LEN = 2,
	PB_WIRE_FIXED32 = 5,
};

/* What a field of a message holds, by the schema. */
enum pb_kind {
	PB_UNKNOWN,  /* no such field in profile.proto: skipped */
	PB_SCALAR,   /* one varint (int64, uint64 or bool) */
	PB_REPEATED, /* repeated varints: one per field, or packed in one */
	PB_BYTES,    /* a string */
	PB_MESSAGE,  /* a sub-message */
};

/*
 * A profile's bytes, decompressed: data[0, len), and how to name an
 * offset in them in errors (gunzipped: offsets are into the decompressed
 * data, which messages say).
 */
struct pb_source {
	const uint8_t *data;
	size_t len;
	bool gunzipped;
	struct pc_error *err;
};

/* A known field of a message, its wire type checked against the schema. */
struct pb_field {
	uint32_t number;
	enum pb_wire wire;
	enum pb_kind kind;
	size_t at;         /* offset of its tag */
	uint64_t value;    /* a varint's value */
	size_t data, len;  /* a length-delimited field's bytes: data[data, data + len) */
};

/* A message's bytes being read: [at, end) of the source. */
struct pb_cursor {
	size_t at, end;
	enum pb_message message;
};

/* The field name (e.g. "Location.mapping_id") for messages. */
const char *pb_field_name(enum pb_message message, uint32_t number);
/* The message a PB_MESSAGE field holds. */
enum pb_message pb_field_message(enum pb_message message, uint32_t number);

/*
 * The next known field of the message at c (unknown fields are skipped):
 * 1, 0 at its end, or -1 with a located error in src->err (a bad tag or
 * wire type, a varint or length past the message's end).
 */
int pb_next(const struct pb_source *src, struct pb_cursor *c, struct pb_field *field);
/*
 * The next value of a PB_REPEATED field: its one varint, or each of the
 * packed ones in turn (*pos starts at 0 and is the offset of the value's
 * bytes after). 1, 0 at the end, -1 with a located error.
 */
int pb_next_value(const struct pb_source *src, const struct pb_field *field, size_t *pos,
		  uint64_t *value);
/* The sub-message (or string) of a length-delimited field. */
struct pb_cursor pb_inside(const struct pb_field *field, enum pb_message message);

/* A located error at offset of src: -1. */
int pb_fail(const struct pb_source *src, size_t offset, const char *fmt, ...) PC_PRINTF(3, 4);

/*
 * How many non-empty messages of a Profile the first len bytes at data
 * hold, every field well-formed and, but for the Profile's own (which a
 * later profile.proto may add), known (partial: the data stops there, so
 * its last field may be cut); -1 when they are not a Profile's.
 */
int pb_probe_profile(const uint8_t *data, size_t len, bool partial);

/* A profile's bytes, read whole and gunzipped when they are gzip. */
struct pprof_bytes {
	uint8_t *data;
	size_t len, cap;
	bool gunzipped;
	uint64_t file_size;  /* bytes read from the input */
	unsigned members;    /* gzip members */
};

/*
 * Reads in whole into bytes: gunzipped (one or more members) when it
 * starts with gzip's magic, else as it is; at most max bytes once
 * decompressed. -1 with a located error: an empty input, corrupt or cut
 * gzip data, bytes after a member that are no member, a profile past max
 * (said as soon as a field's length promises it: a decompression bomb
 * stops early). Reading also stops at the first top-level field whose tag
 * is malformed, which the decoder then reports.
 */
int pprof_load(struct pprof_bytes *bytes, struct pc_input *in, size_t max,
	       struct pc_error *err);
void pprof_bytes_release(struct pprof_bytes *bytes);

#endif
