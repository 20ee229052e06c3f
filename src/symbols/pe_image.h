/*
 * pe_image.h - what the symbolizer needs from a Windows PE file: its
 * preferred image base and size, and the CodeView (RSDS) record of its
 * debug directory: the PDB GUID and age that an SPT program id names.
 *
 * Source: the PE/COFF specification (optional header, data directory 6,
 * IMAGE_DEBUG_TYPE_CODEVIEW = 2, the "RSDS" record). Only the headers and
 * that record are read; every offset is checked against the file size.
 */
#ifndef PC_PE_IMAGE_H
#define PC_PE_IMAGE_H

#include "base/pc.h"

struct pc_pe_image {
	uint64_t image_base, image_size;
	bool has_codeview;
	uint8_t guid[16]; /* as stored: Data1-3 little-endian, Data4 bytes */
	uint32_t age;
};

/*
 * Parses the PE file in data[0..size); 0, or -1 with a message in err
 * ("not a PE file: ...") of err_size bytes.
 */
int pc_pe_image_parse(const uint8_t *data, size_t size, struct pc_pe_image *pe, char *err,
		      size_t err_size);
/* Reads the start of the file at path (its headers and debug record) and parses it. */
int pc_pe_image_read(const char *path, struct pc_pe_image *pe, char *err, size_t err_size);

#endif
