/*
 * fuzz_perf_halves.c - libFuzzer target for the perf script reader's
 * two-halves path (built by `make fuzz-build`, run by `make fuzz`; seeds:
 * the perf_script target's, tests/fuzz/corpus/perf_script/).
 *
 * The reader reads a regular file of 4 MiB or more with callchains in two
 * halves on two threads (perf_script_split.c): the second half, after the
 * first's side records are applied to it, into a model of its own that is
 * then appended, unless it needed what the first half's lines set. The
 * fuzz build cuts every file of 64 bytes or more (PS_SPLIT_MIN_BYTES), so
 * the input is the file itself, cut at its first sample boundary past the
 * middle: mappings, task records, events, pids, Intel PT and brstack
 * entries, bad lines and counts near 2^63 fall on either side. The file is
 * read with two threads and with one (fuzz_check_halves): the same error
 * (message, line and column) and warnings, or the same model.
 */
#include "support/halves.h"
#include "base/pc.h"

extern const struct pc_reader pc_perf_script_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_check_halves(&pc_perf_script_reader, data, size);
	return 0;
}
