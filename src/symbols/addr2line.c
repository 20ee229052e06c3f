/*
 * addr2line.c - binutils' addr2line as a subprocess (addr2line.h): the
 * addresses go to `addr2line -a -i -f -e PATH` one per line; each answer
 * is the address line ("0x" and 16 hex digits), then per function (the
 * innermost inlined one first) its name and "FILE:LINE" ("??" and "??:0"
 * when it knows none).
 */
#include "symbols/addr2line.h"
#include "symbols/subprocess.h"

static const char *const programs[] = { "addr2line", "x86_64-linux-gnu-addr2line", NULL };

struct reading {
	struct pc_llvm_answers *answers;
	size_t expected;      /* answers in all, once this batch is read */
	char *function;       /* the name line of a pair, until its file line */
	bool in_answer;
};

static char *keep(struct pc_llvm_answers *answers, const char *text, size_t len)
{
	char *copy = pc_arena_alloc(&answers->strings, len + 1);

	memcpy(copy, text, len);
	copy[len] = '\0';
	return copy;
}

static void start_answer(struct pc_llvm_answers *a)
{
	a->nqueries++;
	pc_grow(&a->first, &a->first_cap, a->nqueries + 1, sizeof(*a->first));
	a->first[a->nqueries] = a->nframes;
}

/* "FILE:LINE" or "FILE:LINE (discriminator N)": the line, 0 if none. */
static uint32_t line_of(const char *text, size_t len, size_t *file_len)
{
	const char *colon = NULL;
	uint32_t line = 0;

	for (size_t i = 0; i < len; i++)
		if (text[i] == ':')
			colon = text + i;
	*file_len = colon ? (size_t)(colon - text) : len;
	for (const char *p = colon ? colon + 1 : text + len; p < text + len && *p >= '0' && *p <= '9';
	     p++)
		line = line * 10 + (uint32_t)(*p - '0');
	return line;
}

static bool add_pair(struct reading *r, const char *file_text, size_t len)
{
	struct pc_llvm_answers *a = r->answers;
	size_t file_len;
	uint32_t line = line_of(file_text, len, &file_len);

	if (!strcmp(r->function, "??"))
		return true; /* no function known there */
	pc_grow(&a->frames, &a->frames_cap, a->nframes + 1, sizeof(*a->frames));
	a->frames[a->nframes++] = (struct pc_llvm_frame){
		.function = r->function,
		.file = (file_len == 2 && !memcmp(file_text, "??", 2)) ? "" :
			keep(a, file_text, file_len),
		.line = line,
	};
	a->first[a->nqueries] = a->nframes;
	return true;
}

static bool take_line(void *data, const char *line, size_t len)
{
	struct reading *r = data;

	if (len == 18 && !memcmp(line, "0x", 2) && !r->function) {
		if (r->answers->nqueries == r->expected)
			return false;
		start_answer(r->answers);
		r->in_answer = true;
		return true;
	}
	if (!r->in_answer)
		return false;
	if (!r->function) {
		r->function = keep(r->answers, line, len);
		return true;
	}
	if (!add_pair(r, line, len))
		return false;
	r->function = NULL;
	return true;
}

int pc_addr2line(const char *path, const uint64_t *addresses, size_t n,
		 struct pc_llvm_answers *answers, char *err, size_t err_size)
{
	static char a[] = "-a", i[] = "-i", f[] = "-f", e[] = "-e";
	char *args[] = { a, i, f, e, (char *)path, NULL };
	struct reading r = { .answers = answers, .expected = answers->nqueries + n };
	size_t len = 0, cap = 0;
	char *input = NULL;
	int ret;

	for (size_t k = 0; k < n; k++) {
		pc_grow(&input, &cap, len + 24, 1);
		len += (size_t)snprintf(input + len, 24, "0x%llx\n", (unsigned long long)addresses[k]);
	}
	ret = pc_run_filter(programs, "binutils", args, input, len, take_line, &r, err, err_size);
	free(input);
	if (!ret && (answers->nqueries != r.expected || r.function)) {
		snprintf(err, err_size, "addr2line gave %zu answers to %zu addresses of %s",
			 answers->nqueries - (r.expected - n), n, path);
		ret = -1;
	}
	return ret;
}
