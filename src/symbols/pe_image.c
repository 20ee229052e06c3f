/* pe_image.c - a PE file's image base, size and CodeView record (pe_image.h). */
#include "symbols/pe_image.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DOS_LFANEW 0x3c
#define COFF_SIZE 20
#define OPT_MAGIC_PE32 0x10b
#define OPT_MAGIC_PE32PLUS 0x20b
#define DEBUG_DIRECTORY 6
#define DEBUG_ENTRY_SIZE 28
#define DEBUG_TYPE_CODEVIEW 2
#define SECTION_SIZE 40
#define RSDS_SIZE 24 /* "RSDS", GUID, age; the PDB path follows */
#define READ_LIMIT (16u << 20) /* the headers and debug record lie in the first 16 MB */

/* True when [offset, offset + len) lies in a buffer of size bytes. */
static bool within(size_t size, uint64_t offset, uint64_t len)
{
	return offset <= size && len <= size - offset;
}

static int fail(char *err, size_t err_size, const char *what)
{
	snprintf(err, err_size, "not a PE file: %s", what);
	return -1;
}

/* The file offset of an RVA, through the section table; false if in none. */
static bool rva_to_offset(const uint8_t *data, uint64_t sections, unsigned count,
			  uint32_t rva, uint64_t *offset)
{
	for (unsigned i = 0; i < count; i++) {
		const uint8_t *s = data + sections + (uint64_t)i * SECTION_SIZE;
		uint32_t vsize = pc_le32(s + 8), vaddr = pc_le32(s + 12);
		uint32_t raw_size = pc_le32(s + 16), raw = pc_le32(s + 20);
		uint32_t span = vsize > raw_size ? vsize : raw_size;

		if (rva >= vaddr && rva - vaddr < span) {
			*offset = (uint64_t)raw + (rva - vaddr);
			return true;
		}
	}
	return false;
}

static void read_codeview(const uint8_t *data, size_t size, uint64_t sections, unsigned count,
			  uint32_t dir_rva, uint32_t dir_size, struct pc_pe_image *pe)
{
	uint64_t dir;

	if (!dir_rva || !rva_to_offset(data, sections, count, dir_rva, &dir))
		return;
	for (uint32_t at = 0; at + DEBUG_ENTRY_SIZE <= dir_size; at += DEBUG_ENTRY_SIZE) {
		const uint8_t *entry;
		uint64_t raw;

		if (!within(size, dir + at, DEBUG_ENTRY_SIZE))
			return;
		entry = data + dir + at;
		if (pc_le32(entry + 12) != DEBUG_TYPE_CODEVIEW)
			continue;
		raw = pc_le32(entry + 24);
		if (!within(size, raw, RSDS_SIZE) || memcmp(data + raw, "RSDS", 4))
			continue;
		memcpy(pe->guid, data + raw + 4, sizeof(pe->guid));
		pe->age = pc_le32(data + raw + 20);
		pe->has_codeview = true;
		return;
	}
}

int pc_pe_image_parse(const uint8_t *data, size_t size, struct pc_pe_image *pe, char *err,
		      size_t err_size)
{
	uint64_t nt, opt, sections;
	unsigned nsections, opt_size, magic, ndirs;
	uint64_t dirs;

	memset(pe, 0, sizeof(*pe));
	if (!within(size, 0, DOS_LFANEW + 4) || data[0] != 'M' || data[1] != 'Z')
		return fail(err, err_size, "no MZ header");
	nt = pc_le32(data + DOS_LFANEW);
	if (!within(size, nt, 4 + COFF_SIZE) || memcmp(data + nt, "PE\0\0", 4))
		return fail(err, err_size, "no PE signature");
	nsections = pc_le16(data + nt + 4 + 2);
	opt_size = pc_le16(data + nt + 4 + 16);
	opt = nt + 4 + COFF_SIZE;
	sections = opt + opt_size;
	if (!within(size, opt, opt_size) || opt_size < 2 ||
	    !within(size, sections, (uint64_t)nsections * SECTION_SIZE))
		return fail(err, err_size, "truncated headers");
	magic = pc_le16(data + opt);
	if (magic == OPT_MAGIC_PE32PLUS && opt_size >= 112) {
		pe->image_base = pc_le64(data + opt + 24);
		ndirs = pc_le32(data + opt + 108);
		dirs = opt + 112;
	} else if (magic == OPT_MAGIC_PE32 && opt_size >= 96) {
		pe->image_base = pc_le32(data + opt + 28);
		ndirs = pc_le32(data + opt + 92);
		dirs = opt + 96;
	} else {
		return fail(err, err_size, "unknown optional header");
	}
	pe->image_size = pc_le32(data + opt + 56);
	if (ndirs > DEBUG_DIRECTORY && dirs + (DEBUG_DIRECTORY + 1) * 8 <= sections)
		read_codeview(data, size, sections, nsections,
			      pc_le32(data + dirs + DEBUG_DIRECTORY * 8),
			      pc_le32(data + dirs + DEBUG_DIRECTORY * 8 + 4), pe);
	return 0;
}

int pc_pe_image_read(const char *path, struct pc_pe_image *pe, char *err, size_t err_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *data;
	size_t size = 0, want;
	ssize_t got;
	int ret;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, err_size, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	want = st.st_size > 0 && (uint64_t)st.st_size < READ_LIMIT ? (size_t)st.st_size : READ_LIMIT;
	data = pc_xmalloc(want ? want : 1);
	while (size < want &&
	       ((got = read(fd, data + size, want - size)) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0)
			size += (size_t)got;
	close(fd);
	ret = pc_pe_image_parse(data, size, pe, err, err_size);
	free(data);
	return ret;
}
