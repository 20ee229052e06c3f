/*
 * dwarf-frames.c - prints what src/symbols/dwarf_source.c reads from a
 * binary's DWARF, for tests/e2e/dwarf_source.sh to compare with
 * eu-addr2line, llvm-symbolizer, objdump and nm.
 *
 *   dwarf-frames BINARY < ADDRESSES   for each hex address of stdin (one a
 *                                     line, 0x optional): its frames, one
 *                                     "NAME DECL_LINE LINE DISCRIMINATOR"
 *                                     line each, leaf first, then
 *                                     "entry 0xENTRY" (the concrete
 *                                     function's), then a blank line; only
 *                                     the blank line when there is none
 *   dwarf-frames --rows ADDR BINARY   the line-table row addresses of the
 *                                     function holding ADDR, one a line
 *   dwarf-frames --calls BINARY       the direct call sites, one
 *                                     "0xCALL_ADDRESS 0xCALLEE_ENTRY" a line
 *
 * Exit status 0, 1 when the binary cannot be read (the message on
 * stderr), 2 on a bad command line or address.
 */
#include "base/error.h"
#include "symbols/dwarf_source.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 64

static void usage(void)
{
	fputs("usage: dwarf-frames BINARY < ADDRESSES\n"
	      "       dwarf-frames --rows ADDR BINARY\n"
	      "       dwarf-frames --calls BINARY\n",
	      stderr);
	exit(2);
}

static bool parse_address(const char *text, uint64_t *address)
{
	char *end;

	errno = 0;
	*address = strtoull(text, &end, 16);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	return end != text && !*end && !errno;
}

static int print_frames(struct pc_dwarf *dw)
{
	struct pc_source_frame frames[MAX_FRAMES];
	struct pc_source_function fn;
	char line[256];
	uint64_t address;

	while (fgets(line, sizeof(line), stdin)) {
		size_t n;

		if (!parse_address(line, &address)) {
			fprintf(stderr, "dwarf-frames: not a hex address: %s", line);
			return 2;
		}
		n = pc_dwarf_frames(dw, address, frames, MAX_FRAMES, &fn);
		for (size_t i = 0; i < n; i++)
			printf("%s %" PRIu32 " %" PRIu32 " %" PRIu32 "\n", frames[i].name,
			       frames[i].decl_line, frames[i].line, frames[i].discriminator);
		if (n)
			printf("entry 0x%" PRIx64 "\n", fn.entry);
		printf("\n");
	}
	return 0;
}

static void print_row(void *arg, uint64_t address)
{
	(void)arg;
	printf("0x%" PRIx64 "\n", address);
}

static void print_call(void *arg, uint64_t call_address, uint64_t callee_entry)
{
	(void)arg;
	printf("0x%" PRIx64 " 0x%" PRIx64 "\n", call_address, callee_entry);
}

int main(int argc, char **argv)
{
	struct pc_error err = {0};
	struct pc_dwarf *dw;
	const char *mode = argc > 1 ? argv[1] : "";
	uint64_t address = 0;
	int status = 0;

	if (!strcmp(mode, "--rows") ? argc != 4 || !parse_address(argv[2], &address)
	    : !strcmp(mode, "--calls") ? argc != 3
	    : argc != 2 || mode[0] == '-')
		usage();
	if (pc_dwarf_open(argv[argc - 1], &dw, &err) < 0) {
		fprintf(stderr, "dwarf-frames: %s\n", err.message);
		return 1;
	}
	if (!strcmp(mode, "--rows"))
		pc_dwarf_function_rows(dw, address, print_row, NULL);
	else if (!strcmp(mode, "--calls"))
		pc_dwarf_call_sites(dw, print_call, NULL);
	else
		status = print_frames(dw);
	pc_dwarf_close(dw);
	return status;
}
