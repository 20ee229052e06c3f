/*
 * test_pprof_reader.c - the pprof reader: the model it makes (columns and
 * the default one, modules with their stated flags, inlined frames of a
 * location's lines, system names and start lines, labels as pprof reads
 * them, comments and facts), --event, errors at their byte offsets,
 * reading through a pipe, and the probe (raw, gzip, text, random).
 */
#include "model/format.h"
#include "support/read_memory.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <zlib.h>

extern const struct pc_reader pc_pprof_reader;

/* --- protobuf by hand --- */

struct pb {
	uint8_t buf[4096];
	size_t len;
};

static void pb_varint(struct pb *b, uint64_t v)
{
	do {
		assert_true(b->len < sizeof(b->buf));
		b->buf[b->len++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void pb_vf(struct pb *b, unsigned field, uint64_t v)
{
	pb_varint(b, (uint64_t)field << 3);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *data, size_t len)
{
	pb_varint(b, (uint64_t)field << 3 | 2);
	pb_varint(b, len);
	assert_true(b->len + len <= sizeof(b->buf));
	memcpy(b->buf + b->len, data, len);
	b->len += len;
}

static void pb_lf(struct pb *b, unsigned field, const struct pb *inner)
{
	pb_bytes(b, field, inner->buf, inner->len);
}

static const char *const strings[] = {
	"", "samples", "count", "cpu", "nanoseconds", "/bin/app", "main", "main.c",
	"inlined", "_Z7inlinedv", "thread", "worker", "bytes", "a comment", "^runtime",
};
enum {
	S_SAMPLES = 1, S_COUNT, S_CPU, S_NS, S_APP, S_MAIN, S_MAIN_C, S_INLINED, S_MANGLED,
	S_THREAD, S_WORKER, S_BYTES, S_COMMENT, S_DROP,
};

/*
 * Two sample types (default cpu), a mapping with has_functions, main
 * (start line 3) and inlined (system name _Z7inlinedv), location 10 of
 * lines [inlined:7, main:12] on the mapping, location 20 without a
 * mapping or lines, and samples [10, 20] (thread=worker, bytes=64 bytes, a
 * label with neither) and [20] twice (added up); a comment; drop_frames.
 */
static void profile(struct pb *p)
{
	struct pb m = { 0 }, s = { 0 }, l = { 0 }, in = { 0 };

	p->len = 0;
	pb_vf(&m, 1, S_SAMPLES), pb_vf(&m, 2, S_COUNT), pb_lf(p, 1, &m), m.len = 0;
	pb_vf(&m, 1, S_CPU), pb_vf(&m, 2, S_NS), pb_lf(p, 1, &m), m.len = 0;
	/* samples */
	pb_vf(&s, 1, 10), pb_vf(&s, 1, 20), pb_vf(&s, 2, 1), pb_vf(&s, 2, 10000000);
	pb_vf(&l, 1, S_THREAD), pb_vf(&l, 2, S_WORKER), pb_lf(&s, 3, &l), l.len = 0;
	pb_vf(&l, 1, S_BYTES), pb_vf(&l, 3, 64), pb_vf(&l, 4, S_BYTES), pb_lf(&s, 3, &l), l.len = 0;
	pb_vf(&l, 1, S_THREAD), pb_lf(&s, 3, &l), l.len = 0;
	pb_lf(p, 2, &s), s.len = 0;
	for (int i = 0; i < 2; i++) {
		pb_vf(&s, 1, 20), pb_vf(&s, 2, 2), pb_vf(&s, 2, 20000000);
		pb_lf(p, 2, &s), s.len = 0;
	}
	/* mapping 5 */
	pb_vf(&m, 1, 5), pb_vf(&m, 2, 0x400000), pb_vf(&m, 3, 0x500000), pb_vf(&m, 4, 0x1000);
	pb_vf(&m, 5, S_APP), pb_vf(&m, 7, 1), pb_lf(p, 3, &m), m.len = 0;
	/* locations */
	pb_vf(&m, 1, 10), pb_vf(&m, 2, 5), pb_vf(&m, 3, 0x401234);
	pb_vf(&in, 1, 2), pb_vf(&in, 2, 7), pb_lf(&m, 4, &in), in.len = 0;
	pb_vf(&in, 1, 1), pb_vf(&in, 2, 12), pb_lf(&m, 4, &in), in.len = 0;
	pb_lf(p, 4, &m), m.len = 0;
	pb_vf(&m, 1, 20), pb_lf(p, 4, &m), m.len = 0;
	/* functions */
	pb_vf(&m, 1, 1), pb_vf(&m, 2, S_MAIN), pb_vf(&m, 3, S_MAIN), pb_vf(&m, 4, S_MAIN_C);
	pb_vf(&m, 5, 3), pb_lf(p, 5, &m), m.len = 0;
	pb_vf(&m, 1, 2), pb_vf(&m, 2, S_INLINED), pb_vf(&m, 3, S_MANGLED), pb_vf(&m, 4, S_MAIN_C);
	pb_lf(p, 5, &m), m.len = 0;
	for (size_t i = 0; i < PC_ARRAY_SIZE(strings); i++)
		pb_bytes(p, 6, strings[i], strlen(strings[i]));
	pb_vf(p, 7, S_DROP);
	pb_vf(p, 13, S_COMMENT);
	pb_vf(p, 14, S_CPU);
}

/* data gzipped (one member) into out; its size. */
static size_t gzipped(const uint8_t *data, size_t len, uint8_t *out, size_t cap)
{
	z_stream zs = { 0 };

	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY),
			 Z_OK);
	zs.next_in = (Bytef *)(uintptr_t)data;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	deflateEnd(&zs);
	return cap - zs.avail_out;
}

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	struct pb p;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	free(f);
	return 0;
}

static int read_bytes(struct fixture *f, const void *data, size_t len, bool pipe)
{
	return pct_read_memory(&f->ctx, f->m, &pc_pprof_reader, "p.pb", data, len, pipe);
}

static const char *str(const struct fixture *f, pc_str_id id)
{
	return pc_str(f->m, id);
}

/* --- the model --- */

static void test_model(void **state)
{
	struct fixture *f = *state;
	const struct pc_module *module;
	const struct pc_frame *inlined, *physical, *bare;
	const uint32_t *frames, *labels;
	size_t n, nlabels;
	pc_str_id system_name;

	profile(&f->p);
	assert_int_equal(read_bytes(f, f->p.buf, f->p.len, false), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 2);
	assert_string_equal(str(f, pc_model_column(f->m, 1)->type), "cpu");
	assert_string_equal(str(f, pc_model_column(f->m, 1)->unit), "nanoseconds");
	assert_int_equal(pc_model_default_column(f->m), 1);
	assert_int_equal(pc_model_nmodules(f->m), 1);
	module = pc_model_module(f->m, 1);
	assert_string_equal(str(f, module->name), "/bin/app");
	assert_true(module->has_range);
	assert_int_equal(module->start, 0x400000);
	assert_int_equal(module->limit, 0x500000);
	assert_int_equal(module->file_offset, 0x1000);
	assert_int_equal(module->stated, PC_MODULE_STATED | PC_MODULE_HAS_FUNCTIONS);
	/* finalized by content: the sample of [20] alone sorts first */
	assert_int_equal(pc_model_nsamples(f->m), 2);
	frames = pc_model_stack(f->m, pc_model_sample(f->m, 0)->stack, &n);
	assert_int_equal(n, 1);
	bare = pc_model_frame(f->m, frames[0]);
	assert_int_equal(bare->module, 0);
	assert_int_equal(bare->flags, 0);
	assert_int_equal(bare->function, 0);
	assert_int_equal(pc_model_values(f->m, 0)[0], 4);
	assert_int_equal(pc_model_values(f->m, 0)[1], 40000000);
	frames = pc_model_stack(f->m, pc_model_sample(f->m, 1)->stack, &n);
	assert_int_equal(n, 3);
	inlined = pc_model_frame(f->m, frames[0]);
	physical = pc_model_frame(f->m, frames[1]);
	assert_string_equal(str(f, inlined->function), "inlined");
	assert_int_equal(inlined->line, 7);
	assert_int_equal(inlined->flags, PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE | PC_FRAME_INLINE);
	assert_int_equal(inlined->address, 0x401234);
	assert_int_equal(inlined->module, 1);
	assert_true(pc_model_system_name(f->m, frames[0], &system_name));
	assert_string_equal(str(f, system_name), "_Z7inlinedv");
	assert_string_equal(str(f, physical->function), "main");
	assert_string_equal(str(f, physical->file), "main.c");
	assert_int_equal(physical->line, 12);
	assert_int_equal(physical->start_line, 3);
	assert_int_equal(physical->flags, PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE);
	assert_false(pc_model_system_name(f->m, frames[1], &system_name));
	labels = pc_model_labelset(f->m, pc_model_sample(f->m, 1)->labels, &nlabels);
	assert_int_equal(nlabels, 2); /* the label of neither a string nor a number is dropped */
	assert_string_equal(str(f, pc_model_label(f->m, labels[0])->key), "bytes");
	assert_int_equal(pc_model_label(f->m, labels[0])->num, 64);
	assert_string_equal(str(f, pc_model_label(f->m, labels[0])->unit), "bytes");
	assert_string_equal(str(f, pc_model_label(f->m, labels[1])->str), "worker");
	assert_int_equal(pc_model_ncomments(f->m), 1);
	assert_string_equal(str(f, pc_model_comment(f->m, 0)), "a comment");
	assert_int_equal(pc_model_nfacts(f->m), 2);
	assert_string_equal(str(f, pc_model_fact(f->m, 0)->key), "pprof.default_sample_type");
	assert_string_equal(str(f, pc_model_fact(f->m, 1)->value), "^runtime");
	assert_string_equal(str(f, pc_model_source(f->m, 0)), "pprof");
}

static void test_pipe_and_gzip_read_alike(void **state)
{
	struct fixture *f = *state;
	static uint8_t gz[8192];
	size_t len;
	struct pc_model *plain = pc_model_new();

	profile(&f->p);
	assert_int_equal(pct_read_memory(&f->ctx, plain, &pc_pprof_reader, "p.pb", f->p.buf,
					 f->p.len, false), 0);
	len = gzipped(f->p.buf, f->p.len, gz, sizeof(gz));
	assert_int_equal(read_bytes(f, gz, len, true), 0);
	assert_int_equal(pc_model_nsamples(f->m), pc_model_nsamples(plain));
	assert_int_equal(pc_model_nframes(f->m), pc_model_nframes(plain));
	pc_model_free(plain);
}

static void test_event_picks_the_default(void **state)
{
	struct fixture *f = *state;

	profile(&f->p);
	f->ctx.opt.event = "samples";
	assert_int_equal(read_bytes(f, f->p.buf, f->p.len, false), 0);
	assert_int_equal(pc_model_default_column(f->m), 0);
}

static void test_unknown_event_is_an_error(void **state)
{
	struct fixture *f = *state;

	profile(&f->p);
	f->ctx.opt.event = "nope";
	assert_int_equal(read_bytes(f, f->p.buf, f->p.len, false), -1);
	assert_non_null(strstr(f->ctx.err.message, "no sample type is named 'nope'"));
	assert_non_null(strstr(f->ctx.err.message, "'samples', 'cpu'"));
}

/* --- errors --- */

static void test_unknown_location_at_its_id(void **state)
{
	struct fixture *f = *state;
	struct pb t = { 0 }, s = { 0 };

	pb_vf(&t, 1, S_SAMPLES), pb_vf(&t, 2, S_COUNT);
	pb_lf(&f->p, 1, &t);                 /* offsets 0-5 */
	pb_vf(&s, 1, 99), pb_vf(&s, 2, 1);   /* location_id's tag at 8 */
	pb_lf(&f->p, 2, &s);
	for (size_t i = 0; i <= S_COUNT; i++)
		pb_bytes(&f->p, 6, strings[i], strlen(strings[i]));
	assert_int_equal(read_bytes(f, f->p.buf, f->p.len, false), -1);
	assert_int_equal(f->ctx.err.where, PC_WHERE_OFFSET);
	assert_int_equal(f->ctx.err.offset, 8);
	assert_non_null(strstr(f->ctx.err.message, "names location 99"));
}

static void test_string_index_at_its_field(void **state)
{
	struct fixture *f = *state;
	struct pb m = { 0 };

	pb_vf(&m, 1, 1), pb_vf(&m, 2, 40);
	pb_lf(&f->p, 5, &m);
	pb_bytes(&f->p, 6, "", 0);
	assert_int_equal(read_bytes(f, f->p.buf, f->p.len, false), -1);
	assert_int_equal(f->ctx.err.offset, 4);
	assert_non_null(strstr(f->ctx.err.message, "Function.name: string index 40"));
}

static void test_wire_type_mismatch(void **state)
{
	struct fixture *f = *state;
	static const uint8_t bytes[] = { 0x48, 0x01, 0x52, 0x00 }; /* time_nanos, then duration as LEN */

	assert_int_equal(read_bytes(f, bytes, sizeof(bytes), false), -1);
	assert_int_equal(f->ctx.err.offset, 2);
	assert_non_null(strstr(f->ctx.err.message, "Profile.duration_nanos is length-delimited"));
}

/* --- probe --- */

static void test_probe(void **state)
{
	struct fixture *f = *state;
	static uint8_t gz[8192];
	size_t len;

	profile(&f->p);
	assert_int_equal(pc_pprof_reader.probe(f->p.buf, f->p.len), PC_PROBE_STRONG);
	len = gzipped(f->p.buf, f->p.len, gz, sizeof(gz));
	assert_int_equal(pc_pprof_reader.probe(gz, len), PC_PROBE_CERTAIN);
	assert_int_equal(pc_pprof_reader.probe(gz, 12), PC_PROBE_WEAK); /* the header only */
	assert_int_equal(pc_pprof_reader.probe((const uint8_t *)"\ncycles 12\n", 11), PC_PROBE_NO);
	assert_int_equal(pc_pprof_reader.probe((const uint8_t *)"", 0), PC_PROBE_NO);
	len = gzipped((const uint8_t *)"main;work 12\n", 13, gz, sizeof(gz));
	assert_int_equal(pc_pprof_reader.probe(gz, len), PC_PROBE_NO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pipe_and_gzip_read_alike, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_picks_the_default, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_event_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_location_at_its_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_string_index_at_its_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wire_type_mismatch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
