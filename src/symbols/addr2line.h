/*
 * addr2line.h - the functions at addresses of an ELF binary, inlined ones
 * first, as binutils' addr2line -i -f names them: the names perf script
 * (Debian's perf 6.1, built without libbfd, runs the same program) prints
 * for the frames of DWARF-unwound stacks, where its names come from the
 * debug information (the function's linkage name, else its name; for code
 * without a function entry the symbol table's), not from the symbol table
 * alone. Run once per binary as a subprocess (Debian's binutils).
 */
#ifndef PC_ADDR2LINE_H
#define PC_ADDR2LINE_H

#include "symbols/llvm_symbolizer.h"

/*
 * Asks addr2line about n link-time addresses of the binary at path; the
 * answers (functions innermost first, as given: C++ names mangled; file
 * and line) are appended to answers, one per address in order, an
 * address it cannot place without frames. 0, or -1 with a message in err.
 */
int pc_addr2line(const char *path, const uint64_t *addresses, size_t n,
		 struct pc_llvm_answers *answers, char *err, size_t err_size);

#endif
