/*
 * test_sampler_reader.c - the Apple Sampler reader: exact model contents
 * (frames keyed by symbol id, modules from the first or second path,
 * leaf-first stacks, thread and tid labels, the sampler_p0..p2 labels of
 * unusual prefixes, merged counts, the unknown fields kept, the lines
 * joining an earlier input's samples column), binary-safe parsing of ids and counts
 * holding TAB, LF and '@' bytes, the optional "@end" after the symbol
 * table, every error class at its exact byte offset, reading through a
 * pipe (size unknown), and the probe.
 */
#include "model/format.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_reader pc_sampler_reader;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	uint8_t buf[8192];
	size_t len;
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

/* --- building traces --- */

static void put(struct fixture *f, const void *bytes, size_t n)
{
	assert_true(f->len + n <= sizeof(f->buf));
	memcpy(f->buf + f->len, bytes, n);
	f->len += n;
}

static void put_text(struct fixture *f, const char *text)
{
	put(f, text, strlen(text));
}

static void put_u32(struct fixture *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put(f, b, 4);
}

static void header(struct fixture *f)
{
	put_text(f, "@supersamplerV1.0\n@symboltableV1.1\n");
}

/* A symbol entry whose unknown field is unknown. */
static void symbol_u(struct fixture *f, uint32_t id, uint32_t unknown, const char *name,
		     const char *path1, const char *path2)
{
	put_text(f, "\t");
	put_u32(f, id);
	put_text(f, "\t");
	put_u32(f, unknown);
	put_text(f, "\t");
	put_text(f, name);
	put_text(f, "\t");
	put_text(f, path1);
	put_text(f, "\t");
	put_text(f, path2);
	put_text(f, "\n");
}

static void symbol(struct fixture *f, uint32_t id, const char *name, const char *path1,
		   const char *path2)
{
	put_text(f, "\t");
	put_u32(f, id);
	put_text(f, "\t");
	put_u32(f, 0);
	put_text(f, "\t");
	put_text(f, name);
	put_text(f, "\t");
	put_text(f, path1);
	put_text(f, "\t");
	put_text(f, path2);
	put_text(f, "\n");
}

static void thread(struct fixture *f, uint32_t id)
{
	char line[32];

	snprintf(line, sizeof(line), "@threadV1.0\t%04X\n", id);
	put_text(f, line);
}

static void stack_p(struct fixture *f, const uint32_t p[3], size_t n, const uint32_t *ids)
{
	put_text(f, "\t");
	for (size_t i = 0; i < 3; i++)
		put_u32(f, p[i]);
	put_u32(f, (uint32_t)n);
	for (size_t i = 0; i < n; i++)
		put_u32(f, ids[i]);
	put_text(f, "\n");
}

static void stack(struct fixture *f, size_t n, const uint32_t *ids)
{
	static const uint32_t usual[3] = { 1, 0, 1 };

	stack_p(f, usual, n, ids);
}

static int read_trace(struct fixture *f, bool piped)
{
	struct pc_input in;
	int rc;

	pc_input_from_memory(&in, "test.trace", f->buf, f->len);
	if (piped)
		in.size = PC_SIZE_UNKNOWN;
	rc = pc_sampler_reader.read(&f->ctx, &in, f->m);
	pc_input_close(&in);
	if (!rc)
		pc_model_finalize(f->m);
	return rc;
}

/* --- looking at the model --- */

static const char *str(const struct pc_model *m, pc_str_id id)
{
	return pc_str(m, id);
}

/* The sample whose leaf is named leaf and whose thread label is thread_name. */
static size_t find_sample(const struct pc_model *m, const char *leaf, const char *thread_name)
{
	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n, nlabels;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
		const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, i)->labels, &nlabels);
		bool thread_ok = false;

		for (size_t k = 0; k < nlabels; k++) {
			const struct pc_label *l = pc_model_label(m, labels[k]);

			if (!strcmp(str(m, l->key), "thread") && !strcmp(str(m, l->str), thread_name))
				thread_ok = true;
		}
		if (n && thread_ok &&
		    !strcmp(str(m, pc_model_frame(m, frames[0])->function), leaf))
			return i;
	}
	fail_msg("no sample with leaf %s in thread %s", leaf, thread_name);
	return 0;
}

static const struct pc_label *label_of(const struct pc_model *m, size_t sample,
				       const char *key)
{
	size_t n;
	const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, sample)->labels, &n);

	for (size_t k = 0; k < n; k++)
		if (!strcmp(str(m, pc_model_label(m, labels[k])->key), key))
			return pc_model_label(m, labels[k]);
	return NULL;
}

/* --- tests --- */

static void base_trace(struct fixture *f, bool table_end)
{
	header(f);
	symbol(f, 0x2122, "Thread_2122", "Thread_2122", "Thread_2122");
	symbol(f, 0x2123, "Thread_2123", "Thread_2123", "Thread_2123");
	symbol(f, 0x2124, "main", "/bin/app", "/bin/app");
	symbol(f, 0x2125, "work", "/bin/app", "/bin/app");
	symbol(f, 0x2126, "memcpy", "libA", "libA");
	symbol(f, 0x2127, "memcpy", "", "libB");
	if (table_end)
		put_text(f, "@end\n");
	thread(f, 0x2122);
	stack(f, 2, (const uint32_t[]){ 0x2125, 0x2124 });
	stack(f, 2, (const uint32_t[]){ 0x2125, 0x2124 });
	stack(f, 3, (const uint32_t[]){ 0x2126, 0x2125, 0x2124 });
	thread(f, 0x2123);
	stack(f, 2, (const uint32_t[]){ 0x2127, 0x2125 });
	put_text(f, "@end\n");
}

static void test_stacks_threads_and_frames(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;
	size_t i, n;
	const uint32_t *frames;
	const struct pc_frame *leaf;

	base_trace(f, true);
	assert_int_equal(read_trace(f, false), 0);
	assert_int_equal(pc_model_ncolumns(m), 1);
	assert_string_equal(str(m, pc_model_column(m, 0)->type), "samples");
	assert_string_equal(str(m, pc_model_column(m, 0)->unit), "count");
	assert_int_equal(pc_model_nsamples(m), 3);

	i = find_sample(m, "work", "Thread_2122");
	assert_int_equal(pc_model_values(m, i)[0], 2);
	frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	assert_int_equal(n, 2);
	assert_string_equal(str(m, pc_model_frame(m, frames[1])->function), "main");
	assert_int_equal(label_of(m, i, "tid")->num, 0x2122);
	assert_string_equal(str(m, label_of(m, i, "tid")->unit), "tid");
	assert_null(label_of(m, i, "sampler_p0"));

	i = find_sample(m, "memcpy", "Thread_2123");
	assert_int_equal(pc_model_values(m, i)[0], 1);
	frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	leaf = pc_model_frame(m, frames[0]);
	/* the first path is empty: the second names the module */
	assert_string_equal(str(m, pc_model_module(m, leaf->module)->name), "libB");
	assert_int_equal(leaf->address, 0x2127);
	assert_int_equal(leaf->flags & PC_FRAME_HAS_ADDRESS, 0);
	assert_int_equal(label_of(m, i, "tid")->num, 0x2123);

	/* memcpy of libA and of libB, main, work: four frames; unused symbols none */
	assert_int_equal(pc_model_nframes(m), 4);
	assert_int_equal(pc_model_nmodules(m), 3);
	assert_string_equal(str(m, pc_model_source(m, 0)), "sampler");
}

/*
 * The unknown fields are kept: a frame's in the high 32 bits of its
 * address (the id in the low ones), a thread entry's as the numeric label
 * sampler_unknown; the Sampler writer writes both back.
 */
static void test_unknown_fields_are_kept(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;
	size_t i, n;
	const uint32_t *frames;

	header(f);
	symbol_u(f, 0x2122, 0x80000001, "Thread_2122", "Thread_2122", "Thread_2122");
	symbol_u(f, 0x2123, 7, "main", "/bin/app", "/bin/app");
	put_text(f, "@end\n");
	thread(f, 0x2122);
	stack(f, 1, (const uint32_t[]){ 0x2123 });
	put_text(f, "@end\n");
	assert_int_equal(read_trace(f, false), 0);
	i = find_sample(m, "main", "Thread_2122");
	frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	assert_int_equal(pc_model_frame(m, frames[0])->address, (uint64_t)7 << 32 | 0x2123);
	assert_int_equal(pc_model_frame(m, frames[0])->flags & PC_FRAME_HAS_ADDRESS, 0);
	assert_non_null(label_of(m, i, "sampler_unknown"));
	assert_int_equal(label_of(m, i, "sampler_unknown")->num, 0x80000001);
	assert_int_equal(label_of(m, i, "tid")->num, 0x2122);
}

/*
 * Into a model whose earlier input counts samples of a named event (perf's
 * NAME_sample): the lines join that column, which becomes the default.
 */
static void test_lines_join_an_earlier_samples_column(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int samples = pc_model_add_event_column(m, "cycles_sample", "count", "cycles",
						PC_ROLE_SAMPLES);
	int periods = pc_model_add_event_column(m, "cycles_event", "count", "cycles",
						PC_ROLE_WEIGHT);

	pc_model_set_default_column(m, periods);
	base_trace(f, true);
	assert_int_equal(read_trace(f, false), 0);
	assert_int_equal(pc_model_ncolumns(m), 2);
	assert_int_equal(pc_model_default_column(m), samples);
	assert_int_equal(pc_model_values(m, find_sample(m, "work", "Thread_2122"))[samples], 2);
}

static void test_symbol_table_end_is_optional(void **state)
{
	struct fixture *f = *state;

	base_trace(f, false);
	assert_int_equal(read_trace(f, false), 0);
	assert_int_equal(pc_model_nsamples(f->m), 3);
}

static void test_empty_profiles(void **state)
{
	struct fixture *f = *state;

	header(f);
	symbol(f, 0x2122, "Thread", "Thread", "Thread");
	put_text(f, "@end\n");
	assert_int_equal(read_trace(f, false), 0); /* one @end: the table's or the last */
	put_text(f, "@end\n");
	assert_int_equal(read_trace(f, true), 0);
	assert_int_equal(pc_model_nsamples(f->m), 0);
}

/* Ids and counts whose bytes are TAB, LF and '@', and 10-frame stacks. */
static void test_binary_bytes(void **state)
{
	struct fixture *f = *state;
	uint32_t ids[10] = { 0x0a09, 0x2140, 0x0a0a, 0x0940, 0x400a, 0x0a09, 0x0a09, 0x0a09,
			     0x0a09, 0x09 };
	size_t n;
	const uint32_t *frames;

	header(f);
	symbol(f, 0x0a09, "a\x01", "lib\xff", "lib\xff");
	symbol(f, 0x2140, "at", "@", "@");
	symbol(f, 0x0a0a, "lf", "", "");
	symbol(f, 0x0940, "tab", "", "");
	symbol(f, 0x400a, "x", "", "");
	symbol(f, 0x09, "root", "", "");
	thread(f, 0x0a0a);
	stack(f, 10, ids);
	stack(f, 10, ids);
	stack(f, 9, ids + 1);
	put_text(f, "@end\n");
	assert_int_equal(read_trace(f, true), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	frames = pc_model_stack(f->m, pc_model_sample(f->m, 0)->stack, &n);
	assert_true(n == 10 || n == 9);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		frames = pc_model_stack(f->m, pc_model_sample(f->m, i)->stack, &n);
		assert_int_equal(pc_model_values(f->m, i)[0], n == 10 ? 2 : 1);
		assert_string_equal(str(f->m, pc_model_frame(f->m, frames[n - 1])->function),
				    "root");
	}
}

static void test_unusual_prefix_becomes_labels(void **state)
{
	struct fixture *f = *state;
	const uint32_t p[3] = { 2, 7, 0 };
	size_t i;

	header(f);
	symbol(f, 0x2122, "T", "T", "T");
	symbol(f, 0x2123, "main", "", "");
	put_text(f, "@end\n");
	thread(f, 0x2122);
	stack_p(f, p, 1, (const uint32_t[]){ 0x2123 });
	stack(f, 1, (const uint32_t[]){ 0x2123 });
	put_text(f, "@end\n");
	assert_int_equal(read_trace(f, false), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	for (i = 0; i < 2 && !label_of(f->m, i, "sampler_p0"); i++)
		;
	assert_true(i < 2);
	assert_int_equal(label_of(f->m, i, "sampler_p0")->num, 2);
	assert_int_equal(label_of(f->m, i, "sampler_p1")->num, 7);
	assert_int_equal(label_of(f->m, i, "sampler_p2")->num, 0);
	assert_string_equal(str(f->m, label_of(f->m, i, "thread")->str), "T");
}

static void expect_error(struct fixture *f, bool piped, uint64_t offset, const char *message)
{
	assert_int_equal(read_trace(f, piped), -1);
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_OFFSET);
	assert_string_equal(f->ctx.err.format, "sampler");
	if (f->ctx.err.offset != offset || !strstr(f->ctx.err.message, message))
		fail_msg("offset 0x%llx: %s (expected 0x%llx: %s)",
			 (unsigned long long)f->ctx.err.offset, f->ctx.err.message,
			 (unsigned long long)offset, message);
}

static void small_table(struct fixture *f)
{
	header(f);                            /* 35 bytes */
	symbol(f, 0x2122, "T", "T", "T");     /* 17 bytes: 35..51 */
	symbol(f, 0x2123, "main", "", "");    /* 18 bytes: 52..69 */
	put_text(f, "@end\n");                /* 70..74 */
	thread(f, 0x2122);                    /* 75..91 */
}

static void test_undefined_frame_id(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	stack(f, 2, (const uint32_t[]){ 0x2123, 0x40 }); /* TAB at 92, ids at 109 */
	put_text(f, "@end\n");
	expect_error(f, false, 113, "frame 2 of 2: symbol id 0x00000040 is not in the symbol table");
}

static void test_undefined_thread_id(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	f->len -= 17;
	thread(f, 0x2124);
	put_text(f, "@end\n");
	expect_error(f, false, 87, "thread id 2124 is not in the symbol table");
}

static void test_id_defined_twice(void **state)
{
	struct fixture *f = *state;

	header(f);
	symbol(f, 0x2122, "T", "T", "T");
	symbol(f, 0x2122, "U", "U", "U");
	put_text(f, "@end\n@end\n");
	expect_error(f, false, 53, "symbol id 0x00002122 is defined twice");
}

static void test_count_overruns(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	put_text(f, "\t");
	put_u32(f, 1);
	put_u32(f, 0);
	put_u32(f, 1);
	put_u32(f, 3); /* at 105: three frames, only one there */
	put_u32(f, 0x2123);
	put_text(f, "\n@end\n");
	expect_error(f, false, 105, "frame count 3 overruns the file");
	pc_error_clear(&f->ctx.err);
	expect_error(f, true, 109, "file ends inside a stack line");
}

static void test_count_short_of_the_line(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	put_text(f, "\t");
	put_u32(f, 1);
	put_u32(f, 0);
	put_u32(f, 1);
	put_u32(f, 1);
	put_u32(f, 0x2123);
	put_u32(f, 0x2123); /* at 113: where the LF should be */
	put_text(f, "\n@end\n");
	expect_error(f, false, 113, "expected LF after the 1 frames counted at offset 0x69");
}

static void test_missing_final_end(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	stack(f, 1, (const uint32_t[]){ 0x2123 }); /* 92..113 */
	expect_error(f, false, 114, "missing final \"@end\"");
}

static void test_bytes_after_the_end(void **state)
{
	struct fixture *f = *state;

	small_table(f);
	put_text(f, "@end\nx");
	expect_error(f, false, 97, "unexpected bytes after the final \"@end\"");
}

static void test_bad_header(void **state)
{
	struct fixture *f = *state;

	put_text(f, "@supersamplerV1.0\n@symboltableV1.2\n");
	expect_error(f, false, 18, "expected \"@symboltableV1.1\"");
	f->len = 0;
	pc_error_clear(&f->ctx.err);
	put_text(f, "@supersampler");
	expect_error(f, false, 0, "expected \"@supersamplerV1.0\"");
}

static void test_every_truncation_fails_located(void **state)
{
	struct fixture *f = *state;
	size_t full;

	base_trace(f, false);
	full = f->len;
	for (size_t cut = 0; cut < full; cut++) {
		for (int piped = 0; piped < 2; piped++) {
			pc_model_free(f->m);
			f->m = pc_model_new();
			pc_error_clear(&f->ctx.err);
			f->len = cut;
			assert_int_equal(read_trace(f, piped), -1);
			assert_int_equal(f->ctx.err.where, PC_WHERE_OFFSET);
			assert_true(f->ctx.err.offset <= cut);
		}
	}
}

static void test_probe(void **state)
{
	static const char full[] = "@supersamplerV1.0\n@symboltableV1.1\n";
	(void)state;

	assert_int_equal(pc_sampler_reader.probe((const uint8_t *)full, strlen(full)),
			 PC_PROBE_CERTAIN);
	assert_int_equal(pc_sampler_reader.probe((const uint8_t *)full, 18), PC_PROBE_STRONG);
	assert_int_equal(pc_sampler_reader.probe((const uint8_t *)full, 17), PC_PROBE_NO);
	assert_int_equal(pc_sampler_reader.probe((const uint8_t *)"main;a 1\n", 9), PC_PROBE_NO);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_stacks_threads_and_frames),
		T(test_symbol_table_end_is_optional),
		T(test_unknown_fields_are_kept),
		T(test_lines_join_an_earlier_samples_column),
		T(test_empty_profiles),
		T(test_binary_bytes),
		T(test_unusual_prefix_becomes_labels),
		T(test_undefined_frame_id),
		T(test_undefined_thread_id),
		T(test_id_defined_twice),
		T(test_count_overruns),
		T(test_count_short_of_the_line),
		T(test_missing_final_end),
		T(test_bytes_after_the_end),
		T(test_bad_header),
		T(test_every_truncation_fails_located),
		T(test_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
