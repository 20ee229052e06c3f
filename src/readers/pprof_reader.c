/*
 * pprof_reader.c - reads pprof profiles (perftools.profiles.Profile,
 * proto/profile.proto): gzipped, in one or more gzip members, or raw
 * protobuf, as Go's runtime/pprof, `pprof -proto`, perf_data_converter
 * and profconv write them.
 *
 * Source: profile.proto and pprof's decoder and validator (the Debian
 * snapshot 0.0~git20211008.947d60d of github.com/google/pprof/profile:
 * encode.go postDecode, profile.go CheckValid), as ../shared/research/
 * pprof.md sections 2 and 3 sum them up; pprof_wire.c holds the gzip and
 * wire-format layer. A profile pprof refuses is refused here too (ids 0
 * or used twice, references to ids nobody has, string indices outside the
 * table, values not one per sample type, a line without a function,
 * string_table[0] not "", two time_nanos: concatenated profiles); beyond
 * pprof, what the model cannot hold is refused (negative values, as in
 * `pprof -diff_base` output; lines and start lines outside 0..2^32-1;
 * more than 64 sample types, or two of one name; a mapping that ends
 * before it starts) and a decompressed profile over --pprof-max-mib
 * (1 GiB by default).
 *
 * What maps where:
 *   sample_type (type, unit) -> a column each (PC_ROLE_VALUE: its event is
 *                               its name, so --event NAME picks it), in
 *                               order; default_sample_type -> the default
 *                               column (pprof's rule: the last sample type
 *                               when it names none), and fact
 *                               pprof.default_sample_type; --event NAME ->
 *                               the default column (an error when no sample
 *                               type has that name)
 *   mapping                  -> module (in order, so mapping 1 stays the
 *                               first): filename, build_id, its range and
 *                               file_offset, its has_* flags as stated
 *                               (pc_module.stated); a second mapping of the
 *                               same file and build id gets space = its
 *                               position (1-based), so mappings never merge
 *   location                 -> frames, made when a sample first uses it:
 *                               one per line, leaf first, every line but
 *                               the last PC_FRAME_INLINE, each with the
 *                               location's module and address (absolute;
 *                               none when 0), the last PC_FRAME_FOLDED when
 *                               is_folded; no line: one frame without a
 *                               function
 *   line + its function      -> function = name, file = filename, line,
 *                               start_line; system_name as the frame's own
 *                               (pc_model_set_system_name) when it differs
 *   sample                   -> its stack (location ids leaf first, as
 *                               their frames) and labels, a value per
 *                               column (equal samples add up)
 *   label                    -> str when set, else num with num_unit when
 *                               either is set, else dropped (as pprof does)
 *   comment                  -> comments, in order, byte for byte
 *   time_nanos, duration_nanos, period_type, period -> as they are
 *   drop_frames, keep_frames, doc_url -> facts pprof.drop_frames,
 *                               pprof.keep_frames, pprof.doc_url
 * The pprof writer makes the same profile again from such a model (no
 * comment of its own, the input's mapping order, flags and default sample
 * type): every `pprof` view of a round trip is the original's.
 *
 * What is lost: locations and functions no sample uses (a warning counts
 * them, unless the profile has no samples at all: then the pipeline's
 * "no samples in the input" is the one warning), Line.column (warned),
 * lines of functions without a name (warned: the model has no frame name
 * ""), the ids
 * themselves (numbered anew on writing), which of several equal locations
 * or functions a sample named, sample order, and a string label whose
 * value is "" at a non-zero index (it reads as no value).
 */
#include "model/format.h"
#include "readers/pprof_wire.h"

#include "base/sort.h"

#include <zlib.h>

#define PROBE_OUT ((size_t)16 << 10)
#define DIRECT_SLACK 1024  /* ids up to 4n + this are looked up in a table */

struct span {
	uint32_t at, len;
};

struct pprof_mapping {
	uint64_t id, start, limit, file_offset;
	uint32_t filename, build_id; /* string indices */
	uint32_t module;
	uint32_t at;
	uint8_t stated;              /* enum pc_module_stated */
};

struct pprof_function {
	uint64_t id;
	uint32_t name, system_name, filename; /* string indices */
	uint32_t start_line;
	uint32_t at;
};

struct pprof_line {
	uint64_t function;           /* its id; its index once resolved */
	uint32_t line;
	uint32_t at;
};

struct pprof_location {
	uint64_t id;
	uint64_t mapping;            /* its id (0 = none); its index + 1 once resolved */
	uint64_t address;
	uint32_t first_line, nlines; /* in r->lines */
	uint32_t frames;             /* its first frame in r->frames + 1, 0 = not made yet */
	uint32_t at;
	bool folded;                 /* is_folded */
};

/* From a message's id to its index: a table when ids are dense, else sorted ids. */
struct id_map {
	uint32_t *direct;            /* id -> index + 1 */
	size_t ndirect;
	uint64_t *ids;               /* sorted */
	uint32_t *order;             /* ids[i] is the id of message order[i] */
	size_t n;
};

struct pprof_reader {
	struct pc_ctx *ctx;
	struct pc_model *m;
	struct pprof_bytes bytes;
	struct pb_source src;

	struct span *strings;
	size_t nstrings, strings_cap;
	uint32_t *string_ids;        /* string index -> model id + 1, 0 = not interned yet */

	/* top-level fields of the first pass */
	struct pb_field types[PC_MAX_COLUMNS];
	size_t ntypes;
	struct pb_field period_type;
	bool has_period_type;
	struct pb_field drop_frames, keep_frames, default_type, doc_url;
	int64_t time_nanos, duration_nanos, period;
	size_t nsamples, nmappings, nlocations, nfunctions;

	struct pprof_mapping *mappings;
	struct pprof_function *functions;
	struct pprof_location *locations;
	struct pprof_line *lines;
	size_t nlines, lines_cap;
	struct id_map mapping_ids, function_ids, location_ids;

	int columns[PC_MAX_COLUMNS]; /* sample type -> model column */
	uint32_t *frames;            /* the frames of used locations, one run each */
	size_t nframes, frames_cap;
	size_t used_locations, columns_lost, nameless_lines;

	/* one sample's, reused */
	uint64_t *location_refs;
	uint32_t *location_ref_at;
	size_t nlocation_refs, location_refs_cap, location_ref_at_cap;
	uint64_t values[PC_MAX_COLUMNS];
	size_t nvalues;
	struct pc_label *labels;
	size_t nlabels, labels_cap;
	uint32_t *stack;
	size_t stack_cap;
};

/* ---- strings ---- */

/* The string index of a field's value; -1 when it is outside the table. */
static int string_index(struct pprof_reader *r, const struct pb_field *f, enum pb_message message,
			uint32_t *index)
{
	if (f->value >= r->nstrings)
		return pb_fail(&r->src, f->at, "%s: string index %lld is outside the string table "
			       "(%zu strings)", pb_field_name(message, f->number),
			       (long long)f->value, r->nstrings);
	*index = (uint32_t)f->value;
	return 0;
}

/* The model's id of string index i, interned on first use. */
static pc_str_id string_id(struct pprof_reader *r, uint32_t i)
{
	if (!r->string_ids[i])
		r->string_ids[i] = pc_model_intern(r->m, r->src.data + r->strings[i].at,
						   r->strings[i].len) + 1;
	return r->string_ids[i] - 1;
}

/* ---- the first pass: the top-level fields ---- */

static void add_string(struct pprof_reader *r, const struct pb_field *f)
{
	pc_grow(&r->strings, &r->strings_cap, r->nstrings + 1, sizeof(*r->strings));
	r->strings[r->nstrings++] = (struct span){ .at = (uint32_t)f->data, .len = (uint32_t)f->len };
}

static int scan_field(struct pprof_reader *r, const struct pb_field *f)
{
	switch (f->number) {
	case 1:
		if (r->ntypes == PC_MAX_COLUMNS)
			return pb_fail(&r->src, f->at, "more than %d sample types, the most profconv "
				       "holds", PC_MAX_COLUMNS);
		r->types[r->ntypes++] = *f;
		break;
	case 2: r->nsamples++; break;
	case 3: r->nmappings++; break;
	case 4: r->nlocations++; break;
	case 5: r->nfunctions++; break;
	case 6:
		if (!r->nstrings && f->len)
			return pb_fail(&r->src, f->at, "string_table[0] is %u bytes long: it must "
				       "be \"\"", (unsigned)f->len);
		add_string(r, f);
		break;
	case 7: r->drop_frames = *f; break;
	case 8: r->keep_frames = *f; break;
	case 9:
		if (r->time_nanos)
			return pb_fail(&r->src, f->at, "a second Profile.time_nanos: two profiles "
				       "one after the other, which pprof refuses too");
		r->time_nanos = (int64_t)f->value;
		break;
	case 10: r->duration_nanos = (int64_t)f->value; break;
	case 11: r->period_type = *f; r->has_period_type = true; break;
	case 12: r->period = (int64_t)f->value; break;
	case 14: r->default_type = *f; break;
	case 15: r->doc_url = *f; break;
	default: break;
	}
	return 0;
}

static int scan_profile(struct pprof_reader *r)
{
	struct pb_cursor c = { .at = 0, .end = r->src.len, .message = PB_PROFILE };
	struct pb_field f;
	int got;

	while ((got = pb_next(&r->src, &c, &f)) > 0)
		if (scan_field(r, &f))
			return -1;
	if (got < 0)
		return -1;
	if (!r->nstrings)
		return pb_fail(&r->src, 0, "the profile has no string table (string_table[0] "
			       "must be \"\")");
	r->string_ids = pc_xcalloc(r->nstrings, sizeof(*r->string_ids));
	return 0;
}

/* ---- the second pass: mappings, functions, locations ---- */

static int decode_mapping(struct pprof_reader *r, const struct pb_field *outer,
			  struct pprof_mapping *mapping)
{
	static const uint8_t flags[] = {
		[7] = PC_MODULE_HAS_FUNCTIONS, [8] = PC_MODULE_HAS_FILENAMES,
		[9] = PC_MODULE_HAS_LINE_NUMBERS, [10] = PC_MODULE_HAS_INLINE_FRAMES,
	};
	struct pb_cursor c = pb_inside(outer, PB_MAPPING);
	struct pb_field f;
	int got;

	*mapping = (struct pprof_mapping){ .at = (uint32_t)outer->at, .stated = PC_MODULE_STATED };
	while ((got = pb_next(&r->src, &c, &f)) > 0) {
		switch (f.number) {
		case 1: mapping->id = f.value; break;
		case 2: mapping->start = f.value; break;
		case 3: mapping->limit = f.value; break;
		case 4: mapping->file_offset = f.value; break;
		case 5:
			if (string_index(r, &f, PB_MAPPING, &mapping->filename))
				return -1;
			break;
		case 6:
			if (string_index(r, &f, PB_MAPPING, &mapping->build_id))
				return -1;
			break;
		default:
			mapping->stated = (uint8_t)(f.value ? mapping->stated | flags[f.number] :
						    mapping->stated & ~flags[f.number]);
			break;
		}
	}
	if (got < 0)
		return -1;
	if (mapping->limit < mapping->start)
		return pb_fail(&r->src, outer->at, "mapping %llu ends (memory_limit 0x%llx) before "
			       "it starts (memory_start 0x%llx)", (unsigned long long)mapping->id,
			       (unsigned long long)mapping->limit,
			       (unsigned long long)mapping->start);
	return 0;
}

/* An int64 field that the model keeps in 32 bits (a line number). */
static int line_number(struct pprof_reader *r, const struct pb_field *f, enum pb_message message,
		       uint32_t *line)
{
	if (f->value > UINT32_MAX)
		return pb_fail(&r->src, f->at, "%s is %lld: profconv keeps line numbers from 0 "
			       "to 2^32-1", pb_field_name(message, f->number), (long long)f->value);
	*line = (uint32_t)f->value;
	return 0;
}

static int decode_function(struct pprof_reader *r, const struct pb_field *outer,
			   struct pprof_function *function)
{
	struct pb_cursor c = pb_inside(outer, PB_FUNCTION);
	struct pb_field f;
	int got, ret = 0;

	*function = (struct pprof_function){ .at = (uint32_t)outer->at };
	while (!ret && (got = pb_next(&r->src, &c, &f)) > 0) {
		switch (f.number) {
		case 1: function->id = f.value; break;
		case 2: ret = string_index(r, &f, PB_FUNCTION, &function->name); break;
		case 3: ret = string_index(r, &f, PB_FUNCTION, &function->system_name); break;
		case 4: ret = string_index(r, &f, PB_FUNCTION, &function->filename); break;
		default: ret = line_number(r, &f, PB_FUNCTION, &function->start_line); break;
		}
	}
	return ret || got < 0 ? -1 : 0;
}

static int decode_line(struct pprof_reader *r, const struct pb_field *outer)
{
	struct pb_cursor c = pb_inside(outer, PB_LINE);
	struct pprof_line line = { .at = (uint32_t)outer->at };
	struct pb_field f;
	int got;

	while ((got = pb_next(&r->src, &c, &f)) > 0) {
		if (f.number == 1)
			line.function = f.value;
		else if (f.number == 2 && line_number(r, &f, PB_LINE, &line.line))
			return -1;
		else if (f.number == 3)
			r->columns_lost += f.value != 0;
	}
	if (got < 0)
		return -1;
	if (!line.function)
		return pb_fail(&r->src, outer->at, "a line without a function (function_id 0), "
			       "which pprof refuses too");
	if (r->nlines >= UINT32_MAX)
		return pb_fail(&r->src, outer->at, "more than 2^32-1 lines");
	pc_grow(&r->lines, &r->lines_cap, r->nlines + 1, sizeof(*r->lines));
	r->lines[r->nlines++] = line;
	return 0;
}

static int decode_location(struct pprof_reader *r, const struct pb_field *outer,
			   struct pprof_location *location)
{
	struct pb_cursor c = pb_inside(outer, PB_LOCATION);
	struct pb_field f;
	int got;

	*location = (struct pprof_location){
		.at = (uint32_t)outer->at,
		.first_line = (uint32_t)r->nlines,
	};
	while ((got = pb_next(&r->src, &c, &f)) > 0) {
		switch (f.number) {
		case 1: location->id = f.value; break;
		case 2: location->mapping = f.value; break;
		case 3: location->address = f.value; break;
		case 4:
			if (decode_line(r, &f))
				return -1;
			break;
		default: location->folded = f.value != 0; break;
		}
	}
	location->nlines = (uint32_t)(r->nlines - location->first_line);
	return got < 0 ? -1 : 0;
}

static int decode_messages(struct pprof_reader *r)
{
	struct pb_cursor c = { .at = 0, .end = r->src.len, .message = PB_PROFILE };
	size_t nmappings = 0, nlocations = 0, nfunctions = 0;
	struct pb_field f;
	int got, ret = 0;

	r->mappings = pc_xcalloc(r->nmappings ? r->nmappings : 1, sizeof(*r->mappings));
	r->functions = pc_xcalloc(r->nfunctions ? r->nfunctions : 1, sizeof(*r->functions));
	r->locations = pc_xcalloc(r->nlocations ? r->nlocations : 1, sizeof(*r->locations));
	while (!ret && (got = pb_next(&r->src, &c, &f)) > 0) {
		if (f.number == 3)
			ret = decode_mapping(r, &f, &r->mappings[nmappings++]);
		else if (f.number == 4)
			ret = decode_location(r, &f, &r->locations[nlocations++]);
		else if (f.number == 5)
			ret = decode_function(r, &f, &r->functions[nfunctions++]);
	}
	return ret || got < 0 ? -1 : 0;
}

/* ---- ids ---- */

/*
 * The map of n messages' ids (ids is taken; ats[i] is message i's offset,
 * for errors): -1 at an id 0 or an id used twice.
 */
static int map_ids(struct pprof_reader *r, struct id_map *map, uint64_t *ids, const uint32_t *ats,
		   size_t n, const char *what)
{
	uint64_t max = 0;

	map->n = n;
	for (size_t i = 0; i < n; i++) {
		if (!ids[i]) {
			free(ids);
			return pb_fail(&r->src, ats[i], "a %s with id 0, which pprof reserves", what);
		}
		max = ids[i] > max ? ids[i] : max;
	}
	if (max <= 4 * (uint64_t)n + DIRECT_SLACK) {
		map->ndirect = (size_t)max + 1;
		map->direct = pc_xcalloc(map->ndirect, sizeof(*map->direct));
		for (size_t i = 0; i < n; i++) {
			if (map->direct[ids[i]]) {
				uint64_t id = ids[i];

				free(ids);
				return pb_fail(&r->src, ats[i], "a second %s with id %llu", what,
					       (unsigned long long)id);
			}
			map->direct[ids[i]] = (uint32_t)i + 1;
		}
		free(ids);
		return 0;
	}
	map->ids = ids;
	map->order = pc_xmalloc(n * sizeof(*map->order));
	for (size_t i = 0; i < n; i++)
		map->order[i] = (uint32_t)i;
	pc_sort_by_keys(map->order, map->ids, n);
	for (size_t i = 1; i < n; i++)
		if (map->ids[i] == map->ids[i - 1]) /* stable: order[i] came later */
			return pb_fail(&r->src, ats[map->order[i]], "a second %s with id %llu", what,
				       (unsigned long long)map->ids[i]);
	return 0;
}

/* The index + 1 of the message with id, 0 when none has it. */
static uint32_t map_find(const struct id_map *map, uint64_t id)
{
	size_t lo = 0, hi = map->n;

	if (map->direct)
		return id < map->ndirect ? map->direct[id] : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < map->n && map->ids[lo] == id ? map->order[lo] + 1 : 0;
}

static void id_map_release(struct id_map *map)
{
	free(map->direct);
	free(map->ids);
	free(map->order);
}

/*
 * map_ids for n messages of stride bytes at items, their id and offset
 * at id_offset and at_offset.
 */
static int map_message_ids(struct pprof_reader *r, struct id_map *map, const void *items, size_t n,
			   size_t stride, size_t id_offset, size_t at_offset, const char *what)
{
	uint64_t *ids = pc_xmalloc((n ? n : 1) * sizeof(*ids));
	uint32_t *ats = pc_xmalloc((n ? n : 1) * sizeof(*ats));
	const uint8_t *item = items;
	int ret;

	for (size_t i = 0; i < n; i++, item += stride) {
		memcpy(&ids[i], item + id_offset, sizeof(*ids));
		memcpy(&ats[i], item + at_offset, sizeof(*ats));
	}
	ret = map_ids(r, map, ids, ats, n, what);
	free(ats);
	return ret;
}

/* Every location's mapping and every line's function, by index. */
static int resolve_ids(struct pprof_reader *r)
{
	if (map_message_ids(r, &r->mapping_ids, r->mappings, r->nmappings, sizeof(*r->mappings),
			    offsetof(struct pprof_mapping, id), offsetof(struct pprof_mapping, at),
			    "mapping") ||
	    map_message_ids(r, &r->function_ids, r->functions, r->nfunctions,
			    sizeof(*r->functions), offsetof(struct pprof_function, id),
			    offsetof(struct pprof_function, at), "function") ||
	    map_message_ids(r, &r->location_ids, r->locations, r->nlocations,
			    sizeof(*r->locations), offsetof(struct pprof_location, id),
			    offsetof(struct pprof_location, at), "location"))
		return -1;
	for (size_t i = 0; i < r->nlocations; i++) {
		struct pprof_location *location = &r->locations[i];
		uint32_t mapping = map_find(&r->mapping_ids, location->mapping);

		if (location->mapping && !mapping)
			return pb_fail(&r->src, location->at, "location %llu names mapping %llu, "
				       "which the profile does not have",
				       (unsigned long long)location->id,
				       (unsigned long long)location->mapping);
		location->mapping = mapping;
		for (uint32_t j = 0; j < location->nlines; j++) {
			struct pprof_line *line = &r->lines[location->first_line + j];
			uint32_t function = map_find(&r->function_ids, line->function);

			if (!function)
				return pb_fail(&r->src, line->at, "location %llu names function %llu, "
					       "which the profile does not have",
					       (unsigned long long)location->id,
					       (unsigned long long)line->function);
			line->function = function - 1;
		}
	}
	return 0;
}

/* ---- the model: modules, columns, metadata ---- */

/*
 * A module per mapping, in order. Mappings of one file and build id stay
 * apart: the first in address space 0, each other in space = its position.
 */
static void add_modules(struct pprof_reader *r)
{
	size_t n = r->nmappings;
	uint32_t *order = pc_xmalloc((n ? n : 1) * sizeof(*order));
	uint64_t *keys = pc_xmalloc((n ? n : 1) * sizeof(*keys));
	uint32_t *spaces = pc_xcalloc(n ? n : 1, sizeof(*spaces));

	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		keys[i] = (uint64_t)string_id(r, r->mappings[i].filename) << 32 |
			  string_id(r, r->mappings[i].build_id);
	}
	pc_sort_by_keys(order, keys, n);
	for (size_t i = 1; i < n; i++)
		if (keys[i] == keys[i - 1]) /* stable: the later mapping */
			spaces[order[i]] = order[i] + 1;
	for (size_t i = 0; i < n; i++) {
		struct pprof_mapping *mapping = &r->mappings[i];
		struct pc_module module = {
			.name = string_id(r, mapping->filename),
			.build_id = string_id(r, mapping->build_id),
			.space = spaces[i],
			.start = mapping->start,
			.limit = mapping->limit,
			.file_offset = mapping->file_offset,
			.has_range = true,
			.stated = mapping->stated,
		};

		mapping->module = pc_model_add_module(r->m, &module);
	}
	free(order);
	free(keys);
	free(spaces);
}

static int value_type(struct pprof_reader *r, const struct pb_field *outer, uint32_t *type,
		      uint32_t *unit)
{
	struct pb_cursor c = pb_inside(outer, PB_VALUE_TYPE);
	struct pb_field f;
	int got;

	*type = *unit = 0;
	while ((got = pb_next(&r->src, &c, &f)) > 0)
		if (string_index(r, &f, PB_VALUE_TYPE, f.number == 1 ? type : unit))
			return -1;
	return got < 0 ? -1 : 0;
}

/* The sample types' names, "a, b, c", for messages. */
static void type_names(struct pprof_reader *r, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->ntypes && used < size; i++) {
		const struct pc_column *column = pc_model_column(r->m, (size_t)r->columns[i]);

		used += (size_t)snprintf(buf + used, size - used, "%s'%s'", i ? ", " : "",
					 pc_str(r->m, column->type));
	}
	if (!r->ntypes)
		snprintf(buf, size, "none");
}

/* The default column: --event's, else default_sample_type's, else the last. */
static int pick_default(struct pprof_reader *r, uint32_t default_type)
{
	const char *event = r->ctx->opt.event;
	int column = r->ntypes ? r->columns[r->ntypes - 1] : -1;
	char names[256];

	for (size_t i = 0; i < r->ntypes && default_type; i++)
		if (pc_model_column(r->m, (size_t)r->columns[i])->type == string_id(r, default_type))
			column = r->columns[i];
	if (event) {
		column = pc_model_pick_column(r->m, event, PC_ROLE_VALUE);
		if (column < 0) {
			type_names(r, names, sizeof(names));
			return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "pprof: no sample type is named "
				       "'%s' (--event); the profile's sample types: %s", event, names);
		}
	}
	if (column >= 0 && (event || pc_model_default_column(r->m) < 0))
		pc_model_set_default_column(r->m, column);
	return 0;
}

static int add_columns(struct pprof_reader *r)
{
	bool used[PC_MAX_COLUMNS] = { false };
	uint32_t default_type = 0;

	for (size_t i = 0; i < r->ntypes; i++) {
		uint32_t type, unit;
		int column;

		if (value_type(r, &r->types[i], &type, &unit))
			return -1;
		column = pc_model_add_column(r->m, pc_str(r->m, string_id(r, type)),
					     pc_str(r->m, string_id(r, unit)));
		if (column < 0)
			return pb_fail(&r->src, r->types[i].at, "sample type %zu would be profconv's "
				       "column %d: it holds %d", i + 1, PC_MAX_COLUMNS + 1,
				       PC_MAX_COLUMNS);
		if (used[column])
			return pb_fail(&r->src, r->types[i].at, "two sample types are named '%s': "
				       "profconv needs distinct names",
				       pc_str(r->m, pc_model_column(r->m, (size_t)column)->type));
		used[column] = true;
		r->columns[i] = column;
	}
	if (r->default_type.number && string_index(r, &r->default_type, PB_PROFILE, &default_type))
		return -1;
	return pick_default(r, default_type);
}

/* A string field of the Profile as fact key (none when it is ""). */
static int add_string_fact(struct pprof_reader *r, const struct pb_field *f, const char *key)
{
	uint32_t index = 0;

	if (!f->number)
		return 0;
	if (string_index(r, f, PB_PROFILE, &index))
		return -1;
	if (index)
		pc_model_add_fact(r->m, key, pc_str(r->m, string_id(r, index)));
	return 0;
}

static int add_metadata(struct pprof_reader *r)
{
	uint32_t type = 0, unit = 0;

	if (r->has_period_type && value_type(r, &r->period_type, &type, &unit))
		return -1;
	if (!pc_model_period_type(r->m)->type && !pc_model_period_type(r->m)->unit &&
	    !pc_model_period(r->m))
		pc_model_set_period(r->m, string_id(r, type), string_id(r, unit), r->period);
	if (!pc_model_time_nanos(r->m) && !pc_model_duration_nanos(r->m))
		pc_model_set_time(r->m, r->time_nanos, r->duration_nanos);
	if (add_string_fact(r, &r->default_type, "pprof.default_sample_type") ||
	    add_string_fact(r, &r->drop_frames, "pprof.drop_frames") ||
	    add_string_fact(r, &r->keep_frames, "pprof.keep_frames") ||
	    add_string_fact(r, &r->doc_url, "pprof.doc_url"))
		return -1;
	return 0;
}

/* ---- the third pass: samples and comments, in order ---- */

/* The frames of location i (made on first use); *n of them. */
static const uint32_t *location_frames(struct pprof_reader *r, size_t i, size_t *n)
{
	struct pprof_location *location = &r->locations[i];
	struct pc_frame frame = {
		.module = location->mapping ? r->mappings[location->mapping - 1].module : 0,
		.flags = location->address ? PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE : 0,
		.address = location->address,
	};

	*n = location->nlines ? location->nlines : 1;
	if (location->folded && !location->nlines)
		frame.flags |= PC_FRAME_FOLDED;
	if (location->frames)
		return r->frames + location->frames - 1;
	pc_grow(&r->frames, &r->frames_cap, r->nframes + *n, sizeof(*r->frames));
	location->frames = (uint32_t)r->nframes + 1;
	r->used_locations++;
	if (!location->nlines)
		r->frames[r->nframes++] = pc_model_add_frame(r->m, &frame);
	for (uint32_t j = 0; j < location->nlines; j++) {
		const struct pprof_line *line = &r->lines[location->first_line + j];
		const struct pprof_function *function = &r->functions[line->function];
		struct pc_frame named = frame;
		uint32_t id;

		named.function = string_id(r, function->name);
		named.file = string_id(r, function->filename);
		named.line = line->line;
		named.start_line = function->start_line;
		if (j + 1 < location->nlines)
			named.flags |= PC_FRAME_INLINE;
		else if (location->folded)
			named.flags |= PC_FRAME_FOLDED;
		r->nameless_lines += !named.function;
		id = pc_model_add_frame(r->m, &named);
		if (string_id(r, function->system_name) != named.function)
			pc_model_set_system_name(r->m, id, string_id(r, function->system_name));
		r->frames[r->nframes++] = id;
	}
	return r->frames + location->frames - 1;
}

static int decode_label(struct pprof_reader *r, const struct pb_field *outer)
{
	struct pb_cursor c = pb_inside(outer, PB_LABEL);
	uint32_t key = 0, str = 0, unit = 0;
	int64_t num = 0;
	struct pb_field f;
	int got, ret = 0;

	while (!ret && (got = pb_next(&r->src, &c, &f)) > 0) {
		if (f.number == 1)
			ret = string_index(r, &f, PB_LABEL, &key);
		else if (f.number == 2)
			ret = string_index(r, &f, PB_LABEL, &str);
		else if (f.number == 3)
			num = (int64_t)f.value;
		else
			ret = string_index(r, &f, PB_LABEL, &unit);
	}
	if (ret || got < 0)
		return -1;
	if (!str && !num && !unit)
		return 0; /* neither a string nor a number: pprof drops it */
	pc_grow(&r->labels, &r->labels_cap, r->nlabels + 1, sizeof(*r->labels));
	r->labels[r->nlabels++] = (struct pc_label){
		.key = string_id(r, key),
		.str = str ? string_id(r, str) : 0,
		.num = str ? 0 : num,
		.unit = str ? 0 : string_id(r, unit),
	};
	return 0;
}

/* Room for the location ids of a Sample.location_id field (at most one per byte). */
static void reserve_location_refs(struct pprof_reader *r, const struct pb_field *f)
{
	size_t most = r->nlocation_refs + (f->wire == PB_WIRE_LEN ? f->len : 1);

	pc_grow(&r->location_refs, &r->location_refs_cap, most, sizeof(*r->location_refs));
	pc_grow(&r->location_ref_at, &r->location_ref_at_cap, most, sizeof(*r->location_ref_at));
}

static int add_location_ref(struct pprof_reader *r, uint64_t id, size_t at)
{
	r->location_ref_at[r->nlocation_refs] = (uint32_t)at;
	r->location_refs[r->nlocation_refs++] = id;
	return 0;
}

static int add_value(struct pprof_reader *r, const struct pb_field *outer, uint64_t value,
		     size_t at)
{
	if (r->nvalues == r->ntypes)
		return pb_fail(&r->src, outer->at, "a sample with more values than the profile's "
			       "%zu sample types", r->ntypes);
	if ((int64_t)value < 0)
		return pb_fail(&r->src, at, "a sample's value %zu is %lld: profconv keeps counts "
			       "from 0 to 2^63-1 (a pprof -diff_base profile?)", r->nvalues + 1,
			       (long long)value);
	r->values[r->nvalues++] = value;
	return 0;
}

/* A Sample's fields: its location ids, values and labels, into the reader's scratch. */
static int decode_sample(struct pprof_reader *r, const struct pb_field *outer)
{
	struct pb_cursor c = pb_inside(outer, PB_SAMPLE);
	struct pb_field f;
	int got, ret = 0;

	r->nlocation_refs = r->nvalues = r->nlabels = 0;
	while (!ret && (got = pb_next(&r->src, &c, &f)) > 0) {
		size_t pos = 0, at = f.wire == PB_WIRE_LEN ? f.data : f.at;
		uint64_t value;
		int more = 0;

		if (f.number == 3) {
			ret = decode_label(r, &f);
			continue;
		}
		if (f.number == 1)
			reserve_location_refs(r, &f);
		while (!ret && (more = pb_next_value(&r->src, &f, &pos, &value)) > 0) {
			ret = f.number == 1 ? add_location_ref(r, value, at) :
			      add_value(r, outer, value, at);
			at = pos;
		}
		ret = ret || more < 0 ? -1 : 0;
	}
	if (ret || got < 0)
		return -1;
	if (r->nvalues != r->ntypes)
		return pb_fail(&r->src, outer->at, "a sample with %zu values, but the profile has "
			       "%zu sample types", r->nvalues, r->ntypes);
	return 0;
}

static int add_sample(struct pprof_reader *r, const struct pb_field *outer)
{
	struct pc_sample sample = { 0 };
	size_t depth = 0;

	if (decode_sample(r, outer))
		return -1;
	if (!r->ntypes)
		return pb_fail(&r->src, outer->at, "a sample, but the profile has no sample types "
			       "(which pprof refuses too)");
	for (size_t i = 0; i < r->nlocation_refs; i++) {
		uint32_t location = map_find(&r->location_ids, r->location_refs[i]);
		const uint32_t *frames;
		size_t n;

		if (!location)
			return pb_fail(&r->src, r->location_ref_at[i], "a sample names location %llu, "
				       "which the profile does not have",
				       (unsigned long long)r->location_refs[i]);
		frames = location_frames(r, location - 1, &n);
		pc_grow(&r->stack, &r->stack_cap, depth + n, sizeof(*r->stack));
		memcpy(r->stack + depth, frames, n * sizeof(*frames));
		depth += n;
	}
	sample.stack = pc_model_add_stack(r->m, r->stack, depth);
	sample.labels = r->nlabels ? pc_model_add_labels(r->m, r->labels, r->nlabels) : 0;
	for (size_t c = 0; c < r->ntypes; c++)
		if ((r->values[c] || c == 0) &&
		    pc_model_add_sample(r->m, &sample, (size_t)r->columns[c], r->values[c]))
			return pb_fail(&r->src, outer->at, "a sample's '%s' value %llu added to an "
				       "equal sample's passes 2^63-1",
				       pc_str(r->m, pc_model_column(r->m, (size_t)r->columns[c])->type),
				       (unsigned long long)r->values[c]);
	return 0;
}

static int add_comments(struct pprof_reader *r, const struct pb_field *f)
{
	size_t pos = 0;
	uint64_t value;
	int more;

	while ((more = pb_next_value(&r->src, f, &pos, &value)) > 0) {
		const struct span *text;

		if (value >= r->nstrings)
			return pb_fail(&r->src, f->at, "Profile.comment: string index %lld is "
				       "outside the string table (%zu strings)", (long long)value,
				       r->nstrings);
		text = &r->strings[value];
		pc_model_add_comment_text(r->m, r->src.data + text->at, text->len);
	}
	return more;
}

static int add_samples_and_comments(struct pprof_reader *r)
{
	struct pb_cursor c = { .at = 0, .end = r->src.len, .message = PB_PROFILE };
	struct pb_field f;
	int got, ret = 0;

	while (!ret && (got = pb_next(&r->src, &c, &f)) > 0) {
		if (f.number == 2)
			ret = add_sample(r, &f);
		else if (f.number == 13)
			ret = add_comments(r, &f);
	}
	return ret || got < 0 ? -1 : 0;
}

/* ---- the reader ---- */

static int warn_losses(struct pprof_reader *r)
{
	/* without samples, the pipeline's one warning says it all */
	if (r->nsamples && r->used_locations < r->nlocations) /* no sample's data: a notice */
		pc_notice(r->ctx, PPROF_FORMAT, "%zu locations that no sample uses are dropped",
			  r->nlocations - r->used_locations);
	if (r->columns_lost && pc_warn(r->ctx, PPROF_FORMAT, "%zu lines have a column number: "
				       "columns are lost", r->columns_lost))
		return -1;
	if (r->nameless_lines && pc_warn(r->ctx, PPROF_FORMAT, "%zu lines of functions without a "
					 "name are lost", r->nameless_lines))
		return -1;
	return 0;
}

static size_t max_bytes(const struct pc_ctx *ctx)
{
	unsigned long mib = pc_option_count(ctx, "pprof-max-mib");

	return (size_t)(mib ? mib : PPROF_DEFAULT_MAX_MIB) << 20;
}

static int read_profile(struct pprof_reader *r, struct pc_input *in)
{
	if (pprof_load(&r->bytes, in, max_bytes(r->ctx), &r->ctx->err))
		return -1;
	r->src = (struct pb_source){
		.data = r->bytes.data,
		.len = r->bytes.len,
		.gunzipped = r->bytes.gunzipped,
		.err = &r->ctx->err,
	};
	pc_model_add_source(r->m, PPROF_FORMAT);
	if (scan_profile(r) || decode_messages(r) || resolve_ids(r))
		return -1;
	add_modules(r);
	if (add_columns(r) || add_metadata(r) || add_samples_and_comments(r))
		return -1;
	return warn_losses(r);
}

static void reader_release(struct pprof_reader *r)
{
	pprof_bytes_release(&r->bytes);
	free(r->strings);
	free(r->string_ids);
	free(r->mappings);
	free(r->functions);
	free(r->locations);
	free(r->lines);
	id_map_release(&r->mapping_ids);
	id_map_release(&r->function_ids);
	id_map_release(&r->location_ids);
	free(r->frames);
	free(r->location_refs);
	free(r->location_ref_at);
	free(r->labels);
	free(r->stack);
}

static int pprof_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct pprof_reader r = { .ctx = ctx, .m = m };
	int ret = read_profile(&r, in);

	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	reader_release(&r);
	return ret;
}

/* ---- info ---- */

static void print_header(const struct pprof_reader *r, FILE *out)
{
	const struct pc_model *m = r->m;
	const struct pc_value_type *period = pc_model_period_type(m);

	if (r->bytes.gunzipped)
		fprintf(out, "pprof profile: gzip, %llu bytes in %u member%s, %zu bytes decompressed\n",
			(unsigned long long)r->bytes.file_size, r->bytes.members,
			r->bytes.members == 1 ? "" : "s", r->bytes.len);
	else
		fprintf(out, "pprof profile: raw protobuf, %zu bytes\n", r->bytes.len);
	fprintf(out, "messages: %zu samples, %zu locations, %zu lines, %zu functions, "
		"%zu mappings, %zu strings, %zu comments\n", r->nsamples, r->nlocations, r->nlines,
		r->nfunctions, r->nmappings, r->nstrings, pc_model_ncomments(r->m));
	fprintf(out, "period: %lld %s/%s\n", (long long)pc_model_period(m), pc_str(m, period->type),
		pc_str(m, period->unit));
	fprintf(out, "time_nanos: %lld\nduration_nanos: %lld\n", (long long)r->time_nanos,
		(long long)r->duration_nanos);
	for (size_t i = 0; i < pc_model_nfacts(m); i++)
		fprintf(out, "%s: %s\n", pc_str(m, pc_model_fact(m, i)->key),
			pc_str(m, pc_model_fact(m, i)->value));
	for (size_t i = 0; i < pc_model_ncomments(m); i++)
		fprintf(out, "comment: %s\n", pc_str(m, pc_model_comment(m, i)));
}

/* Each sample type: type/unit, its total, and which is the default. */
static void print_events(const struct pprof_reader *r, FILE *out)
{
	const struct pc_model *m = r->m;

	for (size_t i = 0; i < r->ntypes; i++) {
		size_t c = (size_t)r->columns[i];
		uint64_t total = 0;

		for (size_t s = 0; s < pc_model_nsamples(m); s++)
			total += pc_model_values(m, s)[c]; /* each sum was checked on adding */
		fprintf(out, "sample type %zu: %s/%s total %llu%s\n", i + 1,
			pc_str(m, pc_model_column(m, c)->type), pc_str(m, pc_model_column(m, c)->unit),
			(unsigned long long)total,
			(int)c == pc_model_default_column(m) ? " (default)" : "");
	}
}

static int pprof_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views)
{
	struct pprof_reader r = { .ctx = ctx, .m = pc_model_new() };
	int ret = read_profile(&r, in);

	if (ret) {
		pc_error_set_path(&ctx->err, in->name);
	} else {
		pc_model_finalize(r.m);
		if (views & PC_INFO_HEADER)
			print_header(&r, out);
		if (views & PC_INFO_EVENTS)
			print_events(&r, out);
	}
	reader_release(&r);
	pc_model_free(r.m);
	return ret;
}

/* ---- probe and descriptor ---- */

/* A gzip member's first bytes that decompress to a Profile's. */
static int probe_gzip(const uint8_t *head, size_t len)
{
	uint8_t *out = pc_xmalloc(PROBE_OUT);
	z_stream zs = { 0 };
	int ret, evidence;
	bool partial;

	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) {
		free(out);
		return PC_PROBE_NO;
	}
	zs.next_in = (Bytef *)(uintptr_t)head;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)PROBE_OUT;
	ret = inflate(&zs, Z_SYNC_FLUSH);
	partial = !(ret == Z_STREAM_END && !zs.avail_in && len < PC_PROBE_BYTES);
	evidence = ret == Z_OK || ret == Z_STREAM_END || ret == Z_BUF_ERROR ?
		   pb_probe_profile(out, PROBE_OUT - zs.avail_out, partial) : -1;
	inflateEnd(&zs);
	free(out);
	if (evidence >= 2 || (evidence == 1 && !partial))
		return PC_PROBE_CERTAIN;
	return evidence == 1 ? PC_PROBE_STRONG : evidence == 0 ? PC_PROBE_WEAK : PC_PROBE_NO;
}

/*
 * Gzip whose data starts as a Profile's; or raw protobuf that is a
 * Profile's as far as the head goes, with two non-empty messages at least
 * (one when the head is the whole input), every field known and
 * well-formed: text and other binary formats fail that within a few bytes.
 */
static int pprof_probe(const uint8_t *head, size_t len)
{
	int evidence;

	if (len >= 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8)
		return probe_gzip(head, len);
	evidence = pb_probe_profile(head, len, len >= PC_PROBE_BYTES);
	if (evidence >= 2 || (evidence == 1 && len < PC_PROBE_BYTES))
		return PC_PROBE_STRONG;
	return PC_PROBE_NO;
}

static const char *const pprof_extensions[] = { ".pb.gz", ".pprof", ".pb", NULL };

static const struct pc_option_spec pprof_options[] = {
	{ "pprof-max-mib", PC_OPTION_COUNT, "MIB",
	  "the most MiB a pprof profile may take decompressed (default 1024)", PPROF_MAX_MIB },
	{ NULL, PC_OPTION_FLAG, NULL, NULL, 0 },
};

const struct pc_reader pc_pprof_reader = {
	.name = "pprof",
	.extensions = pprof_extensions,
	.summary = "pprof profile.proto, gzipped or raw (Go runtime/pprof, pprof -proto, perf_data_converter)",
	.provides = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS,
	.probe = pprof_probe,
	.read = pprof_read,
	.info = pprof_info,
	.options = pprof_options,
};
