/*
 * test_flamegraph_svg_writer.c - the flame graph SVG writer: the tree
 * (merged root first, children by name, written in pre-order), widths and
 * tooltips from the counted column, colours by kind, XML escaping and
 * repair, clipped names, --minwidth, --width, --inverted, --title, deep
 * stacks, the same bytes whatever order the samples came in, and every
 * output well-formed XML (libxml2 parses it).
 *
 * Models are built with the model's builder calls, as a reader would.
 */
#include "pipeline/registry.h"
#include "support/write_model.h"

#include <libxml/parser.h>
#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_flamegraph_svg_writer;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	int column; /* "samples", count */
	char *text;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	f->column = pc_model_add_event_column(f->m, "samples", "count", "samples", PC_ROLE_SAMPLES);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	free(f->text);
	free(f);
	return 0;
}

static uint32_t module(struct fixture *f, const char *name)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name) };

	return pc_model_add_module(f->m, &mod);
}

/* A frame with an address (module 0: none) and a function, or NULL. */
static uint32_t frame(struct fixture *f, uint32_t mod, uint64_t address, const char *function)
{
	struct pc_frame fr = {
		.module = mod,
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = address,
		.function = function ? pc_model_intern_cstr(f->m, function) : 0,
	};

	return pc_model_add_frame(f->m, &fr);
}

/* A frame with only a name (as the folded reader makes). */
static uint32_t named(struct fixture *f, const char *function)
{
	struct pc_frame fr = { .function = pc_model_intern_cstr(f->m, function) };

	return pc_model_add_frame(f->m, &fr);
}

/* One sample of count in column: frames leaf first, 0-terminated. */
static void sample_in(struct fixture *f, int column, uint64_t count, va_list ap)
{
	uint32_t *frames = NULL;
	size_t n = 0, cap = 0;
	struct pc_sample s = { 0 };

	for (uint32_t id = va_arg(ap, uint32_t); id; id = va_arg(ap, uint32_t)) {
		pc_grow(&frames, &cap, n + 1, sizeof(*frames));
		frames[n++] = id;
	}
	s.stack = pc_model_add_stack(f->m, frames, n);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)column, count), 0);
	free(frames);
}

static void sample(struct fixture *f, uint64_t count, ...)
{
	va_list ap;

	va_start(ap, count);
	sample_in(f, f->column, count, ap);
	va_end(ap);
}

/* Adds a folded line "a;b;c" (root first) of count. */
static void folded(struct fixture *f, const char *line, uint64_t count)
{
	uint32_t frames[64];
	size_t n = 0;
	struct pc_sample s = { 0 };
	const char *at = line;

	while (*at) {
		const char *end = strchr(at, ';');
		size_t len = end ? (size_t)(end - at) : strlen(at);
		struct pc_frame fr = { .function = pc_model_intern(f->m, at, len) };

		frames[n++] = pc_model_add_frame(f->m, &fr);
		at += len + (end != NULL);
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t swap = frames[i];

		frames[i] = frames[n - 1 - i];
		frames[n - 1 - i] = swap;
	}
	s.stack = pc_model_add_stack(f->m, frames, n);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->column, count), 0);
}

static void assert_well_formed(const char *text, size_t size)
{
	xmlDocPtr doc = xmlReadMemory(text, (int)size, "test.svg", NULL,
				      XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOERROR |
				      XML_PARSE_NOWARNING);

	if (!doc)
		fail_msg("the SVG is not well-formed XML");
	xmlFreeDoc(doc);
}

static int write_svg(struct fixture *f)
{
	free(f->text);
	return pct_write_model(&f->ctx, f->m, &pc_flamegraph_svg_writer, &f->text, &f->size);
}

static void write_ok(struct fixture *f)
{
	if (write_svg(f))
		fail_msg("write failed: %s", f->ctx.err.message);
	assert_well_formed(f->text, f->size);
}

/* The line of the node whose tooltip starts with "NAME (", or fails. */
static const char *node_line(const struct fixture *f, const char *name, char *buf, size_t size)
{
	char key[256];
	const char *at, *start, *end;

	snprintf(key, sizeof(key), "<title>%s (", name);
	at = strstr(f->text, key);
	if (!at)
		fail_msg("no node '%s'", name);
	for (start = at; start > f->text && start[-1] != '\n'; start--)
		;
	end = strchr(at, '\n');
	assert_true((size_t)(end - start) < size);
	memcpy(buf, start, (size_t)(end - start));
	buf[end - start] = '\0';
	return buf;
}

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part))
		fail_msg("'%s' is not in '%s'", part, text);
}

/* Widths are total / all of the usable width (1180 of 1200); tooltips say counts and shares. */
static void test_widths_and_tooltips(void **state)
{
	struct fixture *f = *state;
	char line[1024];

	folded(f, "a;b;c", 30);
	folded(f, "a;b;d", 10);
	folded(f, "a;e", 60);
	write_ok(f);
	assert_contains(node_line(f, "all", line, sizeof(line)),
			"<g class=\"r\" data-x=\"0\" data-w=\"100\"><title>all (100 samples, "
			"100.00%)</title><rect x=\"10.00\" y=\"88\" width=\"1180.00\" height=\"15\"");
	assert_contains(node_line(f, "a", line, sizeof(line)),
			"data-x=\"0\" data-w=\"100\"><title>a (100 samples, 100.00%)</title>"
			"<rect x=\"10.00\" y=\"72\" width=\"1180.00\"");
	assert_contains(node_line(f, "b", line, sizeof(line)),
			"data-x=\"0\" data-w=\"40\"><title>b (40 samples, 40.00%)</title>"
			"<rect x=\"10.00\" y=\"56\" width=\"472.00\"");
	assert_contains(node_line(f, "c", line, sizeof(line)),
			"<title>c (30 samples, 30.00%)</title><rect x=\"10.00\" y=\"40\" width=\"354.00\"");
	assert_contains(node_line(f, "d", line, sizeof(line)),
			"data-x=\"30\" data-w=\"10\"><title>d (10 samples, 10.00%)</title>"
			"<rect x=\"364.00\" y=\"40\" width=\"118.00\"");
	assert_contains(node_line(f, "e", line, sizeof(line)),
			"data-x=\"40\" data-w=\"60\"><title>e (60 samples, 60.00%)</title>"
			"<rect x=\"482.00\" y=\"56\" width=\"708.00\"");
	/* three levels and "all": 40 + 4 * 16 + 36 pixels tall */
	assert_contains(f->text, "width=\"1200\" height=\"140\" viewBox=\"0 0 1200 140\"");
	assert_contains(f->text, "<title>Flame Graph</title>");
	assert_contains(f->text, ">100 samples</text>");
	assert_null(strstr(f->text, "not drawn"));
}

/* Pre-order, children by name; the bytes do not depend on the samples' order. */
static void test_order_and_determinism(void **state)
{
	struct fixture *f = *state;
	struct fixture *g;
	void *other;
	const char *names[] = { "all (", "main (", "alpha (", "x (", "beta (", "zeta (" };
	const char *at;

	folded(f, "main;zeta", 5);
	folded(f, "main;beta", 7);
	folded(f, "main;alpha;x", 9);
	write_ok(f);
	at = f->text;
	for (size_t i = 0; i < PC_ARRAY_SIZE(names); i++) {
		at = strstr(at, names[i]);
		if (!at)
			fail_msg("'%s' is not after the previous node", names[i]);
	}
	setup(&other);
	g = other;
	folded(g, "main;alpha;x", 9);
	folded(g, "main;beta", 7);
	folded(g, "main;zeta", 5);
	write_ok(g);
	assert_int_equal(f->size, g->size);
	assert_memory_equal(f->text, g->text, f->size);
	teardown(&other);
}

/* Identical names under other parents are other nodes; recursion stacks up. */
static void test_merging(void **state)
{
	struct fixture *f = *state;

	folded(f, "main;fib;fib;fib", 3);
	folded(f, "main;fib;fib", 2);
	folded(f, "other;fib", 4);
	folded(f, "main;fib;fib;fib", 1);
	write_ok(f);
	assert_contains(f->text, "<title>fib (6 samples, 60.00%)</title>");
	assert_contains(f->text, "data-w=\"4\"><title>fib (4 samples, 40.00%)</title>");
	/* main;fib;fib;fib at the top; other;fib right of main's 6 samples, two levels up */
	assert_contains(f->text, "<title>fib (4 samples, 40.00%)</title><rect x=\"10.00\" y=\"40\"");
	assert_contains(f->text, "<title>fib (4 samples, 40.00%)</title><rect x=\"718.00\" y=\"72\"");
	assert_contains(f->text, "<title>main (6 samples, 60.00%)</title>");
}

static const char *class_of(const struct fixture *f, const char *name, char *buf, size_t size)
{
	const char *line = node_line(f, name, buf, size);

	assert_true(!strncmp(line, "<g class=\"", 10));
	buf[11] = '\0';
	return line + 10;
}

/* The red of a node's fill: for warm nodes, the module's. */
static unsigned red_of(const struct fixture *f, const char *name)
{
	char line[1024];
	const char *fill = strstr(node_line(f, name, line, sizeof(line)), "fill=\"rgb(");
	unsigned r = 0;

	assert_non_null(fill);
	assert_int_equal(sscanf(fill, "fill=\"rgb(%u,", &r), 1);
	return r;
}

static void test_kinds(void **state)
{
	struct fixture *f = *state;
	char line[1024];
	uint32_t kernel = module(f, "[kernel.kallsyms]");
	uint32_t jit_map = module(f, "/tmp/perf-4242.map");
	uint32_t jit_tid = module(f, "[JIT] tid 4242");
	uint32_t libc = module(f, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	struct pc_frame inlined = { .module = libc, .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_INLINE,
				    .address = 0x1000,
				    .function = pc_model_intern_cstr(f->m, "inlined_fn") };
	uint32_t inline_frame = pc_model_add_frame(f->m, &inlined);

	sample(f, 1, frame(f, kernel, 0xffffffff81000000ull, "do_syscall_64"),
	       frame(f, libc, 0x10, "write"), frame(f, libc, 0x20, "main"), 0);
	sample(f, 1, frame(f, 0, 0xffffffff81000010ull, "unnamed_kernel_address"), 0);
	sample(f, 1, frame(f, jit_map, 0x7f0000001000, "LInterpreter;"), 0);
	sample(f, 1, frame(f, jit_tid, 0x7f0000002000, "jitted_fn"), 0);
	sample(f, 1, inline_frame, 0);
	sample(f, 1, frame(f, libc, 0x30, "outer->inner"), 0);
	sample(f, 1, frame(f, libc, 0x40, NULL), 0);
	sample(f, 1, named(f, "tick_sched_timer_[k]"), named(f, "java_fn_[j]"),
	       named(f, "inl_[i]"), named(f, "[libfoo.so]"), named(f, "plain"), 0);
	write_ok(f);
	assert_string_equal(class_of(f, "do_syscall_64", line, sizeof(line)), "k");
	assert_string_equal(class_of(f, "unnamed_kernel_address", line, sizeof(line)), "k");
	assert_string_equal(class_of(f, "LInterpreter:", line, sizeof(line)), "j");
	assert_string_equal(class_of(f, "jitted_fn", line, sizeof(line)), "j");
	assert_string_equal(class_of(f, "inlined_fn", line, sizeof(line)), "i");
	assert_string_equal(class_of(f, "outer", line, sizeof(line)), "m");
	assert_string_equal(class_of(f, "inner_[i]", line, sizeof(line)), "i");
	assert_string_equal(class_of(f, "[libc.so.6]", line, sizeof(line)), "u");
	assert_string_equal(class_of(f, "tick_sched_timer_[k]", line, sizeof(line)), "k");
	assert_string_equal(class_of(f, "java_fn_[j]", line, sizeof(line)), "j");
	assert_string_equal(class_of(f, "inl_[i]", line, sizeof(line)), "i");
	assert_string_equal(class_of(f, "[libfoo.so]", line, sizeof(line)), "u");
	assert_string_equal(class_of(f, "plain", line, sizeof(line)), "m");
	assert_string_equal(class_of(f, "main", line, sizeof(line)), "m");
	/* one module, one hue: main and write share their red */
	assert_int_equal(red_of(f, "main"), red_of(f, "write"));
}

/* Names are repaired (U+FFFD) and escaped in tooltips and boxes; so is --title. */
static void test_escaping(void **state)
{
	struct fixture *f = *state;

	sample(f, 2, named(f, "operator<<(a&b, \"c\", 'd')"), named(f, "bad\xff\xfe utf8"),
	       named(f, "ctl\x01\ttab"), named(f, "nonchar\xef\xbf\xbe!"), named(f, "cut\xc3"),
	       named(f, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5"), 0);
	pc_ctx_set(&f->ctx, "title", "<T> & \"U\" 'V' \xff");
	write_ok(f);
	assert_contains(f->text, "<title>operator&lt;&lt;(a&amp;b, &quot;c&quot;, &#39;d&#39;) (2 ");
	assert_contains(f->text, ">operator&lt;&lt;(a&amp;b, &quot;c&quot;, &#39;d&#39;)</text>");
	assert_contains(f->text, "<title>bad\xef\xbf\xbd\xef\xbf\xbd utf8 (2 ");
	assert_contains(f->text, "<title>ctl\xef\xbf\xbd\xef\xbf\xbdtab (2 ");
	assert_contains(f->text, "<title>nonchar\xef\xbf\xbd! (2 ");
	assert_contains(f->text, "<title>cut\xef\xbf\xbd (2 ");
	assert_contains(f->text, "<title>caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 (2 ");
	assert_contains(f->text, "<title>&lt;T&gt; &amp; &quot;U&quot; &#39;V&#39; \xef\xbf\xbd</title>");
	assert_contains(f->text, ">&lt;T&gt; &amp; &quot;U&quot; &#39;V&#39; \xef\xbf\xbd</text>");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text, "svg: invalid UTF-8 and control characters "
			    "in names are drawn as U+FFFD");
	assert_false(f->ctx.warnings[0].notice);
}

/* A changed name is a loss: --strict refuses it, said once, as the error; a title is no name. */
static void test_strict_refuses_repaired_names(void **state)
{
	struct fixture *f = *state;

	sample(f, 1, named(f, "fine"), 0);
	pc_ctx_set(&f->ctx, "title", "bad \xff title");
	f->ctx.opt.strict = true;
	write_ok(f);
	assert_int_equal(f->ctx.nwarnings, 0);
	sample(f, 1, named(f, "bad\xff"), 0);
	assert_int_equal(write_svg(f), -1);
	assert_string_equal(f->ctx.err.message, "invalid UTF-8 and control characters in names are "
				"drawn as U+FFFD (an error with --strict)");
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* The NUL, CR and LF bytes that folded naming replaces are a change of name too. */
static void test_folded_replacements_warned(void **state)
{
	struct fixture *f = *state;
	struct pc_frame nul = { .function = pc_model_intern(f->m, "a\0b", 3) };

	sample(f, 1, pc_model_add_frame(f->m, &nul), 0);
	write_ok(f);
	assert_contains(f->text, "<title>a\xef\xbf\xbd" "b (1 ");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_contains(f->ctx.warnings[0].text, "are drawn as U+FFFD");
}

/* Names are cut to the characters that fit (0.59 em each), not bytes; short boxes stay empty. */
static void test_clipping(void **state)
{
	struct fixture *f = *state;
	char line[1024];

	/* usable 80 px; a box of W pixels holds floor((W - 6) / 7.08) characters */
	pc_ctx_set(&f->ctx, "width", "100");
	folded(f, "abcdefghijklmnop;\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9;x", 90);
	folded(f, "abcdefghijklmnop;short", 5);
	folded(f, "tiny_and_long", 5);
	write_ok(f);
	assert_contains(node_line(f, "abcdefghijklmnop", line, sizeof(line)),
			">abcdefg..</text>"); /* 76 px: 9 characters */
	/* 72 px: 9 characters */
	assert_contains(node_line(f, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9\xc3\xa9", line, sizeof(line)),
			">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..</text>");
	assert_contains(node_line(f, "x", line, sizeof(line)), ">x</text>");
	/* 4 px: room for no character */
	assert_contains(node_line(f, "short", line, sizeof(line)), "><text x=\"");
	assert_contains(node_line(f, "short", line, sizeof(line)), "\"></text></g>");
	assert_contains(node_line(f, "tiny_and_long", line, sizeof(line)), "\"></text></g>");
}

/* Narrower than --minwidth: left out with their descendants, counted in a comment. */
static void test_minwidth(void **state)
{
	struct fixture *f = *state;

	folded(f, "main;hot", 100000);
	folded(f, "main;cold;colder", 1);
	write_ok(f);
	assert_null(strstr(f->text, "<title>cold ("));
	assert_null(strstr(f->text, "<title>colder ("));
	assert_contains(f->text, "; 2 nodes narrower than 0.1 pixels are not drawn -->");
	/* the picture is as tall as the deepest node drawn: main;hot */
	assert_contains(f->text, "height=\"124\"");
	pc_ctx_set(&f->ctx, "minwidth", "0");
	write_ok(f);
	assert_contains(f->text, "<title>colder (1 samples, 0.00%)</title>");
	assert_null(strstr(f->text, "not drawn"));
	/* a share of the usable width: hot (1179.988 px) is left out, main (1180) is not */
	pc_ctx_set(&f->ctx, "minwidth", "99.9995%");
	write_ok(f);
	assert_contains(f->text, "; 3 nodes narrower than 1179.99 pixels are not drawn -->");
	assert_contains(f->text, "<title>main (");
	assert_null(strstr(f->text, "<title>hot ("));
	for (size_t i = 0; i < 5; i++) {
		static const char *const bad[] = { "-1", "x", "1px", "nan", "1e99" };

		pc_ctx_set(&f->ctx, "minwidth", bad[i]);
		assert_int_equal(write_svg(f), -1);
		assert_int_equal(f->ctx.err.status, PC_STATUS_USAGE);
		assert_contains(f->ctx.err.message, "--minwidth takes pixels");
		pc_error_clear(&f->ctx.err);
	}
}

static void test_width_option(void **state)
{
	struct fixture *f = *state;

	folded(f, "a;b", 1);
	folded(f, "a;c", 3);
	pc_ctx_set(&f->ctx, "width", "420");
	write_ok(f);
	assert_contains(f->text, "width=\"420\" height=\"124\"");
	assert_contains(f->text, "<title>b (1 samples, 25.00%)</title><rect x=\"10.00\" y=\"40\" "
				 "width=\"100.00\"");
	assert_contains(f->text, "var FG = { xpad: 10, usable: 400,");
	pc_ctx_set(&f->ctx, "width", "99");
	assert_int_equal(write_svg(f), -1);
	assert_contains(f->ctx.err.message, "--width takes at least 100 pixels");
}

/* An icicle: the root at the top, and the script told so. */
static void test_inverted(void **state)
{
	struct fixture *f = *state;

	folded(f, "a;b", 1);
	pc_ctx_set(&f->ctx, "inverted", NULL);
	write_ok(f);
	assert_contains(f->text, "<title>Icicle Graph</title>");
	assert_contains(f->text, "<title>all (1 samples, 100.00%)</title><rect x=\"10.00\" y=\"40\"");
	assert_contains(f->text, "<title>b (1 samples, 100.00%)</title><rect x=\"10.00\" y=\"72\"");
	assert_contains(f->text, "inverted: true");
}

/* A 100,000-frame stack: no recursion, every level drawn when it is wide enough. */
static void test_deep_stack(void **state)
{
	struct fixture *f = *state;
	enum { DEPTH = 100000 };
	uint32_t *frames = pc_xmalloc(DEPTH * sizeof(*frames));
	struct pc_sample s = { 0 };
	char name[32], height[64];

	for (size_t i = 0; i < DEPTH; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		frames[DEPTH - 1 - i] = named(f, name);
	}
	s.stack = pc_model_add_stack(f->m, frames, DEPTH);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->column, 7), 0);
	write_ok(f);
	snprintf(height, sizeof(height), "height=\"%d\"", 40 + (DEPTH + 1) * 16 + 36);
	assert_contains(f->text, height);
	assert_contains(f->text, "<title>f99999 (7 samples, 100.00%)</title><rect x=\"10.00\" y=\"40\"");
	free(frames);
}

/* The column: --event, else the default; the unit word in tooltips. */
static void test_columns_and_units(void **state)
{
	struct fixture *f = *state;
	int clock = pc_model_add_event_column(f->m, "cpu-clock_event", "nanoseconds", "cpu-clock",
					      PC_ROLE_WEIGHT);
	int cycles = pc_model_add_event_column(f->m, "cycles_event", "count", "cycles",
					       PC_ROLE_WEIGHT);
	uint32_t leaf = named(f, "leaf");
	struct pc_sample s = { .stack = pc_model_add_stack(f->m, &leaf, 1) };

	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->column, 3), 0);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)clock, 1234567), 0);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)cycles, 5000), 0);
	pc_model_set_default_column(f->m, clock);
	write_ok(f);
	assert_contains(f->text, "<title>leaf (1,234,567 nanoseconds, 100.00%)</title>");
	assert_contains(f->text, ">cpu-clock_event: 1,234,567 nanoseconds</text>");
	assert_contains(f->ctx.warnings[0].text, "only column 'cpu-clock_event' is drawn");
	assert_true(f->ctx.warnings[0].notice); /* the format's nature: never an error */
	f->ctx.opt.strict = true;
	write_ok(f);
	f->ctx.opt.strict = false;
	f->ctx.opt.event = "cycles";
	write_ok(f);
	assert_contains(f->text, "<title>leaf (5,000 cycles, 100.00%)</title>");
	f->ctx.opt.event = "samples";
	write_ok(f);
	assert_contains(f->text, "<title>leaf (3 samples, 100.00%)</title>");
	f->ctx.opt.event = "branch-misses";
	assert_int_equal(write_svg(f), -1);
	assert_contains(f->ctx.err.message, "no event 'branch-misses'");
}

/* Comm roots (and --pid); samples with nothing to draw are counted in a warning. */
static void test_roots_and_rootless(void **state)
{
	struct fixture *f = *state;
	struct pc_label labels[] = {
		{ .key = pc_model_intern_cstr(f->m, "comm"), .str = pc_model_intern_cstr(f->m, "my app") },
		{ .key = pc_model_intern_cstr(f->m, "pid"), .num = 42 },
	};
	uint32_t leaf = frame(f, module(f, "/bin/app"), 0x10, "work");
	struct pc_sample s = { .stack = pc_model_add_stack(f->m, &leaf, 1),
			       .labels = pc_model_add_labels(f->m, labels, 2) };
	struct pc_sample empty = { 0 };

	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->column, 3), 0);
	assert_int_equal(pc_model_add_sample(f->m, &empty, (size_t)f->column, 2), 0);
	write_ok(f);
	assert_contains(f->text, "<title>all (3 samples, 100.00%)</title>");
	assert_contains(f->text, "<title>my_app (3 samples, 100.00%)</title>");
	assert_contains(f->ctx.warnings[f->ctx.nwarnings - 1].text,
			"1 samples with neither a comm nor frames are not drawn");
	pc_ctx_set(&f->ctx, "pid", NULL);
	write_ok(f);
	assert_contains(f->text, "<title>my_app-42 (3 samples, 100.00%)</title>");
	f->ctx.opt.strict = true;
	assert_int_equal(write_svg(f), -1);
	assert_string_equal(f->ctx.err.message, "1 samples with neither a comm nor frames are not "
				"drawn (an error with --strict)");
}

/* No samples: "all" alone, of zero. */
static void test_empty(void **state)
{
	struct fixture *f = *state;

	write_ok(f);
	assert_contains(f->text, "<title>all (0 samples, 0.00%)</title>");
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_writer_find("svg"), &pc_flamegraph_svg_writer);
	assert_ptr_equal(pc_writer_find("flamegraph"), &pc_flamegraph_svg_writer);
	assert_ptr_equal(pc_writer_for_path("out.svg"), &pc_flamegraph_svg_writer);
	assert_false(pc_flamegraph_svg_writer.keeps & PC_PART_ADDRESSES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_widths_and_tooltips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_and_determinism, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escaping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_refuses_repaired_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_replacements_warned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clipping, setup, teardown),
		cmocka_unit_test_setup_teardown(test_minwidth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_width_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inverted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_columns_and_units, setup, teardown),
		cmocka_unit_test_setup_teardown(test_roots_and_rootless, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descriptor, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
