/*
 * test_flamegraph_svg_diff.c - the differential flame graph of the SVG
 * writer (writers/flamegraph_svg.h, `profconv diff -t svg`): widths by
 * NEW's counts, colours by the change from BASE (scaled to NEW's total, or
 * as they are), white for none and full at the largest, tooltips with
 * both counts and the change, nodes only in BASE not drawn, the writer's
 * options (title, width, inverted), an empty side, counts past 2^64 - 1,
 * and every output well-formed XML (libxml2 parses it).
 *
 * Stacks are given as folded text, split and interned here as diff.c does.
 */
#include "writers/flamegraph_svg.h"
#include "base/output.h"

#include <libxml/parser.h>
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

#define MAX_STACKS 16
#define MAX_FRAMES 64

struct fixture {
	struct pc_ctx ctx;
	struct pc_flamegraph_name names[MAX_FRAMES];
	struct pc_flamegraph_diff_stack stacks[MAX_STACKS];
	uint32_t frames[MAX_FRAMES];
	size_t nframes;
	struct pc_flamegraph_diff diff;
	char *text;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->diff = (struct pc_flamegraph_diff){
		.names = f->names, .stacks = f->stacks, .labels = { "base.folded", "new.folded" },
		.normalize = true,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	free(f->text);
	free(f);
	return 0;
}

/* The id of name (len bytes), added when new. */
static uint32_t name_id(struct fixture *f, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < f->diff.nnames; i++)
		if (f->names[i].len == len && !memcmp(f->names[i].text, name, len))
			return (uint32_t)i;
	assert_true(i < MAX_FRAMES);
	f->names[f->diff.nnames++] = (struct pc_flamegraph_name){ name, len };
	return (uint32_t)i;
}

/* Adds the folded stack "a;b;c" (root first) with its counts in BASE and NEW. */
static void stack(struct fixture *f, const char *text, uint64_t base, uint64_t now)
{
	struct pc_flamegraph_diff_stack *s = &f->stacks[f->diff.nstacks++];

	assert_true(f->diff.nstacks <= MAX_STACKS);
	*s = (struct pc_flamegraph_diff_stack){ f->frames + f->nframes, 0, { base, now } };
	for (const char *at = text; *at;) {
		size_t len = strcspn(at, ";");

		assert_true(f->nframes < MAX_FRAMES);
		f->frames[f->nframes++] = name_id(f, at, len);
		s->nframes++;
		at += len + (at[len] == ';');
	}
}

static void assert_well_formed(const char *text, size_t size)
{
	xmlDocPtr doc = xmlReadMemory(text, (int)size, "diff.svg", NULL,
				      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);

	if (!doc)
		fail_msg("the SVG is not well-formed XML");
	xmlFreeDoc(doc);
}

static int write_diff(struct fixture *f)
{
	struct pc_output out;
	int status;

	free(f->text);
	f->text = NULL;
	assert_int_equal(pc_output_to_memory(&out, &f->text, &f->size, &f->ctx.err), 0);
	status = pc_flamegraph_svg_write_diff(&f->ctx, &f->diff, out.fp);
	if (status) {
		pc_output_abort(&out);
		return status;
	}
	assert_int_equal(pc_output_commit(&out, &f->ctx.err), 0);
	return 0;
}

static void write_ok(struct fixture *f)
{
	if (write_diff(f))
		fail_msg("write failed: %s", f->ctx.err.message);
	assert_well_formed(f->text, f->size);
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' is not in '%s'", part, text);
}

/* The node whose tooltip is TOOLTIP has a box at GEOMETRY ("x=.. y=.. width=..") in FILL. */
static void assert_node(const struct fixture *f, const char *tooltip, const char *geometry,
			const char *fill)
{
	char node[512];

	snprintf(node, sizeof(node), "<title>%s</title><rect %s height=\"15\" fill=\"%s\"", tooltip,
		 geometry, fill);
	assert_contains(f->text, node);
}

/*
 * BASE 550: hot 100, shrink 200, same 100, steady 100, gone 50; NEW 605:
 * hot 200, shrink 195, same 110, steady 100. Scaled by 605/550 = 1.1,
 * BASE's are 110, 220, 110, 110, 55: hot +90 (the largest), shrink -25,
 * same 0, steady -10, gone -55 (not drawn). Widths: of 1180 pixels.
 */
static void five_functions(struct fixture *f)
{
	stack(f, "main;hot", 100, 200);
	stack(f, "main;shrink", 200, 195);
	stack(f, "main;same", 100, 110);
	stack(f, "main;steady", 100, 100);
	stack(f, "main;gone", 50, 0);
}

#define ALL "x=\"10.00\" y=\"72\" width=\"1180.00\""
#define MAIN "x=\"10.00\" y=\"56\" width=\"1180.00\""
#define HOT "x=\"10.00\" y=\"40\" width=\"390.08\""
#define SAME "x=\"400.08\" y=\"40\" width=\"214.55\""
#define SHRINK "x=\"614.63\" y=\"40\" width=\"380.33\""
#define STEADY "x=\"994.96\" y=\"40\" width=\"195.04\""

/* Widths are NEW's; the colours and percentages measure the change against scaled BASE. */
static void test_normalized(void **state)
{
	struct fixture *f = *state;

	five_functions(f);
	write_ok(f);
	assert_node(f, "all (new 605, 100.00%; base 550, 100.00%; +0.00%)", ALL,
		    "rgb(255,255,255)");
	assert_node(f, "main (new 605, 100.00%; base 550, 100.00%; +0.00%)", MAIN,
		    "rgb(255,255,255)");
	/* +90 / 110 */
	assert_node(f, "hot (new 200, 33.06%; base 100, 18.18%; +81.82%)", HOT,
		    "rgb(255,0,0)");
	assert_node(f, "same (new 110, 18.18%; base 100, 18.18%; +0.00%)", SAME,
		    "rgb(255,255,255)");
	/* -25 / 90 of 255: 71 off the white; -25 / 220 */
	assert_node(f, "shrink (new 195, 32.23%; base 200, 36.36%; -11.36%)", SHRINK,
		    "rgb(184,184,255)");
	/* -10 / 90 of 255: 28 */
	assert_node(f, "steady (new 100, 16.53%; base 100, 18.18%; -9.09%)", STEADY,
		    "rgb(227,227,255)");
	assert_contains(f->text, "<g class=\"m\" data-x=\"310\" data-w=\"195\"><title>shrink (");
	assert_null(strstr(f->text, "<title>gone"));
	assert_contains(f->text, "; 1 nodes narrower than 0.1 pixels are not drawn -->");
	assert_contains(f->text, "<title>Differential Flame Graph</title>");
	assert_contains(f->text, ">new.folded: 605 against base.folded: 550 (scaled to 605); "
			"red grew, blue shrank</text>");
}

/* --no-normalize: the counts as they are; main's +55 is below hot's +100. */
static void test_as_they_are(void **state)
{
	struct fixture *f = *state;

	f->diff.normalize = false;
	five_functions(f);
	write_ok(f);
	assert_node(f, "all (new 605, 100.00%; base 550, 100.00%; +10.00%)", ALL,
		    "rgb(255,115,115)");
	assert_node(f, "hot (new 200, 33.06%; base 100, 18.18%; +100.00%)", HOT,
		    "rgb(255,0,0)");
	assert_node(f, "same (new 110, 18.18%; base 100, 18.18%; +10.00%)", SAME,
		    "rgb(255,229,229)");
	assert_node(f, "shrink (new 195, 32.23%; base 200, 36.36%; -2.50%)", SHRINK,
		    "rgb(242,242,255)");
	assert_node(f, "steady (new 100, 16.53%; base 100, 18.18%; +0.00%)", STEADY,
		    "rgb(255,255,255)");
	assert_contains(f->text, ">new.folded: 605 against base.folded: 550; red grew, blue "
			"shrank</text>");
}

/* Inclusive counts along the paths; a name under two parents is two nodes. */
static void test_nested(void **state)
{
	struct fixture *f = *state;

	stack(f, "main;a;leaf", 10, 30);
	stack(f, "main;b;leaf", 10, 10);
	stack(f, "main;a", 20, 0);
	f->diff.normalize = false;
	write_ok(f);
	/* a: 30 against 30, unchanged; its leaf +20, the largest */
	assert_contains(f->text, "<g class=\"m\" data-x=\"0\" data-w=\"30\"><title>a (new 30, "
			"75.00%; base 30, 75.00%; +0.00%)</title>");
	assert_node(f, "leaf (new 30, 75.00%; base 10, 25.00%; +200.00%)",
		    "x=\"10.00\" y=\"40\" width=\"885.00\"", "rgb(255,0,0)");
	assert_node(f, "leaf (new 10, 25.00%; base 10, 25.00%; +0.00%)",
		    "x=\"895.00\" y=\"40\" width=\"295.00\"", "rgb(255,255,255)");
	assert_contains(f->text, "<g class=\"m\" data-x=\"30\" data-w=\"10\"><title>leaf (");
}

/* A frame only in NEW says "new"; BASE empty: nothing to scale, every frame new. */
static void test_new_frames(void **state)
{
	struct fixture *f = *state;

	stack(f, "main;born", 0, 5);
	write_ok(f);
	assert_node(f, "born (new 5, 100.00%; base 0, 0.00%; new)",
		    "x=\"10.00\" y=\"40\" width=\"1180.00\"", "rgb(255,0,0)");
	assert_contains(f->text, "against base.folded: 0; red grew");
}

/* NEW empty: "all" alone, of zero, nothing else drawn. */
static void test_empty_new(void **state)
{
	struct fixture *f = *state;

	stack(f, "main;gone", 7, 0);
	write_ok(f);
	assert_contains(f->text, "<title>all (new 0, 0.00%; base 7, 100.00%; "
			"-100.00%)</title>");
	assert_null(strstr(f->text, "<title>main"));
	assert_contains(f->text, "; 2 nodes narrower than 0.1 pixels are not drawn -->");
}

/* The writer's options apply: --title, --width, --inverted; labels escaped. */
static void test_options(void **state)
{
	struct fixture *f = *state;

	stack(f, "a", 1, 1);
	pc_ctx_set(&f->ctx, "inverted", NULL);
	pc_ctx_set(&f->ctx, "width", "420");
	f->diff.labels[0] = NULL;
	f->diff.labels[1] = "<new & improved>";
	write_ok(f);
	assert_contains(f->text, "<title>Differential Icicle Graph</title>");
	assert_contains(f->text, "width=\"420\" height=\"108\"");
	/* roots at the top: "all" at 40, a below it */
	assert_node(f, "a (new 1, 100.00%; base 1, 100.00%; +0.00%)",
		    "x=\"10.00\" y=\"56\" width=\"400.00\"", "rgb(255,255,255)");
	assert_contains(f->text, ">&lt;new &amp; improved&gt;: 1 against BASE: 1 (scaled to 1);");
	pc_ctx_set(&f->ctx, "title", "T");
	write_ok(f);
	assert_contains(f->text, "<title>T</title>");
	pc_ctx_set(&f->ctx, "width", "50");
	assert_int_equal(write_diff(f), -1);
	assert_contains(f->ctx.err.message, "--width takes at least 100 pixels");
}

/* NEW's or BASE's counts past 2^64 - 1 are an error, not a wrapped width. */
static void test_overflow(void **state)
{
	struct fixture *f = *state;

	stack(f, "a", 1, INT64_MAX / 2);
	stack(f, "b", 1, INT64_MAX / 2);
	stack(f, "c", 1, 2);
	assert_int_equal(write_diff(f), -1);
	assert_contains(f->ctx.err.message, "add up to more than 2^63-1");
	f->diff.nstacks = 2;
	write_ok(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_normalized, setup, teardown),
		cmocka_unit_test_setup_teardown(test_as_they_are, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overflow, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
