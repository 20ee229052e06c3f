/*
 * perf_data_unwind.h - unwinds the user stack of a perf sample recorded
 * with `perf record --call-graph dwarf` (PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), offline, after the process is gone.
 *
 * Follows elfutils' libdwfl generic unwinder (0.188: dwfl_attach_state with
 * our own Dwfl_Thread_Callbacks, as perf's util/unwind-libdw.c and KDAB
 * perfparser do) and the kernel's perf register ABI for x86-64
 * (asm/perf_regs.h, mapped to the DWARF x86-64 register numbers). The
 * unwind rules come from each mapped file's .eh_frame, or its own
 * .debug_frame; libdwfl falls back to the frame pointer where a file has
 * no rule for a pc.
 *
 * x86-64 only (other architectures' registers are not understood), and
 * one unwinder per thread. Not handled: separate debug files and
 * debuginfod (never consulted), anonymous and JIT code, the [vdso] unless
 * the caller passes a readable copy of it as the map's path (perf keeps
 * one in its build-id cache), and files changed since the capture (their
 * rules are used as they are: the caller compares build ids).
 */
#ifndef PC_PERF_DATA_UNWIND_H
#define PC_PERF_DATA_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A file mapping of the sampled process (from MMAP/MMAP2 records). */
struct pd_unwind_map {
	uint64_t start, end, pgoff; /* [start, end) at runtime, pgoff = file offset of start */
	const char *path;           /* the file, readable on this machine, or NULL/"" for anonymous */
};

/* Why the last pd_unwind stopped. */
enum pd_unwind_stop {
	PD_UNWIND_STOP_END,     /* the outermost frame: the unwind is complete */
	PD_UNWIND_STOP_MAX,     /* max pcs were written */
	PD_UNWIND_STOP_REGS,    /* IP or SP missing from regs_mask */
	PD_UNWIND_STOP_NO_FILE, /* a pc in no readable x86-64 ELF file of the maps */
	PD_UNWIND_STOP_MEMORY,  /* a read outside the stack copy and the mapped files */
	PD_UNWIND_STOP_CFI,     /* no unwind rule for a pc, or a rule that failed */
};

struct pd_unwinder;

struct pd_unwinder *pd_unwinder_new(void);
void pd_unwinder_free(struct pd_unwinder *u);

/*
 * Unwinds one sample's user stack. maps: the process's executable file mappings at the time of
 * the sample, sorted by start; generation: changes whenever that process's maps change (so the
 * unwinder can cache one Dwfl per (pid, generation) and reuse it across samples - essential for
 * speed: a capture has thousands of samples per process). regs: perf's PERF_SAMPLE_REGS_USER
 * values for regs_mask in increasing bit order of the x86-64 perf_regs enum
 * (/usr/include/x86_64-linux-gnu/asm/perf_regs.h: AX=0, BX, CX, DX, SI, DI, BP, SP, IP, FLAGS,
 * CS, SS, DS, ES, FS, GS, R8=16 ... R15=23); stack: the STACK_USER copy, stack[0] is at address
 * regs[SP], stack_size = its dyn_size. Writes up to max frame pcs, leaf first (ips[0] = IP), and
 * returns how many; returns 0 when not even the leaf is known (no IP in the mask).
 * *complete is set to true when the unwind reached the end of the stack normally (outermost
 * frame / no more CFI at a return address of 0), false when it stopped on an error (missing
 * file, no CFI, memory outside the copy) - the caller counts those in one warning.
 *
 * The pcs are reported as they are (return addresses for all but the leaf;
 * look callers up at pc - 1), unless pd_unwinder_set_callers_minus_one.
 * Only bits 0-23 of regs_mask are read (regs holds at least as many values
 * as they have bits set). maps may hold a file's other mappings too; files
 * that are not x86-64 ELF are skipped; the paths are read during the call
 * only. A frame without rules and with rbp = 0 is the outermost one (the
 * ABI's mark, as at ld.so's _start). Reaching max before the end counts as
 * incomplete; pd_unwinder_stop says why an unwind stopped.
 */
size_t pd_unwind(struct pd_unwinder *u, int32_t pid, uint64_t generation,
		 const struct pd_unwind_map *maps, size_t nmaps,
		 uint64_t regs_mask, const uint64_t *regs,
		 const uint8_t *stack, size_t stack_size,
		 uint64_t *ips, size_t max, bool *complete);

/*
 * With on, pd_unwind reports each caller at its return address - 1 (in the
 * call instruction), except after a signal frame, where the pc is exact:
 * what perf script prints for DWARF chains (perf's libunwind and libdw
 * unwinders both do it). Off by default.
 */
void pd_unwinder_set_callers_minus_one(struct pd_unwinder *u, bool on);

/* Why the last pd_unwind of u stopped, and that reason in a few words. */
enum pd_unwind_stop pd_unwinder_stop(const struct pd_unwinder *u);
const char *pd_unwind_stop_name(enum pd_unwind_stop stop);

#endif
