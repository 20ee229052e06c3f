/*
 * test_symbols.c - the symbolizer's parts: the symbol table (lookup at
 * every kind of boundary, aliases, perf map and kallsyms lines), the PE
 * header reader (on PE images built here byte by byte), and the reading of
 * llvm-symbolizer's JSON answers.
 */
#include "symbols/llvm_symbolizer.h"
#include "symbols/pe_image.h"
#include "symbols/symtab.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static const char *name_at(struct pc_symtab *t, uint64_t address)
{
	const struct pc_symbol *s = pc_symtab_lookup(t, address);

	return s ? s->name : NULL;
}

static void test_symtab_ranges(void **state)
{
	struct pc_symtab t;

	(void)state;
	pc_symtab_init(&t);
	pc_symtab_add(&t, 0x2000, 0x10, "second", 6, PC_SYMBOL_GLOBAL);
	pc_symtab_add(&t, 0x1000, 0x100, "first", 5, PC_SYMBOL_GLOBAL);
	pc_symtab_add(&t, 0x1000, 0x100, "alias", 5, PC_SYMBOL_GLOBAL);
	pc_symtab_add(&t, 0x1000, 0x100, "other", 5, PC_SYMBOL_GLOBAL);
	pc_symtab_add(&t, 0x3000, 0, "unsized", 7, PC_SYMBOL_GLOBAL);
	pc_symtab_add(&t, 0x5000, 0, "last", 4, PC_SYMBOL_GLOBAL);
	assert_null(name_at(&t, 0xfff));
	assert_string_equal(name_at(&t, 0x1000), "first"); /* of aliases alike: the first added */
	assert_string_equal(name_at(&t, 0x10ff), "first");
	assert_null(name_at(&t, 0x1100));
	assert_string_equal(name_at(&t, 0x200f), "second");
	assert_null(name_at(&t, 0x2010));
	assert_string_equal(name_at(&t, 0x4fff), "unsized"); /* up to the next symbol */
	assert_string_equal(name_at(&t, UINT64_MAX), "last");
	pc_symtab_release(&t);
}

/*
 * perf's choice among aliases: sized, a function, global, fewer '_',
 * longer, the first added; unsized: the last.
 */
static void test_symtab_aliases(void **state)
{
	static const struct {
		const char *name;
		uint64_t size;
		enum pc_symbol_binding binding;
	} sets[][3] = {
		{ { "sized", 8, PC_SYMBOL_WEAK }, { "unsized", 0, PC_SYMBOL_GLOBAL }, { NULL, 0, 0 } },
		{ { "weak", 8, PC_SYMBOL_WEAK }, { "local", 8, PC_SYMBOL_LOCAL }, { "global", 8, PC_SYMBOL_GLOBAL } },
		{ { "pwrite", 8, PC_SYMBOL_WEAK }, { "__GI___pwrite", 8, PC_SYMBOL_LOCAL }, { "__libc_pwrite", 8, PC_SYMBOL_GLOBAL } },
		{ { "__x", 8, PC_SYMBOL_GLOBAL }, { "_yy", 8, PC_SYMBOL_GLOBAL }, { NULL, 0, 0 } },
		{ { "ab", 8, PC_SYMBOL_GLOBAL }, { "abc", 8, PC_SYMBOL_GLOBAL }, { NULL, 0, 0 } },
		{ { "f@V10", 8, PC_SYMBOL_GLOBAL }, { "f@@V2", 8, PC_SYMBOL_GLOBAL }, { NULL, 0, 0 } },
		{ { "f@@V2", 8, PC_SYMBOL_GLOBAL }, { "f@V10", 8, PC_SYMBOL_GLOBAL }, { NULL, 0, 0 } },
		{ { "label", 8, PC_SYMBOL_LABEL | PC_SYMBOL_GLOBAL }, { "fn", 8, PC_SYMBOL_WEAK },
		  { NULL, 0, 0 } },
		/* kallsyms: no sizes, the last listed */
		{ { "__pi___thunk", 0, PC_SYMBOL_GLOBAL }, { "__thunk_array", 0, PC_SYMBOL_GLOBAL },
		  { "__thunk", 0, PC_SYMBOL_GLOBAL } },
	};
	static const char *const want[] = { "sized", "global", "__libc_pwrite", "_yy", "abc",
					     "f@V10", "f@@V2", "fn", "__thunk" };

	(void)state;
	for (size_t i = 0; i < PC_ARRAY_SIZE(sets); i++) {
		struct pc_symtab t;

		pc_symtab_init(&t);
		for (size_t k = 0; k < 3 && sets[i][k].name; k++)
			pc_symtab_add(&t, 0x100, sets[i][k].size, sets[i][k].name,
				      strlen(sets[i][k].name), sets[i][k].binding);
		assert_string_equal(name_at(&t, 0x100), want[i]);
		pc_symtab_release(&t);
	}
}

static void test_symtab_empty(void **state)
{
	struct pc_symtab t;

	(void)state;
	pc_symtab_init(&t);
	assert_null(name_at(&t, 0));
	pc_symtab_release(&t);
}

static void add_text(struct pc_symtab *t, const char *text, bool kallsyms)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	pc_symtab_add_lines(t, f, kallsyms);
	fclose(f);
}

static void test_perf_map_lines(void **state)
{
	struct pc_symtab t;

	(void)state;
	pc_symtab_init(&t);
	add_text(&t, "7f0000001000 40 jit_add(int, int)\nnot a line\n7f0000002000 zz bad\n"
		     "7f0000003000 8 LazyCompile:~run /app.js:1\n", false);
	assert_int_equal(t.count, 2);
	assert_string_equal(name_at(&t, 0x7f000000103f), "jit_add(int, int)");
	assert_null(name_at(&t, 0x7f0000001040));
	assert_string_equal(name_at(&t, 0x7f0000003004), "LazyCompile:~run /app.js:1");
	pc_symtab_release(&t);
}

static void test_kallsyms_lines(void **state)
{
	struct pc_symtab t;

	(void)state;
	pc_symtab_init(&t);
	add_text(&t, "ffffffff81000000 T _stext\nffffffff81000100 D some_data\n"
		     "ffffffff81000200 t local_fn\t[mod]\nffffffff81000300 W weak_fn\n", true);
	assert_int_equal(t.count, 3);
	assert_string_equal(name_at(&t, 0xffffffff810000ff), "_stext");
	assert_string_equal(name_at(&t, 0xffffffff81000250), "local_fn");
	pc_symtab_release(&t);
}

/* ---- PE images ---- */

/*
 * A PE32+ image: headers at 0, one section .rdata at RVA 0x1000 / file
 * 0x200 holding a debug directory entry and its RSDS record.
 */
static size_t build_pe(uint8_t *b, size_t size, bool codeview)
{
	uint8_t *opt = b + 0x80 + 24, *sec, *entry, *rsds;

	memset(b, 0, size);
	b[0] = 'M';
	b[1] = 'Z';
	pc_put_le(b + 0x3c, 0x80, 4);
	memcpy(b + 0x80, "PE\0\0", 4);
	pc_put_le(b + 0x80 + 6, 1, 2);     /* sections */
	pc_put_le(b + 0x80 + 20, 240, 2);  /* optional header size */
	pc_put_le(opt, 0x20b, 2);
	pc_put_le(opt + 24, 0x140000000, 8); /* ImageBase */
	pc_put_le(opt + 56, 0x3000, 4);    /* SizeOfImage */
	pc_put_le(opt + 108, 16, 4);       /* data directories */
	pc_put_le(opt + 112 + 6 * 8, 0x1000, 4);
	pc_put_le(opt + 112 + 6 * 8 + 4, 28, 4);
	sec = opt + 240;
	memcpy(sec, ".rdata", 6);
	pc_put_le(sec + 8, 0x100, 4);
	pc_put_le(sec + 12, 0x1000, 4);
	pc_put_le(sec + 16, 0x100, 4);
	pc_put_le(sec + 20, 0x200, 4);
	entry = b + 0x200;
	pc_put_le(entry + 12, codeview ? 2 : 13, 4);
	pc_put_le(entry + 24, 0x240, 4);
	rsds = b + 0x240;
	memcpy(rsds, "RSDS", 4);
	for (int i = 0; i < 16; i++)
		rsds[4 + i] = (uint8_t)(0xa0 + i);
	pc_put_le(rsds + 20, 7, 4);
	memcpy(rsds + 24, "app.pdb", 8);
	return 0x300;
}

static void test_pe_image(void **state)
{
	uint8_t b[0x300];
	struct pc_pe_image pe;
	char err[100];
	size_t size = build_pe(b, sizeof(b), true);

	(void)state;
	assert_int_equal(pc_pe_image_parse(b, size, &pe, err, sizeof(err)), 0);
	assert_int_equal(pe.image_base, 0x140000000);
	assert_int_equal(pe.image_size, 0x3000);
	assert_true(pe.has_codeview);
	assert_int_equal(pe.guid[0], 0xa0);
	assert_int_equal(pe.guid[15], 0xaf);
	assert_int_equal(pe.age, 7);
	build_pe(b, sizeof(b), false);
	assert_int_equal(pc_pe_image_parse(b, size, &pe, err, sizeof(err)), 0);
	assert_false(pe.has_codeview);
}

static void test_pe_image_refuses_what_is_not_one(void **state)
{
	uint8_t b[0x300];
	struct pc_pe_image pe;
	char err[100];
	size_t size = build_pe(b, sizeof(b), true);

	(void)state;
	assert_int_equal(pc_pe_image_parse(b, 0x20, &pe, err, sizeof(err)), -1);
	assert_string_equal(err, "not a PE file: no MZ header");
	assert_int_equal(pc_pe_image_parse(b, 0x40, &pe, err, sizeof(err)), -1);
	assert_string_equal(err, "not a PE file: no PE signature");
	assert_int_equal(pc_pe_image_parse(b, 0xa0, &pe, err, sizeof(err)), -1);
	assert_string_equal(err, "not a PE file: truncated headers");
	/* the RSDS record cut off: no CodeView record, the rest is read */
	assert_int_equal(pc_pe_image_parse(b, 0x250, &pe, err, sizeof(err)), 0);
	assert_false(pe.has_codeview);
	b[0x81] = 'X';
	assert_int_equal(pc_pe_image_parse(b, size, &pe, err, sizeof(err)), -1);
	assert_string_equal(err, "not a PE file: no PE signature");
}

/* ---- llvm-symbolizer's answers ---- */

static void parse_ok(struct pc_llvm_answers *a, const char *line)
{
	assert_true(pc_llvm_parse_answer(a, line, strlen(line)));
}

static void test_llvm_answers(void **state)
{
	struct pc_llvm_answers a = { 0 };

	(void)state;
	pc_arena_init(&a.strings);
	a.first = pc_xcalloc(1, sizeof(*a.first));
	a.first_cap = 1;
	parse_ok(&a, "{\"Address\":\"0x140001010\",\"ModuleName\":\"/b/app.exe\",\"Symbol\":["
		     "{\"Column\":3,\"FileName\":\"C:\\\\src\\\\inl.h\",\"FunctionName\":\"inner\","
		     "\"Line\":16,\"StartAddress\":\"\"},"
		     "{\"FileName\":\"C:\\\\src\\\\app.c\",\"FunctionName\":\"outer\\u00e9\",\"Line\":40}]}");
	parse_ok(&a, "{\"Address\":\"0x1000\",\"Error\":{\"Message\":\"No such file\"},"
		     "\"ModuleName\":\"/nope.exe\"}");
	parse_ok(&a, " {\"Symbol\":[{\"FileName\":\"\",\"FunctionName\":\"\",\"Line\":0}]} ");
	parse_ok(&a, "{\"Symbol\":[{\"FunctionName\":\"??\",\"FileName\":\"??\",\"Line\":0}]}");
	assert_int_equal(a.nqueries, 4);
	assert_int_equal(a.first[1], 2);
	assert_string_equal(a.frames[0].function, "inner");
	assert_string_equal(a.frames[0].file, "C:\\src\\inl.h");
	assert_int_equal(a.frames[0].line, 16);
	assert_string_equal(a.frames[1].function, "outer\xc3\xa9");
	assert_int_equal(a.frames[1].line, 40);
	/* an error, an empty function name and "??": no frames */
	assert_int_equal(a.first[2], 2);
	assert_int_equal(a.first[3], 2);
	assert_int_equal(a.first[4], 2);
	pc_llvm_answers_release(&a);
}

static void test_llvm_answers_refused(void **state)
{
	static const char *const bad[] = {
		"", "{", "{\"Symbol\":[{\"FunctionName\":\"x\"}]", "{\"Symbol\":[{\"FunctionName\":\"x\\q\"}]}",
		"{\"Symbol\":[{\"Line\":99999999999}]}", "{\"a\":1} trailing", "[1,2]",
		"{\"Symbol\":[{\"FunctionName\":\"\\u12\"}]}",
	};
	struct pc_llvm_answers a = { 0 };

	(void)state;
	pc_arena_init(&a.strings);
	a.first = pc_xcalloc(1, sizeof(*a.first));
	a.first_cap = 1;
	for (size_t i = 0; i < PC_ARRAY_SIZE(bad); i++)
		assert_false(pc_llvm_parse_answer(&a, bad[i], strlen(bad[i])));
	assert_int_equal(a.nqueries, 0);
	assert_int_equal(a.nframes, 0);
	pc_llvm_answers_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab_ranges),
		cmocka_unit_test(test_symtab_aliases),
		cmocka_unit_test(test_symtab_empty),
		cmocka_unit_test(test_perf_map_lines),
		cmocka_unit_test(test_kallsyms_lines),
		cmocka_unit_test(test_pe_image),
		cmocka_unit_test(test_pe_image_refuses_what_is_not_one),
		cmocka_unit_test(test_llvm_answers),
		cmocka_unit_test(test_llvm_answers_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
