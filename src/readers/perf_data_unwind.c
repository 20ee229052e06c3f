/*
 * perf_data_unwind.c - DWARF unwinding of perf's user stack copies with
 * elfutils' libdwfl (see perf_data_unwind.h for the sources and limits).
 *
 * One Dwfl per address space, that is per (pid, generation): every map's
 * file is reported once when the space is built, then the Dwfl and the
 * unwind tables libdw caches in it serve all the samples of that space.
 * A few spaces are kept, least recently used first out. The files are
 * mapped once for all spaces (libelf counts the references) and hold no
 * descriptor, so that many spaces of programs with many libraries do not
 * exhaust descriptors. The callbacks read the sample being unwound from
 * the unwinder: registers from the sample, memory from the stack copy, or
 * else from the mapped file.
 */
#include "base/pc.h"
#include "readers/perf_data_unwind.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPACES 16              /* address spaces (Dwfl) kept */
#define FILES 256              /* files kept mapped, usable or not */
#define OUTERMOST_PCS 4        /* outermost frames' pcs remembered per space */
#define PAGE_BYTES 4096u       /* x86-64: maps start at page granularity */
#define WORD_BYTES sizeof(Dwarf_Word)

/* perf's x86-64 register numbers (asm/perf_regs.h) that the unwinder uses. */
enum perf_reg {
	PERF_AX, PERF_BX, PERF_CX, PERF_DX, PERF_SI, PERF_DI, PERF_BP, PERF_SP, PERF_IP,
	PERF_R8 = 16,
	PERF_REG_COUNT = 24,
};

/*
 * DWARF x86-64 registers: 0-15 rax rdx rcx rbx rsi rdi rbp rsp r8-r15, 16
 * the return address, which in the first frame is the IP (the PLT's CFA
 * rule reads it).
 */
#define DWARF_REGS 17
#define DWARF_BP 6
#define DWARF_SP 7
static const uint8_t dwarf_to_perf[DWARF_REGS] = {
	PERF_AX, PERF_DX, PERF_CX, PERF_BX, PERF_SI, PERF_DI, PERF_BP, PERF_SP,
	PERF_R8, PERF_R8 + 1, PERF_R8 + 2, PERF_R8 + 3,
	PERF_R8 + 4, PERF_R8 + 5, PERF_R8 + 6, PERF_R8 + 7, PERF_IP,
};

/* A map of a space, and the module of its file (NULL: none usable). */
struct space_map {
	uint64_t start, end, pgoff, bias;
	Dwfl_Module *module;
	const uint8_t *image; /* the whole file, as libelf holds it */
	size_t image_size;
	bool image_tried;
};

/* One process's address space at one generation of its maps. */
struct space {
	Dwfl *dwfl; /* NULL: the slot is free */
	int32_t pid;
	uint64_t generation, last_use;
	bool attached;
	struct space_map *maps;
	size_t nmaps, maps_cap;
	Dwarf_Addr outermost[OUTERMOST_PCS]; /* pcs whose return address is undefined */
	unsigned outermost_next;
};

/* The sample being unwound, as the callbacks see it. */
struct sample {
	Dwarf_Word regs[DWARF_REGS];
	uint32_t regs_set; /* bit n: DWARF register n is known */
	Dwarf_Word ip, sp;
	const uint8_t *stack;
	size_t stack_size;
	uint64_t *ips;
	size_t max, count;
	Dwarf_Addr last_pc;
	Dwarf_Word last_bp; /* rbp of the last frame, when known */
	bool last_activation, last_bp_known, truncated, zero_pc;
	size_t reads;     /* memory reads of the last step that succeeded */
	bool read_failed; /* and whether one failed */
};

/* A file of the maps, mapped once for all the spaces. */
struct file {
	char *path; /* NULL: the slot is free */
	Elf *elf;   /* NULL: not an x86-64 executable or shared object */
	uint64_t last_use;
};

struct pd_unwinder {
	struct space spaces[SPACES];
	struct file files[FILES];
	uint64_t clock;
	struct space *space; /* the space of the sample being unwound */
	struct sample sample;
	enum pd_unwind_stop stop;
	bool callers_minus_one;
};

/* --- libdwfl callbacks --- */

/* Hands libdwfl the reference to the module's file taken when it was
 * reported (report_file). */
static int give_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod, (void)base;
	*elfp = *userdata;
	*userdata = NULL;
	*file_name = strdup(name);
	return -1;
}

/* No separate debug files: they cost file system searches (or debuginfod
 * requests) per module and space, and x86-64 code carries .eh_frame. */
static int find_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name,
			     Dwarf_Addr base, const char *file_name, const char *debuglink,
			     GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = give_elf,
	.find_debuginfo = find_no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *unwinder, void **thread_arg)
{
	if (*thread_arg)
		return 0;
	*thread_arg = unwinder;
	return dwfl_pid(dwfl);
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *unwinder, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = unwinder;
	return true;
}

static bool read_stack(const struct sample *s, Dwarf_Addr addr, Dwarf_Word *result)
{
	Dwarf_Addr offset = addr - s->sp;

	if (addr < s->sp || s->stack_size < WORD_BYTES || offset > s->stack_size - WORD_BYTES)
		return false;
	memcpy(result, s->stack + offset, WORD_BYTES);
	return true;
}

/* The file bytes of map m, held by libelf (mapped, or read whole). */
static bool map_image(struct space_map *m)
{
	GElf_Addr bias;
	Elf *elf;

	if (!m->image_tried && m->module) {
		m->image_tried = true;
		elf = dwfl_module_getelf(m->module, &bias);
		if (elf)
			m->image = (const uint8_t *)elf_rawfile(elf, &m->image_size);
	}
	return m->image != NULL;
}

static bool read_file(struct space *sp, Dwarf_Addr addr, Dwarf_Word *result)
{
	for (size_t i = 0; i < sp->nmaps; i++) {
		struct space_map *m = &sp->maps[i];
		uint64_t offset;

		if (addr < m->start || addr >= m->end || m->end - addr < WORD_BYTES)
			continue;
		offset = m->pgoff + (addr - m->start);
		if (!map_image(m) || offset < m->pgoff || offset > m->image_size ||
		    m->image_size - offset < WORD_BYTES)
			return false;
		memcpy(result, m->image + offset, WORD_BYTES);
		return true;
	}
	return false;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *unwinder)
{
	struct pd_unwinder *u = unwinder;

	(void)dwfl;
	if (read_stack(&u->sample, addr, result) || read_file(u->space, addr, result)) {
		u->sample.reads++;
		return true;
	}
	u->sample.read_failed = true;
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *unwinder)
{
	const struct sample *s = &((struct pd_unwinder *)unwinder)->sample;

	for (int reg = 0; reg < DWARF_REGS; reg++) {
		if ((s->regs_set & (1u << reg)) &&
		    !dwfl_thread_state_registers(thread, reg, 1, &s->regs[reg]))
			return false;
	}
	dwfl_thread_state_register_pc(thread, s->ip);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* --- address spaces --- */

/* The load bias of an ELF file mapped at start from file offset pgoff:
 * runtime address = bias + p_vaddr for the PT_LOAD holding pgoff. */
static bool load_bias(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias)
{
	size_t count;
	bool found = false;

	if (elf_getphdrnum(elf, &count))
		return false;
	for (size_t i = 0; i < count; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    pgoff < (ph.p_offset & ~(uint64_t)(PAGE_BYTES - 1)) ||
		    pgoff - ph.p_offset >= ph.p_filesz)
			continue;
		if (found && !(ph.p_flags & PF_X))
			continue;
		*bias = start - pgoff + ph.p_offset - ph.p_vaddr;
		found = true;
	}
	return found;
}

/* Whether elf is an x86-64 executable or shared object. */
static bool usable_elf(Elf *elf)
{
	GElf_Ehdr eh;

	return elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	       eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_X86_64 &&
	       (eh.e_type == ET_EXEC || eh.e_type == ET_DYN);
}

/* Maps the file at path whole (ELF_C_FDREAD reads it if it could not be
 * mapped, and lets the descriptor go); NULL unless it is a usable ELF
 * file. Only regular files are opened (a mapped device may act on open). */
static Elf *open_elf(const char *path)
{
	struct stat st;
	Elf *elf;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (elf && (!usable_elf(elf) || elf_cntl(elf, ELF_C_FDREAD))) {
		elf_end(elf);
		elf = NULL;
	}
	close(fd);
	return elf;
}

static void file_release(struct file *f)
{
	elf_end(f->elf);
	free(f->path);
	*f = (struct file){ .path = NULL };
}

/* The file at path: cached, or mapped in a free slot or the least
 * recently used one (whose Elf lives on in the modules that use it). */
static struct file *file_get(struct pd_unwinder *u, const char *path)
{
	struct file *victim = &u->files[0];
	size_t len;

	for (size_t i = 0; i < FILES; i++) {
		struct file *f = &u->files[i];

		if (f->path && !strcmp(f->path, path)) {
			f->last_use = ++u->clock;
			return f;
		}
		if (victim->path && (!f->path || f->last_use < victim->last_use))
			victim = f;
	}
	file_release(victim);
	len = strlen(path);
	victim->path = pc_xmalloc(len + 1);
	memcpy(victim->path, path, len + 1);
	victim->elf = open_elf(path);
	victim->last_use = ++u->clock;
	return victim;
}

/* The address range of a file at bias, as libdwfl computes it for a
 * module: from the first PT_LOAD (aligned down) to the end of the last. */
static bool module_range(Elf *elf, uint64_t bias, uint64_t *low, uint64_t *high)
{
	size_t count;
	bool first = true;

	if (elf_getphdrnum(elf, &count))
		return false;
	*low = *high = 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			*low = bias + (ph.p_vaddr & -ph.p_align);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > 0)
			*high = bias + ph.p_vaddr + ph.p_memsz;
	}
	return !first && *high > *low;
}

/* Reports map's file to dwfl at its bias, with a reference to the file
 * for give_elf; NULL when the file is not usable. */
static Dwfl_Module *report_file(struct pd_unwinder *u, Dwfl *dwfl,
				const struct pd_unwind_map *map, uint64_t *bias)
{
	Elf *elf = file_get(u, map->path)->elf;
	Dwfl_Module *mod;
	GElf_Ehdr eh;
	uint64_t low, high;
	void **userdata;

	if (!elf || !gelf_getehdr(elf, &eh))
		return NULL;
	*bias = 0; /* an ET_EXEC file is where it was linked */
	if ((eh.e_type == ET_DYN && !load_bias(elf, map->start, map->pgoff, bias)) ||
	    !module_range(elf, *bias, &low, &high))
		return NULL;
	mod = dwfl_report_module(dwfl, map->path, low, high);
	if (!mod || !dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL))
		return NULL;
	if (!*userdata)
		*userdata = elf_begin(-1, ELF_C_READ_MMAP_PRIVATE, elf);
	return mod;
}

/* The module of the same file reported for an earlier map, when it spans
 * maps[i] (a file mapped in several pieces); NULL if none. */
static const struct space_map *same_module(const struct space *sp,
					   const struct pd_unwind_map *maps, size_t i)
{
	for (size_t j = 0; j < i; j++) {
		const struct space_map *seen = &sp->maps[j];
		Dwarf_Addr low, high;

		if (seen->module && !strcmp(maps[j].path, maps[i].path) &&
		    dwfl_module_info(seen->module, NULL, &low, &high, NULL, NULL, NULL, NULL) &&
		    maps[i].start >= low && maps[i].start < high)
			return seen;
	}
	return NULL;
}

static void report_map(struct pd_unwinder *u, struct space *sp,
		       const struct pd_unwind_map *maps, size_t i)
{
	struct space_map *m = &sp->maps[i];
	const struct space_map *seen;

	*m = (struct space_map){ .start = maps[i].start, .end = maps[i].end,
				 .pgoff = maps[i].pgoff };
	if (!maps[i].path || !maps[i].path[0] || m->start >= m->end)
		return;
	seen = same_module(sp, maps, i);
	if (seen) {
		m->module = seen->module;
		m->bias = seen->bias;
		return;
	}
	m->module = report_file(u, sp->dwfl, &maps[i], &m->bias);
}

/* Drops the file references of modules libdwfl never opened. */
static void release_unopened(struct space *sp)
{
	void **userdata;

	for (size_t i = 0; i < sp->nmaps; i++) {
		Dwfl_Module *mod = sp->maps[i].module;

		if (mod && dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL) &&
		    *userdata) {
			elf_end(*userdata);
			*userdata = NULL;
		}
	}
}

static void space_clear(struct space *sp)
{
	if (sp->dwfl) {
		release_unopened(sp);
		dwfl_end(sp->dwfl);
	}
	sp->dwfl = NULL;
	sp->attached = false;
	sp->nmaps = 0;
	memset(sp->outermost, 0, sizeof(sp->outermost));
}

static void space_build(struct pd_unwinder *u, struct space *sp, int32_t pid,
			uint64_t generation, const struct pd_unwind_map *maps, size_t nmaps)
{
	space_clear(sp);
	sp->pid = pid;
	sp->generation = generation;
	sp->dwfl = dwfl_begin(&dwfl_callbacks);
	if (!sp->dwfl)
		return;
	pc_grow(&sp->maps, &sp->maps_cap, nmaps, sizeof(*sp->maps));
	dwfl_report_begin(sp->dwfl);
	for (sp->nmaps = 0; sp->nmaps < nmaps; sp->nmaps++)
		report_map(u, sp, maps, sp->nmaps);
	if (dwfl_report_end(sp->dwfl, NULL, NULL) == 0)
		sp->attached = dwfl_attach_state(sp->dwfl, NULL, pid > 0 ? pid : 1,
						 &thread_callbacks, u);
}

/* The space of (pid, generation): cached, or built in place of an older
 * generation of pid, a free slot or the least recently used one. */
static struct space *space_get(struct pd_unwinder *u, int32_t pid, uint64_t generation,
			       const struct pd_unwind_map *maps, size_t nmaps)
{
	struct space *victim = NULL;

	for (size_t i = 0; i < SPACES; i++) {
		struct space *sp = &u->spaces[i];

		if (sp->dwfl && sp->pid == pid && sp->generation == generation) {
			sp->last_use = ++u->clock;
			return sp;
		}
	}
	for (size_t i = 0; i < SPACES; i++) {
		struct space *sp = &u->spaces[i];

		if (sp->dwfl && sp->pid == pid) {
			victim = sp;
			break;
		}
		if (!victim || (victim->dwfl && (!sp->dwfl || sp->last_use < victim->last_use)))
			victim = sp;
	}
	space_build(u, victim, pid, generation, maps, nmaps);
	victim->last_use = ++u->clock;
	return victim;
}

/* --- unwinding --- */

/* Loads perf's registers into the sample; false without IP. */
static bool load_regs(struct sample *s, uint64_t mask, const uint64_t *regs)
{
	uint64_t perf[PERF_REG_COUNT];
	uint32_t have = 0;
	size_t next = 0;

	if (!regs)
		return false;
	for (int bit = 0; bit < PERF_REG_COUNT; bit++) {
		if (mask & ((uint64_t)1 << bit)) {
			perf[bit] = regs[next++];
			have |= 1u << bit;
		}
	}
	if (!(have & (1u << PERF_IP)))
		return false;
	s->ip = perf[PERF_IP];
	s->regs_set = 0;
	for (int reg = 0; reg < DWARF_REGS; reg++) {
		if (have & (1u << dwarf_to_perf[reg])) {
			s->regs[reg] = perf[dwarf_to_perf[reg]];
			s->regs_set |= 1u << reg;
		}
	}
	s->sp = s->regs[DWARF_SP];
	return true;
}

/*
 * Takes one frame's pc. Resets the read counters first: the step from this
 * frame to its caller runs from here on (dwfl_frame_pc runs it to tell a
 * call from an activation), so they describe the last step in the end.
 */
static int frame_pc(Dwfl_Frame *frame, void *unwinder)
{
	struct pd_unwinder *u = unwinder;
	struct sample *s = &u->sample;
	Dwarf_Addr pc;
	bool activation;

	s->reads = 0;
	s->read_failed = false;
	if (!dwfl_frame_pc(frame, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!pc && s->count) {
		s->zero_pc = true; /* a return address of 0 (frame pointer chains) */
		return DWARF_CB_ABORT;
	}
	s->ips[s->count++] = pc - (u->callers_minus_one && !activation);
	s->last_pc = pc;
	s->last_activation = activation;
	s->last_bp_known = dwfl_frame_reg(frame, DWARF_BP, &s->last_bp) == 0;
	if (s->count == s->max) {
		s->truncated = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* The unwind rules at pc, as libdwfl looks them up (.eh_frame, then
 * .debug_frame); NULL if there are none. The caller frees the frame. */
static Dwarf_Frame *rules_at(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	Dwarf_Frame *frame = NULL;
	Dwarf_CFI *cfi;
	Dwarf_Addr bias;

	if (!mod)
		return NULL;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return frame;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && !dwarf_cfi_addrframe(cfi, pc - bias, &frame))
		return frame;
	return NULL;
}

/* Whether the unwind rules at pc leave the return address undefined, as
 * they do in the outermost frame (_start, a thread's start). */
static bool return_address_undefined(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwarf_Frame *frame = rules_at(dwfl, pc);
	Dwarf_Op ops_mem[3], *ops;
	size_t nops;
	int ra;
	bool undefined;

	if (!frame)
		return false;
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	undefined = ra >= 0 && !dwarf_frame_register(frame, ra, ops_mem, &ops, &nops) &&
		    !nops && ops == ops_mem;
	free(frame);
	return undefined;
}

/* Whether a frame without unwind rules is marked outermost the x86-64
 * ABI's way, rbp = 0 (ld.so's _start has no rules). */
static bool zero_bp_without_rules(Dwfl *dwfl, const struct sample *s, Dwarf_Addr pc)
{
	Dwarf_Frame *frame;

	if (!s->last_bp_known || s->last_bp)
		return false;
	frame = rules_at(dwfl, pc);
	free(frame);
	return !frame;
}

/* return_address_undefined, remembering the few pcs (_start, the thread
 * start) where most unwinds end. */
static bool outermost(struct space *sp, Dwarf_Addr pc)
{
	for (size_t i = 0; i < OUTERMOST_PCS; i++) {
		if (pc && sp->outermost[i] == pc)
			return true;
	}
	if (!return_address_undefined(sp->dwfl, pc))
		return false;
	sp->outermost[sp->outermost_next++ % OUTERMOST_PCS] = pc;
	return true;
}

/*
 * Why the unwind stopped. libdwfl ends without an error when the caller's
 * pc is undefined, but also when it could not be computed ("maybe the end
 * of the stack"): the end is the real one when the rules say so, or when
 * the last step read memory without a failure (so the return address it
 * read was 0). An error at a frame without rules and with rbp = 0 is the
 * end too.
 */
static enum pd_unwind_stop stop_reason(struct space *sp, const struct sample *s, int status)
{
	Dwarf_Addr lookup = s->last_pc - !s->last_activation;

	if (s->truncated)
		return PD_UNWIND_STOP_MAX;
	if (s->zero_pc)
		return PD_UNWIND_STOP_END;
	if (!dwfl_addrmodule(sp->dwfl, lookup))
		return PD_UNWIND_STOP_NO_FILE;
	if (s->read_failed)
		return PD_UNWIND_STOP_MEMORY;
	if (status == 0 ? s->reads || outermost(sp, lookup)
			: zero_bp_without_rules(sp->dwfl, s, lookup))
		return PD_UNWIND_STOP_END;
	return PD_UNWIND_STOP_CFI;
}

static size_t leaf_only(struct pd_unwinder *u, uint64_t *ips, enum pd_unwind_stop stop)
{
	ips[0] = u->sample.ip;
	u->stop = stop;
	return 1;
}

size_t pd_unwind(struct pd_unwinder *u, int32_t pid, uint64_t generation,
		 const struct pd_unwind_map *maps, size_t nmaps,
		 uint64_t regs_mask, const uint64_t *regs,
		 const uint8_t *stack, size_t stack_size,
		 uint64_t *ips, size_t max, bool *complete)
{
	struct sample *s = &u->sample;
	struct space *sp;
	int status;

	*complete = false;
	u->stop = PD_UNWIND_STOP_REGS;
	if (!max || !load_regs(s, regs_mask, regs))
		return 0;
	if (!(s->regs_set & (1u << DWARF_SP)))
		return leaf_only(u, ips, PD_UNWIND_STOP_REGS);
	sp = space_get(u, pid, generation, maps, nmaps);
	if (!sp->attached)
		return leaf_only(u, ips, PD_UNWIND_STOP_NO_FILE);
	s->stack = stack;
	s->stack_size = stack ? stack_size : 0;
	s->ips = ips;
	s->max = max;
	s->count = 0;
	s->truncated = s->zero_pc = false;
	u->space = sp;
	status = dwfl_getthread_frames(sp->dwfl, pid > 0 ? pid : 1, frame_pc, u);
	if (!s->count)
		return leaf_only(u, ips, PD_UNWIND_STOP_CFI);
	u->stop = stop_reason(sp, s, status);
	*complete = u->stop == PD_UNWIND_STOP_END;
	return s->count;
}

struct pd_unwinder *pd_unwinder_new(void)
{
	elf_version(EV_CURRENT);
	return pc_xcalloc(1, sizeof(struct pd_unwinder));
}

void pd_unwinder_free(struct pd_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < SPACES; i++) {
		space_clear(&u->spaces[i]);
		free(u->spaces[i].maps);
	}
	for (size_t i = 0; i < FILES; i++)
		file_release(&u->files[i]);
	free(u);
}

void pd_unwinder_set_callers_minus_one(struct pd_unwinder *u, bool on)
{
	u->callers_minus_one = on;
}

enum pd_unwind_stop pd_unwinder_stop(const struct pd_unwinder *u)
{
	return u->stop;
}

const char *pd_unwind_stop_name(enum pd_unwind_stop stop)
{
	static const char *const names[] = {
		[PD_UNWIND_STOP_END] = "complete",
		[PD_UNWIND_STOP_MAX] = "frame limit reached",
		[PD_UNWIND_STOP_REGS] = "registers missing",
		[PD_UNWIND_STOP_NO_FILE] = "address in no readable file",
		[PD_UNWIND_STOP_MEMORY] = "memory outside the stack copy",
		[PD_UNWIND_STOP_CFI] = "no unwind information",
	};

	return (unsigned)stop < PC_ARRAY_SIZE(names) ? names[stop] : "unknown";
}
