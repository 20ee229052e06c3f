/*
 * symbolize.h - names for a profile's unnamed frames, from the binaries
 * themselves: the transform between reading and writing that --symbols,
 * --kallsyms, --inline and --no-demangle ask for (options the pipeline
 * declares, src/pipeline/options.c, read here from the ctx's settings).
 *
 * Sources, by module:
 *   PE image (an SPT program id)  the file of that base name in a --symbols
 *                                 directory, its CodeView GUID+age checked
 *                                 against the module's; names (and with
 *                                 --inline inlined frames, file:line) from
 *                                 llvm-symbolizer, run once, for VA = image
 *                                 base + RVA
 *   ELF binary                    found by build id (DIR/.build-id/xx/rest,
 *                                 perf's cache layout .../elf), by path
 *                                 under DIR, by base name in DIR, or at its
 *                                 own path; a build id that differs from
 *                                 the profile's is refused; a stripped
 *                                 file's symbols come from its debug file
 *                                 (DIR/.build-id/xx/rest.debug and
 *                                 /usr/lib/debug/.build-id/xx/rest.debug)
 *                                 or its .gnu_debuglink (CRC checked);
 *                                 names from .symtab or .dynsym
 *                                 through libelf, at the link-time address
 *                                 of the frame's file offset; with --inline,
 *                                 inlined frames and file:line from its
 *                                 DWARF through llvm-symbolizer
 *   [kernel.kallsyms]             the --kallsyms file (/proc/kallsyms format)
 *   /tmp/perf-PID.map             that JIT map, at its path or by base name
 *                                 in a --symbols directory
 * A module without a build id takes that of the ELF file found for it (so
 * that pprof can match the file too).
 * C++ and Rust names from symbol tables are demangled with libiberty's
 * cplus_demangle (as binutils and perf do) unless --no-demangle. Frames
 * that already have a name are left as they are. Cost grows with the
 * distinct frames, not the samples.
 */
#ifndef PC_SYMBOLIZE_H
#define PC_SYMBOLIZE_H

#include "base/ctx.h"
#include "model/model.h"

/* True when ctx asks for symbolization (--symbols or --kallsyms). */
bool pc_symbolize_wanted(const struct pc_ctx *ctx);

/*
 * Replaces the finalized *m with a finalized copy whose unnamed frames have
 * the names found (one warning per binary that is missing or refused); 0,
 * or -1 with ctx->err set (llvm-symbolizer failed, or --strict and a
 * warning).
 */
int pc_symbolize(struct pc_ctx *ctx, struct pc_model **m);

/*
 * Prints, per module with unnamed frames, the file --symbols found for it
 * (or "not found") and how many of its addresses it names: the view of
 * `profconv info --symbols`. 0, or -1 with ctx->err set.
 */
int pc_symbolize_report(struct pc_ctx *ctx, const struct pc_model *m, FILE *out);

#endif
