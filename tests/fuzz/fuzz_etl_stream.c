/*
 * fuzz_etl_stream.c - libFuzzer target for the ETL reader's stream
 * (etl_stream.c: --etl-stream-mib; built by `make fuzz-build`, run by
 * `make fuzz`; seeds: the etl target's, tests/fuzz/corpus/etl/).
 *
 * A trace file of --etl-stream-mib MiB or more is read as a stream: its
 * samples counted into groups as the trace goes, on a worker thread, and
 * the trace read again whole wherever the stream cannot show it gives the
 * whole read's result. It must give what the whole read gives. An input
 * is blown up to a file past 1 MiB (the option's least): the input, then
 * 1 MiB of empty 64 KiB buffers (no events: cheap to read). The fuzz build
 * makes a step of every 2 samples (ETL_STREAM_STEP_MIN, ETL_STREAM_STEP_BYTES
 * in the Makefile), so that samples are held back, retired late and
 * matched with fragments across steps. The file is read whole, and with
 * --etl-stream-mib 1 on two threads and on one (fuzz_check_option): the
 * same error and warnings, or the same model.
 */
#include "support/halves.h"
#include "base/pc.h"

extern const struct pc_reader pc_etl_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILLER_BUFFER_BYTES ((size_t)64 << 10)
#define FILLER_BYTES ((size_t)1 << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t total = size + FILLER_BYTES;
	uint8_t *file;

	if (size >= FILLER_BYTES)
		return 0;
	file = calloc(1, total);
	if (!file)
		abort();
	memcpy(file, data, size);
	for (size_t at = size; at < total; at += FILLER_BUFFER_BYTES) {
		pc_put_le(file + at, FILLER_BUFFER_BYTES, 4); /* BufferSize */
		pc_put_le(file + at + 0x30, 0x48, 4);         /* filled: the header alone */
	}
	fuzz_check_option(&pc_etl_reader, file, total, "etl-stream-mib", "1");
	free(file);
	return 0;
}
