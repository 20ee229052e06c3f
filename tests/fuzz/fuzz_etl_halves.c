/*
 * fuzz_etl_halves.c - libFuzzer target for the ETL reader's two-ranges
 * path (built by `make fuzz-build`, run by `make fuzz`; seeds: the etl
 * target's, tests/fuzz/corpus/etl/).
 *
 * The reader reads a regular file of 4 MiB or more as two ranges on two
 * threads (etl_reader.c, read_in_parallel), cut at the first buffer at or
 * after the middle of the file, found by hopping over the buffers by their
 * sizes from a plain header buffer; the second range's samples, stacks and
 * key definitions are collected on its thread and its other events are
 * handled after the first range's. It must give what a sequential read
 * gives. Mutating 4 MiB inputs is slow, so an input is a small trace that
 * is blown up: the input, then 4 MiB of empty buffers (no events: cheap to
 * read), then the input again. Each range holds fuzzed buffers: stack keys
 * referenced in one range and defined in the other, images, processes and
 * threads of both, malformed buffers on either side (the first range's
 * error wins, as in a sequential read). When the input's last byte is
 * even, the filler is 64 KiB buffers and the cut falls among them; when it
 * is odd, the filler is one buffer and the cut falls at the second copy of
 * the input, whose first buffer (a header buffer, or a malformed one)
 * starts the second range. The file is read with two threads and with one
 * (fuzz_check_halves): the same error and warnings, or the same model.
 */
#include "support/halves.h"
#include "base/pc.h"

extern const struct pc_reader pc_etl_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILLER_BUFFER_BYTES ((size_t)64 << 10)
#define FILLER_BYTES (FUZZ_HALVES_MIN_BYTES + FILLER_BUFFER_BYTES)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t total = 2 * size + FILLER_BYTES, buffer;
	uint8_t *file;

	if (size >= FUZZ_HALVES_MIN_BYTES)
		return 0;
	file = calloc(1, total);
	if (!file)
		abort();
	memcpy(file, data, size);
	buffer = size && (data[size - 1] & 1) ? FILLER_BYTES : FILLER_BUFFER_BYTES;
	for (size_t at = size; at < size + FILLER_BYTES; at += buffer) {
		pc_put_le(file + at, buffer, 4);       /* BufferSize */
		pc_put_le(file + at + 0x30, 0x48, 4); /* filled: the header alone */
	}
	memcpy(file + size + FILLER_BYTES, data, size);
	fuzz_check_halves(&pc_etl_reader, file, total);
	free(file);
	return 0;
}
