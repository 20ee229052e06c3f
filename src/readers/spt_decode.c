/*
 * spt_decode.c - the SPT header, tables and record decoder (spt_decode.h);
 * see spt_reader.c for the format's sources and what maps where.
 */
#include "readers/spt_decode.h"
#include "base/error.h"
#include "base/seqs.h"

#include <stdlib.h>
#include <string.h>

#define FORMAT "spt"
#define WINDOW_BYTES (64u * 1024)
#define MAX_RECORD_BYTES (SPT_DATA_HEADER_SIZE + SPT_MAX_ITEMS * SPT_LBR_PAIR_SIZE)

/* spt_decode_events relies on a whole record fitting in one window. */
_Static_assert(WINDOW_BYTES > MAX_RECORD_BYTES, "the window holds any record");

/* --- header and tables --- */

bool spt_signature_is_le(const uint8_t *p)
{
	return pc_le32(p) == SPT_SIGNATURE;
}

bool spt_signature_is_text(const uint8_t *p)
{
	return !memcmp(p, SPT_SIGNATURE_TEXT, 4);
}

int spt_read_header(struct pc_ctx *ctx, struct pc_input *in,
		       struct spt_header *hdr)
{
	const uint8_t *p;
	size_t have = pc_input_fill(in, SPT_HEADER_SIZE, &p);

	if (pc_input_check_io(in, &ctx->err))
		return -1;
	if (have < SPT_HEADER_SIZE)
		return pc_fail_at(&ctx->err, FORMAT, 0,
				  "truncated header: expected %u bytes, found %zu",
				  SPT_HEADER_SIZE, have);
	if (!spt_signature_is_le(p) && !spt_signature_is_text(p))
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_SIGNATURE,
				  "bad signature %02x %02x %02x %02x (expected the bytes "
				  "3a 54 50 53, i.e. the little-endian value 0x5350543a, "
				  "or the text \"SPT:\")", p[0], p[1], p[2], p[3]);
	*hdr = (struct spt_header){
		.signature = pc_le32(p + SPT_OFF_SIGNATURE),
		.text_signature = spt_signature_is_text(p),
		.version = pc_le32(p + SPT_OFF_VERSION),
		.raw_data_id = pc_le32(p + SPT_OFF_RAW_DATA_ID),
		.target_arch = pc_le32(p + SPT_OFF_TARGET_ARCH),
		.strtab_offset = pc_le32(p + SPT_OFF_STRTAB_OFFSET),
		.progid_offset = pc_le32(p + SPT_OFF_PROGID_OFFSET),
		.strtab_used = pc_le16(p + SPT_OFF_STRTAB_USED),
		.strtab_capacity = pc_le16(p + SPT_OFF_STRTAB_CAPACITY),
		.progids_used = pc_le16(p + SPT_OFF_PROGIDS_USED),
		.progid_capacity = pc_le16(p + SPT_OFF_PROGID_CAPACITY),
	};
	hdr->events_offset = (uint64_t)hdr->progid_offset +
			     (uint64_t)hdr->progid_capacity * SPT_PROGID_SIZE;
	pc_input_consume(in, SPT_HEADER_SIZE);
	return 0;
}

static bool past_end(uint64_t size, uint64_t end)
{
	return size != PC_SIZE_UNKNOWN && end > size;
}

static int check_strtab_layout(struct pc_ctx *ctx, const struct spt_header *hdr,
			       uint64_t size)
{
	uint64_t end = (uint64_t)hdr->strtab_offset + hdr->strtab_capacity;

	if (hdr->strtab_offset < SPT_HEADER_SIZE)
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_STRTAB_OFFSET,
				  "string table offset 0x%x overlaps the header "
				  "(expected at least 0x%x)", hdr->strtab_offset,
				  SPT_HEADER_SIZE);
	if (past_end(size, hdr->strtab_offset))
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_STRTAB_OFFSET,
				  "string table offset 0x%x is past the end of the file "
				  "(0x%llx bytes)", hdr->strtab_offset,
				  (unsigned long long)size);
	if (past_end(size, end))
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_STRTAB_CAPACITY,
				  "string table capacity 0x%x at 0x%x ends at 0x%llx, past "
				  "the end of the file (0x%llx bytes)", hdr->strtab_capacity,
				  hdr->strtab_offset, (unsigned long long)end,
				  (unsigned long long)size);
	if (hdr->strtab_used > hdr->strtab_capacity)
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_STRTAB_USED,
				  "string table used size 0x%x exceeds its capacity 0x%x",
				  hdr->strtab_used, hdr->strtab_capacity);
	if (hdr->progid_offset < end)
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_PROGID_OFFSET,
				  "program-id table offset 0x%x is inside the string table "
				  "(expected at least 0x%llx, where the string table ends)",
				  hdr->progid_offset, (unsigned long long)end);
	return 0;
}

static int check_progid_layout(struct pc_ctx *ctx, const struct spt_header *hdr,
			       uint64_t size)
{
	if (past_end(size, hdr->progid_offset))
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_PROGID_OFFSET,
				  "program-id table offset 0x%x is past the end of the file "
				  "(0x%llx bytes)", hdr->progid_offset,
				  (unsigned long long)size);
	if (past_end(size, hdr->events_offset))
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_PROGID_CAPACITY,
				  "program-id table of capacity %u (x %u bytes) at 0x%x "
				  "ends at 0x%llx, past the end of the file (0x%llx bytes)",
				  hdr->progid_capacity, SPT_PROGID_SIZE, hdr->progid_offset,
				  (unsigned long long)hdr->events_offset,
				  (unsigned long long)size);
	if (hdr->progids_used > hdr->progid_capacity)
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_PROGIDS_USED,
				  "program ids used %u exceeds the capacity %u",
				  hdr->progids_used, hdr->progid_capacity);
	return 0;
}

static int check_version(struct pc_ctx *ctx, const struct spt_header *hdr)
{
	if (hdr->version != SPT_VERSION)
		return pc_fail_at(&ctx->err, FORMAT, SPT_OFF_VERSION,
				  "unsupported version %u (expected %u)", hdr->version,
				  SPT_VERSION);
	return 0;
}

/* Makes len bytes at offset (>= the current one) readable at *data. */
static int read_at(struct pc_ctx *ctx, struct pc_input *in, uint64_t offset,
		   size_t len, const char *what, const uint8_t **data)
{
	size_t have = 0;

	if (pc_input_skip_to(in, offset))
		have = pc_input_fill(in, len, data);
	if (pc_input_check_io(in, &ctx->err))
		return -1;
	if (have < len)
		return pc_fail_at(&ctx->err, FORMAT, pc_input_offset(in) + have,
				  "truncated file: expected %s at 0x%llx-0x%llx, the "
				  "input ends at 0x%llx", what, (unsigned long long)offset,
				  (unsigned long long)(offset + len),
				  (unsigned long long)(pc_input_offset(in) + have));
	return 0;
}

static int read_strtab(struct pc_ctx *ctx, struct pc_input *in,
		       struct spt_file *file)
{
	const uint8_t *p;

	if (read_at(ctx, in, file->hdr.strtab_offset, file->hdr.strtab_used,
		    "the string table", &p))
		return -1;
	file->strtab = pc_xmalloc(file->hdr.strtab_used + 1u);
	memcpy(file->strtab, p, file->hdr.strtab_used);
	file->strtab[file->hdr.strtab_used] = '\0';
	pc_input_consume(in, file->hdr.strtab_used);
	return 0;
}

static int resolve_name(struct pc_ctx *ctx, const struct spt_file *file,
			unsigned id, struct spt_progid *prog)
{
	const struct spt_header *hdr = &file->hdr;
	uint64_t entry = hdr->progid_offset + (uint64_t)id * SPT_PROGID_SIZE;
	const uint8_t *nul;

	if (prog->name_index >= hdr->strtab_used)
		return pc_fail_at(&ctx->err, FORMAT, entry + SPT_PROGID_OFF_NAME,
				  "program id %u: string index 0x%x is out of range "
				  "(expected less than 0x%x, the used string table bytes)",
				  id, prog->name_index, hdr->strtab_used);
	nul = memchr(file->strtab + prog->name_index, '\0',
		     hdr->strtab_used - prog->name_index);
	if (!nul)
		return pc_fail_at(&ctx->err, FORMAT,
				  (uint64_t)hdr->strtab_offset + prog->name_index,
				  "program id %u: the name at string index 0x%x is not "
				  "NUL-terminated within the 0x%x used bytes of the string "
				  "table", id, prog->name_index, hdr->strtab_used);
	prog->name = (const char *)file->strtab + prog->name_index;
	prog->name_len = (size_t)(nul - (file->strtab + prog->name_index));
	return 0;
}

static int read_progids(struct pc_ctx *ctx, struct pc_input *in,
			struct spt_file *file)
{
	size_t used = file->hdr.progids_used, bytes = used * SPT_PROGID_SIZE;
	const uint8_t *p;

	if (read_at(ctx, in, file->hdr.progid_offset, bytes,
		    "the program-id table", &p))
		return -1;
	file->progids = pc_xcalloc(used, sizeof(*file->progids));
	for (size_t i = 0; i < used; i++) {
		const uint8_t *entry = p + i * SPT_PROGID_SIZE;
		struct spt_progid *prog = &file->progids[i];

		prog->data1 = pc_le32(entry);
		prog->data2 = pc_le16(entry + 4);
		prog->data3 = pc_le16(entry + 6);
		memcpy(prog->data4, entry + 8, sizeof(prog->data4));
		prog->age = pc_le32(entry + SPT_PROGID_OFF_AGE);
		prog->name_index = pc_le32(entry + SPT_PROGID_OFF_NAME);
	}
	pc_input_consume(in, bytes);
	for (size_t i = 0; i < used; i++)
		if (resolve_name(ctx, file, (unsigned)i, &file->progids[i]))
			return -1;
	return 0;
}

/* Checks the layout against the file and reads both tables. */
int spt_read_tables(struct pc_ctx *ctx, struct pc_input *in,
		       struct spt_file *file)
{
	if (check_version(ctx, &file->hdr) ||
	    check_strtab_layout(ctx, &file->hdr, in->size) ||
	    check_progid_layout(ctx, &file->hdr, in->size) ||
	    read_strtab(ctx, in, file) || read_progids(ctx, in, file))
		return -1;
	if (!pc_input_skip_to(in, file->hdr.events_offset)) {
		if (pc_input_check_io(in, &ctx->err))
			return -1;
		return pc_fail_at(&ctx->err, FORMAT, pc_input_offset(in),
				  "truncated file: expected the program-id table to end "
				  "and the events to start at 0x%llx, the input ends at 0x%llx",
				  (unsigned long long)file->hdr.events_offset,
				  (unsigned long long)pc_input_offset(in));
	}
	return 0;
}

void spt_file_release(struct spt_file *file)
{
	free(file->strtab);
	free(file->progids);
	file->strtab = NULL;
	file->progids = NULL;
}

/* --- the record decoder, shared by read and info --- */

/*
 * A warning that --strict turns into an error: pc_warn then set an error
 * without a place; give it this record's offset.
 */
static int strict_at(struct spt_decoder *d, int warned, uint64_t offset)
{
	char message[sizeof(d->ctx->err.message)];

	if (!warned)
		return 0;
	memcpy(message, d->ctx->err.message, sizeof(message));
	return pc_fail_at(&d->ctx->err, FORMAT, offset, "%s", message);
}

static int end_segment(struct spt_decoder *d)
{
	d->in_segment = false;
	if (!d->have_repeat)
		return 0;
	d->have_repeat = false;
	return strict_at(d, pc_warn(d->ctx, FORMAT,
				    "REPEAT at 0x%llx is left dangling at the end of its "
				    "segment (0x%llx); ignored",
				    (unsigned long long)d->repeat_offset,
				    (unsigned long long)d->segment_end),
			 d->repeat_offset);
}

static int fail_outside_segment(struct spt_decoder *d, unsigned op, uint64_t offset)
{
	if (!d->had_segment)
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "%s record (0x%02x) before any BINARY_ID (expected a "
				  "BINARY_ID record, 0x81, to start the events)",
				  spt_op_name(op), op);
	return pc_fail_at(&d->ctx->err, FORMAT, offset,
			  "%s record (0x%02x) after the segment that ended at 0x%llx "
			  "(expected a BINARY_ID record, 0x81, to start the next one)",
			  spt_op_name(op), op, (unsigned long long)d->segment_end);
}

static int fail_crossing(struct spt_decoder *d, unsigned op, uint64_t offset,
			 size_t size)
{
	return pc_fail_at(&d->ctx->err, FORMAT, offset,
			  "%s record of %zu bytes crosses the end of its segment at "
			  "0x%llx (%llu bytes left in the segment)", spt_op_name(op),
			  size, (unsigned long long)d->segment_end,
			  (unsigned long long)(d->segment_end - offset));
}

static int fail_truncated(struct spt_decoder *d, unsigned op, uint64_t offset,
			  size_t size, size_t have)
{
	return pc_fail_at(&d->ctx->err, FORMAT, offset,
			  "truncated %s record: expected %zu bytes, the input ends "
			  "after %zu", spt_op_name(op), size, have);
}

/*
 * Each decode_* function sees avail bytes at p (the record starts at
 * offset) and at_end tells whether the input ends after them. It returns
 * the record's size, 0 when it needs more bytes than avail (only when
 * !at_end), or -1 on error.
 */
static long decode_binary_id(struct spt_decoder *d, const uint8_t *p, size_t avail,
			     uint64_t offset, bool at_end)
{
	const struct spt_header *hdr = &d->file->hdr;
	struct spt_record rec = { .offset = offset, .op = SPT_OP_BINARY_ID,
				  .kind = SPT_KIND_NONE };

	if (d->in_segment)
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "BINARY_ID record inside the segment of program id %u "
				  "that starts at 0x%llx and ends at 0x%llx (expected a "
				  "data or REPEAT record; segments do not nest)", d->progid,
				  (unsigned long long)d->segment_offset,
				  (unsigned long long)d->segment_end);
	if (avail < SPT_BINARY_ID_SIZE)
		return at_end ? fail_truncated(d, SPT_OP_BINARY_ID, offset,
					       SPT_BINARY_ID_SIZE, avail) : 0;
	rec.progid = pc_le16(p + SPT_BINARY_ID_OFF_PROGID);
	rec.length = pc_le32(p + SPT_BINARY_ID_OFF_LENGTH);
	rec.end = offset + SPT_BINARY_ID_OFF_LENGTH + rec.length;
	if (rec.progid >= hdr->progids_used)
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "BINARY_ID program id %u is out of range (expected less "
				  "than %u, the program ids used)", rec.progid,
				  hdr->progids_used);
	if (rec.length < 4)
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "BINARY_ID segment length %u is too small (expected at "
				  "least 4: the length counts its own 4 bytes)", rec.length);
	if (past_end(d->in->size, rec.end))
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "BINARY_ID segment of program id %u (length 0x%x) ends at "
				  "0x%llx, past the end of the file (0x%llx bytes)",
				  rec.progid, rec.length, (unsigned long long)rec.end,
				  (unsigned long long)d->in->size);
	d->in_segment = d->had_segment = true;
	d->progid = rec.progid;
	d->segment_offset = offset;
	d->segment_end = rec.end;
	if (d->emit(d->data, &rec))
		return -1;
	return SPT_BINARY_ID_SIZE;
}

static long decode_repeat(struct spt_decoder *d, const uint8_t *p, size_t avail,
			  uint64_t offset, bool at_end)
{
	struct spt_record rec = { .offset = offset, .op = SPT_OP_REPEAT,
				  .kind = SPT_KIND_NONE, .progid = d->progid };

	if (!d->in_segment)
		return fail_outside_segment(d, SPT_OP_REPEAT, offset);
	if (offset + SPT_REPEAT_SIZE > d->segment_end)
		return fail_crossing(d, SPT_OP_REPEAT, offset, SPT_REPEAT_SIZE);
	if (avail < SPT_REPEAT_SIZE)
		return at_end ? fail_truncated(d, SPT_OP_REPEAT, offset,
					       SPT_REPEAT_SIZE, avail) : 0;
	rec.repeat = pc_le64(p + SPT_REPEAT_OFF_COUNT);
	if (d->have_repeat &&
	    strict_at(d, pc_warn(d->ctx, FORMAT,
				 "REPEAT at 0x%llx is followed by the REPEAT at 0x%llx, "
				 "which replaces it", (unsigned long long)d->repeat_offset,
				 (unsigned long long)offset), offset))
		return -1;
	d->have_repeat = true;
	d->repeat = rec.repeat;
	d->repeat_offset = offset;
	if (d->emit(d->data, &rec))
		return -1;
	return SPT_REPEAT_SIZE;
}

static int take_count(struct spt_decoder *d, struct spt_record *rec)
{
	rec->repeat = d->have_repeat ? d->repeat : 0;
	d->have_repeat = false;
	if (rec->repeat >= PC_COUNT_MAX)
		return pc_fail_at(&d->ctx->err, FORMAT, rec->offset,
				  "count overflow: the REPEAT at 0x%llx (repeat %llu) makes "
				  "this %s record count 1 + repeat times, past INT64_MAX "
				  "(expected a repeat below %llu)",
				  (unsigned long long)d->repeat_offset,
				  (unsigned long long)rec->repeat, spt_op_name(rec->op),
				  (unsigned long long)PC_COUNT_MAX);
	rec->count = rec->repeat + 1;
	return 0;
}

static long decode_data(struct spt_decoder *d, unsigned op, const uint8_t *p,
			size_t avail, uint64_t offset, bool at_end)
{
	struct spt_record rec = { .offset = offset, .op = op,
				  .kind = spt_op_kind(op), .progid = d->progid };
	size_t size;

	if (!d->in_segment)
		return fail_outside_segment(d, op, offset);
	if (offset + SPT_DATA_HEADER_SIZE > d->segment_end)
		return fail_crossing(d, op, offset, SPT_DATA_HEADER_SIZE);
	if (avail < SPT_DATA_HEADER_SIZE)
		return at_end ? fail_truncated(d, op, offset, SPT_DATA_HEADER_SIZE,
					       avail) : 0;
	rec.n = p[1];
	size = SPT_DATA_HEADER_SIZE + (size_t)rec.n * spt_item_size(op);
	if (offset + size > d->segment_end)
		return fail_crossing(d, op, offset, size);
	if (avail < size)
		return at_end ? fail_truncated(d, op, offset, size, avail) : 0;
	rec.items = p + SPT_DATA_HEADER_SIZE;
	if (take_count(d, &rec) || d->emit(d->data, &rec))
		return -1;
	return (long)size;
}

static long decode_record(struct spt_decoder *d, const uint8_t *p, size_t avail,
			  uint64_t offset, bool at_end)
{
	unsigned op = p[0];

	if (spt_op_kind(op) != SPT_KIND_NONE)
		return decode_data(d, op, p, avail, offset, at_end);
	if (op == SPT_OP_REPEAT)
		return decode_repeat(d, p, avail, offset, at_end);
	if (op == SPT_OP_BINARY_ID)
		return decode_binary_id(d, p, avail, offset, at_end);
	return pc_fail_at(&d->ctx->err, FORMAT, offset,
			  "unknown opcode 0x%02x (expected a record opcode: 0x01-0x05, "
			  "0x10, 0x41, 0x42, 0x81, 0x82)", op);
}

static int finish_events(struct spt_decoder *d, uint64_t offset)
{
	if (d->in_segment && offset < d->segment_end)
		return pc_fail_at(&d->ctx->err, FORMAT, offset,
				  "truncated segment: the segment of program id %u that "
				  "starts at 0x%llx ends at 0x%llx, the input ends at 0x%llx",
				  d->progid, (unsigned long long)d->segment_offset,
				  (unsigned long long)d->segment_end,
				  (unsigned long long)offset);
	return d->in_segment ? end_segment(d) : 0;
}

int spt_decode_events(struct spt_decoder *d)
{
	for (;;) {
		const uint8_t *p;
		size_t have = pc_input_fill(d->in, WINDOW_BYTES, &p), pos = 0;
		uint64_t base = pc_input_offset(d->in);
		bool at_end = have < WINDOW_BYTES;

		if (pc_input_check_io(d->in, &d->ctx->err))
			return -1;
		if (!have)
			return finish_events(d, base);
		while (pos < have) {
			long size;

			if (d->in_segment && base + pos == d->segment_end &&
			    end_segment(d))
				return -1;
			size = decode_record(d, p + pos, have - pos, base + pos, at_end);
			if (size < 0)
				return -1;
			if (!size)
				break;
			pos += (size_t)size;
			d->records++;
		}
		pc_input_consume(d->in, pos);
	}
}
