/*
 * test_folded_reader.c - the folded stacks reader: exact model contents
 * (frames, leaf-first stacks, the column, merging), the accepted grammar
 * (spaces, parentheses, "->", UTF-8 and invalid UTF-8 in frames, empty
 * fields, CRLF, blank lines, a last line without newline, a byte-order
 * mark), every error class at its exact line:column, --skip-bad and
 * --strict, streaming over files and pipes with lines longer than the
 * input window, and the probe.
 */
#include "pipeline/registry.h"
#include "support/fixture.h"
#include "support/read_memory.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

extern const struct pc_reader pc_folded_reader;

static int read_bytes(struct fixture *f, const void *data, size_t size)
{
	return pct_read_memory(&f->ctx, f->m, &pc_folded_reader, "test.folded", data, size,
			       false);
}

static int read_text(struct fixture *f, const char *text)
{
	return read_bytes(f, text, strlen(text));
}

/* The stack of sample i as folded text, root first (frames must be bare names). */
static void stack_text(const struct pc_model *m, size_t i, char *buf, size_t size)
{
	size_t n, used = 0;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

	buf[0] = '\0';
	for (size_t k = n; k-- > 0;) {
		const struct pc_frame *frame = pc_model_frame(m, frames[k]);

		assert_int_equal(frame->module, 0);
		assert_int_equal(frame->flags, 0);
		assert_int_equal(frame->address, 0);
		assert_int_equal(frame->file, 0);
		assert_int_equal(frame->line, 0);
		used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
					 k + 1 < n ? ";" : "",
					 (int)pc_str_len(m, frame->function),
					 pc_str(m, frame->function));
		assert_true(used < size);
	}
}

/* The count of the sample whose stack reads as text; -1 when there is none. */
static int64_t count_of(const struct pc_model *m, const char *text)
{
	char buf[4096];

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		stack_text(m, i, buf, sizeof(buf));
		if (!strcmp(buf, text))
			return (int64_t)pc_model_values(m, i)[0];
	}
	return -1;
}

static void assert_error(struct fixture *f, const char *text, uint32_t line,
			 uint32_t column, const char *message)
{
	assert_int_equal(read_text(f, text), -1);
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f->ctx.err.format, "folded");
	assert_string_equal(f->ctx.err.path, "test.folded");
	assert_int_equal(f->ctx.err.line, line);
	assert_int_equal(f->ctx.err.column, column);
	assert_string_equal(f->ctx.err.message, message);
}

/* --- the model --- */

static void test_lines_become_leaf_first_stacks(void **state)
{
	struct fixture *f = *state;
	const uint32_t *frames;
	size_t n;

	assert_int_equal(read_text(f, "main;parse;lex 12\nmain;eval 3\n"), 0);
	assert_int_equal(pc_model_nsources(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "folded");
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "samples");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->unit), "count");
	assert_int_equal(pc_model_default_column(f->m), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(pc_model_nmodules(f->m), 0);
	assert_int_equal(pc_model_nframes(f->m), 4);
	assert_int_equal(count_of(f->m, "main;parse;lex"), 12);
	assert_int_equal(count_of(f->m, "main;eval"), 3);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		assert_int_equal(pc_model_sample(f->m, i)->labels, 0);
		assert_int_equal(pc_model_sample(f->m, i)->branches, 0);
	}
	/* leaf first: the first frame of the 3-frame stack is lex */
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		frames = pc_model_stack(f->m, pc_model_sample(f->m, i)->stack, &n);
		if (n == 3)
			assert_string_equal(pc_str(f->m, pc_model_frame(f->m, frames[0])->function),
					    "lex");
	}
}

static void test_identical_stacks_add_up(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a;b 1\na;c 5\na;b 2\na;b 4\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(count_of(f->m, "a;b"), 7);
	assert_int_equal(count_of(f->m, "a;c"), 5);
}

static void test_the_root_frame_is_an_ordinary_frame(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "perf-1234;main 1\nmain 2\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(count_of(f->m, "perf-1234;main"), 1);
	assert_int_equal(count_of(f->m, "main"), 2);
	assert_int_equal(pc_model_nlabels(f->m), 0);
}

static void test_frames_keep_spaces_and_punctuation(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "worker thread 2;std::map<int, int>::find(int const&) "
				      "const;lambda$0 -> apply;[unknown];x\ty 9\n"), 0);
	assert_int_equal(count_of(f->m, "worker thread 2;std::map<int, int>::find(int "
				     "const&) const;lambda$0 -> apply;[unknown];x\ty"), 9);
}

static void test_utf8_and_invalid_utf8_are_kept_as_bytes(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "main;ünïcödé_シンボル 2\nmain;bad\xff\xfe 3\n"), 0);
	assert_int_equal(count_of(f->m, "main;ünïcödé_シンボル"), 2);
	assert_int_equal(count_of(f->m, "main;bad\xff\xfe"), 3);
}

static void test_empty_fields_are_unnamed_frames(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a;;b 1\n;a 2\na; 3\n; 4\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 4);
	assert_int_equal(count_of(f->m, "a;;b"), 1);
	assert_int_equal(count_of(f->m, ";a"), 2);
	assert_int_equal(count_of(f->m, "a;"), 3);
	assert_int_equal(count_of(f->m, ";"), 4);
	/* one unnamed frame, shared */
	assert_int_equal(pc_model_nframes(f->m), 3);
}

static void test_line_ends_blank_lines_and_bom(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "\xef\xbb\xbf" "a;b 1\r\n\r\n  \t\n\na;c 2  \t\r\n"
				      "a;b\t3\na;d 4"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 3);
	assert_int_equal(count_of(f->m, "a;b"), 4);
	assert_int_equal(count_of(f->m, "a;c"), 2);
	assert_int_equal(count_of(f->m, "a;d"), 4);
}

/* One blank separates the count: others belong to the stack, as in flamegraph.pl. */
static void test_blanks_before_the_separator_belong_to_the_stack(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a;  3\na;b\t 4\n  5\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 3);
	assert_int_equal(count_of(f->m, "a; "), 3);
	assert_int_equal(count_of(f->m, "a;b\t"), 4);
	assert_int_equal(count_of(f->m, " "), 5);
}

static void test_a_bom_is_only_dropped_at_the_start(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a 1\n\xef\xbb\xbf" "b 2\n"), 0);
	assert_int_equal(count_of(f->m, "\xef\xbb\xbf" "b"), 2);
}

static void test_zero_counts_and_leading_zeros(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a;b 0\na;c 007\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 1);
	assert_int_equal(count_of(f->m, "a;c"), 7);
}

static void test_largest_count(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a 9223372036854775807\n"), 0);
	assert_int_equal(count_of(f->m, "a"), INT64_MAX);
}

static void test_empty_input(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, ""), 0);
	assert_int_equal(pc_model_nsamples(f->m), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
}

static void test_an_earlier_default_column_is_kept(void **state)
{
	struct fixture *f = *state;

	pc_model_add_column(f->m, "cycles", "count");
	pc_model_add_column(f->m, "instructions", "count");
	pc_model_set_default_column(f->m, 1);
	assert_int_equal(read_text(f, "a 1\n"), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 3);
	assert_int_equal(pc_model_default_column(f->m), 1);
	assert_int_equal(pc_model_values(f->m, 0)[2], 1);
}

/*
 * Folded text cannot say whether its counts are samples or summed
 * periods: they are sampled counts (role PC_ROLE_SAMPLES), what every
 * stack consumer can use.
 */
static void test_counts_are_sampled_counts(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "a;b 3\n"), 0);
	assert_int_equal(pc_model_column(f->m, 0)->role, PC_ROLE_SAMPLES);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->event), "samples");
	assert_int_equal(pc_model_pick_column(f->m, NULL, PC_ROLE_SAMPLES), 0);
}

/*
 * Into a model whose earlier input counts samples of a named event (perf's
 * NAME_sample, its default NAME_event a weight): the counts join that
 * samples column, which becomes the default (the one holding both inputs).
 */
static void test_counts_join_an_earlier_samples_column(void **state)
{
	struct fixture *f = *state;
	int samples = pc_model_add_event_column(f->m, "cycles_sample", "count", "cycles",
						PC_ROLE_SAMPLES);
	int periods = pc_model_add_event_column(f->m, "cycles_event", "count", "cycles",
						PC_ROLE_WEIGHT);

	pc_model_set_default_column(f->m, periods);
	assert_int_equal(read_text(f, "a;b 3\n"), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 2);
	assert_int_equal(pc_model_default_column(f->m), samples);
	assert_int_equal(pc_model_values(f->m, 0)[samples], 3);
	assert_int_equal(pc_model_values(f->m, 0)[periods], 0);
}

/* --- errors --- */

static void test_no_space_before_the_count(void **state)
{
	assert_error(*state, "a;b 1\na;b;c\n", 2, 6,
		     "expected a space and a count at the end of the line, found \"a;b;c\"");
}

static void test_not_a_count(void **state)
{
	assert_error(*state, "a;b 1\n\na;b x1\n", 3, 5,
		     "expected a count after the last space, found \"x1\"");
}

static void test_negative_count(void **state)
{
	assert_error(*state, "a;b -1\n", 1, 5,
		     "expected a count after the last space, found \"-1\"");
}

static void test_fractional_count(void **state)
{
	assert_error(*state, "a;b 1.5\n", 1, 5, "count \"1.5\" is not a decimal integer");
}

static void test_count_too_large(void **state)
{
	assert_error(*state, "a;b 9223372036854775808\n", 1, 5,
		     "count 9223372036854775808 is too large (at most 9223372036854775807)");
}

static void test_long_non_integer_count(void **state)
{
	assert_error(*state, "a;b 99999999999999999999x\n", 1, 5,
		     "count \"99999999999999999999x\" is not a decimal integer");
}

static void test_empty_stack(void **state)
{
	assert_error(*state, "a 1\n 5\n", 2, 1, "empty stack before the count");
}

static void test_nul_byte(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "a 1\nab\0c 5\n";

	assert_int_equal(read_bytes(f, text, sizeof(text) - 1), -1);
	assert_int_equal(f->ctx.err.line, 2);
	assert_int_equal(f->ctx.err.column, 3);
	assert_string_equal(f->ctx.err.message, "unexpected NUL byte (is this binary data?)");
}

static void test_control_byte(void **state)
{
	assert_error(*state, "a;b\x01 5\n", 1, 4,
		     "unexpected control byte 0x01 (is this binary data?)");
}

static void test_lone_carriage_return(void **state)
{
	assert_error(*state, "a\rb 5\n", 1, 2,
		     "unexpected control byte 0x0d (is this binary data?)");
}

static void test_sum_overflow(void **state)
{
	assert_error(*state, "a;b 9223372036854775807\nc 1\na;b 1\n", 3, 5,
		     "the counts of this stack add up to more than 9223372036854775807");
}

static void test_error_on_last_line_without_newline(void **state)
{
	assert_error(*state, "a 1\nb", 2, 2,
		     "expected a space and a count at the end of the line, found \"b\"");
}

static void test_long_bad_text_is_cut_in_the_message(void **state)
{
	struct fixture *f = *state;
	char text[200];

	memset(text, 'x', 100);
	memcpy(text + 100, " 5y\n", 5);
	assert_int_equal(read_text(f, text), -1);
	assert_int_equal(f->ctx.err.column, 102);
	assert_string_equal(f->ctx.err.message, "count \"5y\" is not a decimal integer");
	memset(text, 'x', 100);
	text[100] = '\0';
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_text(f, text), -1);
	assert_non_null(strstr(f->ctx.err.message,
			       "found \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\""));
}

/* --- --skip-bad and --strict --- */

static void test_skip_bad_counts_one_warning(void **state)
{
	struct fixture *f = *state;

	f->ctx.opt.skip_bad = true;
	assert_int_equal(read_text(f, "a;b 1\nnonsense\na;b x\n 4\na;c 2\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(count_of(f->m, "a;b"), 1);
	assert_int_equal(count_of(f->m, "a;c"), 2);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 3);
	assert_string_equal(f->ctx.warnings[0].text,
			    "folded: skipped an unparseable line, the first at test.folded:2:9: "
			    "expected a space and a count at the end of the line, found "
			    "\"nonsense\"");
}

static void test_skip_bad_with_strict_is_the_located_error(void **state)
{
	struct fixture *f = *state;

	f->ctx.opt.skip_bad = true;
	f->ctx.opt.strict = true;
	assert_error(f, "a;b 1\na;b 1.0\n", 2, 5, "count \"1.0\" is not a decimal integer");
}

static void test_skip_bad_does_not_skip_overflow(void **state)
{
	struct fixture *f = *state;

	f->ctx.opt.skip_bad = true;
	assert_error(f, "a 9223372036854775807\na 1\n", 2, 3,
		     "the counts of this stack add up to more than 9223372036854775807");
}

/* --- streaming --- */

static char *write_temp(const void *data, size_t size)
{
	char *path = pc_xmalloc(64);
	int fd;

	snprintf(path, 64, "/tmp/pc-test-folded.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	return path;
}

/* Lines of 3 MiB, longer than the 1 MiB window, then many short ones. */
static char *long_lines_text(size_t *size)
{
	size_t cap = 8u << 20, used = 0;
	char *text = pc_xmalloc(cap);

	for (int line = 0; line < 2; line++) {
		for (size_t i = 0; i < (3u << 20) / 8; i++) {
			memcpy(text + used, line ? "frame_b;" : "frame_a;", 8);
			used += 8;
		}
		used += (size_t)snprintf(text + used, cap - used, "leaf %d\n", line + 1);
	}
	for (int i = 0; i < 20000; i++)
		used += (size_t)snprintf(text + used, cap - used, "main;f%d %d\r\n", i % 100, 1);
	used += (size_t)snprintf(text + used, cap - used, "main;last 5");
	*size = used;
	return text;
}

static void test_file_and_pipe_give_the_same_model(void **state)
{
	struct fixture *f = *state;
	size_t size;
	char *text = long_lines_text(&size), *path = write_temp(text, size);

	assert_int_equal(read_bytes(f, text, size), 0);
	assert_int_equal(pc_model_nsamples(f->m), 103);
	for (int unknown_size = 0; unknown_size < 2; unknown_size++) {
		struct pc_model *from_file;
		struct pc_input in;

		from_file = pc_model_new();
		assert_int_equal(pc_input_open(&in, path, &f->ctx.err), 0);
		if (unknown_size)
			in.size = PC_SIZE_UNKNOWN;
		assert_int_equal(pc_folded_reader.read(&f->ctx, &in, from_file), 0);
		pc_input_close(&in);
		pc_model_finalize(from_file);
		assert_int_equal(pc_model_nsamples(from_file), pc_model_nsamples(f->m));
		assert_int_equal(pc_model_nframes(from_file), pc_model_nframes(f->m));
		for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
			size_t na, nb;

			pc_model_stack(from_file, pc_model_sample(from_file, i)->stack, &na);
			pc_model_stack(f->m, pc_model_sample(f->m, i)->stack, &nb);
			assert_int_equal(na, nb);
			assert_int_equal(pc_model_values(from_file, i)[0],
					 pc_model_values(f->m, i)[0]);
		}
		pc_model_free(from_file);
	}
	assert_int_equal(count_of(f->m, "main;f7"), 200);
	assert_int_equal(count_of(f->m, "main;last"), 5);
	unlink(path);
	free(path);
	free(text);
}

static void test_error_line_numbers_after_long_lines(void **state)
{
	struct fixture *f = *state;
	size_t size;
	char *text = long_lines_text(&size), *path = write_temp(text, size - 1);
	struct pc_input in;

	/* the file ends in "main;last " : no count on the last line */
	assert_int_equal(pc_input_open(&in, path, &f->ctx.err), 0);
	assert_int_equal(pc_folded_reader.read(&f->ctx, &in, f->m), -1);
	pc_input_close(&in);
	assert_int_equal(f->ctx.err.line, 20003);
	assert_int_equal(f->ctx.err.column, 10);
	unlink(path);
	free(path);
	free(text);
}

static void test_line_longer_than_64_mib(void **state)
{
	struct fixture *f = *state;
	size_t size = (64u << 20) + 100;
	char *text = pc_xmalloc(size);
	char *path;
	struct pc_input in;

	memset(text, 'x', size);
	memcpy(text, "a 1\n", 4);
	path = write_temp(text, size);
	assert_int_equal(pc_input_open(&in, path, &f->ctx.err), 0);
	assert_int_equal(pc_folded_reader.read(&f->ctx, &in, f->m), -1);
	pc_input_close(&in);
	assert_int_equal(f->ctx.err.line, 2);
	assert_int_equal(f->ctx.err.column, 1);
	assert_string_equal(f->ctx.err.message, "line longer than 64 MiB (is this folded text?)");
	unlink(path);
	free(path);
	free(text);
}

/* --- probe --- */

static int probe(const char *text)
{
	return pc_folded_reader.probe((const uint8_t *)text, strlen(text));
}

static void test_probe_folded_is_strong(void **state)
{
	(void)state;
	assert_int_equal(probe("main;a;b 12\nmain;c 3\n"), PC_PROBE_STRONG);
	assert_int_equal(probe("main 4\nmain;c 3"), PC_PROBE_STRONG);
	assert_int_equal(probe("\xef\xbb\xbf" "a;b 1\r\n\r\n"), PC_PROBE_STRONG);
	assert_true(PC_PROBE_STRONG >= PC_PROBE_WEAK);
}

static void test_probe_without_semicolons_is_a_weak_guess(void **state)
{
	(void)state;
	assert_true(probe("main 5\n") > PC_PROBE_NO);
	assert_true(probe("main 5\n") < PC_PROBE_WEAK);
	assert_true(probe("main 5\nother 3\n") < PC_PROBE_WEAK);
}

/*
 * A whole input of blank lines is an empty profile: WEAK (detected, since
 * no other format claims blank text); a full head of blanks says nothing.
 */
static void test_probe_blank_lines_only_is_weak(void **state)
{
	char head[PC_PROBE_BYTES];

	(void)state;
	assert_int_equal(probe("\n\n"), PC_PROBE_WEAK);
	assert_int_equal(probe(" \t\r\n\n"), PC_PROBE_WEAK);
	memset(head, '\n', sizeof(head));
	assert_int_equal(pc_folded_reader.probe((const uint8_t *)head, sizeof(head)), PC_PROBE_NO);
}

static void test_probe_rejects_other_text(void **state)
{
	(void)state;
	assert_int_equal(probe(""), PC_PROBE_NO);
	assert_int_equal(probe("a;b 1\nnot folded\n"), PC_PROBE_NO);
	assert_int_equal(probe("a;b 1.5\n"), PC_PROBE_NO);
	assert_int_equal(probe("# comment;x 1\nbinary\x01;garbage 2\n"), PC_PROBE_NO);
	/* perf script: a sample header, callchain lines, a blank line */
	assert_int_equal(probe("perf 1234 [000] 12345.678901:     250000 cycles:u: \n"
			       "\t    55d4c3a0 main+0x10 (/usr/bin/app)\n"
			       "\t    7f12cafe __libc_start_main+0xf3 (/lib/libc.so.6)\n\n"),
			 PC_PROBE_NO);
	assert_int_equal(probe("app 77/77 1.000: 1 cycles: 401000 main (/bin/app)\n"),
			 PC_PROBE_NO);
	assert_int_equal(probe("@supersamplerV1.0\n@symboltableV1.0\n"), PC_PROBE_NO);
}

/* A full head: the cut last line is left out, or judged alone when it is all. */
static void test_probe_full_head(void **state)
{
	uint8_t head[PC_PROBE_BYTES];

	(void)state;
	memset(head, 'x', sizeof(head));
	memcpy(head, "a;b 1\n", 6);
	assert_int_equal(pc_folded_reader.probe(head, sizeof(head)), PC_PROBE_STRONG);
	memset(head, 'x', sizeof(head));
	head[100] = ';';
	assert_int_equal(pc_folded_reader.probe(head, sizeof(head)), PC_PROBE_WEAK);
	head[200] = '\0';
	assert_int_equal(pc_folded_reader.probe(head, sizeof(head)), PC_PROBE_NO);
	memset(head, 'x', sizeof(head));
	assert_int_equal(pc_folded_reader.probe(head, sizeof(head)), PC_PROBE_NO);
}

static void test_probe_random_bytes(void **state)
{
	uint8_t head[PC_PROBE_BYTES];
	uint64_t seed = 0xf01dedULL;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(head); i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			head[i] = (uint8_t)(seed >> 56);
		}
		assert_true(pc_folded_reader.probe(head, sizeof(head)) < PC_PROBE_WEAK);
		assert_true(pc_folded_reader.probe(head, 1 + round % 64) < PC_PROBE_WEAK);
	}
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_reader_find("folded"), &pc_folded_reader);
	assert_ptr_equal(pc_reader_find("collapsed"), &pc_folded_reader);
	assert_string_equal(pc_folded_reader.extensions[0], ".folded");
	assert_string_equal(pc_folded_reader.extensions[1], ".collapsed");
	assert_null(pc_folded_reader.extensions[2]);
}

#define T(name) cmocka_unit_test_setup_teardown(name, pct_setup, pct_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_lines_become_leaf_first_stacks),
		T(test_identical_stacks_add_up),
		T(test_the_root_frame_is_an_ordinary_frame),
		T(test_frames_keep_spaces_and_punctuation),
		T(test_utf8_and_invalid_utf8_are_kept_as_bytes),
		T(test_empty_fields_are_unnamed_frames),
		T(test_line_ends_blank_lines_and_bom),
		T(test_blanks_before_the_separator_belong_to_the_stack),
		T(test_a_bom_is_only_dropped_at_the_start),
		T(test_zero_counts_and_leading_zeros),
		T(test_largest_count),
		T(test_empty_input),
		T(test_an_earlier_default_column_is_kept),
		T(test_counts_are_sampled_counts),
		T(test_counts_join_an_earlier_samples_column),
		T(test_no_space_before_the_count),
		T(test_not_a_count),
		T(test_negative_count),
		T(test_fractional_count),
		T(test_count_too_large),
		T(test_long_non_integer_count),
		T(test_empty_stack),
		T(test_nul_byte),
		T(test_control_byte),
		T(test_lone_carriage_return),
		T(test_sum_overflow),
		T(test_error_on_last_line_without_newline),
		T(test_long_bad_text_is_cut_in_the_message),
		T(test_skip_bad_counts_one_warning),
		T(test_skip_bad_with_strict_is_the_located_error),
		T(test_skip_bad_does_not_skip_overflow),
		T(test_file_and_pipe_give_the_same_model),
		T(test_error_line_numbers_after_long_lines),
		T(test_line_longer_than_64_mib),
		T(test_probe_folded_is_strong),
		T(test_probe_without_semicolons_is_a_weak_guess),
		T(test_probe_blank_lines_only_is_weak),
		T(test_probe_rejects_other_text),
		T(test_probe_full_head),
		T(test_probe_random_bytes),
		T(test_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
