/*
 * dwarf_source.h - source positions of a binary's instructions as the
 * sample-profile compilers count them: for an ELF virtual address, the
 * inline chain (leaf first) with each frame's function name, line,
 * discriminator and declaration line; the functions with code, their
 * line-table rows and their direct call sites. Read with elfutils' libdw
 * (DWARF 2-5) from the binary itself, or from its separate debug file
 * (/usr/lib/debug/.build-id/xx/yyyy.debug) when the binary has none.
 *
 * Source: ../shared/research/autofdo-loop.md sections 2 and 7 (what gcc's
 * auto-profile.cc and LLVM's SampleProfile match), elfutils 0.188's
 * libdw.h. The oracle in the tests: eu-addr2line -i and
 * llvm-symbolizer --inlining --verbose on the same addresses.
 */
#ifndef PC_DWARF_SOURCE_H
#define PC_DWARF_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pc_error;
struct pc_dwarf; /* opaque: one binary's DWARF */

/* One frame of an inline chain. */
struct pc_source_frame {
	/*
	 * The function's linkage name (DW_AT_linkage_name or
	 * DW_AT_MIPS_linkage_name), else its DW_AT_name, each looked up
	 * through DW_AT_abstract_origin and DW_AT_specification; never NULL
	 * (""). Owned by the pc_dwarf, valid until pc_dwarf_close.
	 */
	const char *name;
	uint32_t decl_line;     /* DW_AT_decl_line of the function (through origins), 0 if none */
	uint32_t line;          /* leaf: the line-table row's line; outer frames: the
				   DW_AT_call_line of the frame inlined into them */
	uint32_t discriminator; /* leaf: the row's discriminator; outer frames: the inlined
				   callee's call discriminator (DW_AT_GNU_discriminator,
				   which LLVM writes and gcc 12 does not), else 0 */
};

/* A function with code: a concrete DW_TAG_subprogram (not inlined). */
struct pc_source_function {
	const char *name;  /* as pc_source_frame.name */
	uint64_t entry;    /* DW_AT_entry_pc, else DW_AT_low_pc, else the start of the
			      first range listed (gcc lists a split function's hot part
			      first; its foo.cold part lies lower, in .text.unlikely) */
	uint32_t decl_line;
};

/*
 * Opens path (an ELF file) and indexes its functions. 0, or -1 with err
 * set (pc_fail, status PC_STATUS_INPUT, message naming path): not
 * readable, not ELF, a relocatable object (its DWARF is unrelocated), or
 * no function with code in a compile unit with a line table, neither in
 * it nor in its separate debug file ("no DWARF debug information in
 * 'PATH' (build it with -g)"). A pc_dwarf serves one thread at a time.
 */
int pc_dwarf_open(const char *path, struct pc_dwarf **out, struct pc_error *err);
void pc_dwarf_close(struct pc_dwarf *dw);

/*
 * The inline chain at ELF virtual address addr, leaf first, as
 * eu-addr2line -i and llvm-symbolizer --inlining print it: frames[0] is the innermost inlined
 * subroutine (or the function itself) with the line-table row's line and
 * discriminator for addr; frames[i] for i >= 1 is the function that
 * frames[i-1] was inlined into, at the call line and call discriminator
 * of frames[i-1]'s DW_TAG_inlined_subroutine (0 when it has none). The
 * last frame is the concrete function, described in *fn when fn is not
 * NULL. Lexical blocks are skipped. Returns the number of frames written
 * (at most max; the outermost ones are kept when the chain is deeper:
 * frames[n-1] is always the concrete function), or 0 when addr lies in no
 * function (code without DWARF, the padding after a function, where
 * eu-addr2line and llvm-symbolizer print "??" with the line of the row
 * before) or its row has line 0 (code the compiler gives no line; both
 * print line 0).
 */
size_t pc_dwarf_frames(struct pc_dwarf *dw, uint64_t addr, struct pc_source_frame *frames,
		       size_t max, struct pc_source_function *fn);

/*
 * Calls visit(arg, address) for the address of each line-table row that
 * lies in the code of the concrete function containing addr (all its
 * address ranges: a function split into hot and cold parts gives both),
 * in increasing order, each address once, end-of-sequence rows excluded
 * (rows of line 0 included).
 * Returns the number of calls, 0 when addr is in no function.
 */
size_t pc_dwarf_function_rows(struct pc_dwarf *dw, uint64_t addr,
			      void (*visit)(void *arg, uint64_t address), void *arg);

/*
 * Calls visit(arg, call_address, callee_entry) for each direct call site
 * of the binary known to the debug information (DW_TAG_call_site or
 * DW_TAG_GNU_call_site with a DW_AT_call_origin / DW_AT_abstract_origin
 * naming exactly one function with code: directly, or as the declaration
 * or abstract instance that its DW_AT_specification / DW_AT_abstract_origin
 * names; a call naming an abstract instance that two functions share, as
 * gcc's foo and its foo.part.0 clone do, is left out; an external
 * declaration that nothing links to its definition, as for a call into
 * another compile unit, names the one function with code of its name):
 * call_address is the return address minus one
 * (DW_AT_call_return_pc or DW_AT_low_pc, minus 1: an address inside the
 * call instruction, or the jmp of a tail call), else DW_AT_call_pc as is;
 * callee_entry the callee's entry as in pc_source_function.entry. In
 * increasing order of call_address, each pair once; the sites are read on
 * the first call. Returns the number of calls.
 */
size_t pc_dwarf_call_sites(struct pc_dwarf *dw,
			   void (*visit)(void *arg, uint64_t call_address, uint64_t callee_entry),
			   void *arg);

/*
 * The binary's GNU build id as lowercase hex in hex (NUL-terminated);
 * its length, 0 when it has none or it does not fit in size.
 */
size_t pc_dwarf_build_id(struct pc_dwarf *dw, char *hex, size_t size);

/* The function whose code holds addr (whatever its line); false when none. */
bool pc_dwarf_function_of(struct pc_dwarf *dw, uint64_t addr, struct pc_source_function *fn);

/* The function whose entry is exactly addr; false when none. */
bool pc_dwarf_function_at(struct pc_dwarf *dw, uint64_t addr, struct pc_source_function *fn);

#endif
