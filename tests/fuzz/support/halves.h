/*
 * halves.h - a reader's two-halves path against its sequential read of the
 * same file: the SPT reader (spt_reader.c, decode_in_parallel), the ETL
 * reader (etl_reader.c, read_in_parallel) and the perf script reader
 * (perf_script_split.c) read a regular file of 4 MiB or more with two
 * threads as two ranges at once. For fuzz_spt.c, fuzz_spt_halves.c,
 * fuzz_etl_halves.c and fuzz_perf_halves.c; and a reader's option that
 * must not change what it reads (fuzz_etl_stream.c).
 */
#ifndef PC_FUZZ_HALVES_H
#define PC_FUZZ_HALVES_H

#include "model/format.h"

/* The SPT and ETL readers' PARALLEL_MIN_BYTES: smaller files are read sequentially. */
#define FUZZ_HALVES_MIN_BYTES ((size_t)4 << 20)

/*
 * Writes size bytes at data to a file and reads it with reader twice, with
 * two threads and with one. Aborts unless both reads succeed or fail alike:
 * the same error (message and offset), the same warnings (texts and
 * counts) and, on success, the same model (its dump, byte for byte).
 */
void fuzz_check_halves(const struct pc_reader *reader, const uint8_t *data, size_t size);
/*
 * Writes size bytes at data to a file and reads it with reader three
 * times: as it is (two threads), and with option name=value on two threads
 * and on one. Aborts unless all three read alike (as fuzz_check_halves).
 */
void fuzz_check_option(const struct pc_reader *reader, const uint8_t *data, size_t size,
		       const char *name, const char *value);

#endif
