/*
 * dwarf_source.c - the source positions of dwarf_source.h, read with
 * elfutils 0.188's libdw (DWARF 2-5, as gcc 12 and clang 14 write them),
 * from the binary or else its /usr/lib/debug/.build-id/xx/yyyy.debug file.
 *
 * It indexes at open, by range start, every DW_TAG_subprogram with code in
 * the compile units with a line table, at any depth (namespaces, classes,
 * local classes and lambdas). Per address: the inlined subroutines under
 * that subprogram that hold it (dwarf_haspc, as dwarf_getscopes does
 * without its walk of the whole unit), the line-table row (dwarf_getsrc_die:
 * the last row at or below it, as eu-addr2line and llvm-symbolizer take
 * it), call lines and LLVM's call discriminators (DW_AT_GNU_discriminator),
 * names and DW_AT_decl_line through origins (dwarf_attr_integrate, which
 * follows dwz's .gnu_debugaltlink too). Call sites: a second walk, once.
 *
 * Left out: relocatable objects (refused: their DWARF is unrelocated),
 * split DWARF (.dwo), type and partial units, file names and columns,
 * DW_TAG_entry_point, ranges that are empty or start at 0 (where
 * --gc-sections leaves the DWARF of the functions it drops), call sites
 * whose callee names no function with code or several (gcc's foo and its
 * foo.part.0 share their abstract instance), indirect calls.
 */
#include "symbols/dwarf_source.h"

#include "base/error.h"
#include "base/sort.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#define DW_AT_GNU_DISCRIMINATOR 0x2136 /* not in elfutils' dwarf.h */
#define MAX_DIE_DEPTH 256      /* DIE nesting and inline chains followed */
#define MAX_DIE_RANGES 65536   /* address ranges read from one DIE */
#define MAX_ORIGIN_STEPS 8     /* abstract_origin / specification links followed */
#define BUILD_ID_DIR "/usr/lib/debug/.build-id/"
#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

struct dw_function {
	Dwarf_Die die;
	const char *name;
	uint64_t entry;
	uint32_t decl_line;
	uint32_t first_span, nspans; /* its ranges in pc_dwarf.spans, by address */
};

struct dw_range { uint64_t low, high; uint32_t function; }; /* [low, high) */
struct dw_call { uint64_t address, entry; };

/*
 * A DIE that stands for a function (its own, its declaration, its abstract
 * instance), by Dwarf_Die.addr: unique across the main and the alt file.
 */
struct dw_origin { uintptr_t die; uint32_t function; };

struct pc_dwarf {
	int fd, debug_fd;
	Elf *elf, *debug_elf;
	Dwarf *dwarf;
	struct dw_function *functions;
	size_t nfunctions, functions_cap;
	struct dw_range *spans;  /* per function, in function order */
	size_t nspans, spans_cap;
	struct dw_range *sorted; /* the spans by low address */
	uint64_t *reach;         /* reach[i]: the highest high of sorted[0..i] */
	struct dw_origin *origins;
	size_t norigins, origins_cap;
	struct dw_call *calls;
	size_t ncalls, calls_cap;
	uint32_t *by_name;       /* function indices by name, for declarations of other units */
	bool calls_read;
};

/* Names, lines and ranges of one DIE. */

static const char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name};
	Dwarf_Attribute attr;
	const char *name;

	for (size_t i = 0; i < PC_ARRAY_SIZE(attrs); i++)
		if (dwarf_attr_integrate(die, attrs[i], &attr) && (name = dwarf_formstring(&attr)))
			return name;
	name = dwarf_diename(die);
	return name ? name : "";
}

static uint32_t die_decl_line(Dwarf_Die *die)
{
	int line;

	return dwarf_decl_line(die, &line) == 0 && line > 0 ? (uint32_t)line : 0;
}

static uint32_t die_udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	Dwarf_Word value;

	if (!dwarf_attr(die, name, &attr) || dwarf_formudata(&attr, &value) != 0)
		return 0;
	return value <= UINT32_MAX ? (uint32_t)value : 0;
}

/* The address of attribute name, 0 when there is none. */
static uint64_t die_address(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	Dwarf_Addr value;

	return dwarf_attr(die, name, &attr) && dwarf_formaddr(&attr, &value) == 0 ? value : 0;
}

/* Appends die's non-empty ranges that do not start at 0; the number appended. */
static size_t add_spans(struct pc_dwarf *dw, Dwarf_Die *die, uint32_t function)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;
	size_t added = 0;

	for (size_t i = 0; i < MAX_DIE_RANGES; i++) {
		offset = dwarf_ranges(die, offset, &base, &start, &end);
		if (offset <= 0)
			break;
		if (start == 0 || start >= end)
			continue;
		pc_grow(&dw->spans, &dw->spans_cap, dw->nspans + 1, sizeof(*dw->spans));
		dw->spans[dw->nspans++] =
			(struct dw_range){.low = start, .high = end, .function = function};
		added++;
	}
	return added;
}

static void add_origin(struct pc_dwarf *dw, const Dwarf_Die *die, uint32_t function)
{
	pc_grow(&dw->origins, &dw->origins_cap, dw->norigins + 1, sizeof(*dw->origins));
	dw->origins[dw->norigins++] =
		(struct dw_origin){.die = (uintptr_t)die->addr, .function = function};
}

/* The index: functions with code, their ranges, the DIEs that name them. */

static void add_function(struct pc_dwarf *dw, Dwarf_Die *die)
{
	uint32_t index = (uint32_t)dw->nfunctions, first = (uint32_t)dw->nspans;
	struct dw_function *fn;
	Dwarf_Attribute attr;
	Dwarf_Die cur = *die;
	Dwarf_Addr entry;

	if (dw->nfunctions >= UINT32_MAX - 1 || !add_spans(dw, die, index))
		return;
	pc_grow(&dw->functions, &dw->functions_cap, dw->nfunctions + 1, sizeof(*dw->functions));
	fn = &dw->functions[dw->nfunctions++];
	*fn = (struct dw_function){
		.die = *die, .name = die_name(die), .decl_line = die_decl_line(die),
		.first_span = first, .nspans = (uint32_t)(dw->nspans - first)};
	/* gcc lists a split function's hot part first; its .cold part lies lower */
	fn->entry = dwarf_entrypc(die, &entry) == 0 && entry ? entry : dw->spans[first].low;
	add_origin(dw, &cur, index);
	for (int i = 0; i < MAX_ORIGIN_STEPS; i++) {
		if (!dwarf_attr(&cur, DW_AT_abstract_origin, &attr) &&
		    !dwarf_attr(&cur, DW_AT_specification, &attr))
			break;
		if (!dwarf_formref_die(&attr, &cur))
			break;
		add_origin(dw, &cur, index);
	}
}

static bool may_hold_functions(int tag)
{
	static const int scopes[] = {
		DW_TAG_namespace, DW_TAG_module, DW_TAG_class_type, DW_TAG_structure_type,
		DW_TAG_union_type, DW_TAG_interface_type, DW_TAG_lexical_block,
		DW_TAG_subprogram, /* GNU C nested functions, local classes, lambdas */
	};

	for (size_t i = 0; i < PC_ARRAY_SIZE(scopes); i++)
		if (tag == scopes[i])
			return true;
	return false;
}

static bool index_die(struct pc_dwarf *dw, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_subprogram)
		add_function(dw, die);
	return may_hold_functions(tag);
}

/* Calls visit on each DIE under parent; goes under those for which it returns true. */
static void walk_dies(struct pc_dwarf *dw, Dwarf_Die *parent, unsigned depth,
		      bool (*visit)(struct pc_dwarf *, Dwarf_Die *))
{
	Dwarf_Die child;

	if (depth >= MAX_DIE_DEPTH || dwarf_child(parent, &child) != 0)
		return;
	do {
		if (visit(dw, &child))
			walk_dies(dw, &child, depth + 1, visit);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* Walks the DIEs of each compile unit that has a line table. */
static void walk_units(struct pc_dwarf *dw, bool (*visit)(struct pc_dwarf *, Dwarf_Die *))
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;

	while (dwarf_get_units(dw->dwarf, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0)
		if (unit_type == DW_UT_compile && dwarf_hasattr(&cudie, DW_AT_stmt_list))
			walk_dies(dw, &cudie, 0, visit);
}

static int compare_ranges(const void *a, const void *b)
{
	const struct dw_range *x = a, *y = b;

	if (x->low != y->low)
		return CMP(x->low, y->low);
	return x->high != y->high ? CMP(x->high, y->high) : CMP(x->function, y->function);
}

static int compare_origins(const void *a, const void *b)
{
	const struct dw_origin *x = a, *y = b;

	return x->die != y->die ? CMP(x->die, y->die) : CMP(x->function, y->function);
}

static void sort_index(struct pc_dwarf *dw)
{
	uint64_t reach = 0;

	for (size_t i = 0; i < dw->nfunctions; i++)
		qsort(dw->spans + dw->functions[i].first_span, dw->functions[i].nspans,
		      sizeof(*dw->spans), compare_ranges);
	dw->sorted = pc_xmalloc(dw->nspans * sizeof(*dw->sorted));
	memcpy(dw->sorted, dw->spans, dw->nspans * sizeof(*dw->sorted));
	qsort(dw->sorted, dw->nspans, sizeof(*dw->sorted), compare_ranges);
	dw->reach = pc_xmalloc(dw->nspans * sizeof(*dw->reach));
	for (size_t i = 0; i < dw->nspans; i++) {
		if (dw->sorted[i].high > reach)
			reach = dw->sorted[i].high;
		dw->reach[i] = reach;
	}
	qsort(dw->origins, dw->norigins, sizeof(*dw->origins), compare_origins);
}

/* The function whose ranges hold addr (of several, the one starting last), or NULL. */
static struct dw_function *find_function(struct pc_dwarf *dw, uint64_t addr)
{
	size_t lo = 0, hi = dw->nspans;

	while (lo < hi) { /* the first span starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (dw->sorted[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && dw->reach[lo - 1] > addr)
		if (addr < dw->sorted[--lo].high)
			return &dw->functions[dw->sorted[lo].function];
	return NULL;
}

/* Opens path as an ELF file into *fd and *elf; its e_type, or -1 when it is none. */
static int begin_elf(const char *path, int *fd, Elf **elf)
{
	GElf_Ehdr ehdr;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -1;
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF || !gelf_getehdr(*elf, &ehdr))
		return -1;
	return ehdr.e_type;
}

/* Reads the DWARF of elf into dw's index; true when it has a function with code. */
static bool index_dwarf(struct pc_dwarf *dw, Elf *elf)
{
	dw->dwarf = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw->dwarf)
		return false;
	walk_units(dw, index_die);
	if (dw->nfunctions)
		return true;
	dwarf_end(dw->dwarf); /* no function was indexed: nothing else to undo */
	dw->dwarf = NULL;
	return false;
}

size_t pc_dwarf_build_id(struct pc_dwarf *dw, char *hex, size_t size)
{
	const void *bytes = NULL;
	ssize_t len = dwelf_elf_gnu_build_id(dw->elf, &bytes);
	const unsigned char *id = bytes;

	if (len <= 0 || size < 2 * (size_t)len + 1)
		return 0;
	for (ssize_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return 2 * (size_t)len;
}

static bool index_debug_file(struct pc_dwarf *dw)
{
	char path[sizeof(BUILD_ID_DIR) + 2 * 64 + 16];
	const void *bytes = NULL;
	ssize_t len = dwelf_elf_gnu_build_id(dw->elf, &bytes);
	const unsigned char *id = bytes;
	size_t at;

	if (len < 2 || len > 64)
		return false;
	at = (size_t)snprintf(path, sizeof(path), BUILD_ID_DIR "%02x/", id[0]);
	for (ssize_t i = 1; i < len; i++)
		at += (size_t)snprintf(path + at, sizeof(path) - at, "%02x", id[i]);
	snprintf(path + at, sizeof(path) - at, ".debug");
	return begin_elf(path, &dw->debug_fd, &dw->debug_elf) >= 0 &&
	       index_dwarf(dw, dw->debug_elf);
}

int pc_dwarf_open(const char *path, struct pc_dwarf **out, struct pc_error *err)
{
	struct pc_dwarf *dw = pc_xcalloc(1, sizeof(*dw));
	int type;

	*out = NULL;
	dw->fd = dw->debug_fd = -1;
	elf_version(EV_CURRENT);
	type = begin_elf(path, &dw->fd, &dw->elf);
	if (dw->fd < 0)
		pc_fail(err, PC_STATUS_INPUT, "cannot open '%s': %s", path, strerror(errno));
	else if (type < 0)
		pc_fail(err, PC_STATUS_INPUT, "'%s' is not an ELF file", path);
	else if (type == ET_REL)
		pc_fail(err, PC_STATUS_INPUT,
			"'%s' is a relocatable object: its DWARF is not relocated (link it)", path);
	else if (!index_dwarf(dw, dw->elf) && !index_debug_file(dw))
		pc_fail(err, PC_STATUS_INPUT,
			"no DWARF debug information in '%s' (build it with -g)", path);
	else
		*out = dw;
	if (*out)
		sort_index(dw);
	else
		pc_dwarf_close(dw);
	return *out ? 0 : -1;
}

void pc_dwarf_close(struct pc_dwarf *dw)
{
	if (!dw)
		return;
	dwarf_end(dw->dwarf); /* each of these accepts NULL */
	elf_end(dw->debug_elf);
	elf_end(dw->elf);
	if (dw->debug_fd >= 0)
		close(dw->debug_fd);
	if (dw->fd >= 0)
		close(dw->fd);
	free(dw->functions);
	free(dw->spans);
	free(dw->sorted);
	free(dw->reach);
	free(dw->origins);
	free(dw->calls);
	free(dw->by_name);
	free(dw);
}

/*
 * Fills chain with the inlined subroutines under the function's DIE that
 * hold addr, outermost first, through lexical blocks and any other DIE
 * that holds addr; returns their number.
 */
static size_t inline_chain(Dwarf_Die *function, uint64_t addr, Dwarf_Die *chain, size_t max)
{
	Dwarf_Die scope = *function, child;
	size_t n = 0;

	for (unsigned depth = 0; depth < MAX_DIE_DEPTH && dwarf_child(&scope, &child) == 0;
	     depth++) {
		bool found;

		do
			found = dwarf_tag(&child) != DW_TAG_subprogram &&
				dwarf_haspc(&child, addr) > 0;
		while (!found && dwarf_siblingof(&child, &child) == 0);
		if (!found)
			break;
		if (dwarf_tag(&child) == DW_TAG_inlined_subroutine) {
			if (n == max)
				break;
			chain[n++] = child;
		}
		scope = child;
	}
	return n;
}

static void describe(const struct dw_function *f, struct pc_source_function *fn)
{
	if (fn)
		*fn = (struct pc_source_function){
			.name = f->name, .entry = f->entry, .decl_line = f->decl_line};
}

size_t pc_dwarf_frames(struct pc_dwarf *dw, uint64_t addr, struct pc_source_frame *frames,
		       size_t max, struct pc_source_function *fn)
{
	struct dw_function *f = find_function(dw, addr);
	Dwarf_Die chain[MAX_DIE_DEPTH], cudie;
	unsigned int discriminator = 0;
	size_t depth, total, skip;
	Dwarf_Line *row;
	int line;

	if (!f || !max || !dwarf_diecu(&f->die, &cudie, NULL, NULL))
		return 0;
	row = dwarf_getsrc_die(&cudie, addr);
	if (!row || dwarf_lineno(row, &line) != 0 || line <= 0 ||
	    dwarf_linediscriminator(row, &discriminator) != 0)
		return 0;
	depth = inline_chain(&f->die, addr, chain, MAX_DIE_DEPTH);
	total = depth + 1;
	skip = total > max ? total - max : 0;
	for (size_t i = skip; i < total; i++) { /* frame i, leaf first */
		Dwarf_Die *die = i < depth ? &chain[depth - 1 - i] : &f->die;
		Dwarf_Die *callee = i ? &chain[depth - i] : NULL; /* the frame inlined into die */
		struct pc_source_frame *frame = &frames[i - skip];

		frame->name = i < depth ? die_name(die) : f->name;
		frame->decl_line = i < depth ? die_decl_line(die) : f->decl_line;
		frame->line = callee ? die_udata(callee, DW_AT_call_line) : (uint32_t)line;
		frame->discriminator =
			callee ? die_udata(callee, DW_AT_GNU_DISCRIMINATOR) : discriminator;
	}
	describe(f, fn);
	return total - skip;
}

bool pc_dwarf_function_of(struct pc_dwarf *dw, uint64_t addr, struct pc_source_function *fn)
{
	struct dw_function *f = find_function(dw, addr);

	if (!f)
		return false;
	describe(f, fn);
	return true;
}

bool pc_dwarf_function_at(struct pc_dwarf *dw, uint64_t addr, struct pc_source_function *fn)
{
	struct dw_function *f = find_function(dw, addr);

	if (!f || f->entry != addr)
		return false;
	describe(f, fn);
	return true;
}

static bool row_address(Dwarf_Lines *lines, size_t index, uint64_t *address, bool *end)
{
	Dwarf_Line *row = dwarf_onesrcline(lines, index);
	Dwarf_Addr value;

	if (!row || dwarf_lineaddr(row, &value) != 0 || dwarf_lineendsequence(row, end) != 0)
		return false;
	*address = value;
	return true;
}

/* The index of the first row at or above addr (libdw sorts rows by address). */
static size_t first_row(Dwarf_Lines *lines, size_t nlines, uint64_t addr)
{
	size_t lo = 0, hi = nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t address;
		bool end;

		if (row_address(lines, mid, &address, &end) && address < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t pc_dwarf_function_rows(struct pc_dwarf *dw, uint64_t addr,
			      void (*visit)(void *arg, uint64_t address), void *arg)
{
	struct dw_function *f = find_function(dw, addr);
	uint64_t address, last = 0;
	size_t nlines, count = 0;
	Dwarf_Lines *lines;
	Dwarf_Die cudie;
	bool end;

	if (!f || !dwarf_diecu(&f->die, &cudie, NULL, NULL) ||
	    dwarf_getsrclines(&cudie, &lines, &nlines) != 0)
		return 0;
	for (const struct dw_range *span = &dw->spans[f->first_span];
	     span < &dw->spans[f->first_span + f->nspans]; span++) {
		for (size_t i = first_row(lines, nlines, span->low); i < nlines; i++) {
			if (!row_address(lines, i, &address, &end))
				continue;
			if (address >= span->high)
				break;
			if (end || address < span->low || (count && address <= last))
				continue;
			visit(arg, address);
			last = address;
			count++;
		}
	}
	return count;
}

/* Call sites. */

/* The function that the DIE die names, if it names exactly one. */
static const struct dw_function *named_function(struct pc_dwarf *dw, const Dwarf_Die *die)
{
	size_t lo = 0, hi = dw->norigins;
	uintptr_t key = (uintptr_t)die->addr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dw->origins[mid].die < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == dw->norigins || dw->origins[lo].die != key)
		return NULL;
	for (size_t i = lo + 1; i < dw->norigins && dw->origins[i].die == key; i++)
		if (dw->origins[i].function != dw->origins[lo].function)
			return NULL;
	return &dw->functions[dw->origins[lo].function];
}

static int compare_names(const void *ctx, uint32_t a, uint32_t b)
{
	const struct pc_dwarf *dw = ctx;

	return strcmp(dw->functions[a].name, dw->functions[b].name);
}

/* The one function with code named name (a declaration's callee in another unit), or NULL. */
static const struct dw_function *function_named(struct pc_dwarf *dw, const char *name)
{
	size_t lo = 0, hi = dw->nfunctions;

	if (!name || !name[0])
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(dw->functions[dw->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == dw->nfunctions || strcmp(dw->functions[dw->by_name[lo]].name, name) ||
	    (lo + 1 < dw->nfunctions && !strcmp(dw->functions[dw->by_name[lo + 1]].name, name)))
		return NULL;
	return &dw->functions[dw->by_name[lo]];
}

/* The callee of a call site: the function its origin names, or one external declaration names. */
static const struct dw_function *callee_of(struct pc_dwarf *dw, Dwarf_Die *origin)
{
	const struct dw_function *callee = named_function(dw, origin);

	if (callee || !dwarf_hasattr(origin, DW_AT_declaration) ||
	    !dwarf_hasattr(origin, DW_AT_external))
		return callee;
	return function_named(dw, die_name(origin));
}

static void add_call_site(struct pc_dwarf *dw, Dwarf_Die *site)
{
	const struct dw_function *callee;
	Dwarf_Attribute attr;
	Dwarf_Die origin;
	uint64_t address;

	if (!dwarf_attr(site, DW_AT_call_origin, &attr) &&
	    !dwarf_attr(site, DW_AT_abstract_origin, &attr))
		return;
	if (!dwarf_formref_die(&attr, &origin) || !(callee = callee_of(dw, &origin)))
		return;
	if ((address = die_address(site, DW_AT_call_return_pc)) ||
	    (address = die_address(site, DW_AT_low_pc)))
		address--; /* inside the call instruction */
	else if (!(address = die_address(site, DW_AT_call_pc))) /* clang's tail calls */
		return;
	pc_grow(&dw->calls, &dw->calls_cap, dw->ncalls + 1, sizeof(*dw->calls));
	dw->calls[dw->ncalls++] = (struct dw_call){.address = address, .entry = callee->entry};
}

static bool call_site_die(struct pc_dwarf *dw, Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	if (tag == DW_TAG_call_site || tag == DW_TAG_GNU_call_site) {
		add_call_site(dw, die);
		return false;
	}
	return may_hold_functions(tag) || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_try_block || tag == DW_TAG_catch_block;
}

static int compare_calls(const void *a, const void *b)
{
	const struct dw_call *x = a, *y = b;

	return x->address != y->address ? CMP(x->address, y->address) : CMP(x->entry, y->entry);
}

static void read_call_sites(struct pc_dwarf *dw)
{
	size_t kept = 0;

	dw->calls_read = true;
	dw->by_name = pc_xmalloc((dw->nfunctions ? dw->nfunctions : 1) * sizeof(*dw->by_name));
	for (size_t i = 0; i < dw->nfunctions; i++)
		dw->by_name[i] = (uint32_t)i;
	pc_sort_indices(dw, dw->by_name, dw->nfunctions, compare_names);
	walk_units(dw, call_site_die);
	if (dw->ncalls) /* qsort wants a valid pointer even for 0 elements */
		qsort(dw->calls, dw->ncalls, sizeof(*dw->calls), compare_calls);
	for (size_t i = 0; i < dw->ncalls; i++)
		if (!kept || compare_calls(&dw->calls[kept - 1], &dw->calls[i]))
			dw->calls[kept++] = dw->calls[i];
	dw->ncalls = kept;
}

size_t pc_dwarf_call_sites(struct pc_dwarf *dw,
			   void (*visit)(void *arg, uint64_t call_address, uint64_t callee_entry),
			   void *arg)
{
	if (!dw->calls_read)
		read_call_sites(dw);
	for (size_t i = 0; i < dw->ncalls; i++)
		visit(arg, dw->calls[i].address, dw->calls[i].entry);
	return dw->ncalls;
}
