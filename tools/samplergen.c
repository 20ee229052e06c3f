/*
 * samplergen.c - writes Apple Sampler traces ("@supersamplerV1.0", see
 * src/readers/sampler_reader.c) from a text spec, and the folded stacks
 * they hold, computed from the spec alone (an oracle that shares no code
 * with profconv). A standalone tool: it links nothing but libc.
 *
 *   samplergen SPEC OUT.trace [MERGED.folded [BY-THREAD.folded]]
 *
 * The spec is line based; blank lines and lines starting with '#' are
 * ignored. Numbers are decimal or 0x hex. Directives, written in order:
 *
 *   symbol ID UNKNOWN NAME|PATH1|PATH2
 *                       a symbol entry (NAME and the paths may hold
 *                       spaces, not '|'; PATH2 defaults to PATH1)
 *   many FIRST COUNT PREFIX PATH
 *                       COUNT entries, ids FIRST, FIRST+1, ..., named
 *                       PREFIX followed by the id in lower-case hex
 *   endtable            the "@end" line after the symbol table
 *   thread ID           a "@threadV1.0" line with ID in 4 upper-case hex
 *                       digits
 *   stack [xN] [p=A,B,C] ID ...
 *                       a stack line, leaf first, written N times (default
 *                       1), prefix A, B, C (default 1, 0, 1)
 *   end                 the final "@end" line
 *   raw HEX...          bytes written as they are
 *
 * The folded outputs: one line per distinct stack, root first, names joined
 * by ';', sorted bytewise (as `LC_ALL=C sort`), with the number of stack
 * lines; BY-THREAD.folded starts each stack with its thread's name. An
 * empty symbol name is "[unknown]" there, as profconv's folded writer
 * names a frame without a name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SYMBOLS 65536
#define MAX_FRAMES 256
#define MAX_LINES 4096

struct symbol {
	unsigned long id;
	char name[128];
};

struct folded_line {
	char text[8192];
	unsigned long count;
};

static struct symbol symbols[MAX_SYMBOLS];
static size_t nsymbols;
static struct folded_line merged[MAX_LINES], by_thread[MAX_LINES];
static size_t nmerged, nby_thread;
static const char *thread_name = "";
static unsigned long lineno;

static void die(const char *what)
{
	fprintf(stderr, "samplergen: line %lu: %s\n", lineno, what);
	exit(1);
}

static void put32(FILE *out, unsigned long v)
{
	fputc((int)(v >> 24 & 0xff), out);
	fputc((int)(v >> 16 & 0xff), out);
	fputc((int)(v >> 8 & 0xff), out);
	fputc((int)(v & 0xff), out);
}

static unsigned long number(char **cursor)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(*cursor, &end, 0);
	if (end == *cursor || errno)
		die("expected a number");
	*cursor = end;
	return v;
}

static const char *name_of(unsigned long id)
{
	for (size_t i = 0; i < nsymbols; i++)
		if (symbols[i].id == id)
			return symbols[i].name;
	die("stack or thread id not in the symbol table");
	return NULL;
}

static void add_symbol(FILE *out, unsigned long id, unsigned long unknown,
		       const char *name, const char *path1, const char *path2)
{
	if (nsymbols == MAX_SYMBOLS)
		die("too many symbols");
	symbols[nsymbols].id = id;
	snprintf(symbols[nsymbols].name, sizeof(symbols[0].name), "%s",
		 *name ? name : "[unknown]");
	nsymbols++;
	fputc('\t', out);
	put32(out, id);
	fputc('\t', out);
	put32(out, unknown);
	fprintf(out, "\t%s\t%s\t%s\n", name, path1, path2);
}

static void symbol_line(FILE *out, char *rest)
{
	unsigned long id = number(&rest), unknown = number(&rest);
	char *name, *path1, *path2;

	while (*rest == ' ')
		rest++;
	name = rest;
	path1 = strchr(name, '|');
	if (!path1)
		die("expected NAME|PATH1[|PATH2]");
	*path1++ = '\0';
	path2 = strchr(path1, '|');
	if (path2)
		*path2++ = '\0';
	add_symbol(out, id, unknown, name, path1, path2 ? path2 : path1);
}

static void many_line(FILE *out, char *rest)
{
	unsigned long first = number(&rest), count = number(&rest);
	char prefix[64], path[256], name[128];

	if (sscanf(rest, " %63s %255s", prefix, path) != 2)
		die("expected many FIRST COUNT PREFIX PATH");
	for (unsigned long i = 0; i < count; i++) {
		snprintf(name, sizeof(name), "%s%lx", prefix, first + i);
		add_symbol(out, first + i, 0, name, path, path);
	}
}

static void tally(struct folded_line *lines, size_t *n, const char *text, unsigned long count)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(lines[i].text, text)) {
			lines[i].count += count;
			return;
		}
	if (*n == MAX_LINES)
		die("too many distinct stacks");
	snprintf(lines[*n].text, sizeof(lines[0].text), "%s", text);
	lines[(*n)++].count = count;
}

static void stack_line(FILE *out, char *rest)
{
	unsigned long repeat = 1, p[3] = { 1, 0, 1 }, ids[MAX_FRAMES];
	size_t n = 0;
	char text[8192] = "", threaded[8400];

	while (*rest == ' ')
		rest++;
	if (*rest == 'x') {
		rest++;
		repeat = number(&rest);
	}
	while (*rest == ' ')
		rest++;
	if (!strncmp(rest, "p=", 2)) {
		rest += 2;
		for (int i = 0; i < 3; i++) {
			p[i] = number(&rest);
			if (i < 2 && *rest++ != ',')
				die("expected p=A,B,C");
		}
	}
	for (;;) {
		while (*rest == ' ')
			rest++;
		if (!*rest || *rest == '\n')
			break;
		if (n == MAX_FRAMES)
			die("too many frames");
		ids[n++] = number(&rest);
	}
	for (size_t i = n; i-- > 0;) {
		strncat(text, name_of(ids[i]), sizeof(text) - strlen(text) - 1);
		if (i)
			strncat(text, ";", sizeof(text) - strlen(text) - 1);
	}
	for (unsigned long r = 0; r < repeat; r++) {
		fputc('\t', out);
		for (int i = 0; i < 3; i++)
			put32(out, p[i]);
		put32(out, n);
		for (size_t i = 0; i < n; i++)
			put32(out, ids[i]);
		fputc('\n', out);
	}
	if (!n)
		return;
	tally(merged, &nmerged, text, repeat);
	snprintf(threaded, sizeof(threaded), "%s;%s", thread_name, text);
	tally(by_thread, &nby_thread, threaded, repeat);
}

static void raw_line(FILE *out, char *rest)
{
	for (;;) {
		unsigned int byte;
		int used;

		while (*rest == ' ')
			rest++;
		if (!*rest || *rest == '\n')
			return;
		if (sscanf(rest, "%2x%n", &byte, &used) != 1)
			die("expected hex bytes");
		fputc((int)byte, out);
		rest += used;
	}
}

static void directive(FILE *out, char *line)
{
	char *rest;

	line[strcspn(line, "\n")] = '\0';
	if (!*line || *line == '#')
		return;
	rest = line + strcspn(line, " ");
	if (*rest)
		*rest++ = '\0';
	if (!strcmp(line, "symbol"))
		symbol_line(out, rest);
	else if (!strcmp(line, "many"))
		many_line(out, rest);
	else if (!strcmp(line, "endtable") || !strcmp(line, "end"))
		fputs("@end\n", out);
	else if (!strcmp(line, "thread")) {
		unsigned long id = number(&rest);

		thread_name = name_of(id);
		fprintf(out, "@threadV1.0\t%04lX\n", id);
	} else if (!strcmp(line, "stack"))
		stack_line(out, rest);
	else if (!strcmp(line, "raw"))
		raw_line(out, rest);
	else
		die("unknown directive");
}

static int compare_lines(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->text,
		      ((const struct folded_line *)b)->text);
}

static void write_folded(const char *path, struct folded_line *lines, size_t n)
{
	FILE *out = fopen(path, "w");

	if (!out) {
		perror(path);
		exit(1);
	}
	qsort(lines, n, sizeof(*lines), compare_lines);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s %lu\n", lines[i].text, lines[i].count);
	if (fclose(out)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static char line[65536];
	FILE *spec, *out;

	if (argc < 3 || argc > 5) {
		fprintf(stderr, "usage: samplergen SPEC OUT.trace [MERGED.folded "
			"[BY-THREAD.folded]]\n");
		return 2;
	}
	spec = fopen(argv[1], "r");
	out = fopen(argv[2], "wb");
	if (!spec || !out) {
		perror(spec ? argv[2] : argv[1]);
		return 1;
	}
	fputs("@supersamplerV1.0\n@symboltableV1.1\n", out);
	while (fgets(line, sizeof(line), spec)) {
		lineno++;
		directive(out, line);
	}
	if (fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	fclose(spec);
	if (argc > 3)
		write_folded(argv[3], merged, nmerged);
	if (argc > 4)
		write_folded(argv[4], by_thread, nby_thread);
	return 0;
}
