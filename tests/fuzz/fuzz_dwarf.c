/*
 * fuzz_dwarf.c - libFuzzer target for the DWARF source positions of
 * symbols/dwarf_source.c (built by `make fuzz-build`, run by `make fuzz`;
 * seeds in tests/fuzz/corpus/dwarf/, small ELF files that
 * tests/fuzz/seeds/dwarf_seeds.sh builds with gcc 12 and clang 14: DWARF 4
 * and 5, compressed sections, C++, ET_DYN, a relocatable object, none).
 *
 * pc_dwarf_open takes a path: each input is written to one temporary file
 * per process, made with mkstemp and unlinked at once, and opened through
 * /proc/self/fd/N (nothing is left behind, even after a crash). What opens
 * is queried at addresses derived from the input and from what the DWARF
 * gives back: the entry point, 0 and 2^64-1; for each executable section
 * (or, without sections, each executable PT_LOAD) its start, its last
 * byte, its end and three offsets into it read from e_ident's padding
 * bytes 9-14, which the ELF readers ignore, so that mutations there move
 * the queries without breaking the file; each call site's address and
 * callee entry; for each function found, its entry, the byte before it
 * and some of its line-table rows. Each address goes through
 * pc_dwarf_frames (with room for 64, 2 and 1 frames), pc_dwarf_function_at,
 * pc_dwarf_function_of and pc_dwarf_function_rows; then the file is
 * closed.
 *
 * Besides the sanitizers, it checks what dwarf_source.h promises whatever
 * the DWARF says: a failed open says why (status and message); names are
 * never NULL; the last frame is the concrete function that fn describes;
 * with less room the outermost frames are kept, the same ones; the leaf
 * of a whole chain has a line; pc_dwarf_function_of gives the function
 * that pc_dwarf_frames names (and one wherever pc_dwarf_frames finds
 * one); pc_dwarf_function_at gives only a function whose entry is the
 * address asked, the one pc_dwarf_function_of gives there; rows come in increasing order, each once, as many as returned;
 * call sites in increasing order of (address, entry), each pair once, the
 * same on a second call.
 */
#include "symbols/dwarf_source.h"
#include "base/error.h"
#include "support/harness.h"

#include <fcntl.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FRAMES 64
#define MAX_SPANS 8        /* code spans from the section or program headers */
#define MAX_CALLS 64       /* call sites queried */
#define MAX_FUNCTIONS 32   /* functions whose entries and rows are queried */
#define MAX_ROWS 16        /* rows queried per function */

/* ---- the input as a file ---- */

static char input_path[64];

/* The input, written to this process's temporary file; its path. */
static const char *input_file(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		const char *dir = getenv("TMPDIR");
		char name[4096];

		snprintf(name, sizeof(name), "%s/fuzz_dwarf.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkstemp(name);
		if (fd < 0) {
			perror("fuzz_dwarf: mkstemp");
			abort();
		}
		unlink(name); /* reached through /proc/self/fd from now on */
		snprintf(input_path, sizeof(input_path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_dwarf: writing the input");
		abort();
	}
	return input_path;
}

/* ---- addresses from the ELF headers (bounds-checked, either byte order) ---- */

struct elf_view {
	const uint8_t *data;
	size_t size;
	bool is64, be;
};

static uint64_t elf_get(const struct elf_view *e, uint64_t offset, size_t bytes, bool *ok)
{
	uint64_t value = 0;

	if (offset > e->size || e->size - offset < bytes) {
		*ok = false;
		return 0;
	}
	for (size_t i = 0; i < bytes; i++)
		value |= (uint64_t)e->data[offset + (e->be ? bytes - 1 - i : i)] << (8 * i);
	return value;
}

struct span {
	uint64_t start, size;
};

/* Executable sections (SHF_EXECINSTR, with bytes), else executable PT_LOADs. */
static size_t code_spans(const struct elf_view *e, struct span *spans, uint64_t *entry)
{
	bool ok = true;
	uint64_t shoff, phoff;
	size_t shnum, phnum, shentsize, phentsize, n = 0;

	*entry = elf_get(e, 24, e->is64 ? 8 : 4, &ok);
	shoff = elf_get(e, e->is64 ? 40 : 32, e->is64 ? 8 : 4, &ok);
	shentsize = (size_t)elf_get(e, e->is64 ? 58 : 46, 2, &ok);
	shnum = (size_t)elf_get(e, e->is64 ? 60 : 48, 2, &ok);
	phoff = elf_get(e, e->is64 ? 32 : 28, e->is64 ? 8 : 4, &ok);
	phentsize = (size_t)elf_get(e, e->is64 ? 54 : 42, 2, &ok);
	phnum = (size_t)elf_get(e, e->is64 ? 56 : 44, 2, &ok);
	if (!ok)
		return 0;
	for (size_t i = 0; i < shnum && i < 64 && n < MAX_SPANS; i++) {
		uint64_t sh = shoff + (uint64_t)i * shentsize;
		uint64_t type = elf_get(e, sh + 4, 4, &ok);
		uint64_t flags = elf_get(e, sh + 8, e->is64 ? 8 : 4, &ok);
		uint64_t addr = elf_get(e, sh + (e->is64 ? 16 : 12), e->is64 ? 8 : 4, &ok);
		uint64_t len = elf_get(e, sh + (e->is64 ? 32 : 20), e->is64 ? 8 : 4, &ok);

		if (!ok || shentsize < (e->is64 ? 64u : 40u))
			break;
		if ((flags & 4) && type != 8 && len) /* SHF_EXECINSTR, not SHT_NOBITS */
			spans[n++] = (struct span){ addr, len };
	}
	ok = true;
	for (size_t i = 0; !n && i < phnum && i < 64; i++) {
		uint64_t ph = phoff + (uint64_t)i * phentsize;
		uint64_t type = elf_get(e, ph, 4, &ok);
		uint64_t flags = elf_get(e, ph + (e->is64 ? 4 : 24), 4, &ok);
		uint64_t vaddr = elf_get(e, ph + (e->is64 ? 16 : 8), e->is64 ? 8 : 4, &ok);
		uint64_t memsz = elf_get(e, ph + (e->is64 ? 40 : 20), e->is64 ? 8 : 4, &ok);

		if (!ok || phentsize < (e->is64 ? 56u : 32u))
			break;
		if (type == 1 && (flags & 1) && memsz) /* PT_LOAD, PF_X */
			spans[n++] = (struct span){ vaddr, memsz };
	}
	return n;
}

/* ---- the checks ---- */

struct row_walk {
	uint64_t last, *rows;
	size_t count, nrows, max_rows;
};

static void visit_row(void *arg, uint64_t address)
{
	struct row_walk *w = arg;

	if (w->count && address <= w->last)
		abort(); /* increasing, each address once */
	w->last = address;
	w->count++;
	if (w->nrows < w->max_rows)
		w->rows[w->nrows++] = address;
}

static bool same_frame(const struct pc_source_frame *a, const struct pc_source_frame *b)
{
	return !strcmp(a->name, b->name) && a->line == b->line && a->decl_line == b->decl_line &&
	       a->discriminator == b->discriminator;
}

static bool same_function(const struct pc_source_function *a, const struct pc_source_function *b)
{
	return !strcmp(a->name, b->name) && a->entry == b->entry && a->decl_line == b->decl_line;
}

struct found {
	uint64_t entries[MAX_FUNCTIONS];
	size_t n;
};

static void remember(struct found *found, uint64_t entry)
{
	for (size_t i = 0; i < found->n; i++)
		if (found->entries[i] == entry)
			return;
	if (found->n < MAX_FUNCTIONS)
		found->entries[found->n++] = entry;
}

/* Queries addr every way; the rows found go to rows (up to max_rows). */
static size_t query(struct pc_dwarf *dw, uint64_t addr, struct found *found, uint64_t *rows,
		    size_t max_rows)
{
	struct pc_source_frame frames[MAX_FRAMES], few[2];
	struct pc_source_function fn, fn_few, at, of;
	struct row_walk walk = { .rows = rows, .max_rows = max_rows };
	size_t n = pc_dwarf_frames(dw, addr, frames, MAX_FRAMES, &fn), n_few, count;
	bool is_entry, is_in;

	if (n > MAX_FRAMES || pc_dwarf_frames(dw, addr, few, 0, NULL))
		abort();
	if (n) {
		for (size_t i = 0; i < n; i++)
			if (!frames[i].name)
				abort();
		if (!fn.name || strcmp(frames[n - 1].name, fn.name) ||
		    frames[n - 1].decl_line != fn.decl_line)
			abort(); /* the last frame is the concrete function */
		if (n < MAX_FRAMES && !frames[0].line)
			abort(); /* a whole chain's leaf has the row's line */
		remember(found, fn.entry);
	}
	/* with less room, the outermost frames: the same ones */
	n_few = pc_dwarf_frames(dw, addr, few, 2, NULL);
	if (n_few != (n < 2 ? n : 2))
		abort();
	for (size_t i = 0; i < n_few; i++)
		if (!same_frame(&few[i], &frames[n - n_few + i]))
			abort();
	n_few = pc_dwarf_frames(dw, addr, few, 1, &fn_few);
	if (n_few != (n ? 1 : 0) || (n && (!same_frame(&few[0], &frames[n - 1]) ||
					   !same_function(&fn_few, &fn))))
		abort();
	is_in = pc_dwarf_function_of(dw, addr, &of);
	if ((n && !is_in) || (is_in && !of.name) || (n && !same_function(&of, &fn)))
		abort(); /* the function that holds addr, whatever its line */
	is_entry = pc_dwarf_function_at(dw, addr, &at);
	if (is_entry && (!at.name || at.entry != addr))
		abort(); /* only the function whose entry is addr */
	if (is_entry && (!is_in || !same_function(&at, &of)))
		abort(); /* the function that holds addr */
	count = pc_dwarf_function_rows(dw, addr, visit_row, &walk);
	if (count != walk.count)
		abort();
	return walk.nrows;
}

struct call_walk {
	uint64_t address[MAX_CALLS], entry[MAX_CALLS];
	size_t count;
	uint64_t last_address, last_entry;
};

static void visit_call(void *arg, uint64_t call_address, uint64_t callee_entry)
{
	struct call_walk *w = arg;

	if (w->count && (call_address < w->last_address ||
			 (call_address == w->last_address && callee_entry <= w->last_entry)))
		abort(); /* by (address, entry), each pair once */
	w->last_address = call_address;
	w->last_entry = callee_entry;
	if (w->count < MAX_CALLS) {
		w->address[w->count] = call_address;
		w->entry[w->count] = callee_entry;
	}
	w->count++;
}

static void explore(struct pc_dwarf *dw, const uint8_t *data, size_t size)
{
	struct elf_view e = { data, size, size > 4 && data[4] == 2, size > 5 && data[5] == 2 };
	struct span spans[MAX_SPANS];
	struct call_walk calls = { 0 }, again = { 0 };
	struct found found = { .n = 0 };
	uint64_t entry, rows[MAX_ROWS], offsets[3] = { 0 };
	size_t nspans = code_spans(&e, spans, &entry), ncalls;

	for (size_t i = 0; i < 3 && size >= 15; i++) /* e_ident[9..14]: padding */
		offsets[i] = (uint64_t)data[9 + 2 * i] | (uint64_t)data[10 + 2 * i] << 8;
	query(dw, entry, &found, NULL, 0);
	query(dw, 0, &found, NULL, 0);
	query(dw, UINT64_MAX, &found, NULL, 0);
	for (size_t i = 0; i < nspans; i++) {
		query(dw, spans[i].start, &found, NULL, 0);
		query(dw, spans[i].start + spans[i].size - 1, &found, NULL, 0);
		query(dw, spans[i].start + spans[i].size, &found, NULL, 0);
		for (size_t k = 0; k < 3; k++)
			query(dw, spans[i].start + offsets[k] % spans[i].size, &found, NULL, 0);
	}
	ncalls = pc_dwarf_call_sites(dw, visit_call, &calls);
	if (ncalls != calls.count)
		abort();
	if (pc_dwarf_call_sites(dw, visit_call, &again) != ncalls || again.count != ncalls)
		abort(); /* read once, the same every time */
	for (size_t i = 0; i < ncalls && i < MAX_CALLS; i++) {
		if (again.address[i] != calls.address[i] || again.entry[i] != calls.entry[i])
			abort();
		query(dw, calls.address[i], &found, NULL, 0);
		query(dw, calls.entry[i], &found, NULL, 0);
	}
	/* the functions found so far (the list may grow while it is walked) */
	for (size_t i = 0; i < found.n; i++) {
		size_t nrows = query(dw, found.entries[i], &found, rows, MAX_ROWS);

		query(dw, found.entries[i] - 1, &found, NULL, 0);
		for (size_t k = 0; k < nrows; k++)
			query(dw, rows[k], &found, NULL, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = input_file(data, size);
	struct pc_error err;
	struct pc_dwarf *dw = NULL;

	memset(&err, 0, sizeof(err));
	if (pc_dwarf_open(path, &dw, &err)) {
		if (dw || err.status == PC_STATUS_OK || !err.message[0])
			abort(); /* a failure must say why, and give nothing */
		return 0;
	}
	if (!dw)
		abort();
	explore(dw, data, size);
	pc_dwarf_close(dw);
	return 0;
}
