/*
 * spt_halves.h - the SPT reader's two-halves path (spt_reader.c,
 * decode_in_parallel: a regular file of 4 MiB or more, read with two
 * threads, is decoded as two ranges at once) against the sequential read
 * of the same file (one thread), for fuzz_spt.c and fuzz_spt_halves.c.
 */
#ifndef PC_FUZZ_SPT_HALVES_H
#define PC_FUZZ_SPT_HALVES_H

#include "model/format.h"

/* spt_reader.c's PARALLEL_MIN_BYTES: smaller files are read sequentially. */
#define FUZZ_SPT_HALVES_MIN_BYTES ((size_t)4 << 20)

/*
 * Writes size bytes at data to a file and reads it as SPT twice, with two
 * threads and with one. Aborts unless both reads succeed or fail alike:
 * the same error (message and offset), the same warnings (texts and
 * counts) and, on success, the same model (its dump, byte for byte).
 */
void fuzz_spt_check_halves(const uint8_t *data, size_t size);

#endif
