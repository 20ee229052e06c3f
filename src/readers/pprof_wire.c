/*
 * pprof_wire.c - the bytes of a pprof profile: gzip (zlib, one or more
 * members) and protobuf's wire format checked against profile.proto's
 * schema, for pprof_reader.c.
 *
 * Source: the protobuf encoding (protobuf.dev, "Encoding": varints, wire
 * types 0, 1, 2 and 5, packed repeated fields) and pprof's own decoder
 * (github.com/google/pprof/profile, proto.go and encode.go of the Debian
 * snapshot 0.0~git20211008.947d60d), whose rules are followed: unknown
 * fields are skipped, a known field of the wrong wire type is an error,
 * repeated varints come one per field or packed (Go's runtime/pprof
 * writes both), a varint has at most 10 bytes. Unlike pprof, field number
 * 0 and the group wire types 3 and 4 are errors, not skipped.
 *
 * Why not protobuf-c's unpack (which the writer's messages come from):
 * it says only that decoding failed (and prints to stderr), it holds a
 * message per sample, location and line, and it copies every string. Here
 * every error names its byte offset and field, strings stay in the
 * decompressed bytes until a sample uses them, and memory grows with the
 * profile's messages, not with a multiple of them.
 *
 * The gzip layer decompresses the whole profile into memory (pprof's
 * fields refer forward: samples come before the locations and strings
 * they name), at most the cap that --pprof-max-mib sets (1 GiB by
 * default). A field whose length would pass the cap stops reading at once,
 * before its bytes are decompressed; so does a top-level tag that cannot
 * be one (the decoder then reports it at its offset), so that neither a
 * bomb nor garbage is decompressed in full.
 */
#include "readers/pprof_wire.h"

#include <stdarg.h>
#include <zlib.h>

#define VARINT_MAX 10
#define MAX_FIELD ((1u << 29) - 1)
#define CHUNK ((size_t)256 << 10)
#define FIRST_CAP ((size_t)64 << 10)

/* ---- schema ---- */

struct pb_rule {
	const char *name; /* "Message.field" */
	uint8_t kind;    /* enum pb_kind */
	uint8_t message; /* enum pb_message, for PB_MESSAGE */
};

#define MAX_RULE 15

static const struct pb_rule rules[PB_NMESSAGES][MAX_RULE + 1] = {
	[PB_PROFILE] = {
		[1] = { "Profile.sample_type", PB_MESSAGE, PB_VALUE_TYPE },
		[2] = { "Profile.sample", PB_MESSAGE, PB_SAMPLE },
		[3] = { "Profile.mapping", PB_MESSAGE, PB_MAPPING },
		[4] = { "Profile.location", PB_MESSAGE, PB_LOCATION },
		[5] = { "Profile.function", PB_MESSAGE, PB_FUNCTION },
		[6] = { "Profile.string_table", PB_BYTES, 0 },
		[7] = { "Profile.drop_frames", PB_SCALAR, 0 },
		[8] = { "Profile.keep_frames", PB_SCALAR, 0 },
		[9] = { "Profile.time_nanos", PB_SCALAR, 0 },
		[10] = { "Profile.duration_nanos", PB_SCALAR, 0 },
		[11] = { "Profile.period_type", PB_MESSAGE, PB_VALUE_TYPE },
		[12] = { "Profile.period", PB_SCALAR, 0 },
		[13] = { "Profile.comment", PB_REPEATED, 0 },
		[14] = { "Profile.default_sample_type", PB_SCALAR, 0 },
		[15] = { "Profile.doc_url", PB_SCALAR, 0 },
	},
	[PB_VALUE_TYPE] = {
		[1] = { "ValueType.type", PB_SCALAR, 0 },
		[2] = { "ValueType.unit", PB_SCALAR, 0 },
	},
	[PB_SAMPLE] = {
		[1] = { "Sample.location_id", PB_REPEATED, 0 },
		[2] = { "Sample.value", PB_REPEATED, 0 },
		[3] = { "Sample.label", PB_MESSAGE, PB_LABEL },
	},
	[PB_LABEL] = {
		[1] = { "Label.key", PB_SCALAR, 0 },
		[2] = { "Label.str", PB_SCALAR, 0 },
		[3] = { "Label.num", PB_SCALAR, 0 },
		[4] = { "Label.num_unit", PB_SCALAR, 0 },
	},
	[PB_MAPPING] = {
		[1] = { "Mapping.id", PB_SCALAR, 0 },
		[2] = { "Mapping.memory_start", PB_SCALAR, 0 },
		[3] = { "Mapping.memory_limit", PB_SCALAR, 0 },
		[4] = { "Mapping.file_offset", PB_SCALAR, 0 },
		[5] = { "Mapping.filename", PB_SCALAR, 0 },
		[6] = { "Mapping.build_id", PB_SCALAR, 0 },
		[7] = { "Mapping.has_functions", PB_SCALAR, 0 },
		[8] = { "Mapping.has_filenames", PB_SCALAR, 0 },
		[9] = { "Mapping.has_line_numbers", PB_SCALAR, 0 },
		[10] = { "Mapping.has_inline_frames", PB_SCALAR, 0 },
	},
	[PB_LOCATION] = {
		[1] = { "Location.id", PB_SCALAR, 0 },
		[2] = { "Location.mapping_id", PB_SCALAR, 0 },
		[3] = { "Location.address", PB_SCALAR, 0 },
		[4] = { "Location.line", PB_MESSAGE, PB_LINE },
		[5] = { "Location.is_folded", PB_SCALAR, 0 },
	},
	[PB_LINE] = {
		[1] = { "Line.function_id", PB_SCALAR, 0 },
		[2] = { "Line.line", PB_SCALAR, 0 },
		[3] = { "Line.column", PB_SCALAR, 0 },
	},
	[PB_FUNCTION] = {
		[1] = { "Function.id", PB_SCALAR, 0 },
		[2] = { "Function.name", PB_SCALAR, 0 },
		[3] = { "Function.system_name", PB_SCALAR, 0 },
		[4] = { "Function.filename", PB_SCALAR, 0 },
		[5] = { "Function.start_line", PB_SCALAR, 0 },
	},
};

static const char *const message_names[PB_NMESSAGES] = {
	[PB_PROFILE] = "Profile",
	[PB_VALUE_TYPE] = "ValueType",
	[PB_SAMPLE] = "Sample",
	[PB_LABEL] = "Label",
	[PB_MAPPING] = "Mapping",
	[PB_LOCATION] = "Location",
	[PB_LINE] = "Line",
	[PB_FUNCTION] = "Function",
};

static const struct pb_rule *rule_of(enum pb_message message, uint64_t number)
{
	static const struct pb_rule unknown = { NULL, PB_UNKNOWN, 0 };

	return number <= MAX_RULE && rules[message][number].name ? &rules[message][number] :
	       &unknown;
}

const char *pb_field_name(enum pb_message message, uint32_t number)
{
	const struct pb_rule *rule = rule_of(message, number);

	return rule->name ? rule->name : message_names[message];
}

enum pb_message pb_field_message(enum pb_message message, uint32_t number)
{
	return (enum pb_message)rule_of(message, number)->message;
}

/* ---- varints and fields ---- */

enum varint_status { VARINT_OK, VARINT_CUT, VARINT_LONG };

/* The varint at data[*at, end): advances *at past it. */
static enum varint_status read_varint(const uint8_t *data, size_t *at, size_t end,
				      uint64_t *value)
{
	uint64_t v = 0;

	for (size_t i = 0; i < VARINT_MAX; i++) {
		if (*at + i >= end)
			return VARINT_CUT;
		v |= (uint64_t)(data[*at + i] & 0x7f) << (7 * i);
		if (!(data[*at + i] & 0x80)) {
			*at += i + 1;
			*value = v;
			return VARINT_OK;
		}
	}
	return VARINT_LONG;
}

int pb_fail(const struct pb_source *src, size_t offset, const char *fmt, ...)
{
	char text[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return pc_fail_at(src->err, PPROF_FORMAT, offset, "%s%s",
			  src->gunzipped ? "in the decompressed data, " : "", text);
}

static const char *wire_name(unsigned wire)
{
	switch (wire) {
	case PB_WIRE_VARINT: return "a varint (wire type 0)";
	case PB_WIRE_FIXED64: return "a fixed 64-bit value (wire type 1)";
	case PB_WIRE_LEN: return "length-delimited (wire type 2)";
	case PB_WIRE_FIXED32: return "a fixed 32-bit value (wire type 5)";
	default: return "?";
	}
}

/* What the message ends as, for "runs past the end of ...". */
static const char *end_name(enum pb_message message)
{
	return message == PB_PROFILE ? "the profile" : message_names[message];
}

static int varint_error(const struct pb_source *src, const struct pb_cursor *c, size_t at,
			enum varint_status status, const char *what)
{
	if (status == VARINT_LONG)
		return pb_fail(src, at, "%s: a varint longer than %d bytes", what, VARINT_MAX);
	return pb_fail(src, at, "%s: the varint runs past the end of %s (%zu bytes left)", what,
		       end_name(c->message), c->end - at);
}

/* Whether wire suits kind; 0, or -1 with the error. */
static int check_wire(const struct pb_source *src, const struct pb_cursor *c,
		      const struct pb_field *f)
{
	const char *expected;

	switch (f->kind) {
	case PB_SCALAR:
		if (f->wire == PB_WIRE_VARINT)
			return 0;
		expected = "a varint";
		break;
	case PB_REPEATED:
		if (f->wire == PB_WIRE_VARINT || f->wire == PB_WIRE_LEN)
			return 0;
		expected = "varints (one, or packed)";
		break;
	case PB_BYTES:
	case PB_MESSAGE:
		if (f->wire == PB_WIRE_LEN)
			return 0;
		expected = f->kind == PB_BYTES ? "a length-delimited string" :
			   "a length-delimited message";
		break;
	default:
		return 0;
	}
	return pb_fail(src, f->at, "%s is %s, expected %s", pb_field_name(c->message, f->number),
		       wire_name(f->wire), expected);
}

/* The rest of the field whose tag was read, by its wire type. */
static int read_field_body(const struct pb_source *src, struct pb_cursor *c,
			   struct pb_field *f)
{
	const char *name = pb_field_name(c->message, f->number);
	size_t at = c->at, size;
	enum varint_status status;

	switch (f->wire) {
	case PB_WIRE_VARINT:
		status = read_varint(src->data, &c->at, c->end, &f->value);
		return status == VARINT_OK ? 0 : varint_error(src, c, at, status, name);
	case PB_WIRE_FIXED64:
	case PB_WIRE_FIXED32:
		size = f->wire == PB_WIRE_FIXED64 ? 8 : 4;
		if (c->end - c->at < size)
			return pb_fail(src, f->at, "%s: its %zu bytes run past the end of %s "
				       "(%zu bytes left)", name, size, end_name(c->message),
				       c->end - c->at);
		f->value = size == 8 ? pc_le64(src->data + c->at) : pc_le32(src->data + c->at);
		c->at += size;
		return 0;
	case PB_WIRE_LEN:
		status = read_varint(src->data, &c->at, c->end, &f->value);
		if (status != VARINT_OK)
			return varint_error(src, c, at, status, name);
		if (f->value > c->end - c->at)
			return pb_fail(src, f->at, "%s: a length of %llu bytes runs past the end "
				       "of %s (%zu bytes left)", name,
				       (unsigned long long)f->value, end_name(c->message),
				       c->end - c->at);
		f->data = c->at;
		f->len = (size_t)f->value;
		c->at += f->len;
		return 0;
	default:
		return pb_fail(src, f->at, "%s: wire type %u, %s", name, (unsigned)f->wire,
			       f->wire == 3 || f->wire == 4 ?
			       "a group, which profile.proto has none of" :
			       "which protobuf does not have");
	}
}

int pb_next(const struct pb_source *src, struct pb_cursor *c, struct pb_field *f)
{
	while (c->at < c->end) {
		size_t at = c->at;
		uint64_t tag;
		enum varint_status status = read_varint(src->data, &c->at, c->end, &tag);

		if (status != VARINT_OK)
			return status == VARINT_LONG ?
			       pb_fail(src, at, "%s: a field tag longer than %d bytes",
				       message_names[c->message], VARINT_MAX) :
			       pb_fail(src, at, "%s ends inside a field's tag",
				       end_name(c->message));
		if (!(tag >> 3) || tag >> 3 > MAX_FIELD)
			return pb_fail(src, at, "%s: a field numbered %llu (tag 0x%llx): not protobuf",
				       message_names[c->message], (unsigned long long)(tag >> 3),
				       (unsigned long long)tag);
		*f = (struct pb_field){
			.number = (uint32_t)(tag >> 3),
			.wire = (enum pb_wire)(tag & 7),
			.kind = (enum pb_kind)rule_of(c->message, tag >> 3)->kind,
			.at = at,
		};
		if (read_field_body(src, c, f))
			return -1;
		if (f->kind == PB_UNKNOWN)
			continue;
		return check_wire(src, c, f) ? -1 : 1;
	}
	return 0;
}

int pb_next_value(const struct pb_source *src, const struct pb_field *f, size_t *pos,
		  uint64_t *value)
{
	size_t at;
	enum varint_status status;

	if (f->wire == PB_WIRE_VARINT) {
		if (*pos)
			return 0;
		*pos = f->at + 1; /* anything but 0: the one value was given */
		*value = f->value;
		return 1;
	}
	if (!*pos)
		*pos = f->data;
	if (*pos >= f->data + f->len)
		return 0;
	at = *pos;
	status = read_varint(src->data, pos, f->data + f->len, value);
	if (status == VARINT_OK)
		return 1;
	return status == VARINT_LONG ?
	       pb_fail(src, at, "a packed varint longer than %d bytes", VARINT_MAX) :
	       pb_fail(src, at, "a packed varint runs past the end of its field's %zu bytes",
		       f->len);
}

struct pb_cursor pb_inside(const struct pb_field *f, enum pb_message message)
{
	return (struct pb_cursor){ .at = f->data, .end = f->data + f->len, .message = message };
}

/* ---- probing ---- */

/*
 * Whether data[at, end) is a whole well-formed message of the schema with
 * only known fields; its non-empty sub-messages are counted in *evidence.
 * (The probe skips unknown fields at the top level only, where a later
 * profile.proto may add some: the messages inside have not changed.)
 */
static bool probe_message(const uint8_t *data, size_t at, size_t end, enum pb_message message,
			  unsigned *evidence)
{
	while (at < end) {
		uint64_t tag, value;
		const struct pb_rule *rule;
		unsigned wire;

		if (read_varint(data, &at, end, &tag) != VARINT_OK)
			return false;
		rule = rule_of(message, tag >> 3);
		wire = tag & 7;
		if (rule->kind == PB_UNKNOWN || !(tag >> 3))
			return false;
		if (wire != PB_WIRE_LEN) {
			if (wire != PB_WIRE_VARINT || (rule->kind != PB_SCALAR &&
						       rule->kind != PB_REPEATED) ||
			    read_varint(data, &at, end, &value) != VARINT_OK)
				return false;
			continue;
		}
		if (rule->kind == PB_SCALAR || read_varint(data, &at, end, &value) != VARINT_OK ||
		    value > end - at)
			return false;
		if (rule->kind == PB_MESSAGE) {
			if (!probe_message(data, at, at + (size_t)value,
					   (enum pb_message)rule->message, evidence))
				return false;
			*evidence += value > 0;
		} else if (rule->kind == PB_REPEATED) {
			size_t pos = at;

			while (pos < at + value)
				if (read_varint(data, &pos, at + (size_t)value, &tag) != VARINT_OK)
					return false;
		}
		at += (size_t)value;
	}
	return true;
}

int pb_probe_profile(const uint8_t *data, size_t len, bool partial)
{
	unsigned evidence = 0;
	size_t at = 0;

	while (at < len) {
		size_t field = at;
		uint64_t tag, value;
		const struct pb_rule *rule;
		enum varint_status status = read_varint(data, &at, len, &tag);

		if (status != VARINT_OK)
			return status == VARINT_CUT && partial ? (int)evidence : -1;
		rule = rule_of(PB_PROFILE, tag >> 3);
		if (!(tag >> 3) || tag >> 3 > MAX_FIELD)
			return -1;
		if ((tag & 7) == PB_WIRE_FIXED64 || (tag & 7) == PB_WIRE_FIXED32) {
			/* a Profile field of a later profile.proto: skipped, no evidence */
			size_t size = (tag & 7) == PB_WIRE_FIXED64 ? 8 : 4;

			if (rule->kind != PB_UNKNOWN)
				return -1;
			if (size > len - at)
				return partial ? (int)evidence : -1;
			at += size;
			continue;
		}
		status = read_varint(data, &at, len, &value);
		if (status != VARINT_OK)
			return status == VARINT_CUT && partial ? (int)evidence : -1;
		if ((tag & 7) == PB_WIRE_VARINT) {
			if (rule->kind == PB_BYTES || rule->kind == PB_MESSAGE)
				return -1;
			continue;
		}
		if ((tag & 7) != PB_WIRE_LEN || rule->kind == PB_SCALAR)
			return -1;
		if (value > len - at)
			return partial ? (int)evidence : -1;
		if (rule->kind != PB_UNKNOWN &&
		    !probe_message(data, field, at + (size_t)value, PB_PROFILE, &evidence))
			return -1;
		at += (size_t)value;
	}
	return (int)evidence;
}

/* ---- loading: gzip or raw, at most max bytes ---- */

struct loader {
	struct pprof_bytes *bytes;
	size_t max;
	size_t framed;  /* the next top-level field to frame */
	bool stop;      /* a malformed top-level tag: the decoder reports it */
	struct pc_error *err;
};

/*
 * Frames the top-level fields that are whole now: stops reading at a tag
 * that cannot be one, and fails at once when a field's length would pass
 * the cap.
 */
static int frame_fields(struct loader *l)
{
	const uint8_t *data = l->bytes->data;
	size_t len = l->bytes->len;

	while (!l->stop && l->framed < len) {
		size_t at = l->framed, field = l->framed;
		uint64_t tag, value = 0;
		enum varint_status status = read_varint(data, &at, len, &tag);

		if (status == VARINT_CUT)
			return 0;
		if (status == VARINT_LONG || !(tag >> 3) || tag >> 3 > MAX_FIELD ||
		    ((tag & 7) != PB_WIRE_VARINT && (tag & 7) != PB_WIRE_FIXED64 &&
		     (tag & 7) != PB_WIRE_LEN && (tag & 7) != PB_WIRE_FIXED32)) {
			l->stop = true;
			return 0;
		}
		if ((tag & 7) == PB_WIRE_FIXED64 || (tag & 7) == PB_WIRE_FIXED32) {
			value = (tag & 7) == PB_WIRE_FIXED64 ? 8 : 4;
		} else {
			status = read_varint(data, &at, len, &value);
			if (status == VARINT_CUT)
				return 0;
			if (status == VARINT_LONG) {
				l->stop = true;
				return 0;
			}
			if ((tag & 7) == PB_WIRE_VARINT)
				value = 0;
		}
		if (value > l->max - at)
			return pc_fail_at(l->err, PPROF_FORMAT, field,
					  "%s%s says it is %llu bytes long: the profile would pass "
					  "the cap of %zu MiB decompressed (--pprof-max-mib)",
					  l->bytes->gunzipped ? "in the decompressed data, " : "",
					  pb_field_name(PB_PROFILE, (uint32_t)(tag >> 3)),
					  (unsigned long long)value, l->max >> 20);
		if (value > len - at)
			return 0;
		l->framed = at + (size_t)value;
	}
	return 0;
}

/* Room for more bytes, up to max + 1 (one past the cap tells that it was passed). */
static size_t make_room(struct loader *l, size_t want)
{
	struct pprof_bytes *b = l->bytes;
	size_t limit = l->max + 1;

	if (b->cap - b->len < want && b->cap < limit) {
		size_t cap = b->cap ? b->cap : FIRST_CAP;

		while (cap - b->len < want && cap < limit)
			cap = cap > limit / 2 ? limit : cap * 2;
		if (cap > limit)
			cap = limit;
		b->data = pc_xrealloc(b->data, cap);
		b->cap = cap;
	}
	return b->cap - b->len;
}

static int past_cap(struct loader *l, uint64_t offset)
{
	return pc_fail_at(l->err, PPROF_FORMAT, offset, "the profile is over the cap of %zu MiB%s "
			  "(a decompression bomb? --pprof-max-mib raises the cap)", l->max >> 20,
			  l->bytes->gunzipped ? " decompressed" : "");
}

static int read_raw(struct loader *l, struct pc_input *in)
{
	for (;;) {
		const uint8_t *chunk;
		size_t have = pc_input_fill(in, CHUNK, &chunk), room;

		if (pc_input_check_io(in, l->err))
			return -1;
		if (!have || l->stop)
			return 0;
		room = make_room(l, have);
		if (have > room || l->bytes->len + have > l->max)
			return past_cap(l, pc_input_offset(in) + (l->max - l->bytes->len));
		memcpy(l->bytes->data + l->bytes->len, chunk, have);
		l->bytes->len += have;
		pc_input_consume(in, have);
		if (frame_fields(l))
			return -1;
	}
}

/* One inflate step over the input chunk; its result, with zs advanced. */
static int inflate_some(struct loader *l, z_stream *zs)
{
	struct pprof_bytes *b = l->bytes;
	size_t room = make_room(l, CHUNK);
	int ret;

	zs->next_out = b->data + b->len;
	zs->avail_out = (uInt)(room < UINT32_MAX ? room : UINT32_MAX);
	ret = inflate(zs, Z_NO_FLUSH);
	b->len = (size_t)(zs->next_out - b->data);
	return ret;
}

/*
 * Gunzips the input, member after member, into bytes. Offsets in these
 * errors are the compressed input's.
 */
static int read_gzip(struct loader *l, struct pc_input *in, z_stream *zs)
{
	bool in_member = false;

	for (;;) {
		const uint8_t *chunk;
		size_t have = pc_input_fill(in, CHUNK, &chunk), used;
		uint64_t offset = pc_input_offset(in);
		int ret = Z_OK;

		if (pc_input_check_io(in, l->err))
			return -1;
		if (!in_member) {
			if (!have || l->stop)
				return 0;
			if (have < 2 || chunk[0] != 0x1f || chunk[1] != 0x8b)
				return pc_fail_at(l->err, PPROF_FORMAT, offset, "after gzip member %u: "
						  "bytes that are not another gzip member",
						  l->bytes->members);
			if (inflateReset(zs) != Z_OK)
				pc_die_oom(0);
			in_member = true;
			l->bytes->members++;
		}
		if (!have)
			return pc_fail_at(l->err, PPROF_FORMAT, offset, "gzip member %u is cut "
					  "short: the input ends before its end (a truncated file?)",
					  l->bytes->members);
		zs->next_in = (Bytef *)(uintptr_t)chunk;
		zs->avail_in = (uInt)(have < UINT32_MAX ? have : UINT32_MAX);
		while (ret == Z_OK && !l->stop && (zs->avail_in || !zs->avail_out)) {
			ret = inflate_some(l, zs);
			if (l->bytes->len > l->max)
				return past_cap(l, offset + (uint64_t)(have - zs->avail_in));
			if (frame_fields(l))
				return -1;
		}
		used = have - zs->avail_in;
		pc_input_consume(in, used);
		if (ret == Z_STREAM_END)
			in_member = false;
		else if (ret == Z_DATA_ERROR)
			return pc_fail_at(l->err, PPROF_FORMAT, offset + used, "gzip member %u is "
					  "corrupt: %s", l->bytes->members, zs->msg ? zs->msg : "bad data");
		else if (ret == Z_MEM_ERROR)
			pc_die_oom(0);
		else if (l->stop)
			return 0;
	}
}

int pprof_load(struct pprof_bytes *bytes, struct pc_input *in, size_t max,
	       struct pc_error *err)
{
	struct loader l = { .bytes = bytes, .max = max, .err = err };
	const uint8_t *head;
	size_t have = pc_input_fill(in, 2, &head);
	uint64_t start = pc_input_offset(in);
	z_stream zs = { 0 };
	int ret;

	*bytes = (struct pprof_bytes){ 0 };
	if (pc_input_check_io(in, err))
		return -1;
	if (!have)
		return pc_fail_at(err, PPROF_FORMAT, start, "the input is empty: no profile");
	bytes->gunzipped = have >= 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (!bytes->gunzipped) {
		ret = read_raw(&l, in);
	} else {
		if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
			pc_die_oom(sizeof(zs));
		ret = read_gzip(&l, in, &zs);
		inflateEnd(&zs);
	}
	bytes->file_size = pc_input_offset(in) - start;
	if (!ret && !bytes->len)
		ret = pc_fail_at(err, PPROF_FORMAT, start, "the gzip data decompresses to nothing: "
				 "an empty profile");
	return ret;
}

void pprof_bytes_release(struct pprof_bytes *bytes)
{
	free(bytes->data);
	*bytes = (struct pprof_bytes){ 0 };
}
