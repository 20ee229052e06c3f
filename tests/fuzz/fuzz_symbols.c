/*
 * fuzz_symbols.c - libFuzzer target for what the symbolizer reads from
 * files it did not write (built by `make fuzz-build`, run by `make fuzz`;
 * seeds in tests/fuzz/corpus/symbols/). The first byte picks the reader:
 *   0: a PE file's headers and CodeView record (pc_pe_image_parse): it
 *      either fails with "not a PE file: ..." or fills an image;
 *   1: one llvm-symbolizer JSON answer (pc_llvm_parse_answer): accepted
 *      answers add exactly one query, refused ones add nothing;
 *   2, 3: perf-PID.map or /proc/kallsyms lines (pc_symtab_add_lines), then
 *      lookups at every symbol start, which must find a symbol.
 */
#include "symbols/llvm_symbolizer.h"
#include "symbols/pe_image.h"
#include "symbols/symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_pe(const uint8_t *data, size_t size)
{
	struct pc_pe_image pe;
	char err[200];

	if (pc_pe_image_parse(data, size, &pe, err, sizeof(err)) &&
	    strncmp(err, "not a PE file: ", 15))
		abort();
}

static void fuzz_answer(const uint8_t *data, size_t size)
{
	struct pc_llvm_answers a = { 0 };
	bool ok;

	pc_arena_init(&a.strings);
	a.first = pc_xcalloc(1, sizeof(*a.first));
	a.first_cap = 1;
	ok = pc_llvm_parse_answer(&a, (const char *)data, size);
	if (a.nqueries != (ok ? 1u : 0u) || (ok && a.first[1] != a.nframes) || (!ok && a.nframes))
		abort();
	for (size_t i = 0; i < a.nframes; i++)
		if (!a.frames[i].function || !a.frames[i].file || !*a.frames[i].function)
			abort();
	pc_llvm_answers_release(&a);
}

static void fuzz_lines(const uint8_t *data, size_t size, bool kallsyms)
{
	struct pc_symtab t;
	FILE *f = fmemopen((void *)data, size, "r");

	if (!f)
		return;
	pc_symtab_init(&t);
	pc_symtab_add_lines(&t, f, kallsyms);
	fclose(f);
	pc_symtab_lookup(&t, 0);
	for (size_t i = 0; i < t.count; i++)
		if (!pc_symtab_lookup(&t, t.symbols[i].start))
			abort();
	pc_symtab_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_pe(data + 1, size - 1);
		break;
	case 1:
		fuzz_answer(data + 1, size - 1);
		break;
	default:
		if (size > 1)
			fuzz_lines(data + 1, size - 1, data[0] % 4 == 3);
		break;
	}
	return 0;
}
