/* spt_builder.c - SPT files in memory for tests (see spt_builder.h). */
#include "spt_builder.h"

void sptb_init(struct sptb *b)
{
	memset(b, 0, sizeof(*b));
	b->segment_length_at = SIZE_MAX;
}

void sptb_release(struct sptb *b)
{
	free(b->events);
	free(b->image);
	memset(b, 0, sizeof(*b));
}

void sptb_poke16(uint8_t *p, unsigned value)
{
	p[0] = (uint8_t)value;
	p[1] = (uint8_t)(value >> 8);
}

void sptb_poke32(uint8_t *p, uint32_t value)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(value >> (8 * i));
}

static void put(struct sptb *b, const void *bytes, size_t n)
{
	pc_grow(&b->events, &b->events_cap, b->nevents + n, 1);
	memcpy(b->events + b->nevents, bytes, n);
	b->nevents += n;
}

static void put8(struct sptb *b, unsigned v)
{
	uint8_t byte = (uint8_t)v;

	put(b, &byte, 1);
}

static void put32(struct sptb *b, uint32_t v)
{
	uint8_t bytes[4];

	sptb_poke32(bytes, v);
	put(b, bytes, 4);
}

static unsigned hex_byte(const char *s)
{
	unsigned value = 0;

	for (int i = 0; i < 2; i++) {
		char c = s[i];

		value = value << 4 | (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
	}
	return value;
}

void sptb_program(struct sptb *b, const char *guid, uint32_t age, const char *name)
{
	uint8_t *entry = b->progids + b->nprogids * SPT_PROGID_SIZE;
	size_t len = strlen(name);
	uint32_t data1 = 0;
	unsigned data2, data3;

	for (int i = 0; i < 4; i++)
		data1 = data1 << 8 | hex_byte(guid + 1 + 2 * i);
	data2 = hex_byte(guid + 10) << 8 | hex_byte(guid + 12);
	data3 = hex_byte(guid + 15) << 8 | hex_byte(guid + 17);
	sptb_poke32(entry, data1);
	sptb_poke16(entry + 4, data2);
	sptb_poke16(entry + 6, data3);
	entry[8] = (uint8_t)hex_byte(guid + 20);
	entry[9] = (uint8_t)hex_byte(guid + 22);
	for (int i = 0; i < 6; i++)
		entry[10 + i] = (uint8_t)hex_byte(guid + 25 + 2 * i);
	sptb_poke32(entry + SPT_PROGID_OFF_AGE, age);
	sptb_poke32(entry + SPT_PROGID_OFF_NAME, (uint32_t)b->strtab_used);
	memcpy(b->strtab + b->strtab_used, name, len + 1);
	b->strtab_used += len + 1;
	b->nprogids++;
}

static void close_segment(struct sptb *b)
{
	if (b->segment_length_at != SIZE_MAX)
		sptb_poke32(b->events + b->segment_length_at,
			    (uint32_t)(b->nevents - b->segment_length_at));
	b->segment_length_at = SIZE_MAX;
}

void sptb_segment_length(struct sptb *b, unsigned progid, uint32_t length)
{
	close_segment(b);
	put8(b, SPT_OP_BINARY_ID);
	put8(b, 0);
	put8(b, progid & 0xff);
	put8(b, progid >> 8);
	put32(b, length);
}

void sptb_segment(struct sptb *b, unsigned progid)
{
	sptb_segment_length(b, progid, 0);
	b->segment_length_at = b->nevents - 4;
}

void sptb_repeat(struct sptb *b, uint64_t repeat)
{
	put8(b, SPT_OP_REPEAT);
	put8(b, 0);
	put32(b, (uint32_t)repeat);
	put32(b, (uint32_t)(repeat >> 32));
}

void sptb_rvas(struct sptb *b, unsigned op, size_t n, const uint32_t *rvas)
{
	put8(b, op);
	put8(b, (unsigned)n);
	for (size_t i = 0; i < n; i++)
		put32(b, rvas[i]);
}

void sptb_lbr(struct sptb *b, size_t n, const uint32_t *from_to)
{
	put8(b, SPT_OP_LBR);
	put8(b, (unsigned)n);
	for (size_t i = 0; i < n; i++) {
		put32(b, from_to[2 * i + 1]);
		put32(b, from_to[2 * i]);
	}
}

void sptb_raw(struct sptb *b, const void *bytes, size_t n)
{
	put(b, bytes, n);
}

static size_t strtab_capacity(const struct sptb *b)
{
	return b->strtab_capacity ? b->strtab_capacity : b->strtab_used;
}

static size_t progid_capacity(const struct sptb *b)
{
	return b->progid_capacity ? b->progid_capacity : b->nprogids;
}

uint64_t sptb_progid_offset(const struct sptb *b)
{
	return SPT_HEADER_SIZE + strtab_capacity(b);
}

uint64_t sptb_events_offset(const struct sptb *b)
{
	return sptb_progid_offset(b) + progid_capacity(b) * SPT_PROGID_SIZE;
}

uint64_t sptb_offset(const struct sptb *b)
{
	return sptb_events_offset(b) + b->nevents;
}

const uint8_t *sptb_build(struct sptb *b)
{
	size_t events_at = (size_t)sptb_events_offset(b);
	uint8_t *image;

	close_segment(b);
	free(b->image);
	b->size = events_at + b->nevents;
	image = b->image = pc_xcalloc(1, b->size + 1);
	if (b->text_signature)
		memcpy(image, SPT_SIGNATURE_TEXT, 4);
	else
		sptb_poke32(image, SPT_SIGNATURE);
	sptb_poke32(image + SPT_OFF_VERSION, SPT_VERSION);
	sptb_poke32(image + SPT_OFF_STRTAB_OFFSET, SPT_HEADER_SIZE);
	sptb_poke32(image + SPT_OFF_PROGID_OFFSET, (uint32_t)sptb_progid_offset(b));
	sptb_poke16(image + SPT_OFF_STRTAB_USED, (unsigned)b->strtab_used);
	sptb_poke16(image + SPT_OFF_STRTAB_CAPACITY, (unsigned)strtab_capacity(b));
	sptb_poke16(image + SPT_OFF_PROGIDS_USED, (unsigned)b->nprogids);
	sptb_poke16(image + SPT_OFF_PROGID_CAPACITY, (unsigned)progid_capacity(b));
	memcpy(image + SPT_HEADER_SIZE, b->strtab, b->strtab_used);
	memcpy(image + sptb_progid_offset(b), b->progids, b->nprogids * SPT_PROGID_SIZE);
	if (b->nevents)
		memcpy(image + events_at, b->events, b->nevents);
	return image;
}
