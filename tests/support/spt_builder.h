/*
 * spt_builder.h - builds SPT files in memory for tests: a compact layout
 * (string table right after the header, capacity = bytes used unless set;
 * program-id table right after it, capacity = programs unless set; events
 * after that), so that tests know every offset. Malformed files are made
 * by patching the built bytes with sptb_poke16/32.
 */
#ifndef TESTS_SPT_BUILDER_H
#define TESTS_SPT_BUILDER_H

#include "base/pc.h"
#include "formats/spt.h"

struct sptb {
	uint8_t strtab[4096];
	size_t strtab_used;
	uint8_t progids[64 * SPT_PROGID_SIZE];
	size_t nprogids;
	uint8_t *events;
	size_t nevents, events_cap;
	size_t segment_length_at; /* into events; SIZE_MAX when none is open */
	size_t strtab_capacity;   /* 0 = the bytes used */
	size_t progid_capacity;   /* 0 = the programs */
	bool text_signature;

	uint8_t *image; /* the last sptb_build result */
	size_t size;
};

void sptb_init(struct sptb *b);
void sptb_release(struct sptb *b);

/* guid as "{XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}". */
void sptb_program(struct sptb *b, const char *guid, uint32_t age, const char *name);
/* A BINARY_ID; its length is filled in by the next segment or by build. */
void sptb_segment(struct sptb *b, unsigned progid);
/* A BINARY_ID with a given length (not filled in later). */
void sptb_segment_length(struct sptb *b, unsigned progid, uint32_t length);
void sptb_repeat(struct sptb *b, uint64_t repeat);
/* IP or call-stack record (op) of n RVAs. */
void sptb_rvas(struct sptb *b, unsigned op, size_t n, const uint32_t *rvas);
/* LBR record of n (from, to) pairs given as from0, to0, from1, to1, ... */
void sptb_lbr(struct sptb *b, size_t n, const uint32_t *from_to);
void sptb_raw(struct sptb *b, const void *bytes, size_t n);

/* Offset in the file where the next event will go. */
uint64_t sptb_offset(const struct sptb *b);
uint64_t sptb_events_offset(const struct sptb *b);
uint64_t sptb_progid_offset(const struct sptb *b);

/* Lays the file out into b->image / b->size (owned by b). */
const uint8_t *sptb_build(struct sptb *b);

void sptb_poke16(uint8_t *p, unsigned value);
void sptb_poke32(uint8_t *p, uint32_t value);

#endif
