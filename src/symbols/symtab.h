/*
 * symtab.h - a table of named address ranges (an ELF symbol table,
 * /proc/kallsyms, a perf-PID.map), sorted once and searched by address.
 */
#ifndef PC_SYMTAB_H
#define PC_SYMTAB_H

#include "base/arena.h"

/* How a symbol is bound, best first (as perf prefers among aliases). */
enum pc_symbol_binding {
	PC_SYMBOL_GLOBAL,
	PC_SYMBOL_LOCAL,
	PC_SYMBOL_WEAK,
	/* a label (ELF STT_NOTYPE) in code, of any binding: after functions */
	PC_SYMBOL_LABEL = 1 << 4,
};

struct pc_symbol {
	uint64_t start, size; /* size 0: up to the next symbol */
	const char *name;     /* NUL-terminated, in the table's arena */
	enum pc_symbol_binding binding;
	size_t order;         /* of addition */
};

struct pc_symtab {
	struct pc_symbol *symbols;
	size_t count, cap;
	struct pc_arena names;
	bool sorted;
};

void pc_symtab_init(struct pc_symtab *t);
void pc_symtab_release(struct pc_symtab *t);
void pc_symtab_add(struct pc_symtab *t, uint64_t start, uint64_t size, const char *name,
		   size_t len, enum pc_symbol_binding binding);
/*
 * Adds the symbols of a text file: perf-PID.map lines "START SIZE NAME"
 * (hex), or with kallsyms /proc/kallsyms lines "ADDRESS TYPE NAME
 * [module]" of text symbols (types t, T, w, W). Other lines are skipped.
 */
void pc_symtab_add_lines(struct pc_symtab *t, FILE *f, bool kallsyms);
/*
 * The symbol that holds address: the last one starting at or before it
 * whose range (or, for size 0, the stretch up to the next symbol) covers
 * it; NULL if none. Of aliases (one start), the one perf shows: sized,
 * a function over a label, then global over local over weak, the fewest
 * leading underscores, the longest name, the first added ("f@V1" before
 * "f@@V2" as they stand in .symtab); of unsized ones (kallsyms), the last added,
 * which alone keeps a size when perf extends each symbol to the next.
 * The first lookup sorts the table.
 */
const struct pc_symbol *pc_symtab_lookup(struct pc_symtab *t, uint64_t address);

#endif
