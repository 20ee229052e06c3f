/*
 * convert.h - what the conversion fuzz targets (fuzz_write.c, fuzz_merge.c,
 * fuzz_options.c, fuzz_spt_halves.c) share: a reader picked by a byte, the
 * options of a format switched on by bits with values from fixed tables,
 * a read and a write as the pipeline does them (pipeline/convert.h:
 * detection, filters, stacks rebuilt from caller/callee data, the parts a
 * writer needs).
 */
#ifndef PC_FUZZ_CONVERT_H
#define PC_FUZZ_CONVERT_H

#include "model/format.h"

/* The number of readers, and the one a byte picks (NULL: detected). */
size_t fuzz_nreaders(void);
const struct pc_reader *fuzz_pick_reader(uint8_t byte);

/*
 * The ELF file with DWARF that --binary names for the writers that need
 * one: build/fuzz/hotpath beside the fuzz target (the Makefile builds it
 * from samples/autofdo/hotpath.c), else the target itself.
 */
const char *fuzz_binary_path(void);

/*
 * Sets the options of writer (its descriptor's first eight) whose bit is
 * set in bits; a text, count or address takes a value from a small table
 * (the binary, names, sizes, limits, bad values), the choice-th onward.
 * A value the option refuses must be refused with a message; it is then
 * left out. --max-samples is 4096 unless a bit sets it.
 */
void fuzz_set_writer_options(struct pc_ctx *ctx, const struct pc_writer *writer, uint8_t bits,
			     uint8_t choice);

/*
 * Reads size bytes at data (as a file, or as a pipe with unknown_size)
 * with reader (NULL: detected) into a new finalized model; NULL when the
 * read fails, which must say why (a status and a message, on one line).
 */
struct pc_model *fuzz_read_model(struct pc_ctx *ctx, const struct pc_reader *reader,
				 const uint8_t *data, size_t size, bool unknown_size);

/*
 * Writes m with writer as the pipeline does (filters, reconstructed
 * stacks, parts); 0 with the output in *text (the caller frees it), or -1
 * with a message (any other failure aborts).
 */
int fuzz_write_model(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m,
		     char **text, size_t *size);

/*
 * A file of this process that holds size bytes at data, as a path
 * ("/proc/self/fd/N": the file is unlinked from the start, so nothing is
 * left behind); slot (0 to 3) picks one of four such files. Aborts when
 * it cannot be made.
 */
const char *fuzz_temp_file(unsigned slot, const void *data, size_t size);

/* The sum of column c over m's samples, saturating at UINT64_MAX. */
uint64_t fuzz_column_total(const struct pc_model *m, size_t c);

#endif
