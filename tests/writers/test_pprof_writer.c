/*
 * test_pprof_writer.c - models built by hand, written as pprof, gunzipped
 * and unpacked with protobuf-c, then checked field by field.
 */
#include "pipeline/registry.h"
#include "support/caller_callee.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <zlib.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;

struct fixture {
	struct pc_model *m;
	struct pc_ctx ctx;
	char *gz;        /* the written bytes */
	size_t gz_size;
	Profile *p;      /* the unpacked profile */
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	f->m = pc_model_new();
	pc_ctx_init(&f->ctx);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->p)
		perftools__profiles__profile__free_unpacked(f->p, NULL);
	free(f->gz);
	pc_model_free(f->m);
	free(f);
	return 0;
}

/* ---- helpers ---- */

/*
 * Inflates a gzip stream of one or more members (the writer makes one per
 * block of output); returns a malloc'd buffer of *size bytes.
 */
static uint8_t *gunzip(const char *gz, size_t gz_size, size_t *size)
{
	z_stream stream = { .next_in = (Bytef *)gz, .avail_in = (uInt)gz_size };
	size_t cap = 4096, have = 0;
	uint8_t *buf = pc_xmalloc(cap);
	int rc;

	assert_int_equal(inflateInit2(&stream, 16 + MAX_WBITS), Z_OK);
	for (;;) {
		if (have == cap) {
			cap *= 2;
			buf = pc_xrealloc(buf, cap);
		}
		stream.next_out = buf + have;
		stream.avail_out = (uInt)(cap - have);
		rc = inflate(&stream, Z_NO_FLUSH);
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
		have = cap - stream.avail_out;
		if (rc == Z_STREAM_END) {
			if (!stream.avail_in)
				break;
			assert_int_equal(inflateReset(&stream), Z_OK);
		}
	}
	*size = have;
	inflateEnd(&stream);
	return buf;
}

/* Finalizes the model and writes it; returns the writer's status. */
static int write_model(struct fixture *f, char **gz, size_t *gz_size)
{
	const struct pc_writer *writer = pc_writer_find("pprof");

	assert_non_null(writer);
	return pct_write_model(&f->ctx, f->m, writer, gz, gz_size);
}

/*
 * Writes, gunzips and unpacks into f->p; fails the test on any error. The
 * writer streams the Profile in parts, so it also checks that the bytes
 * are exactly protobuf-c's own packing of what was unpacked.
 */
static Profile *convert(struct fixture *f)
{
	uint8_t *raw, *repacked;
	size_t raw_size;

	assert_int_equal(write_model(f, &f->gz, &f->gz_size), 0);
	raw = gunzip(f->gz, f->gz_size, &raw_size);
	f->p = perftools__profiles__profile__unpack(NULL, raw_size, raw);
	assert_non_null(f->p);
	assert_int_equal(perftools__profiles__profile__get_packed_size(f->p), raw_size);
	repacked = pc_xmalloc(raw_size);
	perftools__profiles__profile__pack(f->p, repacked);
	assert_memory_equal(repacked, raw, raw_size);
	free(repacked);
	free(raw);
	return f->p;
}

static const char *str(const Profile *p, int64_t index)
{
	assert_true(index >= 0 && (size_t)index < p->n_string_table);
	return p->string_table[index];
}

static pc_str_id intern(struct fixture *f, const char *text)
{
	return pc_model_intern_cstr(f->m, text);
}

static uint32_t module(struct fixture *f, const char *name, const char *build_id)
{
	struct pc_module mod = {
		.name = intern(f, name),
		.build_id = intern(f, build_id),
	};

	return pc_model_add_module(f->m, &mod);
}

static uint32_t frame(struct fixture *f, uint32_t mod, uint64_t address,
		      const char *function, uint32_t flags)
{
	struct pc_frame fr = {
		.module = mod,
		.flags = PC_FRAME_HAS_ADDRESS | flags,
		.address = address,
		.function = function ? intern(f, function) : 0,
	};

	return pc_model_add_frame(f->m, &fr);
}

static uint32_t source_frame(struct fixture *f, uint32_t mod, uint64_t address,
			     const char *function, const char *file, uint32_t line)
{
	struct pc_frame fr = {
		.module = mod,
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = address,
		.function = intern(f, function),
		.file = intern(f, file),
		.line = line,
	};

	return pc_model_add_frame(f->m, &fr);
}

static int column(struct fixture *f, const char *type)
{
	return pc_model_add_column(f->m, type, "count");
}

static void add(struct fixture *f, uint32_t stack, uint32_t labels, uint32_t branches,
		int col, uint64_t count)
{
	struct pc_sample s = { .stack = stack, .labels = labels, .branches = branches };

	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)col, count), 0);
}

static void assert_ids(const uint64_t *ids, size_t n, const uint64_t *want, size_t nwant)
{
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(ids[i], want[i]);
}

#define ASSERT_IDS(ids, n, ...) \
	do { \
		const uint64_t want_[] = { __VA_ARGS__ }; \
		assert_ids((ids), (n), want_, PC_ARRAY_SIZE(want_)); \
	} while (0)

static const char *function_name(const Profile *p, uint64_t id)
{
	assert_true(id >= 1 && id <= p->n_function);
	assert_int_equal(p->function[id - 1]->id, id);
	return str(p, p->function[id - 1]->name);
}

/* The function name of line i of location id. */
static const char *line_name(const Profile *p, uint64_t id, size_t i)
{
	const Perftools__Profiles__Location *loc = p->location[id - 1];

	assert_int_equal(loc->id, id);
	assert_true(i < loc->n_line);
	return function_name(p, loc->line[i]->function_id);
}

static const struct pc_warning *warning_like(const struct pc_ctx *ctx, const char *part)
{
	for (size_t i = 0; i < ctx->nwarnings; i++)
		if (strstr(ctx->warnings[i].text, part))
			return &ctx->warnings[i];
	return NULL;
}

static bool has_comment(const Profile *p, const char *text)
{
	for (size_t i = 0; i < p->n_comment; i++)
		if (!strcmp(str(p, p->comment[i]), text))
			return true;
	return false;
}

static const char *mapping_file(const Profile *p, size_t i)
{
	assert_true(i < p->n_mapping);
	assert_int_equal(p->mapping[i]->id, i + 1);
	return str(p, p->mapping[i]->filename);
}

/* The mapping of the location at address. */
static uint64_t mapping_at(const Profile *p, uint64_t address)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->address == address)
			return p->location[i]->mapping_id;
	fail_msg("no location at 0x%llx", (unsigned long long)address);
	return 0;
}

/* ---- tests ---- */

static void test_empty_model_still_has_a_sample_type(void **state)
{
	struct fixture *f = *state;
	Profile *p = convert(f);

	assert_true(p->n_string_table >= 1);
	assert_string_equal(p->string_table[0], "");
	assert_int_equal(p->n_sample_type, 1);
	assert_string_equal(str(p, p->sample_type[0]->type), "samples");
	assert_string_equal(str(p, p->sample_type[0]->unit), "count");
	assert_string_equal(str(p, p->default_sample_type), "samples");
	assert_int_equal(p->n_sample, 0);
	assert_int_equal(p->n_mapping, 0);
	assert_int_equal(p->time_nanos, 0);
	assert_null(p->period_type);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_gzip_header_is_fixed(void **state)
{
	struct fixture *f = *state;
	/* deflate, no flags, mtime 0, XFL 4 (fastest level), OS 3 (Unix) */
	static const unsigned char header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };

	column(f, "samples");
	convert(f);
	assert_true(f->gz_size > sizeof(header));
	assert_memory_equal(f->gz, header, sizeof(header));
}

static void test_string_table_interned_and_used_only(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t mod = module(f, "app", "");
	uint32_t a = frame(f, mod, 0x10, "work", 0), b = frame(f, mod, 0x20, "work", 0);
	uint32_t stack[] = { a, b };
	Profile *p;

	intern(f, "never used");
	add(f, pc_model_add_stack(f->m, stack, 2), 0, 0, col, 1);
	p = convert(f);
	assert_string_equal(p->string_table[0], "");
	for (size_t i = 1; i < p->n_string_table; i++) {
		assert_string_not_equal(p->string_table[i], "never used");
		assert_string_not_equal(p->string_table[i], "");
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(p->string_table[i], p->string_table[j]);
	}
	/* two locations, one function "work" */
	assert_int_equal(p->n_location, 2);
	assert_int_equal(p->n_function, 1);
	assert_int_equal(p->function[0]->name, p->function[0]->system_name);
}

static void test_dense_ids_and_leaf_first(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app.exe", ""), lib = module(f, "lib.dll", "");
	uint32_t leaf = frame(f, lib, 0x500, "leaf", 0);
	uint32_t mid = frame(f, app, 0x200, "mid", 0);
	uint32_t root = frame(f, app, 0x100, "main", 0);
	uint32_t stack[] = { leaf, mid, root }, other[] = { mid, root };
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 3), 0, 0, col, 5);
	add(f, pc_model_add_stack(f->m, other, 2), 0, 0, col, 2);
	p = convert(f);

	assert_int_equal(p->n_mapping, 2);
	assert_int_equal(p->mapping[0]->id, 1);
	assert_string_equal(str(p, p->mapping[0]->filename), "app.exe");
	assert_int_equal(p->mapping[1]->id, 2);
	assert_string_equal(str(p, p->mapping[1]->filename), "lib.dll");
	assert_int_equal(p->n_location, 3);
	assert_int_equal(p->n_function, 3);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_location; i++)
		assert_int_equal(p->location[i]->id, i + 1);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		const char *leaf_name = line_name(p, s->location_id[0], 0);

		if (s->n_location_id == 3) {
			assert_string_equal(leaf_name, "leaf");
			assert_string_equal(line_name(p, s->location_id[1], 0), "mid");
			assert_string_equal(line_name(p, s->location_id[2], 0), "main");
			assert_int_equal(s->value[0], 5);
		} else {
			assert_int_equal(s->n_location_id, 2);
			assert_string_equal(leaf_name, "mid");
			assert_int_equal(s->value[0], 2);
		}
	}
	/* the leaf location lies in lib.dll, the others in app.exe */
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];

		if (!strcmp(line_name(p, loc->id, 0), "leaf")) {
			assert_int_equal(loc->mapping_id, 2);
			assert_int_equal(loc->address, 0x500);
		} else {
			assert_int_equal(loc->mapping_id, 1);
		}
	}
}

static void test_inline_frames_fold_into_physical_location(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "");
	uint32_t inner = frame(f, app, 0x1234, "inner", PC_FRAME_INLINE);
	uint32_t middle = frame(f, app, 0x1234, "middle", PC_FRAME_INLINE);
	uint32_t outer = frame(f, app, 0x1234, "outer", 0);
	uint32_t root = frame(f, app, 0x100, "main", 0);
	uint32_t stack[] = { inner, middle, outer, root };
	const Perftools__Profiles__Location *loc;
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 4), 0, 0, col, 1);
	p = convert(f);
	assert_int_equal(p->n_sample, 1);
	assert_int_equal(p->sample[0]->n_location_id, 2);
	assert_int_equal(p->n_location, 2);
	loc = p->location[p->sample[0]->location_id[0] - 1];
	assert_int_equal(loc->address, 0x1234);
	assert_int_equal(loc->n_line, 3);
	assert_string_equal(line_name(p, loc->id, 0), "inner");
	assert_string_equal(line_name(p, loc->id, 1), "middle");
	assert_string_equal(line_name(p, loc->id, 2), "outer");
	loc = p->location[p->sample[0]->location_id[1] - 1];
	assert_int_equal(loc->n_line, 1);
	assert_string_equal(line_name(p, loc->id, 0), "main");
	assert_int_equal(p->n_function, 4);
	assert_true(p->mapping[0]->has_functions);
	assert_true(p->mapping[0]->has_inline_frames);
}

static void test_unnamed_frames_give_bare_locations(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", ""), lib = module(f, "lib", "");
	uint32_t bare = frame(f, app, 0x10, NULL, 0);
	uint32_t named = source_frame(f, lib, 0x20, "fn", "fn.c", 7);
	uint32_t stack[] = { bare, named };
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 2), 0, 0, col, 1);
	p = convert(f);
	assert_int_equal(p->location[0]->n_line, 0);
	assert_int_equal(p->location[0]->mapping_id, 1);
	assert_false(p->mapping[0]->has_functions);
	assert_false(p->mapping[0]->has_filenames);
	assert_false(p->mapping[0]->has_line_numbers);
	assert_int_equal(p->location[1]->n_line, 1);
	assert_int_equal(p->location[1]->line[0]->line, 7);
	assert_int_equal(p->n_function, 1);
	assert_string_equal(str(p, p->function[0]->filename), "fn.c");
	assert_true(p->mapping[1]->has_functions);
	assert_true(p->mapping[1]->has_filenames);
	assert_true(p->mapping[1]->has_line_numbers);
	assert_false(p->mapping[1]->has_inline_frames);
}

static void test_functions_keyed_by_name_file_and_binary(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", ""), lib = module(f, "lib", "");
	uint32_t a = source_frame(f, app, 0x10, "fn", "a.c", 1);
	uint32_t b = source_frame(f, app, 0x20, "fn", "a.c", 2);
	uint32_t c = source_frame(f, app, 0x30, "fn", "b.c", 3);
	uint32_t d = source_frame(f, lib, 0x40, "fn", "a.c", 1);
	uint32_t stack[] = { a, b, c, d };
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 4), 0, 0, col, 1);
	p = convert(f);
	assert_int_equal(p->n_location, 4);
	assert_int_equal(p->n_function, 3);
	assert_int_equal(p->location[0]->line[0]->function_id, 1);
	assert_int_equal(p->location[1]->line[0]->function_id, 1);
	assert_int_equal(p->location[2]->line[0]->function_id, 2);
	assert_int_equal(p->location[3]->line[0]->function_id, 3);
	assert_string_equal(str(p, p->function[1]->filename), "b.c");
	assert_string_equal(str(p, p->function[2]->name), "fn");
}

static void test_sample_types_and_default(void **state)
{
	struct fixture *f = *state;
	uint32_t app = module(f, "app", "");
	uint32_t leaf = frame(f, app, 0x10, "fn", 0);
	uint32_t stack;
	int a = column(f, "alpha"), b = pc_model_add_column(f->m, "beta", "nanoseconds");
	int c = column(f, "gamma");
	Profile *p;

	pc_model_set_default_column(f->m, b);
	stack = pc_model_add_stack(f->m, &leaf, 1);
	add(f, stack, 0, 0, a, 1);
	add(f, stack, 0, 0, b, 2000);
	add(f, stack, 0, 0, c, 3);
	p = convert(f);
	assert_int_equal(p->n_sample_type, 3);
	assert_string_equal(str(p, p->sample_type[0]->type), "alpha");
	assert_string_equal(str(p, p->sample_type[1]->type), "beta");
	assert_string_equal(str(p, p->sample_type[1]->unit), "nanoseconds");
	assert_string_equal(str(p, p->sample_type[2]->type), "gamma");
	assert_string_equal(str(p, p->sample_type[2]->unit), "count");
	assert_string_equal(str(p, p->default_sample_type), "beta");
	assert_int_equal(p->n_sample, 1);
	assert_int_equal(p->sample[0]->n_value, 3);
	assert_int_equal(p->sample[0]->value[0], 1);
	assert_int_equal(p->sample[0]->value[1], 2000);
	assert_int_equal(p->sample[0]->value[2], 3);
}

/* Forgets the written profile, to write the model again. */
static void forget_output(struct fixture *f)
{
	perftools__profiles__profile__free_unpacked(f->p, NULL);
	f->p = NULL;
	free(f->gz);
	f->gz = NULL;
}

/* The two columns the perf script reader makes for an event; returns the weight's. */
static int perf_event(struct fixture *f, const char *event, const char *unit)
{
	char type[128];

	snprintf(type, sizeof(type), "%s_sample", event);
	assert_true(pc_model_add_event_column(f->m, type, "count", event, PC_ROLE_SAMPLES) >= 0);
	snprintf(type, sizeof(type), "%s_event", event);
	return pc_model_add_event_column(f->m, type, unit, event, PC_ROLE_WEIGHT);
}

/* One sample of a one-frame stack with count in every column. */
static void add_everywhere(struct fixture *f, uint64_t count)
{
	uint32_t leaf = frame(f, module(f, "app", ""), 0x10, "fn", 0);
	uint32_t stack = pc_model_add_stack(f->m, &leaf, 1);

	for (size_t c = 0; c < pc_model_ncolumns(f->m); c++)
		add(f, stack, 0, 0, (int)c, count);
}

static void assert_type(const Profile *p, size_t c, const char *type, const char *unit)
{
	assert_true(c < p->n_sample_type);
	assert_string_equal(str(p, p->sample_type[c]->type), type);
	assert_string_equal(str(p, p->sample_type[c]->unit), unit);
}

/* One perf clock event: samples/count and cpu/nanoseconds, its period typed so. */
static void test_one_clock_event_is_cpu(void **state)
{
	struct fixture *f = *state;
	int weight = perf_event(f, "cpu-clock:ppp", "nanoseconds");
	Profile *p;

	pc_model_set_default_column(f->m, weight);
	pc_model_set_period(f->m, intern(f, "cpu-clock:ppp_event"), intern(f, "nanoseconds"),
			    1001001);
	add_everywhere(f, 3);
	p = convert(f);
	assert_int_equal(p->n_sample_type, 2);
	assert_type(p, 0, "samples", "count");
	assert_type(p, 1, "cpu", "nanoseconds");
	assert_string_equal(str(p, p->default_sample_type), "cpu");
	assert_non_null(p->period_type);
	assert_string_equal(str(p, p->period_type->type), "cpu");
	assert_string_equal(str(p, p->period_type->unit), "nanoseconds");
	assert_int_equal(p->period, 1001001);
	/* the model's names are not stored: only used strings are */
	for (size_t i = 0; i < p->n_string_table; i++)
		assert_null(strstr(p->string_table[i], "_event"));
}

/* task-clock is a clock too; a clock counted without periods is not time. */
static void test_one_event_other_names(void **state)
{
	struct fixture *f = *state;
	Profile *p;

	perf_event(f, "task-clock:u", "nanoseconds");
	add_everywhere(f, 1);
	p = convert(f);
	assert_type(p, 0, "samples", "count");
	assert_type(p, 1, "cpu", "nanoseconds");
	forget_output(f);
	pc_model_free(f->m);
	f->m = pc_model_new();

	perf_event(f, "cpu-clock", "count");
	add_everywhere(f, 1);
	p = convert(f);
	assert_type(p, 0, "samples", "count");
	assert_type(p, 1, "cpu-clock", "count");
}

static void test_one_other_event(void **state)
{
	struct fixture *f = *state;
	int weight = perf_event(f, "page-faults:u", "count");
	Profile *p;

	pc_model_set_default_column(f->m, weight);
	pc_model_set_period(f->m, intern(f, "page-faults:u_event"), intern(f, "count"), 64);
	add_everywhere(f, 2);
	p = convert(f);
	assert_type(p, 0, "samples", "count");
	assert_type(p, 1, "page-faults", "count");
	assert_string_equal(str(p, p->default_sample_type), "page-faults");
	assert_string_equal(str(p, p->period_type->type), "page-faults");
	assert_int_equal(p->period, 64);
}

/* Several events: EVENT_samples and EVENT, without modifiers, in model order. */
static void test_several_events(void **state)
{
	struct fixture *f = *state;
	int weight = perf_event(f, "cpu-clock:ppp", "nanoseconds");
	Profile *p;

	perf_event(f, "page-faults/period=64/", "count");
	perf_event(f, "sched:sched_switch", "count");
	pc_model_set_default_column(f->m, weight);
	pc_model_set_period(f->m, intern(f, "cpu-clock:ppp_event"), intern(f, "nanoseconds"),
			    250000);
	add_everywhere(f, 5);
	p = convert(f);
	assert_int_equal(p->n_sample_type, 6);
	assert_type(p, 0, "cpu-clock_samples", "count");
	assert_type(p, 1, "cpu-clock", "nanoseconds");
	assert_type(p, 2, "page-faults/period=64/_samples", "count");
	assert_type(p, 3, "page-faults/period=64/", "count");
	assert_type(p, 4, "sched:sched_switch_samples", "count");
	assert_type(p, 5, "sched:sched_switch", "count");
	assert_string_equal(str(p, p->default_sample_type), "cpu-clock");
	assert_string_equal(str(p, p->period_type->type), "cpu-clock");
	assert_int_equal(p->sample[0]->value[5], 5);
}

/* Two events that would collide without their modifiers keep their full names. */
static void test_colliding_events_keep_modifiers(void **state)
{
	struct fixture *f = *state;
	Profile *p;

	perf_event(f, "cycles:u", "count");
	perf_event(f, "cycles:k", "count");
	perf_event(f, "instructions:u", "count");
	add_everywhere(f, 1);
	p = convert(f);
	assert_type(p, 0, "cycles:u_samples", "count");
	assert_type(p, 1, "cycles:u", "count");
	assert_type(p, 2, "cycles:k_samples", "count");
	assert_type(p, 3, "cycles:k", "count");
	assert_type(p, 4, "instructions_samples", "count");
	assert_type(p, 5, "instructions", "count");
}

/* Columns that are no perf pair keep their names; a pair whose name is taken too. */
static void test_other_columns_keep_names(void **state)
{
	struct fixture *f = *state;
	Profile *p;

	column(f, "unhalted_cycle");
	pc_model_add_event_column(f->m, "samples", "count", "samples", PC_ROLE_SAMPLES);
	add_everywhere(f, 1);
	p = convert(f);
	assert_type(p, 0, "unhalted_cycle", "count");
	assert_type(p, 1, "samples", "count");
	forget_output(f);

	/* a perf pair beside a folded "samples" column: "samples" would be taken twice */
	perf_event(f, "cpu-clock", "nanoseconds");
	add_everywhere(f, 1);
	p = convert(f);
	assert_int_equal(p->n_sample_type, 4);
	assert_type(p, 1, "samples", "count");
	assert_type(p, 2, "cpu-clock_sample", "count");
	assert_type(p, 3, "cpu-clock_event", "nanoseconds");
}

static void test_samples_merge_after_dropping_branches(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "");
	uint32_t x = frame(f, app, 0x10, "x", 0), y = frame(f, app, 0x20, "y", 0);
	struct pc_branch branch = { .from = x, .to = y };
	uint32_t stack = pc_model_add_stack(f->m, &x, 1);
	const struct pc_warning *warning;
	Profile *p;

	add(f, stack, 0, 0, col, 40);
	add(f, stack, 0, pc_model_add_branches(f->m, &branch, 1), col, 2);
	p = convert(f);
	assert_int_equal(p->n_sample, 1);
	assert_int_equal(p->sample[0]->value[0], 42);
	ASSERT_IDS(p->sample[0]->location_id, p->sample[0]->n_location_id, 1);
	warning = warning_like(&f->ctx, "pprof keeps no branch stacks of samples that have call stacks");
	assert_non_null(warning);
	assert_int_equal(warning->count, 1);
}

static void test_labels_keep_units_and_zero(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "");
	uint32_t leaf = frame(f, app, 0x10, "fn", 0);
	uint32_t stack = pc_model_add_stack(f->m, &leaf, 1);
	struct pc_label first[] = {
		{ .key = intern(f, "pid"), .num = 0, .unit = intern(f, "pid") },
		{ .key = intern(f, "thread"), .str = intern(f, "main thread") },
		{ .key = intern(f, "bytes"), .num = -7 },
	};
	struct pc_label second[] = {
		{ .key = intern(f, "pid"), .num = 4242, .unit = intern(f, "pid") },
	};
	size_t checked = 0;
	Profile *p;

	add(f, stack, pc_model_add_labels(f->m, first, 3), 0, col, 1);
	add(f, stack, pc_model_add_labels(f->m, second, 1), 0, col, 2);
	add(f, stack, pc_model_add_labels(f->m, second, 1), 0, col, 3);
	p = convert(f);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];

		for (size_t j = 0; j < s->n_label; j++) {
			const Perftools__Profiles__Label *l = s->label[j];
			const char *key = str(p, l->key);

			if (!strcmp(key, "pid") && s->value[0] == 1) {
				assert_int_equal(l->num, 0);
				assert_string_equal(str(p, l->num_unit), "pid");
				assert_int_equal(l->str, 0);
			} else if (!strcmp(key, "pid")) {
				assert_int_equal(s->value[0], 5);
				assert_int_equal(l->num, 4242);
				assert_string_equal(str(p, l->num_unit), "pid");
			} else if (!strcmp(key, "thread")) {
				assert_string_equal(str(p, l->str), "main thread");
				assert_int_equal(l->num, 0);
				assert_int_equal(l->num_unit, 0);
			} else {
				assert_string_equal(key, "bytes");
				assert_int_equal(l->num, -7);
				assert_int_equal(l->num_unit, 0);
			}
			checked++;
		}
	}
	assert_int_equal(checked, 4);
}

static void test_lbr_becomes_to_from_samples(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "lbr_branch");
	uint32_t app = module(f, "app", "");
	uint32_t f1 = frame(f, app, 0x100, NULL, 0), t1 = frame(f, app, 0x200, NULL, 0);
	uint32_t f2 = frame(f, app, 0x300, NULL, 0), t2 = frame(f, app, 0x400, NULL, 0);
	struct pc_branch record[] = { { .from = f1, .to = t1 }, { .from = f2, .to = t2 } };
	struct pc_branch again[] = { { .from = f2, .to = t2 } };
	uint64_t total = 0;
	Profile *p;

	add(f, 0, 0, pc_model_add_branches(f->m, record, 2), col, 3);
	add(f, 0, 0, pc_model_add_branches(f->m, again, 1), col, 10);
	p = convert(f);
	assert_int_equal(p->n_sample, 2);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *s = p->sample[i];
		uint64_t to = p->location[s->location_id[0] - 1]->address;
		uint64_t from = p->location[s->location_id[1] - 1]->address;

		assert_int_equal(s->n_location_id, 2);
		if (to == 0x200) {
			assert_int_equal(from, 0x100);
			assert_int_equal(s->value[0], 3);
		} else {
			assert_int_equal(to, 0x400);
			assert_int_equal(from, 0x300);
			assert_int_equal(s->value[0], 13);
		}
		total += (uint64_t)s->value[0];
	}
	assert_int_equal(total, 16);
	assert_true(has_comment(p, "lbr_branch samples are branch edges: each stack is "
				"[to, from] (target as leaf), not a call stack"));
}

static void test_spt_style_mapping(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "unhalted_cycle");
	uint32_t app = module(f, "app.exe", "6d2a9f130c4b4e8a9f213b7c55d1e0a41a");
	uint32_t unused = module(f, "unused.dll", "00000000000000000000000000000000" "0");
	uint32_t low = frame(f, app, 0x1000, NULL, 0), high = frame(f, app, 0x2345, NULL, 0);
	const Perftools__Profiles__Mapping *map;
	Profile *p;

	assert_int_equal(unused, 2);
	add(f, pc_model_add_stack(f->m, &low, 1), 0, 0, col, 7);
	add(f, pc_model_add_stack(f->m, &high, 1), 0, 0, col, (1ull << 62) + 3);
	p = convert(f);
	assert_int_equal(p->n_mapping, 2);
	map = p->mapping[0];
	assert_int_equal(map->id, 1);
	assert_int_equal(map->memory_start, 0);
	assert_int_equal(map->memory_limit, 0x2346);
	assert_int_equal(map->file_offset, 0);
	assert_string_equal(str(p, map->build_id), "6d2a9f130c4b4e8a9f213b7c55d1e0a41a");
	assert_false(map->has_functions);
	map = p->mapping[1];
	assert_string_equal(str(p, map->filename), "unused.dll");
	assert_int_equal(map->memory_limit, 0);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Location *loc = p->location[p->sample[i]->location_id[0] - 1];

		assert_int_equal(loc->n_line, 0);
		assert_int_equal(loc->mapping_id, 1);
		if (loc->address == 0x2345)
			assert_int_equal(p->sample[i]->value[0], (int64_t)((1ull << 62) + 3));
		else
			assert_int_equal(p->sample[i]->value[0], 7);
	}
}

/* A PE image by RVA (SPT): a PDB id, no range. */
static uint32_t pe_module(struct fixture *f, const char *name, uint32_t age)
{
	struct pc_module mod = {
		.name = intern(f, name),
		.build_id = intern(f, "6d2a9f130c4b4e8a9f213b7c55d1e0a41a"),
		.has_pdb = true,
		.pdb = { 0x6d2a9f13, 0x0c4b, 0x4e8a,
			 { 0x9f, 0x21, 0x3b, 0x7c, 0x55, 0xd1, 0xe0, 0xa4 }, age },
	};

	return pc_model_add_module(f->m, &mod);
}

static void test_pe_image_placed_for_pprof(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "unhalted_cycle");
	uint32_t app = pe_module(f, "C:\\build\\app.exe", 0x1a);
	uint32_t dll = pe_module(f, "\\Device\\HarddiskVolume3\\lib.dll", 2);
	uint32_t headers = frame(f, app, 0x10, NULL, 0), code = frame(f, app, 0x2345, NULL, 0);
	uint32_t lib = frame(f, dll, 0x1000, NULL, 0);
	const Perftools__Profiles__Mapping *map;
	Profile *p;

	add(f, pc_model_add_stack(f->m, &headers, 1), 0, 0, col, 3);
	add(f, pc_model_add_stack(f->m, &code, 1), 0, 0, col, 5);
	add(f, pc_model_add_stack(f->m, &lib, 1), 0, 0, col, 7);
	p = convert(f);
	assert_int_equal(p->n_mapping, 2);
	map = p->mapping[0];
	assert_string_equal(str(p, map->filename), "/C:/build/app.exe");
	assert_int_equal(map->memory_start, 1ull << 40);
	assert_int_equal(map->memory_limit, (1ull << 40) + 0x2346);
	assert_int_equal(map->file_offset, 0);
	assert_int_equal(map->build_id, 0);
	assert_false(map->has_functions);
	map = p->mapping[1];
	assert_string_equal(str(p, map->filename), "/Device/HarddiskVolume3/lib.dll");
	assert_int_equal(map->memory_start, 2ull << 40);
	assert_int_equal(map->memory_limit, (2ull << 40) + 0x1001);
	assert_int_equal(p->n_location, 3);
	assert_int_equal(p->location[0]->mapping_id, 0); /* in the headers */
	assert_int_equal(p->location[0]->address, 0x10);
	assert_int_equal(p->location[1]->mapping_id, 1);
	assert_int_equal(p->location[1]->address, (1ull << 40) + 0x2345);
	assert_int_equal(p->location[2]->mapping_id, 2);
	assert_int_equal(p->location[2]->address, (2ull << 40) + 0x1000);
	assert_int_equal(p->sample[0]->value[0], 3);
	assert_true(has_comment(p, "mapping 1 /C:/build/app.exe: PDB "
				   "{6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 0x1a"));
	assert_true(has_comment(p, "mapping 2 /Device/HarddiskVolume3/lib.dll: PDB "
				   "{6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 0x2"));
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(warning_like(&f->ctx, "1 locations lie below RVA 0x1000"));
}

static void test_pe_build_ids_option(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "unhalted_cycle");
	uint32_t app = pe_module(f, "app.exe", 0x1a);
	uint32_t code = frame(f, app, 0x2345, NULL, 0);
	Profile *p;

	add(f, pc_model_add_stack(f->m, &code, 1), 0, 0, col, 5);
	pc_ctx_set(&f->ctx, "pe-build-ids", NULL);
	p = convert(f);
	assert_string_equal(str(p, p->mapping[0]->filename), "app.exe");
	assert_string_equal(str(p, p->mapping[0]->build_id), "6d2a9f130c4b4e8a9f213b7c55d1e0a41a");
	assert_int_equal(p->mapping[0]->memory_start, 1ull << 40);
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* A PE image that becomes mapping 1 is placed by its new id, and so named in its comment. */
static void test_pe_image_placed_by_mapping_id(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "unhalted_cycle");
	uint32_t dll = pe_module(f, "C:\\app\\lib.dll", 2);
	uint32_t app = pe_module(f, "C:\\app\\app.exe", 0x1a);
	uint32_t in_dll = frame(f, dll, 0x1000, NULL, 0), in_app = frame(f, app, 0x2000, NULL, 0);
	Profile *p;

	add(f, pc_model_add_stack(f->m, &in_dll, 1), 0, 0, col, 9);
	add(f, pc_model_add_stack(f->m, &in_app, 1), 0, 0, col, 3);
	p = convert(f);
	assert_string_equal(mapping_file(p, 0), "/C:/app/app.exe");
	assert_int_equal(p->mapping[0]->memory_start, 1ull << 40);
	assert_string_equal(mapping_file(p, 1), "/C:/app/lib.dll");
	assert_int_equal(p->mapping[1]->memory_start, 2ull << 40);
	assert_int_equal(mapping_at(p, (1ull << 40) + 0x2000), 1);
	assert_int_equal(mapping_at(p, (2ull << 40) + 0x1000), 2);
	assert_true(has_comment(p, "mapping 1 /C:/app/app.exe: PDB "
				   "{6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 0x1a"));
	assert_true(has_comment(p, "mapping 2 /C:/app/lib.dll: PDB "
				   "{6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 0x2"));
}

static void test_module_range_is_used(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	struct pc_module mod = {
		.name = intern(f, "/usr/lib/libc.so.6"),
		.start = 0x7f0000000000,
		.limit = 0x7f0000100000,
		.file_offset = 0x1000,
		.has_range = true,
	};
	uint32_t libc = pc_model_add_module(f->m, &mod);
	uint32_t rel = frame(f, libc, 0x1040, "rel", 0); /* file offset 0x1040 */
	uint32_t abs = frame(f, libc, 0x7f0000000080, "abs", PC_FRAME_ABSOLUTE);
	uint32_t stack[] = { rel, abs };
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 2), 0, 0, col, 1);
	p = convert(f);
	assert_int_equal(p->mapping[0]->memory_start, 0x7f0000000000);
	assert_int_equal(p->mapping[0]->memory_limit, 0x7f0000100000);
	assert_int_equal(p->mapping[0]->file_offset, 0x1000);
	assert_int_equal(p->location[0]->address, 0x7f0000000040);
	assert_int_equal(p->location[1]->address, 0x7f0000000080);
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* A one-frame sample in module mod with count in column col. */
static void leaf_sample(struct fixture *f, uint32_t mod, uint64_t address, int col,
			uint64_t count)
{
	uint32_t leaf = frame(f, mod, address, NULL, PC_FRAME_ABSOLUTE);

	add(f, pc_model_add_stack(f->m, &leaf, 1), 0, 0, col, count);
}

/*
 * Mapping 1 is the profiled program: without a command line, the module
 * with the most leaf samples that is a file and no shared library; the
 * others follow in model order, and locations follow their mappings.
 */
static void test_program_is_mapping_one(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t kernel = module(f, "[kernel.kallsyms]", "");
	uint32_t ld = module(f, "/usr/lib/ld-linux-x86-64.so.2", "");
	uint32_t libc = module(f, "/usr/lib/libc.so.6", "");
	uint32_t jit = module(f, "/tmp/perf-42.map", "");
	uint32_t tool = module(f, "/usr/bin/tool", "");
	uint32_t app = module(f, "/home/u/app", "5eed");
	Profile *p;

	leaf_sample(f, kernel, 0xffffffff81000000, col, 100);
	leaf_sample(f, ld, 0x7f0000001000, col, 50);
	leaf_sample(f, libc, 0x7f0000100000, col, 40);
	leaf_sample(f, jit, 0x7f0000200000, col, 30);
	leaf_sample(f, tool, 0x500000, col, 5);
	leaf_sample(f, app, 0x400000, col, 6);
	p = convert(f);
	assert_int_equal(p->n_mapping, 6);
	assert_string_equal(mapping_file(p, 0), "/home/u/app");
	assert_string_equal(str(p, p->mapping[0]->build_id), "5eed");
	assert_string_equal(mapping_file(p, 1), "[kernel.kallsyms]");
	assert_string_equal(mapping_file(p, 2), "/usr/lib/ld-linux-x86-64.so.2");
	assert_string_equal(mapping_file(p, 3), "/usr/lib/libc.so.6");
	assert_string_equal(mapping_file(p, 4), "/tmp/perf-42.map");
	assert_string_equal(mapping_file(p, 5), "/usr/bin/tool");
	assert_int_equal(mapping_at(p, 0x400000), 1);
	assert_int_equal(mapping_at(p, 0xffffffff81000000), 2);
	assert_int_equal(mapping_at(p, 0x7f0000001000), 3);
	assert_int_equal(mapping_at(p, 0x500000), 6);
}

/* perf's command line names the program: after " -- ", or after "record". */
static void test_program_named_by_perf_command(void **state)
{
	static const char *const commands[] = {
		"perf-command:/usr/bin/perf record -g -F 499 -o x.data -- build/work 300 --flag",
		"perf-command:/usr/bin/perf record -g -F 499 -e cpu-clock /home/u/work 300",
	};

	for (size_t i = 0; i < PC_ARRAY_SIZE(commands); i++) {
		struct fixture *f = *state;
		int col = column(f, "samples");
		uint32_t tool = module(f, "/usr/bin/tool", "");
		uint32_t work = module(f, "/home/u/work", "");
		uint32_t other = module(f, "/opt/work", ""); /* same base name, in no sample */
		Profile *p;

		pc_model_add_comment(f->m, "%s", commands[i]);
		leaf_sample(f, tool, 0x500000, col, 50);
		leaf_sample(f, work, 0x400000, col, 1);
		(void)other;
		p = convert(f);
		assert_string_equal(mapping_file(p, 0), "/home/u/work");
		assert_string_equal(mapping_file(p, 1), "/usr/bin/tool");
		assert_string_equal(mapping_file(p, 2), "/opt/work");
		assert_int_equal(mapping_at(p, 0x400000), 1);
		assert_int_equal(mapping_at(p, 0x500000), 2);
		forget_output(f);
		pc_model_free(f->m);
		f->m = pc_model_new();
	}
}

/* No program among the modules (a kernel-only profile): the model's order. */
static void test_no_program_keeps_order(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t kernel = module(f, "[kernel.kallsyms]", "");
	uint32_t libc = module(f, "/usr/lib/libc.so.6", "");
	Profile *p;

	leaf_sample(f, kernel, 0xffffffff81000000, col, 1);
	leaf_sample(f, libc, 0x7f0000100000, col, 2);
	p = convert(f);
	assert_string_equal(mapping_file(p, 0), "[kernel.kallsyms]");
	assert_string_equal(mapping_file(p, 1), "/usr/lib/libc.so.6");
}

static void test_metadata_and_comments(void **state)
{
	struct fixture *f = *state;
	Profile *p;

	column(f, "samples");
	pc_model_add_source(f->m, "spt");
	pc_model_add_source(f->m, "perf-script");
	pc_model_add_comment(f->m, "SPT v1, %d program ids", 2);
	pc_model_set_time(f->m, 1700000000000000000, 5000000000);
	pc_model_set_period(f->m, intern(f, "cpu"), intern(f, "nanoseconds"), 1000000);
	p = convert(f);
	assert_int_equal(p->n_comment, 2);
	assert_string_equal(str(p, p->comment[0]),
			    "converted by profconv " PC_VERSION " from spt, perf-script");
	assert_string_equal(str(p, p->comment[1]), "SPT v1, 2 program ids");
	assert_int_equal(p->time_nanos, 1700000000000000000);
	assert_int_equal(p->duration_nanos, 5000000000);
	assert_non_null(p->period_type);
	assert_string_equal(str(p, p->period_type->type), "cpu");
	assert_string_equal(str(p, p->period_type->unit), "nanoseconds");
	assert_int_equal(p->period, 1000000);
}

static void test_arcs_dropped_with_one_warning(void **state)
{
	struct fixture *f = *state;
	uint32_t app = module(f, "app", "");
	uint32_t a = frame(f, app, 0x10, "a", 0), b = frame(f, app, 0x20, "b", 0);
	const struct pc_warning *warning;

	column(f, "samples");
	assert_int_equal(pc_model_add_arc(f->m, a, b, PC_ARC_CALL, 5), 0);
	assert_int_equal(pc_model_add_arc(f->m, b, a, PC_ARC_BRANCH, 5), 0);
	convert(f);
	warning = warning_like(&f->ctx, "pprof keeps no arcs: 2 arcs dropped");
	assert_non_null(warning);
	assert_int_equal(warning->count, 1);
	assert_int_equal(f->ctx.nwarnings, 1);
}

/* Arcs are what pprof holds not: a notice, which --strict does not refuse. */
static void test_strict_keeps_lost_arcs_a_notice(void **state)
{
	struct fixture *f = *state;
	uint32_t app = module(f, "app", "");
	uint32_t a = frame(f, app, 0x10, "a", 0);
	const struct pc_warning *warning;

	f->ctx.opt.strict = true;
	column(f, "samples");
	assert_int_equal(pc_model_add_arc(f->m, a, a, PC_ARC_CALL, 1), 0);
	convert(f);
	assert_int_equal(f->ctx.err.status, PC_STATUS_OK);
	warning = warning_like(&f->ctx, "pprof keeps no arcs: 1 arcs dropped");
	assert_non_null(warning);
	assert_true(warning->notice);
}

/* A name changed (U+FFFD) is a loss: --strict refuses it, said once, as the error. */
static void test_strict_refuses_replaced_utf8(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "");
	uint32_t a = frame(f, app, 0x10, "bad\xff", 0);
	char *gz = NULL;
	size_t gz_size = 0;

	add(f, pc_model_add_stack(f->m, &a, 1), 0, 0, col, 1);
	f->ctx.opt.strict = true;
	assert_int_equal(write_model(f, &gz, &gz_size), -1);
	assert_null(gz);
	assert_string_equal(f->ctx.err.message,
			    "replaced invalid UTF-8 in 1 strings by U+FFFD (an error with --strict)");
	assert_null(warning_like(&f->ctx, "replaced invalid UTF-8"));
}

static void test_merged_overflow_is_an_error(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "lbr_branch");
	uint32_t app = module(f, "app", "");
	uint32_t x = frame(f, app, 0x10, NULL, 0), y = frame(f, app, 0x20, NULL, 0);
	struct pc_branch twice[] = { { .from = x, .to = y }, { .from = x, .to = y } };
	char *gz = NULL;
	size_t gz_size = 0;

	add(f, 0, 0, pc_model_add_branches(f->m, twice, 2), col, PC_COUNT_MAX);
	assert_int_equal(write_model(f, &gz, &gz_size), -1);
	assert_non_null(strstr(f->ctx.err.message, "'lbr_branch'"));
}

static void test_output_is_deterministic(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "01");
	uint32_t a = frame(f, app, 0x10, "a", 0), b = frame(f, app, 0x20, "b", 0);
	uint32_t stack[] = { a, b };
	struct pc_label label = { .key = intern(f, "tid"), .num = 3, .unit = intern(f, "tid") };
	char *first = NULL, *second = NULL;
	size_t first_size = 0, second_size = 0;

	add(f, pc_model_add_stack(f->m, stack, 2), pc_model_add_labels(f->m, &label, 1), 0,
	    col, 9);
	add(f, pc_model_add_stack(f->m, stack + 1, 1), 0, 0, col, 1);
	assert_int_equal(write_model(f, &first, &first_size), 0);
	assert_int_equal(write_model(f, &second, &second_size), 0);
	assert_int_equal(first_size, second_size);
	assert_memory_equal(first, second, first_size);
	free(first);
	free(second);
}

static void test_invalid_utf8_replaced(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = pc_model_add_module(f->m, &(struct pc_module){
		.name = pc_model_intern(f->m, "caf\xe9.exe", 8),
	});
	uint32_t a = frame(f, app, 0x10, "ok\xc3\xa9", 0);
	uint32_t b = frame(f, app, 0x20, "bad\xff\xfe", 0);
	struct pc_frame nul = { .module = app, .function = pc_model_intern(f->m, "n\0l", 3) };
	uint32_t stack[] = { a, b, pc_model_add_frame(f->m, &nul) };
	const struct pc_warning *warning;
	Profile *p;

	add(f, pc_model_add_stack(f->m, stack, 3), 0, 0, col, 1);
	p = convert(f);
	assert_string_equal(str(p, p->mapping[0]->filename), "caf\xef\xbf\xbd.exe");
	assert_string_equal(line_name(p, 1, 0), "ok\xc3\xa9");
	assert_string_equal(line_name(p, 2, 0), "bad\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(line_name(p, 3, 0), "n\xef\xbf\xbdl");
	warning = warning_like(&f->ctx, "replaced invalid UTF-8 in 3 strings by U+FFFD");
	assert_non_null(warning);
	assert_int_equal(warning->count, 1);
}

static void test_unfinalized_model_is_refused(void **state)
{
	struct fixture *f = *state;
	const struct pc_writer *writer = pc_writer_find("pprof");
	struct pc_output out;
	char *gz = NULL;
	size_t gz_size = 0;

	assert_int_equal(pc_output_to_memory(&out, &gz, &gz_size, &f->ctx.err), 0);
	assert_int_equal(writer->write(&f->ctx, f->m, &out), -1);
	pc_output_abort(&out);
	assert_non_null(strstr(f->ctx.err.message, "not finalized"));
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_writer_for_path("out.pb.gz"), pc_writer_find("pprof"));
	assert_ptr_equal(pc_writer_for_path("x.pprof"), pc_writer_find("pprof"));
	assert_true(pc_writer_find("pprof")->keeps & PC_PART_STACKS);
	/* the call arcs of caller/callee data, as edge_inclusive samples */
	assert_true(pc_writer_find("pprof")->keeps & PC_PART_ARCS);
}

/* ---- caller/callee data (research/pprof.md 7.4) ---- */

static void assert_values(const Perftools__Profiles__Sample *s, int64_t self, int64_t total,
			  int64_t edge)
{
	assert_int_equal(s->n_value, 3);
	assert_int_equal(s->value[0], self);
	assert_int_equal(s->value[1], total);
	assert_int_equal(s->value[2], edge);
}

/* The pid label of a sample, or -1. */
static int64_t pid_of(const Profile *p, const Perftools__Profiles__Sample *s)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (!strcmp(str(p, s->label[i]->key), "pid"))
			return s->label[i]->num;
	return -1;
}

/*
 * main -> work 8, main -> unknown 2, work -> unknown 2 in one process:
 * the functions' samples as they are, one [callee, caller] sample per arc.
 */
static void test_caller_callee_flat_samples_and_edges(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	uint32_t app, exe, main_fn, work, unknown;
	Profile *p;

	pct_cc_columns(m);
	app = pct_cc_process(m, "app.exe", 6360);
	exe = pct_cc_module(m, "C:\\app\\app.exe", 6361);
	main_fn = pct_cc_function(m, "main", exe, 0x401000, app, 0, 10);
	work = pct_cc_function(m, "work(int)", exe, 0x401100, app, 6, 8);
	unknown = pct_cc_function(m, "Unknown Frame(s)", 0, 0, app, 4, 4);
	pc_model_add_comment(m, "Visual Studio CallerCallee summary: no call stacks; "
			     "inclusive values are per function and do not add up");
	pct_cc_call(m, main_fn, work, 8);
	pct_cc_call(m, main_fn, unknown, 2);
	pct_cc_call(m, work, unknown, 2);
	p = convert(f);
	assert_int_equal(p->n_sample_type, 3);
	assert_string_equal(str(p, p->sample_type[0]->type), "samples");
	assert_string_equal(str(p, p->sample_type[1]->type), "inclusive_samples");
	assert_string_equal(str(p, p->sample_type[2]->type), "edge_inclusive");
	assert_string_equal(str(p, p->sample_type[2]->unit), "count");
	assert_string_equal(str(p, p->default_sample_type), "samples");
	/* locations: the unknown frame (no module) ranks first, then by address */
	assert_int_equal(p->n_location, 3);
	assert_string_equal(line_name(p, 1, 0), "Unknown Frame(s)");
	assert_int_equal(p->location[0]->mapping_id, 0);
	assert_int_equal(p->location[0]->address, 0);
	assert_string_equal(line_name(p, 2, 0), "main");
	assert_int_equal(p->location[1]->mapping_id, 1);
	assert_int_equal(p->location[1]->address, 0x401000);
	assert_string_equal(line_name(p, 3, 0), "work(int)");
	assert_int_equal(p->location[2]->address, 0x401100);
	assert_int_equal(p->n_mapping, 1);
	assert_string_equal(str(p, p->mapping[0]->filename), "C:\\app\\app.exe");
	assert_int_equal(p->mapping[0]->memory_start, 0x401000);
	assert_int_equal(p->mapping[0]->memory_limit, 0x401101);
	assert_true(p->mapping[0]->has_functions);
	assert_int_equal(p->n_sample, 6);
	ASSERT_IDS(p->sample[0]->location_id, p->sample[0]->n_location_id, 1);
	assert_values(p->sample[0], 4, 4, 0);
	ASSERT_IDS(p->sample[1]->location_id, p->sample[1]->n_location_id, 2);
	assert_values(p->sample[1], 0, 10, 0);
	ASSERT_IDS(p->sample[2]->location_id, p->sample[2]->n_location_id, 3);
	assert_values(p->sample[2], 6, 8, 0);
	ASSERT_IDS(p->sample[3]->location_id, p->sample[3]->n_location_id, 1, 2);
	assert_values(p->sample[3], 0, 0, 2);
	ASSERT_IDS(p->sample[4]->location_id, p->sample[4]->n_location_id, 3, 2);
	assert_values(p->sample[4], 0, 0, 8);
	ASSERT_IDS(p->sample[5]->location_id, p->sample[5]->n_location_id, 1, 3);
	assert_values(p->sample[5], 0, 0, 2);
	for (size_t i = 0; i < p->n_sample; i++)
		assert_int_equal(pid_of(p, p->sample[i]), 6360);
	assert_int_equal(p->n_comment, 3);
	assert_true(has_comment(p, "Visual Studio CallerCallee summary: no call stacks; "
			       "inclusive values are per function and do not add up"));
	assert_true(has_comment(p, "edge_inclusive samples are call arcs: each stack is "
			       "[callee, caller], valued with the callee's inclusive count "
			       "through that caller; not a call stack"));
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* The unknown frame in two processes: its arcs are labelled as the other end. */
static void test_caller_callee_edge_labels(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	uint32_t one, two, exe1, exe2, main1, main2, unknown, helper;
	Profile *p;

	pct_cc_columns(m);
	one = pct_cc_process(m, "a.exe", 100);
	two = pct_cc_process(m, "b.exe", 200);
	exe1 = pct_cc_module(m, "a.exe", 101);
	exe2 = pct_cc_module(m, "b.exe", 201);
	main1 = pct_cc_function(m, "main", exe1, 0x10, one, 0, 3);
	main2 = pct_cc_function(m, "main", exe2, 0x10, two, 0, 5);
	unknown = pct_cc_function(m, "Unknown Frame(s)", 0, 0, one, 3, 3);
	helper = pct_cc_function(m, "helper", exe2, 0x20, two, 1, 1);
	pct_cc_function(m, "Unknown Frame(s)", 0, 0, two, 4, 5);
	pct_cc_call(m, main1, unknown, 3);
	pct_cc_call(m, main2, unknown, 5);
	pct_cc_call(m, unknown, helper, 1);
	p = convert(f);
	assert_int_equal(p->n_sample, 8);
	for (size_t i = 5; i < 8; i++)
		assert_int_equal(p->sample[i]->n_location_id, 2);
	/* arcs by caller: the unknown frame (no module) first, then a.exe's, b.exe's main */
	assert_values(p->sample[5], 0, 0, 1);
	assert_int_equal(pid_of(p, p->sample[5]), 200);
	assert_values(p->sample[6], 0, 0, 3);
	assert_int_equal(pid_of(p, p->sample[6]), 100);
	assert_values(p->sample[7], 0, 0, 5);
	assert_int_equal(pid_of(p, p->sample[7]), 200);
	assert_int_equal(p->n_mapping, 2);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_caller_callee_edge_column_name_taken(void **state)
{
	struct fixture *f = *state;
	char *gz = NULL;
	size_t gz_size = 0;

	pct_cc_columns(f->m);
	column(f, "edge_inclusive");
	pct_cc_named(f->m, "main", 1, 1);
	assert_int_equal(write_model(f, &gz, &gz_size), -1);
	assert_string_equal(f->ctx.err.message,
			    "pprof: column 3 is named 'edge_inclusive', the name of the column "
			    "this writer adds for the call arcs");
	assert_null(gz);
}

/* Other arcs of caller/callee data (branch arcs) are still dropped. */
static void test_caller_callee_branch_arcs_dropped(void **state)
{
	struct fixture *f = *state;
	uint32_t a, b;
	Profile *p;

	pct_cc_columns(f->m);
	a = pct_cc_named(f->m, "a", 1, 2);
	b = pct_cc_named(f->m, "b", 1, 1);
	pct_cc_call(f->m, a, b, 1);
	assert_int_equal(pc_model_add_arc(f->m, a, b, PC_ARC_BRANCH, 7), 0);
	p = convert(f);
	assert_int_equal(p->n_sample, 3);
	assert_non_null(warning_like(&f->ctx, "pprof keeps no arcs: 1 arcs dropped"));
}

/*
 * A model read from pprof (every source "pprof") is written back as the
 * input was: no comment of profconv's (an empty one kept), the mappings in
 * model order with their stated flags, default_sample_type as the fact
 * says, drop_frames, keep_frames and doc_url from facts.
 */
static void test_model_from_pprof_written_back(void **state)
{
	struct fixture *f = *state;
	int samples = column(f, "samples"), cpu = pc_model_add_column(f->m, "cpu", "nanoseconds");
	uint32_t libc = module(f, "/usr/lib/libc.so.6", "");
	uint32_t app = pc_model_add_module(f->m, &(struct pc_module){
		.name = intern(f, "/usr/bin/app"),
		.stated = PC_MODULE_STATED | PC_MODULE_HAS_FUNCTIONS,
	});
	Profile *p;

	pc_model_add_source(f->m, "pprof");
	pc_model_add_comment_text(f->m, "kept", 4);
	pc_model_add_comment_text(f->m, "", 0);
	pc_model_add_fact(f->m, "pprof.default_sample_type", "samples");
	pc_model_add_fact(f->m, "pprof.drop_frames", "^runtime\\.");
	pc_model_add_fact(f->m, "pprof.keep_frames", "^main$");
	pc_model_add_fact(f->m, "pprof.doc_url", "https://example.com/");
	pc_model_set_default_column(f->m, cpu);
	add(f, pc_model_add_stack(f->m, &(uint32_t){ frame(f, libc, 0x7f0000001000, "memcpy", 0) }, 1),
	    0, 0, samples, 1);
	add(f, pc_model_add_stack(f->m, &(uint32_t){ source_frame(f, app, 0x401000, "main", "app.c", 7) }, 1),
	    0, 0, cpu, 9);
	p = convert(f);
	assert_int_equal(p->n_comment, 2);
	assert_string_equal(str(p, p->comment[0]), "kept");
	assert_string_equal(str(p, p->comment[1]), "");
	assert_string_equal(mapping_file(p, 0), "/usr/lib/libc.so.6"); /* not moved behind app */
	assert_string_equal(mapping_file(p, 1), "/usr/bin/app");
	assert_true(p->mapping[0]->has_functions); /* worked out: every location named */
	assert_true(p->mapping[0]->has_filenames == false);
	assert_true(p->mapping[1]->has_functions); /* as stated: */
	assert_false(p->mapping[1]->has_filenames);
	assert_false(p->mapping[1]->has_line_numbers);
	assert_string_equal(str(p, p->default_sample_type), "samples");
	assert_string_equal(str(p, p->drop_frames), "^runtime\\.");
	assert_string_equal(str(p, p->keep_frames), "^main$");
	assert_string_equal(str(p, p->doc_url), "https://example.com/");
}

/* Without the fact, no default_sample_type: pprof then takes the last, as it did. */
static void test_model_from_pprof_without_default(void **state)
{
	struct fixture *f = *state;
	Profile *p;

	column(f, "samples");
	pc_model_set_default_column(f->m, column(f, "alloc"));
	pc_model_add_source(f->m, "pprof");
	p = convert(f);
	assert_int_equal(p->default_sample_type, 0);
	assert_int_equal(p->n_comment, 0);
	f->ctx.opt.event = "alloc"; /* --event names one */
	perftools__profiles__profile__free_unpacked(f->p, NULL);
	free(f->gz);
	p = convert(f);
	assert_string_equal(str(p, p->default_sample_type), "alloc");
}

/* Start lines, system names and is_folded: a function per distinct one. */
static void test_function_start_line_system_name_folded(void **state)
{
	struct fixture *f = *state;
	int col = column(f, "samples");
	uint32_t app = module(f, "app", "");
	struct pc_frame fr = {
		.module = app, .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_FOLDED, .address = 0x10,
		.function = intern(f, "ns::f()"), .file = intern(f, "f.cc"), .line = 12,
		.start_line = 10,
	};
	uint32_t folded = pc_model_add_frame(f->m, &fr), plain;
	const Perftools__Profiles__Function *fn;
	Profile *p;

	pc_model_set_system_name(f->m, folded, intern(f, "_ZN2ns1fEv"));
	fr.flags = PC_FRAME_HAS_ADDRESS, fr.address = 0x20, fr.start_line = 0;
	plain = pc_model_add_frame(f->m, &fr);
	add(f, pc_model_add_stack(f->m, &folded, 1), 0, 0, col, 1);
	add(f, pc_model_add_stack(f->m, &plain, 1), 0, 0, col, 2);
	p = convert(f);
	assert_int_equal(p->n_function, 2);
	assert_int_equal(p->n_location, 2);
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];

		fn = p->function[loc->line[0]->function_id - 1];
		assert_string_equal(str(p, fn->name), "ns::f()");
		if (loc->address == 0x10) {
			assert_true(loc->is_folded);
			assert_string_equal(str(p, fn->system_name), "_ZN2ns1fEv");
			assert_int_equal(fn->start_line, 10);
		} else {
			assert_false(loc->is_folded);
			assert_string_equal(str(p, fn->system_name), "ns::f()");
			assert_int_equal(fn->start_line, 0);
		}
	}
}

#define TEST(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_empty_model_still_has_a_sample_type),
		TEST(test_gzip_header_is_fixed),
		TEST(test_string_table_interned_and_used_only),
		TEST(test_dense_ids_and_leaf_first),
		TEST(test_inline_frames_fold_into_physical_location),
		TEST(test_unnamed_frames_give_bare_locations),
		TEST(test_functions_keyed_by_name_file_and_binary),
		TEST(test_sample_types_and_default),
		TEST(test_one_clock_event_is_cpu),
		TEST(test_one_event_other_names),
		TEST(test_one_other_event),
		TEST(test_several_events),
		TEST(test_colliding_events_keep_modifiers),
		TEST(test_other_columns_keep_names),
		TEST(test_samples_merge_after_dropping_branches),
		TEST(test_labels_keep_units_and_zero),
		TEST(test_lbr_becomes_to_from_samples),
		TEST(test_spt_style_mapping),
		TEST(test_pe_image_placed_for_pprof),
		TEST(test_pe_build_ids_option),
		TEST(test_pe_image_placed_by_mapping_id),
		TEST(test_module_range_is_used),
		TEST(test_program_is_mapping_one),
		TEST(test_program_named_by_perf_command),
		TEST(test_no_program_keeps_order),
		TEST(test_metadata_and_comments),
		TEST(test_arcs_dropped_with_one_warning),
		TEST(test_strict_keeps_lost_arcs_a_notice),
		TEST(test_strict_refuses_replaced_utf8),
		TEST(test_merged_overflow_is_an_error),
		TEST(test_output_is_deterministic),
		TEST(test_invalid_utf8_replaced),
		TEST(test_unfinalized_model_is_refused),
		TEST(test_descriptor),
		TEST(test_caller_callee_flat_samples_and_edges),
		TEST(test_caller_callee_edge_labels),
		TEST(test_caller_callee_edge_column_name_taken),
		TEST(test_caller_callee_branch_arcs_dropped),
		TEST(test_model_from_pprof_written_back),
		TEST(test_model_from_pprof_without_default),
		TEST(test_function_start_line_system_name_folded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
