/*
 * test_sampler_writer.c - the Apple Sampler writer: the exact bytes of a
 * small trace (header, the unnamed thread 0000 "Thread_0000", symbol ids
 * from 0x2122, entries in id order, the "@end" after the symbol table, a
 * line per counted sample), threads from thread labels, from comm/pid/tid
 * (comm-PID/TID, the tid as the thread's id) and from pid/tid alone, the
 * counted column (a NAME_sample twin before NAME_event, --event), the
 * prefix from sampler_p0..p2 labels, warnings for what is lost, reading
 * every written trace back to the same stacks, counts and threads, and
 * Sampler -> Sampler byte for byte (ids, unknown fields, threads) with
 * clashing ids given free ones.
 */
#include "model/format.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_reader pc_sampler_reader;
extern const struct pc_writer pc_sampler_writer;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m, *back;
	char *out;
	size_t out_len;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	f->back = pc_model_new();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	pc_model_free(f->back);
	free(f->out);
	free(f);
	return 0;
}

static uint32_t frame(struct pc_model *m, const char *function, const char *module)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(m, module) };
	struct pc_frame fr = {
		.function = pc_model_intern_cstr(m, function),
		.module = module[0] ? pc_model_add_module(m, &mod) : 0,
	};

	return pc_model_add_frame(m, &fr);
}

static struct pc_label str_label(struct pc_model *m, const char *key, const char *value)
{
	return (struct pc_label){ .key = pc_model_intern_cstr(m, key),
				  .str = pc_model_intern_cstr(m, value) };
}

static struct pc_label num_label(struct pc_model *m, const char *key, int64_t num)
{
	return (struct pc_label){ .key = pc_model_intern_cstr(m, key), .num = num,
				  .unit = pc_model_intern_cstr(m, key) };
}

static void add(struct pc_model *m, const uint32_t *frames, size_t n,
		const struct pc_label *labels, size_t nlabels, size_t column, uint64_t count)
{
	struct pc_sample sample = {
		.stack = pc_model_add_stack(m, frames, n),
		.labels = pc_model_add_labels(m, labels, nlabels),
	};

	assert_int_equal(pc_model_add_sample(m, &sample, column, count), 0);
}

static int write_trace(struct fixture *f)
{
	struct pc_output out = { 0 };

	pc_model_finalize(f->m);
	free(f->out);
	f->out = NULL;
	assert_int_equal(pc_output_to_memory(&out, &f->out, &f->out_len, &f->ctx.err), 0);
	if (pc_sampler_writer.write(&f->ctx, f->m, &out)) {
		pc_output_abort(&out);
		return -1;
	}
	assert_int_equal(pc_output_commit(&out, &f->ctx.err), 0);
	return 0;
}

static void read_back(struct fixture *f)
{
	struct pc_input in;

	pc_input_from_memory(&in, "written.trace", f->out, f->out_len);
	assert_int_equal(pc_sampler_reader.read(&f->ctx, &in, f->back), 0);
	pc_input_close(&in);
	pc_model_finalize(f->back);
}

/* The count of samples with this leaf and thread label ("X*": starting with X). */
static uint64_t count_of(const struct pc_model *m, const char *leaf, const char *thread)
{
	uint64_t total = 0;

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		size_t n, nlabels;
		const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
		const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, i)->labels, &nlabels);
		bool in_thread = false;

		for (size_t k = 0; k < nlabels; k++) {
			const struct pc_label *l = pc_model_label(m, labels[k]);

			size_t len = strlen(thread);
			bool prefix = len && thread[len - 1] == '*';

			in_thread |= !strcmp(pc_str(m, l->key), "thread") &&
				     (prefix ? !strncmp(pc_str(m, l->str), thread, len - 1) :
					       !strcmp(pc_str(m, l->str), thread));
		}
		if (n && in_thread &&
		    !strcmp(pc_str(m, pc_model_frame(m, frames[0])->function), leaf))
			total += pc_model_values(m, i)[0];
	}
	return total;
}

static void test_exact_bytes(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t stack[2];
	static const char expected[] =
		"@supersamplerV1.0\n@symboltableV1.1\n"
		"\t\x00\x00\x00\x00\t\x00\x00\x00\x00\tThread_0000\tThread_0000\tThread_0000\n"
		"\t\x00\x00\x21\x22\t\x00\x00\x00\x00\tleaf\t/lib/a\t/lib/a\n"
		"\t\x00\x00\x21\x23\t\x00\x00\x00\x00\tmain\t\t\n"
		"@end\n"
		"@threadV1.0\t0000\n"
		"\t\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02"
		"\x00\x00\x21\x22\x00\x00\x21\x23\n"
		"\t\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02"
		"\x00\x00\x21\x22\x00\x00\x21\x23\n"
		"@end\n";

	stack[0] = frame(m, "leaf", "/lib/a");
	stack[1] = frame(m, "main", "");
	add(m, stack, 2, NULL, 0, (size_t)column, 2);
	assert_int_equal(write_trace(f), 0);
	assert_int_equal(f->out_len, sizeof(expected) - 1);
	assert_memory_equal(f->out, expected, sizeof(expected) - 1);
	assert_int_equal(f->ctx.nwarnings, 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "leaf", "Thread_0000"), 2);
}

static void test_threads(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t a = frame(m, "a", "/bin/x"), b = frame(m, "b", "/bin/x");
	struct pc_label named[1] = { str_label(m, "thread", "worker") };
	struct pc_label perf[3] = { str_label(m, "comm", "my app"), num_label(m, "pid", 10),
				    num_label(m, "tid", 11) };
	struct pc_label comm_only[1] = { str_label(m, "comm", "solo") };

	add(m, (uint32_t[]){ a, b }, 2, named, 1, (size_t)column, 3);
	add(m, (uint32_t[]){ b }, 1, perf, 3, (size_t)column, 2);
	add(m, (uint32_t[]){ a }, 1, comm_only, 1, (size_t)column, 1);
	add(m, (uint32_t[]){ b, a }, 2, NULL, 0, (size_t)column, 4);
	assert_int_equal(write_trace(f), 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "a", "worker"), 3);
	assert_int_equal(count_of(f->back, "b", "my_app-10/11"), 2);
	assert_int_equal(count_of(f->back, "a", "solo-?/?"), 1);
	/* the thread the input did not name is 0000 */
	assert_int_equal(count_of(f->back, "b", "Thread_0000"), 4);
	assert_int_equal(pc_model_nsamples(f->back), 4);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_sample_column_before_event(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int samples = pc_model_add_event_column(m, "cycles_sample", "count", "cycles", PC_ROLE_SAMPLES);
	int periods = pc_model_add_event_column(m, "cycles_event", "count", "cycles", PC_ROLE_WEIGHT);
	uint32_t a = frame(m, "a", "");

	pc_model_set_default_column(m, periods);
	add(m, &a, 1, NULL, 0, (size_t)samples, 3);
	add(m, &a, 1, NULL, 0, (size_t)periods, 3000000);
	assert_int_equal(write_trace(f), 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "a", "Thread_0000"), 3);
	assert_int_equal(f->ctx.nwarnings, 1); /* the periods are lost */

	f->ctx.opt.event = "nosuch";
	assert_int_equal(write_trace(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "no event 'nosuch'"));
}

static void test_event_option(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int one = pc_model_add_event_column(m, "one_sample", "count", "one", PC_ROLE_SAMPLES);
	int two = pc_model_add_event_column(m, "two_sample", "count", "two", PC_ROLE_SAMPLES);
	uint32_t a = frame(m, "a", "");

	add(m, &a, 1, NULL, 0, (size_t)one, 1);
	add(m, &a, 1, NULL, 0, (size_t)two, 5);
	f->ctx.opt.event = "two";
	assert_int_equal(write_trace(f), 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "a", "Thread_0000"), 5);
}

static void test_prefix_labels_and_lost_labels(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t a = frame(m, "a", "");
	struct pc_label labels[4] = {
		(struct pc_label){ .key = pc_model_intern_cstr(m, "sampler_p0"), .num = 9 },
		(struct pc_label){ .key = pc_model_intern_cstr(m, "sampler_p1"), .num = 8 },
		(struct pc_label){ .key = pc_model_intern_cstr(m, "sampler_p2"), .num = 7 },
		num_label(m, "cpu", 3),
	};
	static const uint8_t prefix[16] = { 0, 0, 0, 9, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0, 1 };
	char *line;

	add(m, &a, 1, labels, 4, (size_t)column, 1);
	assert_int_equal(write_trace(f), 0);
	line = NULL;
	for (size_t i = 0; i + 17 <= f->out_len && !line; i++)
		if (!memcmp(f->out + i, "@threadV1.0\t0000\n", 17))
			line = f->out + i;
	assert_non_null(line);
	assert_memory_equal(line + 18, prefix, sizeof(prefix));
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "labels other than"));
	f->ctx.opt.strict = true; /* labels Sampler has no place for: a notice */
	assert_int_equal(write_trace(f), 0);
}

static void test_tab_and_lf_in_names(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t a = frame(m, "a\tb\nc", "");

	add(m, &a, 1, NULL, 0, (size_t)column, 1);
	assert_int_equal(write_trace(f), 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "a b c", "Thread_0000"), 1);
	assert_int_equal(f->ctx.nwarnings, 1);
}

static void test_too_many_lines(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t a = frame(m, "a", "");

	add(m, &a, 1, NULL, 0, (size_t)column, UINT64_C(1) << 40);
	assert_int_equal(write_trace(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "Sampler writes one line per sample"));
}

/* --- Sampler in, Sampler out --- */

/* Whether the output holds the n bytes (memmem is not POSIX). */
static bool out_has(const struct fixture *f, const char *bytes, size_t n)
{
	for (size_t i = 0; i + n <= f->out_len; i++)
		if (!memcmp(f->out + i, bytes, n))
			return true;
	return false;
}

struct trace {
	char bytes[2048];
	size_t len;
};

static void put_bytes(struct trace *t, const void *bytes, size_t n)
{
	assert_true(t->len + n <= sizeof(t->bytes));
	memcpy(t->bytes + t->len, bytes, n);
	t->len += n;
}

static void put_text(struct trace *t, const char *text)
{
	put_bytes(t, text, strlen(text));
}

static void put_be32(struct trace *t, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put_bytes(t, b, 4);
}

static void put_entry(struct trace *t, uint32_t id, uint32_t unknown, const char *name,
		      const char *path)
{
	put_text(t, "\t");
	put_be32(t, id);
	put_text(t, "\t");
	put_be32(t, unknown);
	put_text(t, "\t");
	put_text(t, name);
	put_text(t, "\t");
	put_text(t, path);
	put_text(t, "\t");
	put_text(t, path);
	put_text(t, "\n");
}

/* A stack line: prefix p0 p1 p2, then n frame ids. */
static void put_line(struct trace *t, const uint32_t p[3], const uint32_t *ids, uint32_t n)
{
	put_text(t, "\t");
	for (size_t i = 0; i < 3; i++)
		put_be32(t, p[i]);
	put_be32(t, n);
	for (uint32_t i = 0; i < n; i++)
		put_be32(t, ids[i]);
	put_text(t, "\n");
}

static void read_trace(struct fixture *f, const struct trace *t, struct pc_model *m)
{
	struct pc_input in;

	pc_input_from_memory(&in, "in.trace", t->bytes, t->len);
	assert_int_equal(pc_sampler_reader.read(&f->ctx, &in, m), 0);
	pc_input_close(&in);
}

/*
 * A trace in the writer's form: entries in id order (thread ids 0x0005
 * and 0x0A0A, frame ids holding TAB and LF bytes, nonzero unknown fields
 * of a thread and of a frame), every symbol used, a line with an unusual
 * prefix, each thread's lines in the model's order.
 */
static void canonical_trace(struct trace *t)
{
	static const uint32_t usual[3] = { 1, 0, 1 }, odd[3] = { 2, 5, 1 };
	enum { ALPHA = 0x0a09, BETA = 0x1000, GAMMA = 0x1001 };

	put_text(t, "@supersamplerV1.0\n@symboltableV1.1\n");
	put_entry(t, 0x0005, 3, "worker", "worker");
	put_entry(t, ALPHA, 0, "alpha", "/bin/app");
	put_entry(t, 0x0a0a, 0, "main thread", "main thread");
	put_entry(t, BETA, 7, "beta", "/bin/app");
	put_entry(t, GAMMA, 0, "gamma", "/bin/app");
	put_text(t, "@end\n@threadV1.0\t0A0A\n");
	put_line(t, odd, (const uint32_t[]){ ALPHA }, 1);
	put_line(t, usual, (const uint32_t[]){ BETA, GAMMA }, 2);
	put_text(t, "@threadV1.0\t0005\n");
	put_line(t, usual, (const uint32_t[]){ ALPHA }, 1);
	put_line(t, usual, (const uint32_t[]){ ALPHA }, 1);
	put_line(t, usual, (const uint32_t[]){ GAMMA, ALPHA }, 2);
	put_text(t, "@end\n");
}

static void test_sampler_round_trip_is_byte_exact(void **state)
{
	struct fixture *f = *state;
	struct trace t = { .len = 0 };

	canonical_trace(&t);
	read_trace(f, &t, f->m);
	assert_int_equal(write_trace(f), 0);
	assert_int_equal(f->out_len, t.len);
	assert_memory_equal(f->out, t.bytes, t.len);
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* Two traces merged: a symbol id that both use for other symbols gets a free id. */
static void test_clashing_ids_get_free_ones(void **state)
{
	struct fixture *f = *state;
	static const uint32_t usual[3] = { 1, 0, 1 };
	struct trace a = { .len = 0 }, b = { .len = 0 };

	put_text(&a, "@supersamplerV1.0\n@symboltableV1.1\n");
	put_entry(&a, 0x2122, 0, "Thread_2122", "Thread_2122");
	put_entry(&a, 0x2123, 0, "one", "/bin/a");
	put_text(&a, "@end\n@threadV1.0\t2122\n");
	put_line(&a, usual, (const uint32_t[]){ 0x2123 }, 1);
	put_text(&a, "@end\n");
	put_text(&b, "@supersamplerV1.0\n@symboltableV1.1\n");
	put_entry(&b, 0x2122, 0, "Thread_2122", "Thread_2122");
	put_entry(&b, 0x2123, 0, "two", "/bin/b");
	put_text(&b, "@end\n@threadV1.0\t2122\n");
	put_line(&b, usual, (const uint32_t[]){ 0x2123 }, 1);
	put_line(&b, usual, (const uint32_t[]){ 0x2123 }, 1);
	put_text(&b, "@end\n");
	read_trace(f, &a, f->m);
	read_trace(f, &b, f->m);
	assert_int_equal(write_trace(f), 0);
	read_back(f);
	assert_int_equal(count_of(f->back, "one", "Thread_2122"), 1);
	assert_int_equal(count_of(f->back, "two", "Thread_2122"), 2);
	assert_true(out_has(f, "\t\x00\x00\x21\x23\t", 6));
	assert_true(out_has(f, "\t\x00\x00\x21\x24\t", 6));
}

/* A tid from 0 to 0xffff is the thread's id; a larger one or a taken one is not. */
static void test_tids_are_thread_ids(void **state)
{
	struct fixture *f = *state;
	struct pc_model *m = f->m;
	int column = pc_model_add_column(m, "samples", "count");
	uint32_t a = frame(m, "a", "/bin/x");
	struct pc_label small[3] = { str_label(m, "comm", "app"), num_label(m, "pid", 10),
				     num_label(m, "tid", 11) };
	struct pc_label large[3] = { str_label(m, "comm", "app"), num_label(m, "pid", 10),
				     num_label(m, "tid", 70000) };
	struct pc_label again[3] = { str_label(m, "comm", "exec'd"), num_label(m, "pid", 10),
				     num_label(m, "tid", 11) };
	struct pc_label bare[2] = { num_label(m, "pid", 20), num_label(m, "tid", 21) };

	add(m, &a, 1, small, 3, (size_t)column, 1);
	add(m, &a, 1, large, 3, (size_t)column, 2);
	add(m, &a, 1, again, 3, (size_t)column, 3);
	add(m, &a, 1, bare, 2, (size_t)column, 4);
	assert_int_equal(write_trace(f), 0);
	assert_true(out_has(f, "@threadV1.0\t000B\n", 17));
	assert_true(out_has(f, "@threadV1.0\t0015\n", 17));
	assert_true(out_has(f, "\tThread_0015\t", 13));
	read_back(f);
	assert_int_equal(count_of(f->back, "a", "app-10/11"), 1);
	assert_int_equal(count_of(f->back, "a", "app-10/70000"), 2);
	assert_int_equal(count_of(f->back, "a", "exec'd-10/11"), 3);
	assert_int_equal(count_of(f->back, "a", "Thread_0015"), 4);
	assert_int_equal(pc_model_nsamples(f->back), 4);
}

/* A profile without samples: the symbol table's header and two "@end" lines. */
static void test_empty_profile(void **state)
{
	struct fixture *f = *state;
	static const char expected[] = "@supersamplerV1.0\n@symboltableV1.1\n@end\n@end\n";

	pc_model_add_column(f->m, "samples", "count");
	assert_int_equal(write_trace(f), 0);
	assert_int_equal(f->out_len, sizeof(expected) - 1);
	assert_memory_equal(f->out, expected, sizeof(expected) - 1);
	read_back(f);
	assert_int_equal(pc_model_nsamples(f->back), 0);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_exact_bytes),
		T(test_threads),
		T(test_sample_column_before_event),
		T(test_event_option),
		T(test_prefix_labels_and_lost_labels),
		T(test_tab_and_lf_in_names),
		T(test_too_many_lines),
		T(test_sampler_round_trip_is_byte_exact),
		T(test_clashing_ids_get_free_ones),
		T(test_tids_are_thread_ids),
		T(test_empty_profile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
