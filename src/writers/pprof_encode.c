/*
 * pprof_encode.c - the pprof writer's messages encoded as
 * perftools.profiles.Profile (proto/profile.proto) and gzip-compressed
 * into the output: samples, locations and functions by hand (they are most
 * of a profile), byte for byte as protobuf-c would; sample types, mappings
 * and the string table and what follows it by protobuf-c, in the order of
 * the fields. Loses nothing: pprof_writer.c decides what is written.
 */
#include "writers/pprof_writer.h"

#include "base/gzip_blocks.h"

#include "profile.pb-c.h"

/*
 * protobuf-c packs a message's fields in field-number order, so the
 * Profile goes out in parts: a Profile holding only sample_type, then each
 * sample as one field-2 record, a Profile holding only the mappings, each
 * location (field 4), function (field 5) and string (field 6), and a
 * Profile with the rest.
 * The bytes are those of one pack of the whole Profile, but no protobuf-c
 * message is held per sample, location, function or string.
 */
enum {
	FIELD_SAMPLE = 2,
	FIELD_LOCATION = 4,
	FIELD_FUNCTION = 5,
	FIELD_STRING_TABLE = 6,
	WIRE_VARINT = 0,
	WIRE_LENGTH_DELIMITED = 2,
};

/* Points ptrs[i] at items[i] for n items (the arrays are grown to n). */
#define GROW_MESSAGES(items, ptrs, cap, n) \
	do { \
		size_t ptrs_cap_ = (cap); \
		pc_grow(&(items), &(cap), (n), sizeof(*(items))); \
		pc_grow(&(ptrs), &ptrs_cap_, (n), sizeof(*(ptrs))); \
		for (size_t i_ = 0; i_ < (n); i_++) \
			(ptrs)[i_] = &(items)[i_]; \
	} while (0)

/*
 * Samples are most of a profile, so they are encoded here rather than by
 * protobuf-c's generic packer, byte for byte as it would (proto3: packed
 * repeated scalars, fields equal to 0 left out).
 */
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3, LABEL_NUM_UNIT = 4 };
enum {
	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,
	LOCATION_IS_FOLDED = 5,
};
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum {
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

struct byte_buffer {
	uint8_t *bytes;
	size_t len, cap;
};

static size_t varint_size(uint64_t value)
{
	size_t n = 1;

	while (value > 0x7f) {
		value >>= 7;
		n++;
	}
	return n;
}

#define VARINT_MAX 10

/* Makes room for bytes more bytes; every put_* below needs room made first. */
static void reserve(struct byte_buffer *b, size_t bytes)
{
	pc_grow(&b->bytes, &b->cap, b->len + bytes, 1);
}

static void put_varint(struct byte_buffer *b, uint64_t value)
{
	/* through a local pointer: a store to b->bytes[] could alias b->len */
	uint8_t *at = b->bytes + b->len;

	while (value > 0x7f) {
		*at++ = (uint8_t)(value | 0x80);
		value >>= 7;
	}
	*at++ = (uint8_t)value;
	b->len = (size_t)(at - b->bytes);
}

static void put_scalar(struct byte_buffer *b, unsigned field, int64_t value)
{
	if (!value)
		return;
	put_varint(b, (uint64_t)field << 3 | WIRE_VARINT);
	put_varint(b, (uint64_t)value);
}

static void put_packed_ids(struct byte_buffer *b, unsigned field, const uint32_t *ids, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += varint_size(ids[i]);
	put_varint(b, (uint64_t)field << 3 | WIRE_LENGTH_DELIMITED);
	put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		put_varint(b, ids[i]);
}

static void put_packed_values(struct byte_buffer *b, unsigned field, const int64_t *values,
			      size_t n)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += varint_size((uint64_t)values[i]);
	put_varint(b, (uint64_t)field << 3 | WIRE_LENGTH_DELIMITED);
	put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		put_varint(b, (uint64_t)values[i]);
}

static size_t scalar_size(int64_t value)
{
	return value ? 1 + varint_size((uint64_t)value) : 0;
}

static void put_label(struct byte_buffer *b, const struct out_label *label)
{
	put_varint(b, (uint64_t)SAMPLE_LABEL << 3 | WIRE_LENGTH_DELIMITED);
	put_varint(b, scalar_size(label->key) + scalar_size(label->str) +
			      scalar_size(label->num) + scalar_size(label->unit));
	put_scalar(b, LABEL_KEY, label->key);
	put_scalar(b, LABEL_STR, label->str);
	put_scalar(b, LABEL_NUM, label->num);
	put_scalar(b, LABEL_NUM_UNIT, label->unit);
}

/*
 * Fields of the Profile being packed, gathered so that protobuf-c's buffer
 * (and so the compressor) takes them PACK_BATCH bytes at a time rather
 * than a few bytes at a time.
 */
#define PACK_BATCH ((size_t)64 << 10)

struct field_batch {
	ProtobufCBuffer *out;
	struct byte_buffer bytes;
	size_t body_at; /* where the body of the field being put starts */
};

static void batch_flush(struct field_batch *batch)
{
	if (batch->bytes.len)
		batch->out->append(batch->out, batch->bytes.len, batch->bytes.bytes);
	batch->bytes.len = 0;
}

/*
 * Starts field `field` of the Profile, whose body (at most max_body bytes)
 * the caller puts into the returned buffer, in place: its length goes in
 * the byte left before it, and batch_end_field moves the body along in the
 * rare case (128 bytes or more) that the length needs more.
 */
static struct byte_buffer *batch_begin_field(struct field_batch *batch, unsigned field,
					     size_t max_body)
{
	struct byte_buffer *b = &batch->bytes;

	reserve(b, 2 * VARINT_MAX + max_body);
	put_varint(b, (uint64_t)field << 3 | WIRE_LENGTH_DELIMITED);
	b->len++;
	batch->body_at = b->len;
	return b;
}

static void batch_end_field(struct field_batch *batch)
{
	struct byte_buffer *b = &batch->bytes;
	size_t body = b->len - batch->body_at, extra = varint_size(body) - 1;

	if (extra)
		memmove(b->bytes + batch->body_at + extra, b->bytes + batch->body_at, body);
	b->len = batch->body_at - 1;
	put_varint(b, body);
	b->len += body;
	if (b->len >= PACK_BATCH)
		batch_flush(batch);
}

static void batch_end(struct field_batch *batch)
{
	batch_flush(batch);
	free(batch->bytes.bytes);
}

/* The location ids of output sample at, leaf first; *n of them. */
static const uint32_t *out_locations(struct pprof_writer *w, size_t at, size_t *n)
{
	uint32_t stack;

	if (w->out[at] & OWN) {
		const struct own_sample *own = &w->own[w->out[at] & ~OWN];

		if (!own->stack) {
			*n = 2;
			return own->loc;
		}
		stack = own->stack;
	} else {
		stack = pc_model_sample(w->m, w->out[at])->stack;
	}
	*n = pprof_stack_locations(w, stack); /* known locations: none is added */
	return w->stack;
}

static void pack_samples(struct pprof_writer *w, ProtobufCBuffer *out)
{
	struct field_batch batch = { .out = out };
	int64_t *values = pc_xcalloc(w->ncolumns, sizeof(*values));

	for (size_t at = 0; at < w->nout; at++) {
		size_t nlocations, nlabels = 0;
		const uint32_t *locations = out_locations(w, at, &nlocations);
		const int64_t *row = values;
		uint32_t labels;
		struct byte_buffer *sample;

		if (w->out[at] & OWN) {
			uint32_t own = w->out[at] & ~OWN;

			labels = w->own[own].labels;
			row = w->own_values + (size_t)own * w->ncolumns;
		} else {
			const uint64_t *counts = pc_model_values(w->m, w->out[at]);

			labels = pc_model_sample(w->m, w->out[at])->labels;
			for (size_t c = 0; c < pc_model_ncolumns(w->m); c++)
				values[c] = (int64_t)counts[c];
		}
		if (labels)
			pc_model_labelset(w->m, labels, &nlabels);
		sample = batch_begin_field(&batch, FIELD_SAMPLE,
					   VARINT_MAX * (4 + nlocations + w->ncolumns + 10 * nlabels));
		put_packed_ids(sample, SAMPLE_LOCATION_ID, locations, nlocations);
		put_packed_values(sample, SAMPLE_VALUE, row, w->ncolumns);
		for (size_t j = 0; j < nlabels; j++)
			put_label(sample, &w->labels[w->labelset_first[labels] - 1 + j]);
		batch_end_field(&batch);
	}
	free(values);
	batch_end(&batch);
}

/* The frames of location id, innermost first (physical last); *n of them. */
static const uint32_t *location_frames(const struct pprof_writer *w, uint32_t id, size_t *n)
{
	const uint32_t *ref = &w->location_ref[id - 1];

	if (!(*ref & CHAIN)) {
		*n = 1;
		return ref;
	}
	return pc_seq(&w->chains, *ref & ~CHAIN, n);
}

static void pack_locations(struct pprof_writer *w, ProtobufCBuffer *out)
{
	struct field_batch batch = { .out = out };

	for (uint32_t id = 1; id <= w->nlocations; id++) {
		size_t n;
		const uint32_t *frames = location_frames(w, id, &n);
		const struct pc_frame *physical = pc_model_frame(w->m, frames[n - 1]);
		struct byte_buffer *location = batch_begin_field(&batch, FIELD_LOCATION,
								 VARINT_MAX * (6 + 6 * n));

		put_scalar(location, LOCATION_ID, id);
		put_scalar(location, LOCATION_MAPPING_ID, pprof_location_mapping(w, physical));
		put_scalar(location, LOCATION_ADDRESS, (int64_t)pprof_location_address(w, physical));
		for (size_t i = 0; i < n; i++) {
			const struct pc_frame *frame = pc_model_frame(w->m, frames[i]);
			uint32_t function;

			if (!frame->function)
				continue;
			function = w->frame_function[frames[i]]; /* numbered with its location */
			put_varint(location, (uint64_t)LOCATION_LINE << 3 | WIRE_LENGTH_DELIMITED);
			put_varint(location, scalar_size(function) + scalar_size(frame->line));
			put_scalar(location, LINE_FUNCTION_ID, function);
			put_scalar(location, LINE_LINE, frame->line);
		}
		put_scalar(location, LOCATION_IS_FOLDED, (physical->flags & PC_FRAME_FOLDED) != 0);
		batch_end_field(&batch);
	}
	batch_end(&batch);
}

static void pack_functions(const struct pprof_writer *w, ProtobufCBuffer *out)
{
	struct field_batch batch = { .out = out };

	for (uint32_t id = 1; id < w->functions.count; id++) {
		size_t n;
		const uint32_t *key = pc_seq(&w->functions, id, &n);
		struct byte_buffer *function = batch_begin_field(&batch, FIELD_FUNCTION,
								 VARINT_MAX * 8);

		put_scalar(function, FUNCTION_ID, id);
		put_scalar(function, FUNCTION_NAME, key[0]);
		put_scalar(function, FUNCTION_SYSTEM_NAME, key[4] ? key[4] - 1 : key[0]);
		put_scalar(function, FUNCTION_FILENAME, key[1]);
		put_scalar(function, FUNCTION_START_LINE, key[3]);
		batch_end_field(&batch);
	}
	batch_end(&batch);
}

static void pack_sample_types(const struct pprof_writer *w, ProtobufCBuffer *out)
{
	Perftools__Profiles__ValueType types[PC_MAX_COLUMNS + 1];
	Perftools__Profiles__ValueType *type_ptrs[PC_MAX_COLUMNS + 1];
	Perftools__Profiles__Profile head = PERFTOOLS__PROFILES__PROFILE__INIT;

	for (size_t c = 0; c < w->ncolumns; c++) {
		types[c] = (Perftools__Profiles__ValueType){
			.base = PROTOBUF_C_MESSAGE_INIT(&perftools__profiles__value_type__descriptor),
			.type = w->types[c],
			.unit = w->units[c],
		};
		type_ptrs[c] = &types[c];
	}
	head.sample_type = type_ptrs;
	head.n_sample_type = w->ncolumns;
	perftools__profiles__profile__pack_to_buffer(&head, out);
}

/* Mapping i + 1: its model module's. */
static Perftools__Profiles__Mapping mapping_message(const struct pprof_writer *w, size_t i)
{
	const struct pc_module *module = pc_model_module(w->m, w->module_at[i + 1]);
	const struct mapping_state *state = &w->mappings[w->module_at[i + 1] - 1];
	bool used = state->nlocations > 0;
	uint64_t start = module->has_range ? module->start : state->pe_base;
	uint64_t limit = !state->any_address ? start :
		state->max_address == UINT64_MAX ? UINT64_MAX : state->max_address + 1;
	unsigned stated = module->stated;

	return (Perftools__Profiles__Mapping){
		.base = PROTOBUF_C_MESSAGE_INIT(&perftools__profiles__mapping__descriptor),
		.id = i + 1,
		.memory_start = start,
		.memory_limit = module->has_range ? module->limit : limit,
		.file_offset = module->has_range ? module->file_offset : 0,
		.filename = state->filename,
		.build_id = state->build_id,
		/* what the input says (a pprof's mapping flags), else what the locations have */
		.has_functions = stated ? (stated & PC_MODULE_HAS_FUNCTIONS) != 0 :
			used && state->all_functions,
		.has_filenames = stated ? (stated & PC_MODULE_HAS_FILENAMES) != 0 :
			used && state->all_filenames,
		.has_line_numbers = stated ? (stated & PC_MODULE_HAS_LINE_NUMBERS) != 0 :
			used && state->all_lines,
		.has_inline_frames = stated ? (stated & PC_MODULE_HAS_INLINE_FRAMES) != 0 :
			used && state->all_functions && state->any_inline,
	};
}

static void pack_mappings(const struct pprof_writer *w, ProtobufCBuffer *out)
{
	Perftools__Profiles__Profile middle = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Mapping *mappings = NULL, **mapping_ptrs = NULL;
	size_t cap = 0, n = pc_model_nmodules(w->m);

	GROW_MESSAGES(mappings, mapping_ptrs, cap, n);
	for (size_t i = 0; i < n; i++)
		mappings[i] = mapping_message(w, i);
	middle.mapping = mapping_ptrs;
	middle.n_mapping = n;
	perftools__profiles__profile__pack_to_buffer(&middle, out);
	free(mappings);
	free(mapping_ptrs);
}

/* The string table, each string a field-6 record (the empty one too, as protobuf-c writes it). */
static void pack_strings(const struct pprof_writer *w, ProtobufCBuffer *out)
{
	struct field_batch batch = { .out = out };

	for (size_t i = 0; i < w->strings.count; i++) {
		size_t len = w->strings.lens[i];
		struct byte_buffer *text = batch_begin_field(&batch, FIELD_STRING_TABLE, len);

		memcpy(text->bytes + text->len, w->strings.texts[i], len);
		text->len += len;
		batch_end_field(&batch);
	}
	batch_end(&batch);
}

/* What follows the string table. */
static void pack_tail(const struct pprof_writer *w, ProtobufCBuffer *out)
{
	Perftools__Profiles__Profile tail = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType period_type = {
		.base = PROTOBUF_C_MESSAGE_INIT(&perftools__profiles__value_type__descriptor),
		.type = w->period_type,
		.unit = w->period_unit,
	};

	tail.time_nanos = pc_model_time_nanos(w->m);
	tail.duration_nanos = pc_model_duration_nanos(w->m);
	if (w->period_type || w->period_unit)
		tail.period_type = &period_type;
	tail.period = pc_model_period(w->m);
	tail.comment = w->comments;
	tail.n_comment = w->ncomments;
	tail.default_sample_type = w->default_type;
	tail.drop_frames = w->drop_frames;
	tail.keep_frames = w->keep_frames;
	tail.doc_url = w->doc_url;
	perftools__profiles__profile__pack_to_buffer(&tail, out);
}

static void pack_profile(struct pprof_writer *w, ProtobufCBuffer *out)
{
	pack_sample_types(w, out);
	pack_samples(w, out);
	pack_mappings(w, out);
	pack_locations(w, out);
	pack_functions(w, out);
	pack_strings(w, out);
	pack_tail(w, out);
}

/* ---- gzip output: protobuf-c appends, gzip_blocks compresses and writes ---- */

struct gzip_sink {
	ProtobufCBuffer base; /* first: protobuf-c calls base.append */
	struct pc_gzip *gz;
};

static void gzip_sink_append(ProtobufCBuffer *buffer, size_t len, const uint8_t *data)
{
	pc_gzip_write(((struct gzip_sink *)buffer)->gz, data, len);
}

/*
 * libdeflate's level 1, in blocks compressed on the reader's threads
 * (gzip_blocks.h says why): deflate dominated the writer's time on big
 * profiles. The output does not depend on the number of threads.
 */
int pprof_write_gzip(struct pc_ctx *ctx, struct pprof_writer *w, struct pc_output *out)
{
	struct gzip_sink sink = {
		.base.append = gzip_sink_append,
		.gz = pc_gzip_open(out->fp, pc_ctx_threads(ctx)),
	};

	pack_profile(w, &sink.base);
	if (pc_gzip_close(sink.gz) || ferror(out->fp)) {
		pc_error_set_path(&ctx->err, out->path);
		return pc_fail(&ctx->err, PC_STATUS_INPUT, "cannot write the compressed profile");
	}
	return 0;
}
