/*
 * fuzz_spt_halves.c - libFuzzer target for the SPT reader's two-halves
 * path (built by `make fuzz-build`, run by `make fuzz`; seeds: the spt
 * target's, tests/fuzz/corpus/spt/).
 *
 * The reader decodes a regular file of 4 MiB or more as two ranges on two
 * threads (spt_reader.c, decode_in_parallel), cut at the first segment
 * boundary after the middle of the events (at most 16384 segments from
 * the start), and must give what a sequential read gives. Mutating 4 MiB
 * inputs is slow, so an input is a small SPT file that is blown up: after
 * it comes a 4 MiB segment of program id 0 holding LBR records of 255
 * branches 0 -> 0 (2054 records, one distinct: cheap to count), then the
 * input's event stream again (from
 * the offset its header gives: the program-id table's offset plus its
 * capacity times 24). The cut falls after the filler, so each half holds
 * the fuzzed records: counts that overflow only together (the sequential
 * fallback), malformed segments on either side, LBR and call-stack
 * records merged across halves. The file is read with two threads and
 * with one (fuzz_check_halves): the same error and warnings, or the
 * same model.
 */
#include "support/halves.h"
#include "base/pc.h"
#include "formats/spt.h"

extern const struct pc_reader pc_spt_reader;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* LBR records of 255 branches 0 -> 0: few records, one distinct */
#define FILLER_RECORD_BYTES (SPT_DATA_HEADER_SIZE + SPT_MAX_ITEMS * SPT_LBR_PAIR_SIZE)
#define FILLER_BYTES (FUZZ_HALVES_MIN_BYTES / FILLER_RECORD_BYTES * FILLER_RECORD_BYTES + \
		      FILLER_RECORD_BYTES)

/* Where the header says the events start; 0 when there is no header. */
static uint64_t events_offset(const uint8_t *data, size_t size)
{
	if (size < SPT_HEADER_SIZE)
		return 0;
	return (uint64_t)pc_le32(data + SPT_OFF_PROGID_OFFSET) +
	       (uint64_t)pc_le16(data + SPT_OFF_PROGID_CAPACITY) * SPT_PROGID_SIZE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t start = events_offset(data, size);
	size_t events, total, at;
	uint8_t *file;

	if (!start || start >= size || size >= FUZZ_HALVES_MIN_BYTES)
		return 0;
	events = size - (size_t)start;
	total = size + SPT_BINARY_ID_SIZE + FILLER_BYTES + events;
	file = calloc(1, total);
	if (!file)
		abort();
	memcpy(file, data, size);
	at = size;
	file[at] = SPT_OP_BINARY_ID; /* program id 0, records of N = 0 */
	pc_put_le(file + at + SPT_BINARY_ID_OFF_LENGTH,
		  SPT_BINARY_ID_SIZE - SPT_BINARY_ID_OFF_LENGTH + FILLER_BYTES, 4);
	at += SPT_BINARY_ID_SIZE;
	for (size_t i = 0; i < FILLER_BYTES; i += FILLER_RECORD_BYTES) {
		file[at + i] = SPT_OP_LBR;
		file[at + i + 1] = SPT_MAX_ITEMS;
	}
	memcpy(file + at + FILLER_BYTES, data + start, events);
	fuzz_check_halves(&pc_spt_reader, file, total);
	free(file);
	return 0;
}
