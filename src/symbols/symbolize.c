/*
 * symbolize.c - names for unnamed frames (symbolize.h): per module, a
 * source is found once (a symbol table, or a binary for llvm-symbolizer);
 * each unnamed frame is looked up once; llvm-symbolizer answers every PE
 * (and --inline ELF) query of the profile in one run; the profile is then
 * copied with each frame replaced by its named chain (model/copy.h).
 *
 * What is said: a file found but refused (another build id, PDB GUID or
 * age), a kallsyms that cannot be read or is all zeros, binaries without a
 * usable file, addr2line failing: each a notice (base/ctx.h), never an
 * error with --strict. Names not found lose nothing the input held: its
 * frames stay as they were, unnamed.
 */
#include "symbols/symbolize.h"
#include "symbols/addr2line.h"
#include "symbols/elf_image.h"
#include "symbols/llvm_symbolizer.h"
#include "symbols/pe_image.h"
#include "model/copy.h"
#include "base/index.h"

#include <demangle.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#define SYMBOLS "symbols"
#define PE_FIRST_SECTION 0x1000u /* an RVA below lies in the headers */

enum source_kind {
	SOURCE_NONE,   /* no names for this module */
	SOURCE_SYMTAB, /* a symbol table, by address */
	SOURCE_LLVM,   /* a binary for llvm-symbolizer */
};

struct source {
	bool resolved;
	enum source_kind kind;
	bool pe, elf_open;
	struct pc_elf_image elf;   /* for file offset -> link-time address */
	struct pc_symtab *symtab;  /* owned, or the kallsyms table */
	char *path;                /* the file used */
	uint64_t image_base;       /* PE */
};

/* One named frame of a result, leaf (innermost) first. */
struct named {
	const char *function, *file;
	uint32_t line;
};

/* A DWARF-unwound frame of an ELF binary, for addr2line. */
struct unwound_query {
	const char *path;  /* the file found for its module */
	uint64_t address;  /* link-time */
	uint32_t frame;
};

struct symbolizer {
	struct pc_ctx *ctx;
	const struct pc_model *m;
	char *dirs_text;
	char *cache_dir;             /* perf's build-id cache, when from_paths */
	char *vdso_copy;             /* this process's [vdso], copied to a file, once made */
	bool vdso_tried;
	char **dirs;
	size_t ndirs;
	bool inlines, demangle;
	bool from_paths;             /* the model asks for names: binaries at their own paths too */
	char *kallsyms_path;         /* the kallsyms file read, once tried */
	struct source *sources;      /* per module id; used at its canonical id only */
	uint32_t *canonical;         /* per module id: the first module of its binary */
	struct pc_symtab kallsyms;
	bool kallsyms_loaded;
	const char **symtab_name;    /* per frame: the name a symbol table gave it */
	uint32_t *result_at;         /* per frame + 1: named[result_at[f] .. result_at[f + 1]) */
	struct named *named;
	size_t nnamed, named_cap;
	struct pc_arena strings;
	struct pc_llvm_query *queries;
	uint32_t *query_frame;
	size_t nqueries, queries_cap, query_frame_cap;
	struct pc_llvm_answers answers;
	struct unwound_query *unwound; /* DWARF-unwound frames, for addr2line */
	size_t nunwound, unwound_cap;
	struct pc_llvm_answers inlined; /* addr2line's answers, in the order of unwound */
	char missing[200];           /* names of binaries not found, for one warning */
	size_t nmissing;
};

bool pc_symbolize_wanted(const struct pc_ctx *ctx)
{
	return pc_option_text(ctx, "symbols") || pc_option_text(ctx, "kallsyms");
}

/* ---- finding files ---- */

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *backslash = strrchr(path, '\\');

	if (backslash && (!slash || backslash > slash))
		slash = backslash;
	return slash ? slash + 1 : path;
}

static char *copy_text(const char *text)
{
	size_t len = strlen(text) + 1;
	char *copy = pc_xmalloc(len);

	memcpy(copy, text, len);
	return copy;
}

static char *join(const char *dir, const char *rest)
{
	size_t len = strlen(dir) + strlen(rest) + 2;
	char *path = pc_xmalloc(len);

	snprintf(path, len, "%s%s%s", dir, *rest == '/' ? "" : "/", rest);
	return path;
}

static void split_dirs(struct symbolizer *s, const char *text)
{
	size_t cap = 0;
	char *at;

	if (!text)
		return;
	s->dirs_text = pc_xmalloc(strlen(text) + 1);
	memcpy(s->dirs_text, text, strlen(text) + 1);
	for (at = s->dirs_text; at;) {
		char *colon = strchr(at, ':');

		if (colon)
			*colon = '\0';
		if (*at) {
			pc_grow(&s->dirs, &cap, s->ndirs + 1, sizeof(*s->dirs));
			s->dirs[s->ndirs++] = at;
		}
		at = colon ? colon + 1 : NULL;
	}
}

/*
 * A copy of this process's [vdso] in a temporary file, for a profile's
 * [vdso] that perf's cache does not hold (pipe mode and -z record no build
 * ids): perf script reads its own vdso the same way (util/vdso.c). Removed
 * when the symbolizer is done.
 */
static const char *own_vdso(struct symbolizer *s)
{
	unsigned long long start, end;
	char line[512], path[] = "/tmp/profconv-vdso-XXXXXX";
	FILE *maps;
	int fd;

	if (s->vdso_tried)
		return s->vdso_copy;
	s->vdso_tried = true;
	maps = fopen("/proc/self/maps", "r");
	if (!maps)
		return NULL;
	while (fgets(line, sizeof(line), maps))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	if (ferror(maps) || feof(maps) || end <= start || end - start > (64u << 10)) {
		fclose(maps);
		return NULL;
	}
	fclose(maps);
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	if (write(fd, (const void *)(uintptr_t)start, (size_t)(end - start)) ==
	    (ssize_t)(end - start))
		s->vdso_copy = copy_text(path);
	else
		unlink(path);
	close(fd);
	return s->vdso_copy;
}

#define MAX_CANDIDATES 64

/* Paths llvm-symbolizer's query lines cannot carry (a newline, a quote) are not tried. */
static void add_candidate(char **paths, size_t *n, char *path)
{
	if (*n < MAX_CANDIDATES && !strpbrk(path, "\n\r\""))
		paths[(*n)++] = path;
	else
		free(path);
}


/* perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug), searched after the --symbols directories. */
static void add_perf_cache(struct symbolizer *s)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	size_t cap = s->ndirs;

	if (dir && *dir)
		s->cache_dir = copy_text(dir);
	else if (home && *home)
		s->cache_dir = join(home, ".debug");
	if (!s->cache_dir)
		return;
	pc_grow(&s->dirs, &cap, s->ndirs + 1, sizeof(*s->dirs));
	s->dirs[s->ndirs++] = s->cache_dir;
}

/*
 * Where a binary may be, in order (paths malloc'ed, maybe absent): per
 * directory its build-id file, perf's build-id cache entry (.../elf), the
 * path under the directory, the base name in it; then the binary's own
 * path. (Separate debug files, /usr/lib/debug/.build-id/xx/rest.debug,
 * hold no code to place addresses by: debug_file_symbols reads them.)
 */
static size_t candidates(struct symbolizer *s, const char *name, const char *build_id,
			 char **paths)
{
	bool by_id = strlen(build_id) >= 3;
	char rest[300];
	size_t n = 0;

	for (size_t d = 0; d < s->ndirs; d++) {
		if (by_id) {
			snprintf(rest, sizeof(rest), ".build-id/%.2s/%s", build_id, build_id + 2);
			add_candidate(paths, &n, join(s->dirs[d], rest));
			snprintf(rest, sizeof(rest), ".build-id/%.2s/%s/elf", build_id, build_id + 2);
			add_candidate(paths, &n, join(s->dirs[d], rest));
			snprintf(rest, sizeof(rest), ".build-id/%.2s/%s/vdso", build_id, build_id + 2);
			add_candidate(paths, &n, join(s->dirs[d], rest));
		}
		if (*name == '/')
			add_candidate(paths, &n, join(s->dirs[d], name));
		add_candidate(paths, &n, join(s->dirs[d], base_name(name)));
	}
	if (*name == '/')
		add_candidate(paths, &n, copy_text(name));
	if (!strcmp(name, "[vdso]") && s->from_paths && own_vdso(s))
		add_candidate(paths, &n, copy_text(s->vdso_copy));
	return n;
}

static void free_paths(char **paths, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		free(paths[i]);
}

static void note_missing(struct symbolizer *s, const char *name)
{
	size_t used = strlen(s->missing);

	if (s->nmissing++ < 4)
		snprintf(s->missing + used, sizeof(s->missing) - used, "%s%s", used ? ", " : "",
			 name);
}

/* ---- sources ---- */

/* The PDB key of an image as the model's pdb id holds it. */
static bool same_pdb(const struct pc_pe_image *pe, const struct pc_pdb_id *id)
{
	return pc_le32(pe->guid) == id->data1 && pc_le16(pe->guid + 4) == id->data2 &&
	       pc_le16(pe->guid + 6) == id->data3 && !memcmp(pe->guid + 8, id->data4, 8) &&
	       pe->age == id->age;
}

/* Why the PE file at path cannot stand for module; NULL if it can. */
static const char *pe_mismatch(const char *path, const struct pc_module *module,
			       struct pc_pe_image *pe, char *err, size_t err_size)
{
	if (pc_pe_image_read(path, pe, err, err_size))
		return err;
	if (!pe->has_codeview)
		return "no CodeView record to check its PDB GUID and age against";
	if (!same_pdb(pe, &module->pdb))
		return "its PDB GUID and age differ from the profile's";
	return NULL;
}

static int pe_source(struct symbolizer *s, const struct pc_module *module, struct source *src)
{
	const char *name = pc_str(s->m, module->name);
	char *paths[MAX_CANDIDATES];
	size_t n = candidates(s, name, "", paths);

	for (size_t i = 0; i < n; i++) {
		struct pc_pe_image pe;
		char err[200];
		const char *why;

		if (!is_file(paths[i]))
			continue;
		if ((why = pe_mismatch(paths[i], module, &pe, err, sizeof(err)))) {
			pc_notice(s->ctx, SYMBOLS, "%s: %s; not used", paths[i], why);
			continue;
		}
		src->kind = SOURCE_LLVM;
		src->pe = true;
		src->path = paths[i];
		src->image_base = pe.image_base;
		free_paths(paths, 0, i);
		free_paths(paths, i + 1, n);
		return 0;
	}
	free_paths(paths, 0, n);
	note_missing(s, base_name(name));
	return 0;
}

/* A stripped file's symbols: its .gnu_debuglink file, found and CRC-checked. */
static bool debuglink_symbols(const struct pc_elf_image *elf, const char *path,
			      struct pc_symtab *symtab)
{
	int dir_len = (int)(base_name(path) - path);

	if (!elf->debuglink)
		return false;
	for (int i = 0; i < 3; i++) {
		char debug_path[4096];
		struct pc_elf_image debug;
		uint32_t crc;
		char err[200];

		/* beside it, in .debug beside it, under /usr/lib/debug */
		if (i == 0)
			snprintf(debug_path, sizeof(debug_path), "%.*s%s", dir_len, path, elf->debuglink);
		else if (i == 1)
			snprintf(debug_path, sizeof(debug_path), "%.*s.debug/%s", dir_len, path,
				 elf->debuglink);
		else
			snprintf(debug_path, sizeof(debug_path), "/usr/lib/debug%.*s%s", dir_len, path,
				 elf->debuglink);
		if (!is_file(debug_path) || !pc_file_crc32(debug_path, &crc) ||
		    crc != elf->debuglink_crc || pc_elf_image_open(debug_path, &debug, err, sizeof(err)))
			continue;
		pc_elf_image_symbols(&debug, symtab);
		pc_elf_image_close(&debug);
		return true;
	}
	return false;
}

/*
 * A stripped file's symbols from its separate debug file, found by its
 * build id under each --symbols directory and /usr/lib/debug (where
 * Debian's -dbg packages put them).
 */
static bool debug_file_symbols(const struct symbolizer *s, const struct pc_elf_image *elf,
			       struct pc_symtab *symtab)
{
	const char *id = elf->build_id;
	char rest[300];

	if (strlen(id) < 3)
		return false;
	snprintf(rest, sizeof(rest), ".build-id/%.2s/%s.debug", id, id + 2);
	for (size_t d = 0; d <= s->ndirs; d++) {
		char *path = join(d < s->ndirs ? s->dirs[d] : "/usr/lib/debug", rest);
		struct pc_elf_image debug;
		char err[200];
		bool used = false;

		if (is_file(path) && !pc_elf_image_open(path, &debug, err, sizeof(err))) {
			used = debug.has_symtab && !strcmp(debug.build_id, id);
			if (used)
				pc_elf_image_symbols(&debug, symtab);
			pc_elf_image_close(&debug);
		}
		free(path);
		if (used)
			return true;
	}
	return false;
}

/* Opens the ELF file at path as src's if its build id is the module's. */
static int try_elf(struct symbolizer *s, const char *path, const char *build_id,
		   struct source *src, bool *taken)
{
	char err[200];

	*taken = false;
	if (!is_file(path) || pc_elf_image_open(path, &src->elf, err, sizeof(err)))
		return 0;
	if (!pc_elf_image_has_code(&src->elf)) { /* a separate debug file */
		pc_elf_image_close(&src->elf);
		return 0;
	}
	if (*build_id && strcmp(build_id, src->elf.build_id)) {
		pc_notice(s->ctx, SYMBOLS, "%s: build id %s, not the profile's %s; not used",
			  path, *src->elf.build_id ? src->elf.build_id : "(none)", build_id);
		pc_elf_image_close(&src->elf);
		return 0;
	}
	*taken = true;
	return 0;
}

static int elf_source(struct symbolizer *s, const struct pc_module *module, struct source *src)
{
	const char *name = pc_str(s->m, module->name);
	const char *build_id = pc_str(s->m, module->build_id);
	char *paths[MAX_CANDIDATES];
	size_t n = candidates(s, name, build_id, paths), i;
	bool taken = false;

	for (i = 0; i < n && !taken; i++)
		if (try_elf(s, paths[i], build_id, src, &taken)) {
			free_paths(paths, 0, n);
			return -1;
		}
	if (!taken) {
		free_paths(paths, 0, n);
		note_missing(s, base_name(name));
		return 0;
	}
	src->path = paths[i - 1];
	free_paths(paths, 0, i - 1);
	free_paths(paths, i, n);
	src->elf_open = true;
	if (s->inlines) {
		src->kind = SOURCE_LLVM;
		return 0;
	}
	src->kind = SOURCE_SYMTAB;
	src->symtab = pc_xmalloc(sizeof(*src->symtab));
	pc_symtab_init(src->symtab);
	if (src->elf.has_symtab || (!debug_file_symbols(s, &src->elf, src->symtab) &&
				    !debuglink_symbols(&src->elf, src->path, src->symtab)))
		pc_elf_image_symbols(&src->elf, src->symtab);
	pc_elf_image_plt_symbols(&src->elf, src->symtab); /* the runtime file's, as perf's */
	return 0;
}

static int table_source(struct symbolizer *s, const char *path, bool kallsyms,
			struct pc_symtab *symtab)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		pc_notice(s->ctx, SYMBOLS, "%s: %s", path, strerror(errno));
		return 0;
	}
	pc_symtab_add_lines(symtab, f, kallsyms);
	fclose(f);
	return 0;
}

static bool is_kernel(const char *name)
{
	return !strncmp(name, "[kernel.kallsyms]", 17);
}

/* A kernel module ("[xfs]", as perf names its map): placed in the kernel's half, named by kallsyms. */
static bool is_kernel_module(const struct pc_module *module, const char *name)
{
	return *name == '[' && module->has_range && module->start >= 0xffff800000000000ULL;
}

static bool is_perf_map(const char *name)
{
	const char *base = base_name(name);
	size_t len = strlen(base);

	return !strncmp(base, "perf-", 5) && len > 9 && !strcmp(base + len - 4, ".map");
}

/* A kallsyms copy made without the right to see addresses. */
static bool all_at_zero(const struct pc_symtab *t)
{
	for (size_t i = 0; i < t->count; i++)
		if (t->symbols[i].start)
			return false;
	return true;
}

/* The build id of the running kernel (its ELF notes), or "" */
static void running_kernel_build_id(char *hex, size_t size)
{
	uint8_t notes[4096];
	FILE *f = fopen("/sys/kernel/notes", "rb");
	size_t len = f ? fread(notes, 1, sizeof(notes), f) : 0, at = 0;

	*hex = '\0';
	if (f)
		fclose(f);
	while (len - at >= 12) {
		uint32_t namesz = pc_le32(notes + at), descsz = pc_le32(notes + at + 4);
		size_t name_at = at + 12, desc_at = name_at + ((namesz + 3u) & ~3u);

		if (namesz > len || descsz > len || desc_at + descsz > len)
			return;
		if (pc_le32(notes + at + 8) == 3 && namesz == 4 && !memcmp(notes + name_at, "GNU", 4)) {
			for (uint32_t i = 0; i < descsz && 2 * i + 3 <= size; i++)
				snprintf(hex + 2 * i, 3, "%02x", notes[desc_at + i]);
			return;
		}
		at = desc_at + ((descsz + 3u) & ~3u);
	}
}

/*
 * The kallsyms of the recorded kernel when --kallsyms names none and the
 * model asks for names: perf's copy in its build-id cache
 * (DIR/[kernel.kallsyms]/BUILD-ID/kallsyms), else /proc/kallsyms when the
 * running kernel is the recorded one (or the profile has no build id).
 */
static char *default_kallsyms(struct symbolizer *s, const char *build_id)
{
	char rest[200], running[80];

	for (size_t d = 0; *build_id && d < s->ndirs; d++) {
		char *path;

		snprintf(rest, sizeof(rest), "[kernel.kallsyms]/%s/kallsyms", build_id);
		path = join(s->dirs[d], rest);
		if (is_file(path))
			return path;
		free(path);
	}
	running_kernel_build_id(running, sizeof(running));
	if (!*build_id || !strcmp(build_id, running))
		return copy_text("/proc/kallsyms");
	pc_notice(s->ctx, SYMBOLS, "the kernel recorded (build id %s) is not the running one "
		  "(%s) and perf's cache has no kallsyms of it: kernel frames stay unnamed "
		  "(give --kallsyms)", build_id, *running ? running : "unknown");
	return NULL;
}

static int load_kallsyms(struct symbolizer *s, const struct pc_module *module)
{
	const char *option = pc_option_text(s->ctx, "kallsyms");
	const char *path;

	s->kallsyms_loaded = true;
	if (option)
		s->kallsyms_path = copy_text(option);
	else if (s->from_paths)
		s->kallsyms_path = default_kallsyms(s, pc_str(s->m, module->build_id));
	path = s->kallsyms_path;
	if (!path)
		return s->ctx->err.status ? -1 : 0;
	if (table_source(s, path, true, &s->kallsyms))
		return -1;
	if (s->kallsyms.count && all_at_zero(&s->kallsyms)) {
		pc_symtab_release(&s->kallsyms);
		pc_symtab_init(&s->kallsyms);
		pc_notice(s->ctx, SYMBOLS, "%s: every address is 0 (kernel.kptr_restrict): "
			  "kernel frames stay unnamed", path);
	}
	return 0;
}

static int kernel_source(struct symbolizer *s, const struct pc_module *module, struct source *src)
{
	if (!s->kallsyms_loaded && load_kallsyms(s, module))
		return -1;
	if (!s->kallsyms.count)
		return 0;
	src->kind = SOURCE_SYMTAB;
	src->symtab = &s->kallsyms;
	return 0;
}

static int map_source(struct symbolizer *s, const char *name, struct source *src)
{
	char *paths[MAX_CANDIDATES];
	size_t n = candidates(s, name, "", paths), i;

	for (i = 0; i < n && !is_file(paths[i]); i++)
		;
	if (i == n) {
		free_paths(paths, 0, n);
		note_missing(s, base_name(name));
		return 0;
	}
	src->kind = SOURCE_SYMTAB;
	src->path = paths[i];
	free_paths(paths, 0, i);
	free_paths(paths, i + 1, n);
	src->symtab = pc_xmalloc(sizeof(*src->symtab));
	pc_symtab_init(src->symtab);
	return table_source(s, src->path, false, src->symtab);
}

/* Pseudo-files that have no binary to read: [vdso], //anon, [unknown]... */
static bool is_pseudo(const char *name)
{
	return !*name || *name == '[' || !strncmp(name, "//", 2) || !strncmp(name, "/memfd:", 7) ||
	       !strcmp(name, "[unknown]");
}

/* The source of a module: one per binary (name, build id, PDB), shared by its processes. */
static struct source *source_of(const struct symbolizer *s, uint32_t id)
{
	return &s->sources[s->canonical[id]];
}

static bool same_binary(const struct pc_module *a, const struct pc_module *b)
{
	return a->name == b->name && a->build_id == b->build_id && a->has_pdb == b->has_pdb &&
	       (!a->has_pdb || !memcmp(&a->pdb, &b->pdb, sizeof(a->pdb)));
}

static bool canonical_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct symbolizer *s = ctx;

	return same_binary(pc_model_module(s->m, id), key);
}

/* Modules of one binary in many address spaces (perf: one per process) share a source. */
static void find_canonical(struct symbolizer *s)
{
	size_t n = pc_model_nmodules(s->m);
	struct pc_index index;

	pc_index_init(&index);
	s->canonical = pc_xcalloc(n + 1, sizeof(*s->canonical));
	for (uint32_t id = 1; id <= n; id++) {
		const struct pc_module *module = pc_model_module(s->m, id);
		uint64_t hash = pc_hash_u64((uint64_t)module->name << 32 ^ module->build_id ^
					    module->pdb.data1);
		uint32_t first = pc_index_find(&index, hash, canonical_equal, s, module);

		s->canonical[id] = first ? first : id;
		if (!first)
			pc_index_add(&index, hash, id);
	}
	pc_index_release(&index);
}

static int resolve_source(struct symbolizer *s, uint32_t id, struct source **out)
{
	struct source *src = source_of(s, id);
	const struct pc_module *module = pc_model_module(s->m, id);
	const char *name = pc_str(s->m, module->name);
	int ret = 0;

	*out = src;
	if (src->resolved)
		return 0;
	src->resolved = true;
	if (is_kernel(name) || is_kernel_module(module, name))
		ret = kernel_source(s, module, src);
	else if (!s->ndirs && !s->from_paths)
		ret = 0;
	else if (module->has_pdb)
		ret = pe_source(s, module, src);
	else if (is_perf_map(name))
		ret = map_source(s, name, src);
	else if (!is_pseudo(name) || !strcmp(name, "[vdso]"))
		ret = elf_source(s, module, src); /* a [vdso] in perf's cache, or this process's */
	return ret;
}

static void release_source(struct symbolizer *s, struct source *src)
{
	if (src->elf_open)
		pc_elf_image_close(&src->elf);
	if (src->symtab && src->symtab != &s->kallsyms) {
		pc_symtab_release(src->symtab);
		free(src->symtab);
	}
	free(src->path);
}

/* ---- addresses ---- */

/* The address at runtime of a frame; false if it cannot be known. */
static bool runtime_address(const struct pc_module *module, const struct pc_frame *frame,
			    uint64_t *address)
{
	if ((frame->flags & PC_FRAME_ABSOLUTE) || !module->has_range) {
		*address = frame->address;
		return true;
	}
	if (frame->address < module->file_offset)
		return false;
	*address = module->start + (frame->address - module->file_offset);
	return true;
}

/* The link-time address of an ELF frame. */
static bool elf_address(const struct source *src, const struct pc_module *module,
			const struct pc_frame *frame, uint64_t *address)
{
	uint64_t offset = frame->address;

	if (frame->flags & PC_FRAME_ABSOLUTE) {
		if (!module->has_range && src->elf.executable) {
			*address = frame->address; /* not relocated */
			return true;
		}
		if (!module->has_range || frame->address < module->start)
			return false;
		offset = frame->address - module->start + module->file_offset;
	}
	return pc_elf_image_vaddr(&src->elf, offset, address);
}

/* The VA llvm-symbolizer is asked about. */
static bool llvm_address(const struct source *src, const struct pc_module *module,
			 const struct pc_frame *frame, uint64_t *address)
{
	uint64_t rva = frame->address;

	if (!src->pe)
		return elf_address(src, module, frame, address);
	if (frame->flags & PC_FRAME_ABSOLUTE) {
		if (!module->has_range || frame->address < module->start)
			return false;
		rva = frame->address - module->start;
	}
	if (rva < PE_FIRST_SECTION)
		return false;
	*address = src->image_base + rva;
	return true;
}

/* ---- naming ---- */

static const char *keep_name(struct symbolizer *s, const char *name)
{
	char *demangled = s->demangle ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
	const char *text = demangled ? demangled : name;
	size_t len = strlen(text);
	char *copy = pc_arena_alloc(&s->strings, len + 1);

	memcpy(copy, text, len + 1);
	free(demangled);
	return copy;
}

static void add_named(struct symbolizer *s, const char *function, const char *file,
		      uint32_t line)
{
	pc_grow(&s->named, &s->named_cap, s->nnamed + 1, sizeof(*s->named));
	s->named[s->nnamed++] = (struct named){ .function = function, .file = file, .line = line };
}

static void queue_query(struct symbolizer *s, const char *path, uint64_t address,
			uint32_t frame)
{
	pc_grow(&s->queries, &s->queries_cap, s->nqueries + 1, sizeof(*s->queries));
	pc_grow(&s->query_frame, &s->query_frame_cap, s->nqueries + 1, sizeof(*s->query_frame));
	s->queries[s->nqueries] = (struct pc_llvm_query){ .path = path, .address = address };
	s->query_frame[s->nqueries++] = frame;
}

static bool wants_name(const struct pc_frame *frame)
{
	return frame->module && !frame->function && (frame->flags & PC_FRAME_HAS_ADDRESS);
}

/*
 * perf runs addr2line on a binary at its recorded path: a pseudo-file
 * ([vdso]) or a file no longer there gets no inlined functions.
 */
static bool unwound_path(const struct symbolizer *s, const struct pc_module *module)
{
	const char *name = pc_str(s->m, module->name);

	return *name == '/' && is_file(name);
}

/* Looks a frame up in its module's symbol table, or queues it for llvm-symbolizer. */
static int look_up(struct symbolizer *s, uint32_t id)
{
	const struct pc_frame *frame = pc_model_frame(s->m, id);
	const struct pc_module *module;
	const struct pc_symbol *symbol;
	struct source *src;
	uint64_t address;

	if (!wants_name(frame))
		return 0;
	module = pc_model_module(s->m, frame->module);
	if (resolve_source(s, frame->module, &src))
		return -1;
	if (src->kind == SOURCE_LLVM) {
		if (llvm_address(src, module, frame, &address))
			queue_query(s, src->path, address, id);
		return 0;
	}
	if (src->kind != SOURCE_SYMTAB)
		return 0;
	if (!(src->elf_open ? elf_address(src, module, frame, &address)
			    : runtime_address(module, frame, &address)))
		return 0;
	if ((symbol = pc_symtab_lookup(src->symtab, address)))
		s->symtab_name[id] = keep_name(s, symbol->name);
	if ((frame->flags & PC_FRAME_UNWOUND) && src->elf_open && unwound_path(s, module)) {
		pc_grow(&s->unwound, &s->unwound_cap, s->nunwound + 1, sizeof(*s->unwound));
		s->unwound[s->nunwound++] = (struct unwound_query){
			pc_str(s->m, module->name), address, id,
		};
	}
	return 0;
}

static int compare_unwound(const void *a, const void *b)
{
	const struct unwound_query *x = a, *y = b;
	int by_path = strcmp(x->path, y->path);

	return by_path ? by_path : (x->frame > y->frame) - (x->frame < y->frame);
}

/*
 * addr2line, once per binary, for the DWARF-unwound frames: their
 * functions, inlined ones first, as perf script names such frames.
 */
static int ask_addr2line(struct symbolizer *s, uint32_t *first, uint32_t *count)
{
	uint64_t *addresses = pc_xmalloc((s->nunwound + 1) * sizeof(*addresses));
	char err[300];

	qsort(s->unwound, s->nunwound, sizeof(*s->unwound), compare_unwound);
	for (size_t at = 0, end; at < s->nunwound; at = end) {
		for (end = at; end < s->nunwound && !strcmp(s->unwound[end].path, s->unwound[at].path);
		     end++)
			addresses[end - at] = s->unwound[end].address;
		if (pc_addr2line(s->unwound[at].path, addresses, end - at, &s->inlined, err,
				 sizeof(err))) {
			free(addresses);
			pc_notice(s->ctx, SYMBOLS, "%s: DWARF-unwound frames keep their symbol "
				  "table names, without inlined functions", err);
			return 0;
		}
	}
	for (size_t q = 0; q < s->nunwound; q++) {
		first[s->unwound[q].frame] = (uint32_t)s->inlined.first[q];
		count[s->unwound[q].frame] = (uint32_t)(s->inlined.first[q + 1] - s->inlined.first[q]);
	}
	free(addresses);
	return 0;
}

/* Runs llvm-symbolizer and files its answers under their frames. */
static int ask_llvm(struct symbolizer *s, uint32_t *llvm_first, uint32_t *llvm_count)
{
	char err[300];

	if (!s->nqueries)
		return 0;
	if (pc_llvm_symbolize(s->queries, s->nqueries, s->inlines, s->demangle, &s->answers, err,
			      sizeof(err)))
		return pc_fail(&s->ctx->err, PC_STATUS_INPUT, "%s", err);
	for (size_t q = 0; q < s->nqueries; q++) {
		uint32_t frame = s->query_frame[q];

		llvm_first[frame] = (uint32_t)s->answers.first[q];
		llvm_count[frame] = (uint32_t)(s->answers.first[q + 1] - s->answers.first[q]);
	}
	return 0;
}

/* Every frame's result: named[result_at[f] .. result_at[f + 1]). */
static int name_frames(struct symbolizer *s)
{
	size_t nframes = pc_model_nframes(s->m);
	uint32_t *llvm_first = pc_xcalloc(nframes + 1, sizeof(*llvm_first));
	uint32_t *llvm_count = pc_xcalloc(nframes + 1, sizeof(*llvm_count));
	uint32_t *a2l_first = pc_xcalloc(nframes + 1, sizeof(*a2l_first));
	uint32_t *a2l_count = pc_xcalloc(nframes + 1, sizeof(*a2l_count));
	int ret = 0;

	s->symtab_name = pc_xcalloc(nframes + 1, sizeof(*s->symtab_name));
	for (uint32_t f = 1; f <= nframes && !ret; f++)
		ret = look_up(s, f);
	if (!ret)
		ret = ask_llvm(s, llvm_first, llvm_count);
	if (!ret && s->nunwound)
		ret = ask_addr2line(s, a2l_first, a2l_count);
	s->result_at = pc_xcalloc(nframes + 2, sizeof(*s->result_at));
	for (uint32_t f = 1; f <= nframes && !ret; f++) {
		s->result_at[f] = (uint32_t)s->nnamed;
		for (uint32_t i = 0; i < a2l_count[f]; i++) {
			const struct pc_llvm_frame *lf = &s->inlined.frames[a2l_first[f] + i];

			add_named(s, keep_name(s, lf->function), *lf->file ? lf->file : NULL, lf->line);
		}
		if (s->symtab_name[f] && !a2l_count[f])
			add_named(s, s->symtab_name[f], NULL, 0);
		for (uint32_t i = 0; i < llvm_count[f]; i++) {
			const struct pc_llvm_frame *lf = &s->answers.frames[llvm_first[f] + i];

			add_named(s, lf->function, *lf->file ? lf->file : NULL, lf->line);
		}
	}
	s->result_at[nframes + 1] = (uint32_t)s->nnamed;
	free(llvm_first);
	free(llvm_count);
	free(a2l_first);
	free(a2l_count);
	return ret;
}

/* pc_frame_expand_fn: a frame as named (inlined frames first), or as it was. */
static size_t expand_frame(void *data, const struct pc_model_copy *copy, uint32_t id,
			   struct pc_frame *out, size_t max)
{
	const struct symbolizer *s = data;
	struct pc_frame frame = *pc_model_frame(s->m, id);
	size_t first = s->result_at[id], n = s->result_at[id + 1] - first;

	frame.module = copy->module_map[frame.module];
	frame.function = pc_model_copy_str(copy, frame.function);
	frame.file = pc_model_copy_str(copy, frame.file);
	if (n > max) { /* the outermost inlined frames and the physical one */
		first += n - max;
		n = max;
	}
	for (size_t i = 0; i < n; i++) {
		const struct named *named = &s->named[first + i];

		out[i] = frame;
		out[i].function = pc_model_intern_cstr(copy->dst, named->function);
		out[i].file = named->file ? pc_model_intern_cstr(copy->dst, named->file) : 0;
		out[i].line = named->line;
		if (i + 1 < n)
			out[i].flags |= PC_FRAME_INLINE;
	}
	if (!n)
		out[n++] = frame;
	return n;
}

/*
 * pc_module_complete_fn: a binary found for a module that had no build id
 * gives it the file's, so that pprof can match it.
 */
static void complete_module(void *data, const struct pc_model_copy *copy, uint32_t id,
			    struct pc_module *module)
{
	const struct symbolizer *s = data;
	const struct source *src = source_of(s, id);

	if (!module->build_id && src->elf_open && *src->elf.build_id)
		module->build_id = pc_model_intern_cstr(copy->dst, src->elf.build_id);
	/* named here: what the input stated of its frames (pprof's flags) no longer holds */
	if (src->symtab || src->elf_open || src->pe)
		module->stated = 0;
}

/* Whether a module without a build id has a binary that gives it one. */
static bool completes_a_module(const struct symbolizer *s)
{
	for (uint32_t id = 1; id <= pc_model_nmodules(s->m); id++)
		if (!pc_model_module(s->m, id)->build_id && source_of(s, id)->elf_open &&
		    *source_of(s, id)->elf.build_id)
			return true;
	return false;
}

static void symbolizer_init(struct symbolizer *s, struct pc_ctx *ctx, const struct pc_model *m)
{
	*s = (struct symbolizer){
		.ctx = ctx, .m = m,
		.inlines = pc_option_flag(ctx, "inline"),
		.demangle = !pc_option_flag(ctx, "no-demangle"),
	};
	split_dirs(s, pc_option_text(ctx, "symbols"));
	s->from_paths = pc_model_wants_names(m);
	if (s->from_paths)
		add_perf_cache(s);
	pc_symtab_init(&s->kallsyms);
	pc_arena_init(&s->strings);
	pc_arena_init(&s->inlined.strings);
	pc_grow(&s->inlined.first, &s->inlined.first_cap, 1, sizeof(*s->inlined.first));
	s->inlined.first[0] = 0;
	s->sources = pc_xcalloc(pc_model_nmodules(m) + 1, sizeof(*s->sources));
	find_canonical(s);
}

static void symbolizer_release(struct symbolizer *s)
{
	for (size_t i = 0; s->sources && i <= pc_model_nmodules(s->m); i++)
		release_source(s, &s->sources[i]); /* all but canonical ones are empty */
	free(s->sources);
	free(s->canonical);
	pc_symtab_release(&s->kallsyms);
	free(s->kallsyms_path);
	free(s->cache_dir);
	if (s->vdso_copy)
		unlink(s->vdso_copy);
	free(s->vdso_copy);
	free(s->dirs);
	free(s->dirs_text);
	free(s->symtab_name);
	free(s->result_at);
	free(s->named);
	free(s->queries);
	free(s->query_frame);
	pc_llvm_answers_release(&s->answers);
	pc_llvm_answers_release(&s->inlined);
	free(s->unwound);
	pc_arena_release(&s->strings);
}

int pc_symbolize(struct pc_ctx *ctx, struct pc_model **m)
{
	struct symbolizer s;
	struct pc_model *named;
	char err[200];
	int ret;

	symbolizer_init(&s, ctx, *m);
	ret = name_frames(&s);
	if (!ret && s.nmissing)
		pc_notice(ctx, SYMBOLS, "no usable file %s%s for %zu of the binaries: %s%s",
			  pc_option_text(ctx, "symbols") ? "in " : "at their recorded paths",
			  pc_option_text(ctx, "symbols") ? pc_option_text(ctx, "symbols") : "",
			  s.nmissing, s.missing, s.nmissing > 4 ? ", ..." : "");
	if (ret || (!s.nnamed && !completes_a_module(&s))) { /* nothing to change: no copy */
		symbolizer_release(&s);
		return ret ? -1 : 0;
	}
	named = pc_model_new();
	ret = pc_model_merge_expanded(named, *m,
				      &(struct pc_expansion){ expand_frame, complete_module, &s },
				      err, sizeof(err));
	symbolizer_release(&s);
	if (ret) {
		pc_model_free(named);
		return pc_fail(&ctx->err, PC_STATUS_INPUT, "%s", err);
	}
	pc_model_finalize(named);
	pc_model_free(*m);
	*m = named;
	return 0;
}

/* ---- what --symbols finds, for `profconv info --symbols` ---- */

static void describe_source(const struct symbolizer *s, const char *name,
			    const struct source *src, FILE *out)
{
	if (src->path)
		fprintf(out, "%s", src->path);
	else if (src->symtab == &s->kallsyms)
		fprintf(out, "%s", s->kallsyms_path);
	else if (is_kernel(name))
		fprintf(out, "no --kallsyms file");
	else
		fprintf(out, "%s", is_pseudo(name) ? "no file to read" : "not found");
	if (src->pe)
		fprintf(out, " (PE, image base 0x%llx)", (unsigned long long)src->image_base);
	else if (src->elf_open && *src->elf.build_id)
		fprintf(out, " (build id %s)", src->elf.build_id);
}

int pc_symbolize_report(struct pc_ctx *ctx, const struct pc_model *m, FILE *out)
{
	size_t nmodules = pc_model_nmodules(m);
	size_t *wanted = pc_xcalloc(nmodules + 1, sizeof(*wanted));
	size_t *named = pc_xcalloc(nmodules + 1, sizeof(*named));
	struct symbolizer s;
	int ret;

	symbolizer_init(&s, ctx, m);
	ret = name_frames(&s);
	for (uint32_t f = 1; !ret && f <= pc_model_nframes(m); f++) {
		const struct pc_frame *frame = pc_model_frame(m, f);

		if (!wants_name(frame))
			continue;
		wanted[frame->module]++;
		named[frame->module] += s.result_at[f + 1] > s.result_at[f];
	}
	if (!ret)
		fprintf(out, "symbols:\n");
	for (uint32_t id = 1; !ret && id <= nmodules; id++) {
		if (!wanted[id])
			continue;
		const char *name = pc_str(m, pc_model_module(m, id)->name);

		fprintf(out, "  %s: ", name);
		describe_source(&s, name, source_of(&s, id), out);
		fprintf(out, ": %zu of %zu addresses named\n", named[id], wanted[id]);
	}
	free(wanted);
	free(named);
	symbolizer_release(&s);
	return ret;
}
