/* symtab.c - named address ranges, sorted by start, found by bisection. */
#include "symbols/symtab.h"

void pc_symtab_init(struct pc_symtab *t)
{
	memset(t, 0, sizeof(*t));
	pc_arena_init(&t->names);
}

void pc_symtab_release(struct pc_symtab *t)
{
	free(t->symbols);
	pc_arena_release(&t->names);
	memset(t, 0, sizeof(*t));
}

void pc_symtab_add(struct pc_symtab *t, uint64_t start, uint64_t size, const char *name,
		   size_t len, enum pc_symbol_binding binding)
{
	char *copy = pc_arena_alloc(&t->names, len + 1);

	memcpy(copy, name, len);
	copy[len] = '\0';
	size_t i = t->count++;

	pc_grow(&t->symbols, &t->cap, t->count, sizeof(*t->symbols));
	t->symbols[i] = (struct pc_symbol){
		.start = start, .size = size, .name = copy, .binding = binding, .order = i,
	};
	t->sorted = false;
}

void pc_symtab_add_lines(struct pc_symtab *t, FILE *f, bool kallsyms)
{
	char line[4096];

	while (fgets(line, sizeof(line), f)) {
		char *end, *name;
		uint64_t start = strtoull(line, &end, 16), size = 0;
		enum pc_symbol_binding binding = PC_SYMBOL_GLOBAL;
		size_t len;

		if (end == line || *end != ' ')
			continue;
		if (kallsyms) {
			if (!end[1] || !strchr("tTwW", end[1]) || end[2] != ' ')
				continue; /* text symbols only */
			binding = end[1] == 't' ? PC_SYMBOL_LOCAL :
				  end[1] == 'T' ? PC_SYMBOL_GLOBAL : PC_SYMBOL_WEAK;
			name = end + 3;
		} else {
			size = strtoull(end + 1, &name, 16);
			if (name == end + 1 || *name++ != ' ')
				continue;
		}
		len = strcspn(name, kallsyms ? "\t\n" : "\n");
		if (len)
			pc_symtab_add(t, start, size, name, len, binding);
	}
}

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}


/* By start; of one start, the one to show first (see symtab.h). */
static int compare_symbols(const void *a_ptr, const void *b_ptr)
{
	const struct pc_symbol *a = a_ptr, *b = b_ptr;
	size_t a_len, b_len;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if (!a->size)
		return a->order > b->order ? -1 : 1;
	if (a->binding != b->binding) /* labels last, then by binding */
		return a->binding < b->binding ? -1 : 1;
	if (leading_underscores(a->name) != leading_underscores(b->name))
		return leading_underscores(a->name) < leading_underscores(b->name) ? -1 : 1;
	a_len = strlen(a->name);
	b_len = strlen(b->name);
	if (a_len != b_len)
		return a_len > b_len ? -1 : 1;
	return a->order < b->order ? -1 : 1; /* a tie: the first added */
}

/* Sorts, and keeps one symbol per start (of aliases, the one to show). */
static void sort_symbols(struct pc_symtab *t)
{
	size_t kept = 0;

	if (t->count)
		qsort(t->symbols, t->count, sizeof(*t->symbols), compare_symbols);
	for (size_t i = 0; i < t->count; i++)
		if (!kept || t->symbols[kept - 1].start != t->symbols[i].start)
			t->symbols[kept++] = t->symbols[i];
	t->count = kept;
	t->sorted = true;
}

static bool covers(const struct pc_symtab *t, size_t i, uint64_t address)
{
	const struct pc_symbol *s = &t->symbols[i];

	if (s->size)
		return address - s->start < s->size;
	return i + 1 == t->count || address < t->symbols[i + 1].start;
}

const struct pc_symbol *pc_symtab_lookup(struct pc_symtab *t, uint64_t address)
{
	size_t lo = 0, hi;

	if (!t->sorted)
		sort_symbols(t);
	hi = t->count;
	/* the first symbol that starts after address */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->symbols[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && covers(t, lo - 1, address) ? &t->symbols[lo - 1] : NULL;
}
