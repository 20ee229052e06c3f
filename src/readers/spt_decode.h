/*
 * spt_decode.h - the SPT file's header, tables and record decoder, shared
 * by the SPT reader's read (spt_reader.c) and info views. The decoder
 * streams the events through struct pc_input and hands each record to a
 * callback; it checks the layout (segments, REPEAT, item counts) and
 * reports problems at their file offset.
 */
#ifndef PC_SPT_DECODE_H
#define PC_SPT_DECODE_H

#include "base/ctx.h"
#include "base/input.h"
#include "formats/spt.h"

#include <stdbool.h>
#include <stdint.h>

struct spt_header {
	uint32_t signature, version, raw_data_id, target_arch;
	uint32_t strtab_offset, progid_offset;
	uint16_t strtab_used, strtab_capacity, progids_used, progid_capacity;
	bool text_signature;
	uint64_t events_offset;
};

struct spt_progid {
	uint32_t data1;
	uint16_t data2, data3;
	uint8_t data4[8];
	uint32_t age, name_index;
	const char *name; /* into spt_file.strtab, NUL-terminated */
	size_t name_len;
};

struct spt_file {
	struct spt_header hdr;
	uint8_t *strtab; /* the used bytes of the string table */
	struct spt_progid *progids;
};

/* One decoded record, as the decoder hands it to its consumer. */
struct spt_record {
	uint64_t offset;
	unsigned op;
	enum spt_kind kind;   /* SPT_KIND_NONE for BINARY_ID and REPEAT */
	unsigned progid;      /* of the segment (or of the BINARY_ID) */
	unsigned n;           /* items of a data record */
	const uint8_t *items; /* n raw items (u32 RVA, or u32 to + u32 from) */
	uint64_t repeat;      /* data record: in effect; REPEAT: its value */
	uint64_t count;       /* data record: 1 + repeat */
	uint32_t length;      /* BINARY_ID: segment length (counts itself) */
	uint64_t end;         /* BINARY_ID: offset where the segment ends */
};

typedef int (*spt_record_fn)(void *data, const struct spt_record *rec);

struct spt_decoder {
	struct pc_ctx *ctx;
	struct pc_input *in;
	const struct spt_file *file;
	spt_record_fn emit;
	void *data;

	bool in_segment, had_segment;
	unsigned progid;
	uint64_t segment_offset, segment_end;
	bool have_repeat;
	uint64_t repeat, repeat_offset;
	uint64_t records;
};

bool spt_signature_is_le(const uint8_t *p);
bool spt_signature_is_text(const uint8_t *p);

/* Reads and checks the header at the start of in. */
int spt_read_header(struct pc_ctx *ctx, struct pc_input *in, struct spt_header *hdr);

/* Checks the layout against the file and reads both tables. */
int spt_read_tables(struct pc_ctx *ctx, struct pc_input *in, struct spt_file *file);

void spt_file_release(struct spt_file *file);

/*
 * Decodes the events from in's offset to its end, calling d->emit for
 * each record; 0, or -1 with d->ctx's error set (and the callback's
 * nonzero return passed on).
 */
int spt_decode_events(struct spt_decoder *d);

#endif
