/*
 * test_diff.c - profconv_diff_file (pipeline/diff.c) through the public
 * API: folded text read from memory on both sides, then each output:
 * "folded" (difffolded.pl's lines, counts as they are), "report" (the
 * largest change first) and "svg" (the differential flame graph, with the
 * svg writer's options and "no-normalize" taken out of the folding's);
 * and the errors: an unknown format, "no-normalize" without svg, an option
 * no writer declares, an svg option with folded output.
 */
#include "profconv.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

static const char *const labels[2] = { "base.folded", "new.folded" };

struct fixture {
	profconv_profile *sides[2];
	char path[64];
	char *text;
	char *error;
};

static profconv_profile *read_folded(const char *text)
{
	profconv_profile *p = NULL;
	char *error = NULL;

	if (profconv_read_memory(text, strlen(text), "x.folded", "folded", NULL, &p, &error))
		fail_msg("read failed: %s", error);
	return p;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	f->sides[0] = read_folded("main;hot 100\nmain;cold 100\n");
	f->sides[1] = read_folded("main;hot 200\nmain;cold 100\n");
	snprintf(f->path, sizeof(f->path), "/tmp/test_diff.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	close(fd);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	profconv_profile_free(f->sides[0]);
	profconv_profile_free(f->sides[1]);
	remove(f->path);
	free(f->text);
	profconv_free(f->error);
	free(f);
	return 0;
}

/* Diffs into f->path and reads it back into f->text. */
static int diff(struct fixture *f, const char *format, const char *const *options)
{
	FILE *fp;
	long size;

	profconv_free(f->error);
	f->error = NULL;
	if (profconv_diff_file(f->sides[0], f->sides[1], labels, f->path, format, options, 0,
			       &f->error))
		return -1;
	fp = fopen(f->path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	free(f->text);
	f->text = calloc(1, (size_t)size + 1);
	assert_int_equal(fread(f->text, 1, (size_t)size, fp), (size_t)size);
	fclose(fp);
	return 0;
}

static void diff_ok(struct fixture *f, const char *format, const char *const *options)
{
	if (diff(f, format, options))
		fail_msg("diff -t %s failed: %s", format ? format : "report", f->error);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' is not in '%s'", part, text);
}

static void test_folded(void **state)
{
	struct fixture *f = *state;

	diff_ok(f, "folded", NULL);
	assert_string_equal(f->text, "main;cold 100 100\nmain;hot 100 200\n");
}

static void test_report(void **state)
{
	struct fixture *f = *state;

	diff_ok(f, NULL, NULL);
	assert_contains(f->text, "base: base.folded, total 200\nnew:  new.folded, total 300\n");
	assert_contains(f->text, "function\n  50.00%   66.67%   +16.67pt    2.00x    1.33x   "
			"50.00%   66.67%  hot\n");
}

/* hot: 200 of 300 against 100 of 200 scaled by 1.5; the svg options reach the picture. */
static void test_svg(void **state)
{
	struct fixture *f = *state;
	const char *const options[] = { "title=T & U", "width=600", "inverted", NULL };
	const char *const raw[] = { "no-normalize", NULL };

	diff_ok(f, "svg", options);
	assert_contains(f->text, "<title>T &amp; U</title>");
	assert_contains(f->text, "<svg version=\"1.1\" width=\"600\"");
	assert_contains(f->text, "inverted: true");
	assert_contains(f->text, "<title>hot (new 200, 66.67%; base 100, 50.00%; "
			"+33.33%)</title><rect x=\"203.33\" y=\"72\" width=\"386.67\" height=\"15\" "
			"fill=\"rgb(255,0,0)\"");
	assert_contains(f->text, ">new.folded: 300 against base.folded: 200 (scaled to 300); "
			"red grew");
	diff_ok(f, "svg", raw);
	assert_contains(f->text, "<title>hot (new 200, 66.67%; base 100, 50.00%; "
			"+100.00%)</title>");
	assert_contains(f->text, "<title>cold (new 100, 33.33%; base 100, 50.00%; "
			"+0.00%)</title><rect x=\"10.00\" y=\"40\" width=\"393.33\" height=\"15\" "
			"fill=\"rgb(255,255,255)\"");
}

/* The folded writer's and the pipeline's options still fold both sides with svg. */
static void test_svg_folding_options(void **state)
{
	struct fixture *f = *state;
	const char *const options[] = { "kernel", "event=samples", NULL };

	diff_ok(f, "svg", options);
	assert_contains(f->text, "<title>hot (new 200, ");
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	const char *const raw[] = { "no-normalize", NULL };
	const char *const unknown[] = { "nosuch", NULL };
	const char *const title[] = { "title=x", NULL };
	const char *const width[] = { "width=x", NULL };

	assert_int_equal(diff(f, "pprof", NULL), -1);
	assert_contains(f->error, "diff: writes folded, report or svg");
	assert_int_equal(diff(f, "folded", raw), -1);
	assert_contains(f->error, "--no-normalize is for the flame graph");
	assert_int_equal(diff(f, "svg", unknown), -1);
	assert_contains(f->error, "nosuch");
	assert_int_equal(diff(f, "folded", title), -1);
	assert_contains(f->error, "title");
	assert_int_equal(diff(f, "svg", width), -1);
	assert_contains(f->error, "--width");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_folded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_svg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_svg_folding_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
