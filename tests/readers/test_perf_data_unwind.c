/*
 * test_perf_data_unwind.c - the DWARF unwinder on this program's own
 * stack, without perf: the registers (perf's x86-64 order and default
 * dwarf-mode mask) and 8 KiB of stack are captured at the end of a chain
 * of noinline functions that keep locals on the stack, the executable
 * maps come from /proc/self/maps, and the pcs are named with libdwfl's
 * symbol lookup. Then: a sample at a PLT entry, reads from the mapped
 * files, callers at pc - 1 (perf script's way), the space cache (same and
 * new generations, more processes than it keeps), the frame limit,
 * truncated stack copies, missing registers, missing and unusable files,
 * and garbage registers and stacks.
 */
#include "base/pc.h"
#include "readers/perf_data_unwind.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <unistd.h>

#if defined(__clang__)
#define CHAIN __attribute__((noinline))
#else
#define CHAIN __attribute__((noipa))
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RAW_MEMORY __attribute__((no_sanitize_address))
#else
#define RAW_MEMORY
#endif

#define PERF_BP 6
#define PERF_SP 7
#define PERF_IP 8
#define PERF_REGS 24
#define DWARF_MASK 0xff0fffu /* AX..SS, R8..R15: perf's x86-64 --call-graph dwarf */
#define STACK_COPY 8192
#define MAX_FRAMES 64
#define MAX_MAPS 256

/* What perf would have recorded at one point of this program. */
struct snapshot {
	uint64_t all[PERF_REGS]; /* by perf register number */
	uint64_t regs[PERF_REGS]; /* the DWARF_MASK ones, packed */
	uint8_t stack[STACK_COPY];
	size_t stack_size;
	uint64_t stack_end; /* end of the mapping holding the stack */
	struct pd_unwind_map maps[MAX_MAPS];
	size_t nmaps;
};

static struct snapshot snap;

/* --- capturing this program's state --- */

/* Copies the stack from the captured SP, as the kernel does; raw reads
 * because the region holds the sanitizer's poisoned red zones. */
static RAW_MEMORY CHAIN void copy_stack(struct snapshot *s)
{
	const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)s->all[PERF_SP];
	uint64_t available = s->stack_end - s->all[PERF_SP];

	s->stack_size = available < STACK_COPY ? (size_t)available : STACK_COPY;
	for (size_t i = 0; i < s->stack_size; i++)
		s->stack[i] = from[i];
}

/* The leaf: reads the registers (IP: the instruction after the lea), then
 * copies the stack above them while this frame is still live. */
static CHAIN void capture(struct snapshot *s)
{
	__asm__ volatile("movq %%rax, 0(%0)\n\t"
			 "movq %%rbx, 8(%0)\n\t"
			 "movq %%rcx, 16(%0)\n\t"
			 "movq %%rdx, 24(%0)\n\t"
			 "movq %%rsi, 32(%0)\n\t"
			 "movq %%rdi, 40(%0)\n\t"
			 "movq %%rbp, 48(%0)\n\t"
			 "movq %%rsp, 56(%0)\n\t"
			 "leaq 0(%%rip), %%rax\n\t"
			 "movq %%rax, 64(%0)\n\t"
			 "movq %%r8, 128(%0)\n\t"
			 "movq %%r9, 136(%0)\n\t"
			 "movq %%r10, 144(%0)\n\t"
			 "movq %%r11, 152(%0)\n\t"
			 "movq %%r12, 160(%0)\n\t"
			 "movq %%r13, 168(%0)\n\t"
			 "movq %%r14, 176(%0)\n\t"
			 "movq %%r15, 184(%0)\n\t"
			 : : "r"(s->all) : "rax", "memory");
	copy_stack(s);
}

/* Three callers with locals on the stack: without frame pointers (-O2),
 * only the CFI knows where their return addresses are. */
static CHAIN int chain_3(int depth)
{
	volatile uint64_t pad[9];

	pad[depth % 9] = (uint64_t)depth;
	capture(&snap);
	return (int)pad[depth % 9] + 1;
}

static CHAIN int chain_2(int depth)
{
	volatile uint32_t pad[21];

	pad[depth % 21] = (uint32_t)depth;
	return chain_3(depth + 1) + (int)pad[depth % 21];
}

static CHAIN int chain_1(int depth)
{
	volatile uint8_t pad[200];

	pad[depth] = (uint8_t)depth;
	return chain_2(depth + 1) + pad[depth];
}

/* The end of the mapping of /proc/self/maps that holds addr. */
static uint64_t mapping_end(uint64_t addr)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	uint64_t start, end, found = 0;
	char line[4096];

	assert_non_null(maps);
	while (!found && fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &start, &end) == 2 && addr >= start &&
		    addr < end)
			found = end;
	}
	fclose(maps);
	return found;
}

/* The executable file mappings of /proc/self/maps, sorted as it is. */
static void read_maps(struct snapshot *s)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096], perms[8];
	uint64_t start, end, pgoff;
	int path_at;

	assert_non_null(maps);
	s->nmaps = 0;
	while (fgets(line, sizeof(line), maps) && s->nmaps < MAX_MAPS) {
		line[strcspn(line, "\n")] = '\0';
		path_at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start,
			   &end, perms, &pgoff, &path_at) < 4 || !path_at ||
		    line[path_at] != '/' || !strchr(perms, 'x'))
			continue;
		s->maps[s->nmaps++] = (struct pd_unwind_map){
			.start = start, .end = end, .pgoff = pgoff, .path = strdup(line + path_at),
		};
	}
	fclose(maps);
}

static void free_maps(struct snapshot *s)
{
	for (size_t i = 0; i < s->nmaps; i++)
		free((char *)s->maps[i].path);
	s->nmaps = 0;
}

/* Captures this program's state in snap, four frames below here. */
static CHAIN void take_snapshot(void)
{
	uint64_t here = (uint64_t)(uintptr_t)&here;
	size_t next = 0;

	memset(&snap, 0, sizeof(snap));
	snap.stack_end = mapping_end(here);
	assert_true(snap.stack_end > here);
	assert_int_equal(chain_1(1), 7);
	for (int bit = 0; bit < PERF_REGS; bit++) {
		if (DWARF_MASK & (1u << bit))
			snap.regs[next++] = snap.all[bit];
	}
	read_maps(&snap);
}

/* --- naming pcs --- */

static int find_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name,
			     Dwarf_Addr base, const char *file_name, const char *debuglink,
			     GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink, (void)crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_no_debuginfo,
};

/* The function names of ips (callers looked up at pc - 1), "?" if unknown. */
static void name_pcs(const uint64_t *ips, size_t n, const char **names)
{
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);

	assert_non_null(dwfl);
	assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr lookup = i ? ips[i] - 1 : ips[i];
		Dwfl_Module *mod = dwfl_addrmodule(dwfl, lookup);
		const char *name = mod ? dwfl_module_addrname(mod, lookup) : NULL;

		names[i] = strdup(name ? name : "?");
	}
	dwfl_end(dwfl);
}

/* The runtime address of the second entry of this program's .plt (the
 * first calls the resolver), or 0 without one. */
static uint64_t plt_entry(void)
{
	Dwfl *dwfl = dwfl_begin(&proc_callbacks);
	Dwfl_Module *mod;
	Elf_Scn *scn = NULL;
	GElf_Addr bias;
	GElf_Shdr shdr;
	size_t names;
	uint64_t found = 0;
	Elf *elf;

	assert_non_null(dwfl);
	assert_int_equal(dwfl_linux_proc_report(dwfl, getpid()), 0);
	assert_int_equal(dwfl_report_end(dwfl, NULL, NULL), 0);
	mod = dwfl_addrmodule(dwfl, (Dwarf_Addr)(uintptr_t)&plt_entry);
	elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (elf && !elf_getshdrstrndx(elf, &names)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			const char *name = gelf_getshdr(scn, &shdr) ?
						   elf_strptr(elf, names, shdr.sh_name) : NULL;

			if (name && !strcmp(name, ".plt") && shdr.sh_size >= 32)
				found = bias + shdr.sh_addr + 16;
		}
	}
	dwfl_end(dwfl);
	return found;
}

static void free_names(const char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)names[i]);
}

/* --- helpers --- */

struct result {
	uint64_t ips[MAX_FRAMES];
	size_t n;
	bool complete;
};

static struct result unwind_snapshot(struct pd_unwinder *u, int32_t pid, uint64_t generation,
				     size_t stack_size)
{
	struct result r = { .n = 0 };

	r.n = pd_unwind(u, pid, generation, snap.maps, snap.nmaps, DWARF_MASK, snap.regs,
			snap.stack, stack_size, r.ips, MAX_FRAMES, &r.complete);
	return r;
}

static void assert_same(const struct result *a, const struct result *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->complete, b->complete);
	assert_memory_equal(a->ips, b->ips, a->n * sizeof(a->ips[0]));
}

static int setup(void **state)
{
	take_snapshot();
	*state = pd_unwinder_new();
	return 0;
}

static int teardown(void **state)
{
	pd_unwinder_free(*state);
	free_maps(&snap);
	return 0;
}

/* A simple pseudo-random sequence (deterministic runs). */
static uint64_t next_random(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return *seed ^ (*seed >> 29);
}

/* --- tests --- */

static void test_unwinds_own_stack_to_main(void **state)
{
	struct result r = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	static const char *const expected[] = {
		"capture", "chain_3", "chain_2", "chain_1", "take_snapshot", "setup",
	};
	const char *names[MAX_FRAMES];
	size_t main_at = 0;

	assert_true(r.complete);
	assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_END);
	assert_true(r.n > PC_ARRAY_SIZE(expected));
	assert_int_equal(r.ips[0], snap.all[PERF_IP]);
	name_pcs(r.ips, r.n, names);
	for (size_t i = 0; i < PC_ARRAY_SIZE(expected); i++)
		assert_string_equal(names[i], expected[i]);
	for (size_t i = PC_ARRAY_SIZE(expected); i < r.n && !main_at; i++)
		main_at = strcmp(names[i], "main") ? 0 : i;
	assert_true(main_at > 0);
	free_names(names, r.n);
}

static void test_reuses_and_rebuilds_spaces(void **state)
{
	struct result first = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	struct result again = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	struct result next_generation = unwind_snapshot(*state, getpid(), 2, snap.stack_size);

	assert_true(first.complete);
	assert_same(&first, &again);
	assert_same(&first, &next_generation);
	/* more processes than the unwinder keeps, then the first again */
	for (int32_t pid = 1000; pid < 1040; pid++) {
		struct result other = unwind_snapshot(*state, pid, 7, snap.stack_size);

		assert_same(&first, &other);
	}
	again = unwind_snapshot(*state, getpid(), 2, snap.stack_size);
	assert_same(&first, &again);
}

/* A sample at a PLT entry, one call below capture: the PLT's CFA rule
 * reads the IP (DWARF register 16) of the first frame. */
static void test_unwinds_from_a_plt_entry(void **state)
{
	struct result full = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	uint64_t plt = plt_entry(), regs[PERF_REGS], ips[MAX_FRAMES];
	static uint8_t stack[8 + STACK_COPY];
	bool complete = false;
	size_t n;

	if (!plt)
		skip();
	memcpy(regs, snap.regs, sizeof(regs));
	regs[PERF_SP] = snap.all[PERF_SP] - 8; /* packed = perf index: bits 0-8 are in the mask */
	regs[PERF_IP] = plt;
	memcpy(stack, &snap.all[PERF_IP], 8); /* the return address into capture */
	memcpy(stack + 8, snap.stack, snap.stack_size);
	n = pd_unwind(*state, getpid(), 1, snap.maps, snap.nmaps, DWARF_MASK, regs, stack,
		      8 + snap.stack_size, ips, MAX_FRAMES, &complete);
	assert_true(complete);
	assert_int_equal(n, full.n + 1);
	assert_int_equal(ips[0], plt);
	assert_memory_equal(ips + 1, full.ips, full.n * sizeof(ips[0]));
}

/* Memory outside the stack copy comes from the mapped files: with SP
 * moved into this program's text (mapped from the file as it is), the
 * caller's pc is read from the file where the return address was. */
static void test_reads_mapped_files(void **state)
{
	struct result full = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	uint64_t regs[PERF_REGS], ips[MAX_FRAMES], text, from_file;
	size_t ra_at = 0, n;
	bool complete = true;

	while (ra_at + 8 <= snap.stack_size && memcmp(snap.stack + ra_at, &full.ips[1], 8))
		ra_at += 8;
	assert_true(ra_at + 8 <= snap.stack_size);
	text = (uint64_t)(uintptr_t)&chain_1 & ~(uint64_t)7;
	memcpy(&from_file, (const void *)(uintptr_t)(text + ra_at), 8);
	memcpy(regs, snap.regs, sizeof(regs));
	regs[PERF_SP] = text; /* and rbp as much, for a frame-pointer CFA rule */
	regs[PERF_BP] = snap.all[PERF_BP] + (text - snap.all[PERF_SP]);
	n = pd_unwind(*state, getpid(), 1, snap.maps, snap.nmaps, DWARF_MASK, regs, snap.stack,
		      0, ips, MAX_FRAMES, &complete);
	assert_true(n >= 2);
	assert_int_equal(ips[0], snap.all[PERF_IP]);
	assert_int_equal(ips[1], from_file);
}

/* perf script's way: callers at return address - 1, the leaf as it is. */
static void test_callers_minus_one(void **state)
{
	struct result full = unwind_snapshot(*state, getpid(), 1, snap.stack_size), minus;

	pd_unwinder_set_callers_minus_one(*state, true);
	minus = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	pd_unwinder_set_callers_minus_one(*state, false);
	assert_true(minus.complete);
	assert_int_equal(minus.n, full.n);
	assert_int_equal(minus.ips[0], full.ips[0]);
	for (size_t i = 1; i < full.n; i++)
		assert_int_equal(minus.ips[i], full.ips[i] - 1);
}

static void test_stops_at_max_frames(void **state)
{
	struct result full = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	uint64_t ips[3];
	bool complete = true;
	size_t n = pd_unwind(*state, getpid(), 1, snap.maps, snap.nmaps, DWARF_MASK, snap.regs,
			     snap.stack, snap.stack_size, ips, 3, &complete);

	assert_int_equal(n, 3);
	assert_false(complete);
	assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_MAX);
	assert_memory_equal(ips, full.ips, sizeof(ips));
}

static void test_truncated_stack_is_incomplete(void **state)
{
	struct result full = unwind_snapshot(*state, getpid(), 1, snap.stack_size);
	static const size_t sizes[] = { 64, 7, 0, 300 };

	for (size_t i = 0; i < PC_ARRAY_SIZE(sizes); i++) {
		struct result cut = unwind_snapshot(*state, getpid(), 1, sizes[i]);

		assert_false(cut.complete);
		assert_true(cut.n >= 1 && cut.n < full.n);
		assert_memory_equal(cut.ips, full.ips, cut.n * sizeof(cut.ips[0]));
		assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_MEMORY);
	}
}

static void test_missing_registers(void **state)
{
	uint64_t ips[MAX_FRAMES], regs[PERF_REGS];
	bool complete = true;
	size_t next = 0;

	/* no IP: nothing */
	assert_int_equal(pd_unwind(*state, 1, 1, snap.maps, snap.nmaps, DWARF_MASK & ~(1u << PERF_IP),
				   snap.regs, snap.stack, snap.stack_size, ips, MAX_FRAMES,
				   &complete), 0);
	assert_false(complete);
	assert_int_equal(pd_unwind(*state, 1, 1, snap.maps, snap.nmaps, DWARF_MASK, NULL,
				   snap.stack, snap.stack_size, ips, MAX_FRAMES, &complete), 0);
	assert_int_equal(pd_unwind(*state, 1, 1, snap.maps, snap.nmaps, DWARF_MASK, snap.regs,
				   snap.stack, snap.stack_size, ips, 0, &complete), 0);
	/* no SP: the leaf only */
	for (int bit = 0; bit < PERF_REGS; bit++) {
		if ((DWARF_MASK & (1u << bit)) && bit != PERF_SP)
			regs[next++] = snap.all[bit];
	}
	assert_int_equal(pd_unwind(*state, 1, 1, snap.maps, snap.nmaps,
				   DWARF_MASK & ~(1u << PERF_SP), regs, snap.stack,
				   snap.stack_size, ips, MAX_FRAMES, &complete), 1);
	assert_false(complete);
	assert_int_equal(ips[0], snap.all[PERF_IP]);
	assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_REGS);
	/* only IP and SP: the leaf, then whatever the CFI can do without the rest */
	regs[0] = snap.all[PERF_SP];
	regs[1] = snap.all[PERF_IP];
	assert_true(pd_unwind(*state, 1, 1, snap.maps, snap.nmaps,
			      (1u << PERF_SP) | (1u << PERF_IP), regs, snap.stack,
			      snap.stack_size, ips, MAX_FRAMES, &complete) >= 1);
	assert_int_equal(ips[0], snap.all[PERF_IP]);
}

/* The first bytes of this program in a temporary file (a truncated ELF). */
static void write_truncated_copy(char *path)
{
	uint8_t head[200];
	FILE *self = fopen("/proc/self/exe", "rb");
	int fd = mkstemp(path);

	assert_non_null(self);
	assert_true(fd >= 0);
	assert_int_equal(fread(head, 1, sizeof(head), self), sizeof(head));
	assert_int_equal(write(fd, head, sizeof(head)), (ssize_t)sizeof(head));
	fclose(self);
	close(fd);
}

/* No maps, or the leaf's map naming no usable file: the leaf only. */
static void test_unusable_files(void **state)
{
	char truncated[] = "/tmp/test_perf_data_unwind.XXXXXX";
	const char *const paths[] = {
		"/nonexistent/a.out", "", NULL, "/proc/self/maps", "/dev/null", "/", truncated,
	};
	const struct pd_unwind_map *leaf = NULL;
	uint64_t ips[MAX_FRAMES];
	bool complete = true;

	assert_int_equal(pd_unwind(*state, 77, 1, NULL, 0, DWARF_MASK, snap.regs, snap.stack,
				   snap.stack_size, ips, MAX_FRAMES, &complete), 1);
	assert_false(complete);
	assert_int_equal(ips[0], snap.all[PERF_IP]);
	assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_NO_FILE);
	for (size_t i = 0; i < snap.nmaps; i++) {
		if (snap.all[PERF_IP] >= snap.maps[i].start && snap.all[PERF_IP] < snap.maps[i].end)
			leaf = &snap.maps[i];
	}
	assert_non_null(leaf);
	write_truncated_copy(truncated);
	for (size_t i = 0; i < PC_ARRAY_SIZE(paths); i++) {
		struct pd_unwind_map map = *leaf;

		map.path = paths[i];
		assert_int_equal(pd_unwind(*state, 78, i, &map, 1, DWARF_MASK, snap.regs,
					   snap.stack, snap.stack_size, ips, MAX_FRAMES, &complete), 1);
		assert_false(complete);
		assert_int_equal(pd_unwinder_stop(*state), PD_UNWIND_STOP_NO_FILE);
	}
	unlink(truncated);
}

/* Random registers and stacks, then real registers over random stacks:
 * short, incomplete unwinds, no crash. */
static void test_garbage_registers(void **state)
{
	uint64_t seed = 42, regs[PERF_REGS], ips[MAX_FRAMES];
	static uint8_t stack[STACK_COPY];
	bool complete;

	for (int round = 0; round < 2000; round++) {
		size_t n, count = 20;

		for (size_t i = 0; i < sizeof(stack); i++)
			stack[i] = (uint8_t)next_random(&seed);
		for (size_t i = 0; i < count; i++)
			regs[i] = round % 2 ? snap.regs[i] : next_random(&seed);
		if (round % 4 == 2)
			regs[PERF_SP] = snap.all[PERF_SP] + next_random(&seed) % 64;
		n = pd_unwind(*state, getpid(), 1, snap.maps, snap.nmaps, DWARF_MASK, regs, stack,
			      next_random(&seed) % (sizeof(stack) + 1), ips, MAX_FRAMES,
			      &complete);
		assert_true(n >= 1 && n < MAX_FRAMES);
		assert_false(complete);
	}
}

static void test_stop_names(void **state)
{
	(void)state;
	for (int stop = PD_UNWIND_STOP_END; stop <= PD_UNWIND_STOP_CFI; stop++)
		assert_string_not_equal(pd_unwind_stop_name((enum pd_unwind_stop)stop), "unknown");
	assert_string_equal(pd_unwind_stop_name((enum pd_unwind_stop)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unwinds_own_stack_to_main),
		cmocka_unit_test(test_reuses_and_rebuilds_spaces),
		cmocka_unit_test(test_unwinds_from_a_plt_entry),
		cmocka_unit_test(test_reads_mapped_files),
		cmocka_unit_test(test_callers_minus_one),
		cmocka_unit_test(test_stops_at_max_frames),
		cmocka_unit_test(test_truncated_stack_is_incomplete),
		cmocka_unit_test(test_missing_registers),
		cmocka_unit_test(test_unusable_files),
		cmocka_unit_test(test_garbage_registers),
		cmocka_unit_test(test_stop_names),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
