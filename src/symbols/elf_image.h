/*
 * elf_image.h - what the symbolizer needs from an ELF file, through
 * elfutils' libelf: its build id (NT_GNU_BUILD_ID), its loadable segments
 * (to turn perf's file offsets into link-time addresses), its
 * .gnu_debuglink, and its function symbols (.symtab, else .dynsym).
 */
#ifndef PC_ELF_IMAGE_H
#define PC_ELF_IMAGE_H

#include "symbols/symtab.h"

struct pc_elf_load {
	uint64_t offset, vaddr, filesz;
};

struct pc_elf_image {
	int fd;
	void *elf; /* Elf * */
	bool executable;       /* ET_EXEC: runtime addresses are link-time ones */
	char build_id[129];    /* lowercase hex, "" if none */
	struct pc_elf_load *loads;
	size_t nloads;
	char *debuglink;       /* the .gnu_debuglink file name, or NULL */
	uint32_t debuglink_crc;
	bool has_symtab;       /* a .symtab section (not stripped) */
};

/* Opens path; 0, or -1 with a message in err (err_size bytes). */
int pc_elf_image_open(const char *path, struct pc_elf_image *img, char *err, size_t err_size);
void pc_elf_image_close(struct pc_elf_image *img);

/* Whether the file holds its loadable bytes (a separate debug file does not). */
bool pc_elf_image_has_code(const struct pc_elf_image *img);

/* The link-time address of a file offset in a loadable segment; false if in none. */
bool pc_elf_image_vaddr(const struct pc_elf_image *img, uint64_t offset, uint64_t *vaddr);

/*
 * Adds the functions of .symtab (or .dynsym if there is none) to t, and
 * the named labels in code sections (assembly entry points), as perf does.
 */
void pc_elf_image_symbols(const struct pc_elf_image *img, struct pc_symtab *t);

/*
 * Adds NAME@plt for each entry of .plt, in the order of .rela.plt (an
 * entry of 16 bytes, or .plt's sh_entsize, after one for the header;
 * "@plt" for an IRELATIVE without a symbol), as perf 6.1 synthesizes them.
 */
void pc_elf_image_plt_symbols(const struct pc_elf_image *img, struct pc_symtab *t);

/* The CRC-32 of the file at path, as .gnu_debuglink records it; false if unreadable. */
bool pc_file_crc32(const char *path, uint32_t *crc);

#endif
