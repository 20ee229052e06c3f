/* elf_image.c - build id, segments, debuglink and symbols of an ELF file (libelf). */
#include "symbols/elf_image.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>
#include <zlib.h>

#define NOTE_GNU "GNU"

static void note_build_id(struct pc_elf_image *img, Elf_Data *data)
{
	GElf_Nhdr note;
	size_t offset = 0, name_at, desc_at, next;

	while ((next = gelf_getnote(data, offset, &note, &name_at, &desc_at)) > 0) {
		const char *bytes = data->d_buf;

		if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == sizeof(NOTE_GNU) &&
		    !memcmp(bytes + name_at, NOTE_GNU, sizeof(NOTE_GNU)) && note.n_descsz &&
		    note.n_descsz <= (sizeof(img->build_id) - 1) / 2) {
			for (size_t i = 0; i < note.n_descsz; i++)
				snprintf(img->build_id + 2 * i, 3, "%02x",
					 (unsigned char)bytes[desc_at + i]);
			return;
		}
		offset = next;
	}
}

static void read_debuglink(struct pc_elf_image *img, Elf_Data *data)
{
	const char *name = data->d_buf;
	size_t len = data->d_size ? strnlen(name, data->d_size) : 0;
	size_t crc_at = (len + 4) & ~(size_t)3;

	if (!len || crc_at + 4 > data->d_size)
		return;
	img->debuglink = pc_xmalloc(len + 1);
	memcpy(img->debuglink, name, len);
	img->debuglink[len] = '\0';
	img->debuglink_crc = pc_le32((const uint8_t *)name + crc_at);
}

static void read_sections(struct pc_elf_image *img, Elf *elf)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || !(name = elf_strptr(elf, shstrndx, shdr.sh_name)))
			continue;
		if (shdr.sh_type == SHT_SYMTAB)
			img->has_symtab = true;
		if (shdr.sh_type == SHT_NOBITS || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
			continue;
		if (shdr.sh_type == SHT_NOTE && !img->build_id[0])
			note_build_id(img, data);
		else if (!strcmp(name, ".gnu_debuglink") && !img->debuglink)
			read_debuglink(img, data);
	}
}

static void read_segments(struct pc_elf_image *img, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return;
	img->loads = pc_xcalloc(n ? n : 1, sizeof(*img->loads));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr phdr;

		if (gelf_getphdr(elf, (int)i, &phdr) && phdr.p_type == PT_LOAD)
			img->loads[img->nloads++] = (struct pc_elf_load){
				.offset = phdr.p_offset, .vaddr = phdr.p_vaddr, .filesz = phdr.p_filesz,
			};
	}
}

int pc_elf_image_open(const char *path, struct pc_elf_image *img, char *err, size_t err_size)
{
	GElf_Ehdr ehdr;
	Elf *elf;

	memset(img, 0, sizeof(*img));
	img->fd = -1;
	elf_version(EV_CURRENT);
	img->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (img->fd < 0) {
		snprintf(err, err_size, "%s", strerror(errno));
		return -1;
	}
	elf = elf_begin(img->fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		snprintf(err, err_size, "not an ELF file%s%s", elf ? "" : ": ",
			 elf ? "" : elf_errmsg(-1));
		if (elf)
			elf_end(elf);
		close(img->fd);
		img->fd = -1;
		return -1;
	}
	img->elf = elf;
	img->executable = ehdr.e_type == ET_EXEC;
	read_sections(img, elf);
	read_segments(img, elf);
	return 0;
}

void pc_elf_image_close(struct pc_elf_image *img)
{
	if (img->elf)
		elf_end(img->elf);
	if (img->fd >= 0)
		close(img->fd);
	free(img->loads);
	free(img->debuglink);
	memset(img, 0, sizeof(*img));
	img->fd = -1;
}

bool pc_elf_image_has_code(const struct pc_elf_image *img)
{
	for (size_t i = 0; i < img->nloads; i++)
		if (img->loads[i].filesz)
			return true;
	return false;
}

bool pc_elf_image_vaddr(const struct pc_elf_image *img, uint64_t offset, uint64_t *vaddr)
{
	for (size_t i = 0; i < img->nloads; i++) {
		const struct pc_elf_load *load = &img->loads[i];

		if (offset >= load->offset && offset - load->offset < load->filesz) {
			*vaddr = load->vaddr + (offset - load->offset);
			return true;
		}
	}
	return false;
}

/* Whether section index shndx holds code (labels count only there, as perf has it). */
static bool is_code_section(Elf *elf, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr shdr;

	return scn && gelf_getshdr(scn, &shdr) && (shdr.sh_flags & SHF_EXECINSTR);
}

/* Functions, and named labels in code (assembly entry points such as _start). */
static bool is_code_symbol(Elf *elf, const GElf_Sym *sym, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= SHN_LORESERVE)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	return type == STT_NOTYPE && *name != '$' && strncmp(name, ".L", 2) &&
	       is_code_section(elf, sym->st_shndx);
}

static enum pc_symbol_binding binding_of(const GElf_Sym *sym)
{
	unsigned bind = GELF_ST_BIND(sym->st_info);
	unsigned label = GELF_ST_TYPE(sym->st_info) == STT_NOTYPE ? PC_SYMBOL_LABEL : 0;

	return (enum pc_symbol_binding)(label | (bind == STB_WEAK ? PC_SYMBOL_WEAK :
						 bind == STB_LOCAL ? PC_SYMBOL_LOCAL :
						 PC_SYMBOL_GLOBAL));
}

static void add_functions(struct pc_symtab *t, Elf *elf, Elf_Scn *scn, const GElf_Shdr *shdr)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count = shdr->sh_entsize ? shdr->sh_size / shdr->sh_entsize : 0;

	for (size_t i = 0; data && i < count; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, shdr->sh_link, sym.st_name);
		if (!is_code_symbol(elf, &sym, name))
			continue;
		pc_symtab_add(t, sym.st_value, sym.st_size, name, strlen(name), binding_of(&sym));
	}
}

void pc_elf_image_symbols(const struct pc_elf_image *img, struct pc_symtab *t)
{
	unsigned want = img->has_symtab ? SHT_SYMTAB : SHT_DYNSYM;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(img->elf, scn))) {
		GElf_Shdr shdr;

		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == want)
			add_functions(t, img->elf, scn, &shdr);
	}
}

static Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr *shdr)
{
	size_t strndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (gelf_getshdr(scn, shdr) && (n = elf_strptr(elf, strndx, shdr->sh_name)) &&
		    !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* The NAME of a .rela.plt entry's symbol, "" for none (an IRELATIVE), into buf as NAME@plt. */
static void plt_name(Elf *elf, Elf_Data *dynsyms, size_t dynstr, size_t sym, char *buf,
		     size_t size)
{
	GElf_Sym s;
	const char *name = NULL;

	if (sym && dynsyms && gelf_getsym(dynsyms, (int)sym, &s))
		name = elf_strptr(elf, dynstr, s.st_name);
	snprintf(buf, size, "%s@plt", name ? name : "");
}

void pc_elf_image_plt_symbols(const struct pc_elf_image *img, struct pc_symtab *t)
{
	GElf_Shdr plt, rela, dyn;
	Elf_Scn *plt_scn = section_named(img->elf, ".plt", &plt);
	Elf_Scn *rela_scn = section_named(img->elf, ".rela.plt", &rela);
	Elf_Scn *dyn_scn;
	Elf_Data *relas, *dynsyms;
	uint64_t entry;
	char name[512];

	if (!plt_scn || !rela_scn || rela.sh_type != SHT_RELA || !rela.sh_entsize)
		return;
	dyn_scn = elf_getscn(img->elf, rela.sh_link);
	if (!dyn_scn || !gelf_getshdr(dyn_scn, &dyn))
		return;
	relas = elf_getdata(rela_scn, NULL);
	dynsyms = elf_getdata(dyn_scn, NULL);
	entry = plt.sh_entsize ? plt.sh_entsize : 16;
	for (size_t i = 0; relas && i < rela.sh_size / rela.sh_entsize; i++) {
		GElf_Rela r;
		uint64_t start = plt.sh_addr + entry * (i + 1); /* after the header entry */

		if (!gelf_getrela(relas, (int)i, &r) || start + entry > plt.sh_addr + plt.sh_size)
			break;
		plt_name(img->elf, dynsyms, dyn.sh_link, GELF_R_SYM(r.r_info), name, sizeof(name));
		pc_symtab_add(t, start, entry, name, strlen(name), PC_SYMBOL_GLOBAL);
	}
}

bool pc_file_crc32(const char *path, uint32_t *crc)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char buf[65536];
	uLong sum = crc32(0, Z_NULL, 0);
	ssize_t got;

	if (fd < 0)
		return false;
	while ((got = read(fd, buf, sizeof(buf))) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			sum = crc32(sum, buf, (uInt)got);
	close(fd);
	if (got < 0)
		return false;
	*crc = (uint32_t)sum;
	return true;
}
