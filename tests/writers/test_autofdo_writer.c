/*
 * test_autofdo_writer.c - the AutoFDO text writer and its llvm-profgen
 * flavour: exact text for small models (grammar, sorting, merging),
 * AutoFDO's range rules with the drops of negative and over-1 MiB ranges
 * together with their branch, the choice of the binary (--binary and the
 * warning naming the default), the address spaces (mmap ranges, --base,
 * an ELF file's program headers, SPT RVAs), SPT LBR records with and
 * without --lbr-ranges, --event, and the errors.
 */
#include "model/format.h"
#include "support/columns.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_autofdo_writer;
extern const struct pc_writer pc_llvm_unsymbolized_writer;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	char *text;
	size_t size;
	char elf_path[64];
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

	if (f->elf_path[0])
		remove(f->elf_path);
	pc_model_free(f->m);
	free(f->text);
	free(f);
	return 0;
}

static uint32_t module(struct fixture *f, const char *name, uint64_t start, uint64_t offset)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name), .space = 1 };

	if (start) {
		mod.has_range = true;
		mod.start = start;
		mod.limit = start + 0x10000;
		mod.file_offset = offset;
	}
	return pc_model_add_module(f->m, &mod);
}

static uint32_t spt_module(struct fixture *f, const char *name)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name), .has_pdb = true };

	return pc_model_add_module(f->m, &mod);
}

static uint32_t frame(struct fixture *f, uint32_t mod, uint64_t address, uint32_t flags)
{
	struct pc_frame fr = { .module = mod, .address = address, .flags = PC_FRAME_HAS_ADDRESS | flags };

	return pc_model_add_frame(f->m, &fr);
}

static void add(struct fixture *f, const char *column, const uint32_t *stack, size_t n,
		uint32_t branches, uint64_t count)
{
	struct pc_sample s = { .stack = pc_model_add_stack(f->m, stack, n), .branches = branches };
	int col = pct_column_as_read(f->m, column);

	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)col, count), 0);
}

static void ip(struct fixture *f, const char *column, uint32_t mod, uint64_t address,
	       uint32_t flags, uint64_t count)
{
	uint32_t leaf = frame(f, mod, address, flags);

	add(f, column, &leaf, 1, 0, count);
}

/* A branch stack from (from, to) address pairs, newest first. */
static uint32_t branches(struct fixture *f, uint32_t mod, uint32_t flags, const uint64_t *pairs,
			 size_t n)
{
	struct pc_branch b[8];

	assert_true(n <= 8);
	for (size_t i = 0; i < n; i++) {
		b[i].from = frame(f, mod, pairs[2 * i], flags);
		b[i].to = frame(f, mod, pairs[2 * i + 1], flags);
	}
	return pc_model_add_branches(f->m, b, n);
}

static int write_with(struct fixture *f, const struct pc_writer *writer)
{
	struct pc_output out;

	pc_model_finalize(f->m);
	free(f->text);
	f->text = NULL;
	assert_int_equal(pc_output_to_memory(&out, &f->text, &f->size, &f->ctx.err), 0);
	if (writer->write(&f->ctx, f->m, &out)) {
		pc_output_abort(&out);
		return -1;
	}
	assert_int_equal(pc_output_commit(&out, &f->ctx.err), 0);
	return 0;
}

static void expect_text(struct fixture *f, const struct pc_writer *writer, const char *want)
{
	assert_int_equal(write_with(f, writer), 0);
	f->text = pc_xrealloc(f->text, f->size + 1);
	f->text[f->size] = '\0';
	assert_string_equal(f->text, want);
}

static bool warned(const struct fixture *f, const char *text)
{
	for (size_t i = 0; i < f->ctx.nwarnings; i++)
		if (strstr(f->ctx.warnings[i].text, text))
			return true;
	return false;
}

/* Three sections, lowercase hex, sorted, merged; inlined leaves skipped; _event ignored. */
static void test_grammar_sorting_merging(void **state)
{
	struct fixture *f = *state;
	uint32_t prog = module(f, "/tmp/prog", 0, 0);
	uint32_t stack[2] = {
		pc_model_add_frame(f->m, &(struct pc_frame){ .flags = PC_FRAME_INLINE }),
		frame(f, prog, 0x10, 0),
	};

	ip(f, "cycles_sample", prog, 0xABC0, 0, 2);
	ip(f, "cycles_sample", prog, 0x10, 0, 1);
	ip(f, "cycles_event", prog, 0x99, 0, 1000);
	add(f, "cycles_sample", stack, 2, 0, 3);
	expect_text(f, &pc_autofdo_writer, "0\n2\n10:4\nabc0:2\n0\n");
	assert_true(warned(f, "the binary with the most samples (6)"));
	assert_true(warned(f, "DSO-relative addresses were written as they are"));
}

/* Newest first; [to_i, from_(i-1)]; negative and > 1 MiB ranges dropped with their branch. */
static void test_autofdo_range_rules(void **state)
{
	struct fixture *f = *state;
	uint32_t prog = module(f, "/tmp/prog", 0, 0);
	static const uint64_t pairs[] = {
		0x201030, 0x201000, /* 0: its branch only */
		0x201010, 0x201020, /* 1: range 201020-201030 */
		0x205000, 0x201040, /* 2: [201040, 201010] negative: dropped with its branch */
		0x300000, 0x100000, /* 3: [100000, 205000] longer than 1 MiB: dropped too */
		0x100010, 0x2ff000, /* 4: [2ff000, 300000] */
	};
	uint32_t b = branches(f, prog, 0, pairs, 5);
	uint32_t leaf = frame(f, prog, 0x201004, 0);

	add(f, "cycles_sample", &leaf, 1, b, 2);
	add(f, "cycles_sample", NULL, 0, b, 1);
	expect_text(f, &pc_autofdo_writer,
		    "2\n201020-201030:3\n2ff000-300000:3\n"
		    "1\n201004:2\n"
		    "3\n100010->2ff000:3\n201010->201020:3\n201030->201000:3\n");
	assert_true(warned(f, "4 ranges that were negative or longer than 1 MiB were dropped"));
}

/* A range of exactly 1 MiB is kept, as in AutoFDO (end - begin > 1 MiB drops). */
static void test_one_mib_range_kept(void **state)
{
	struct fixture *f = *state;
	uint32_t prog = module(f, "/tmp/prog", 0, 0);
	static const uint64_t pairs[] = { 0x200000, 0x5, 0x40, 0x100000 };

	add(f, "cycles_sample", NULL, 0, branches(f, prog, 0, pairs, 2), 1);
	expect_text(f, &pc_autofdo_writer, "1\n100000-200000:1\n0\n2\n40->100000:1\n200000->5:1\n");
}

static void add_two_binaries(struct fixture *f)
{
	uint32_t libc = module(f, "/usr/lib/libc.so.6", 0, 0);
	uint32_t prog = module(f, "/tmp/prog", 0, 0);
	uint32_t kernel = module(f, "[kernel.kallsyms]", 0, 0);

	ip(f, "cpu-clock_sample", libc, 0x500, 0, 5);
	ip(f, "cpu-clock_sample", prog, 0x1130, 0, 3);
	ip(f, "cpu-clock_sample", kernel, 0x1000, 0, 50);
}

static void test_default_binary_is_most_sampled(void **state)
{
	struct fixture *f = *state;

	add_two_binaries(f);
	expect_text(f, &pc_autofdo_writer, "0\n1\n500:5\n0\n");
	assert_true(warned(f, "no --binary given: writing '/usr/lib/libc.so.6', "
			      "the binary with the most samples (5)"));
}

static void test_binary_option_by_name_or_path(void **state)
{
	struct fixture *f = *state;

	add_two_binaries(f);
	pc_ctx_set(&f->ctx, "binary", "prog");
	expect_text(f, &pc_autofdo_writer, "0\n1\n1130:3\n0\n");
	pc_ctx_set(&f->ctx, "binary", "/elsewhere/prog"); /* a path whose file name matches */
	expect_text(f, &pc_autofdo_writer, "0\n1\n1130:3\n0\n");
	assert_false(warned(f, "no --binary given"));
	pc_ctx_set(&f->ctx, "binary", "nothing");
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_string_equal(f->ctx.err.message, "autofdo: no binary named 'nothing' in the input");
}

/* Runtime addresses: mmap range (dso offset), --base, or dropped with a warning. */
static void test_runtime_addresses(void **state)
{
	struct fixture *f = *state;
	uint32_t pie = module(f, "/tmp/pie", 0x555555555000, 0x1000);

	ip(f, "cycles_sample", pie, 0x555555555240, PC_FRAME_ABSOLUTE, 7);
	ip(f, "cycles_sample", pie, 0x1250, 0, 1);           /* already a dso offset */
	ip(f, "cycles_sample", pie, 0x7f0000000000, PC_FRAME_ABSOLUTE, 1); /* outside */
	expect_text(f, &pc_autofdo_writer, "0\n2\n1240:7\n1250:1\n0\n");
	assert_true(warned(f, "1 runtime addresses with no known load address were left out"));
}

static void test_base_option(void **state)
{
	struct fixture *f = *state;
	static const uint64_t pairs[] = { 0x401238, 0x40128b, 0x401286, 0x401230 };

	/* llvm-profgen's inputs: bare runtime addresses, no module */
	ip(f, "cycles_sample", 0, 0x401230, PC_FRAME_ABSOLUTE, 2);
	ip(f, "cycles_sample", 0, 0x1000, PC_FRAME_ABSOLUTE, 1); /* below the base */
	add(f, "cycles_sample", NULL, 0, branches(f, 0, PC_FRAME_ABSOLUTE, pairs, 2), 1);
	pc_ctx_set(&f->ctx, "base", "0x400000");
	expect_text(f, &pc_autofdo_writer,
		    "1\n1230-1238:1\n1\n1230:2\n2\n1238->128b:1\n1286->1230:1\n");
	assert_true(warned(f, "writing the addresses that have no binary"));
	assert_true(warned(f, "1 addresses below --base were left out"));
	/* without --base they have no load address */
	pc_ctx_init(&f->ctx);
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_string_equal(f->ctx.err.message,
			    "autofdo: no instruction address of the chosen binary could be written");
}

static void put(uint8_t *p, uint64_t value, size_t bytes)
{
	for (size_t i = 0; i < bytes; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

/*
 * A little-endian ELF64 file with two PT_LOADs laid out as lld does (file
 * offset != vaddr - first vaddr): [0, 0x800) at 0x10000 (R), [0x1000,
 * 0x2000) at 0x11800 (R+X). type 2 = ET_EXEC, 3 = ET_DYN.
 */
static void make_elf(struct fixture *f, unsigned type, size_t size)
{
	uint8_t image[64 + 2 * 56] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	uint8_t *ph = image + 64;
	FILE *fp;
	int fd;

	put(image + 16, type, 2);
	put(image + 32, 64, 8);  /* e_phoff */
	put(image + 54, 56, 2);  /* e_phentsize */
	put(image + 56, 2, 2);   /* e_phnum */
	put(ph, 1, 4);
	put(ph + 4, 4, 4);
	put(ph + 16, 0x10000, 8);
	put(ph + 32, 0x800, 8);
	put(ph + 40, 0x800, 8);
	put(ph + 56, 1, 4);
	put(ph + 56 + 4, 5, 4);
	put(ph + 56 + 8, 0x1000, 8);
	put(ph + 56 + 16, 0x11800, 8);
	put(ph + 56 + 32, 0x1000, 8);
	put(ph + 56 + 40, 0x1000, 8);
	snprintf(f->elf_path, sizeof(f->elf_path), "/tmp/test_autofdo_elf.XXXXXX");
	fd = mkstemp(f->elf_path);
	assert_true(fd >= 0);
	fp = fdopen(fd, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(image, 1, size, fp), size);
	fclose(fp);
}

/* With the ELF at hand: file offsets become vaddr - first PT_LOAD vaddr (0.19). */
static void test_elf_program_headers(void **state)
{
	struct fixture *f = *state;
	uint32_t mod;

	make_elf(f, 3, 64 + 2 * 56);
	mod = module(f, f->elf_path, 0x7f0000001000, 0x1000);
	pc_ctx_set(&f->ctx, "binary", f->elf_path);
	ip(f, "cycles_sample", mod, 0x7f0000001234, PC_FRAME_ABSOLUTE, 4); /* offset 0x1234 */
	ip(f, "cycles_sample", mod, 0x1240, 0, 1);                          /* offset 0x1240 */
	ip(f, "cycles_sample", mod, 0x900, 0, 1);                           /* in no segment */
	expect_text(f, &pc_autofdo_writer, "0\n2\n1a34:4\n1a40:1\n0\n");
	assert_true(warned(f, "1 addresses outside the binary's PT_LOAD segments were left out"));
	/* llvm-profgen 14 counts from the page of the first executable segment */
	pc_ctx_init(&f->ctx);
	pc_ctx_set(&f->ctx, "binary", f->elf_path);
	expect_text(f, &pc_llvm_unsymbolized_writer, "2\na34-a34:4\na40-a40:1\n0\n");
}

/* A non-PIE ELF is loaded at its vaddrs: runtime addresses need no mmap range. */
static void test_elf_exec_without_range(void **state)
{
	struct fixture *f = *state;
	uint32_t mod;

	make_elf(f, 2, 64 + 2 * 56);
	mod = module(f, f->elf_path, 0, 0);
	pc_ctx_set(&f->ctx, "binary", f->elf_path);
	ip(f, "cycles_sample", mod, 0x11a34, PC_FRAME_ABSOLUTE, 2);
	expect_text(f, &pc_autofdo_writer, "0\n1\n1a34:2\n0\n");
}

static void test_truncated_elf_is_an_error(void **state)
{
	struct fixture *f = *state;
	uint32_t mod;

	make_elf(f, 3, 64 + 56 + 10);
	mod = module(f, f->elf_path, 0, 0);
	pc_ctx_set(&f->ctx, "binary", f->elf_path);
	ip(f, "cycles_sample", mod, 0x1234, 0, 1);
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_non_null(strstr(f->ctx.err.message, "ELF program header 1 lies outside the file"));
}

static void add_spt(struct fixture *f)
{
	uint32_t app = spt_module(f, "app.exe");
	static const uint64_t pairs[] = { 0x1050, 0x1000, 0x1020, 0x1040, 0x1030, 0x1010 };
	uint32_t callstack[2] = { frame(f, app, 0x9000, 0), frame(f, app, 0x9100, 0) };

	ip(f, "timer", app, 0x1044, 0, 3);
	add(f, "lbr_branch", NULL, 0, branches(f, app, 0, pairs, 3), 2);
	add(f, "callstack", callstack, 2, 0, 5);
}

/* SPT: RVAs as they are; LBR pairs give branches; ranges only with --lbr-ranges. */
static void test_spt_lbr(void **state)
{
	struct fixture *f = *state;

	add_spt(f);
	expect_text(f, &pc_autofdo_writer,
		    "0\n1\n1044:3\n3\n1020->1040:2\n1030->1010:2\n1050->1000:2\n");
	assert_true(warned(f, "1 SPT LBR records gave branch counts only"));
	assert_false(warned(f, "DSO-relative"));
	pc_ctx_init(&f->ctx);
	pc_ctx_set(&f->ctx, "lbr-ranges", NULL);
	expect_text(f, &pc_autofdo_writer,
		    "2\n1010-1020:2\n1040-1050:2\n1\n1044:3\n3\n1020->1040:2\n1030->1010:2\n1050->1000:2\n");
}

/* The llvm flavour: ranges and branches only, no blank lines or spaces. */
static void test_llvm_flavour_layout(void **state)
{
	struct fixture *f = *state;
	uint32_t prog = module(f, "/tmp/prog", 0, 0);
	static const uint64_t pairs[] = { 0x238, 0x28b, 0x286, 0x230 };
	uint32_t leaf = frame(f, prog, 0x28b, 0);

	add(f, "cycles_sample", &leaf, 1, branches(f, prog, 0, pairs, 2), 3);
	expect_text(f, &pc_llvm_unsymbolized_writer, "1\n230-238:3\n2\n238->28b:3\n286->230:3\n");
}

static void test_event_option(void **state)
{
	struct fixture *f = *state;
	uint32_t prog = module(f, "/tmp/prog", 0, 0);

	ip(f, "cycles_sample", prog, 0x10, 0, 1);
	ip(f, "instructions_sample", prog, 0x20, 0, 9);
	expect_text(f, &pc_autofdo_writer, "0\n1\n10:1\n0\n");
	f->ctx.opt.event = "instructions";
	expect_text(f, &pc_autofdo_writer, "0\n1\n20:9\n0\n");
	f->ctx.opt.event = "branches";
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_non_null(strstr(f->ctx.err.message, "no event 'branches' in the input"));
}

static void test_no_addresses_is_an_error(void **state)
{
	struct fixture *f = *state;
	struct pc_frame named = { .function = pc_model_intern_cstr(f->m, "main") };
	uint32_t leaf = pc_model_add_frame(f->m, &named);

	add(f, "samples", &leaf, 1, 0, 4);
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_non_null(strstr(f->ctx.err.message, "AutoFDO needs instruction addresses "
						     "(perf script and SPT inputs have them)"));
}

/*
 * --strict: which binary was picked and IPs as one-address ranges are
 * notices, never errors.
 */
static void test_strict_passes_notices(void **state)
{
	struct fixture *f = *state;
	uint32_t pie = module(f, "/tmp/pie", 0x555555555000, 0x1000);

	ip(f, "cycles_sample", pie, 0x555555555240, PC_FRAME_ABSOLUTE, 7);
	f->ctx.opt.strict = true;
	expect_text(f, &pc_autofdo_writer, "0\n1\n1240:7\n0\n");
	assert_true(warned(f, "no --binary given: writing '/tmp/pie'"));
	assert_true(f->ctx.warnings[0].notice);
	expect_text(f, &pc_llvm_unsymbolized_writer, "1\n1240-1240:7\n0\n");
	assert_true(warned(f, "llvm-unsymbolized gets each IP as a one-address range"));
}

/* Addresses left out are losses: the error, said once (not also a warning). */
static void test_strict_turns_drops_into_errors(void **state)
{
	struct fixture *f = *state;
	uint32_t pie = module(f, "/tmp/pie", 0x555555555000, 0x1000);

	ip(f, "cycles_sample", pie, 0x555555555240, PC_FRAME_ABSOLUTE, 7);
	ip(f, "cycles_sample", pie, 0x7f0000000000, PC_FRAME_ABSOLUTE, 1); /* outside */
	f->ctx.opt.strict = true;
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_string_equal(f->ctx.err.message, "1 runtime addresses with no known load address "
				"were left out (give --base ADDR, --binary FILE or perf script "
				"--show-mmap-events) (an error with --strict)");
	assert_false(warned(f, "left out"));
}

/* DSO-relative addresses written as they are, with no ELF file to check them: a loss. */
static void test_strict_refuses_unchecked_addresses(void **state)
{
	struct fixture *f = *state;

	add_two_binaries(f);
	f->ctx.opt.strict = true;
	assert_int_equal(write_with(f, &pc_autofdo_writer), -1);
	assert_non_null(strstr(f->ctx.err.message, "1 DSO-relative addresses were written as "
						     "they are"));
	assert_true(warned(f, "no --binary given: writing '/usr/lib/libc.so.6'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_grammar_sorting_merging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_autofdo_range_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_mib_range_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_binary_is_most_sampled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binary_option_by_name_or_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runtime_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elf_program_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_elf_exec_without_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated_elf_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spt_lbr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_llvm_flavour_layout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_addresses_is_an_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_passes_notices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_turns_drops_into_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_refuses_unchecked_addresses, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
