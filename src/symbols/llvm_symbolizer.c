/*
 * llvm_symbolizer.c - llvm-symbolizer as a subprocess (llvm_symbolizer.h).
 *
 * Queries go out as `"PATH" 0xADDRESS` lines to it, run as a filter
 * (subprocess.h), one JSON answer per line comes back. The JSON of an
 * answer is read by a small parser that takes the "Symbol" array's
 * FunctionName, FileName and Line and skips every other value.
 */
#include "symbols/llvm_symbolizer.h"
#include "symbols/subprocess.h"
#include "base/utf8.h"

/* The names Debian gives it: llvm's, then llvm-N's. */
static const char *const programs[] = {
	"llvm-symbolizer", "llvm-symbolizer-19", "llvm-symbolizer-18", "llvm-symbolizer-17",
	"llvm-symbolizer-16", "llvm-symbolizer-15", "llvm-symbolizer-14", NULL,
};

/* ---- JSON: just what an answer holds ---- */

struct json {
	const char *p, *end;
	struct pc_arena *arena;
};

static void skip_space(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static bool take(struct json *j, char c)
{
	skip_space(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* An escape after its backslash, written at out[*len]; *len grows. */
static bool read_escape(struct json *j, char *out, size_t *len)
{
	static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned cp = 0;

	if (j->p >= j->end)
		return false;
	if (*j->p != 'u') {
		if (!(hit = strchr(plain, *j->p)) || !*j->p)
			return false;
		out[(*len)++] = meant[hit - plain];
		j->p++;
		return true;
	}
	if (j->end - j->p < 5)
		return false;
	for (int i = 1; i <= 4; i++) {
		int d = pc_hex_digit((unsigned char)j->p[i]);

		if (d < 0)
			return false;
		cp = cp << 4 | (unsigned)d;
	}
	j->p += 5;
	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd; /* a surrogate: llvm-symbolizer writes UTF-8, not pairs */
	*len += pc_utf8_put((uint8_t *)out + *len, cp);
	return true;
}

/* A string value into the arena (NULL out: skipped). */
static bool read_string(struct json *j, const char **out)
{
	const char *start;
	char *text;
	size_t len = 0;

	if (!take(j, '"'))
		return false;
	start = j->p;
	while (j->p < j->end && *j->p != '"')
		j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
	if (j->p >= j->end)
		return false;
	text = out ? pc_arena_alloc(j->arena, (size_t)(j->p - start) * 3 + 1) : NULL;
	for (j->p = start; *j->p != '"';) {
		if (*j->p != '\\') {
			if (text)
				text[len] = *j->p;
			len++;
			j->p++;
		} else {
			char scratch[4];
			size_t n = 0;

			j->p++;
			if (!read_escape(j, text ? text : scratch, text ? &len : &n))
				return false;
		}
	}
	j->p++;
	if (text) {
		text[len] = '\0';
		*out = text;
	}
	return true;
}

static bool skip_value(struct json *j, int depth);

/* { "key": value, ... }, each value through on_member (or skipped). */
static bool read_object(struct json *j, int depth,
			bool (*on_member)(struct json *, const char *, void *), void *data)
{
	if (!take(j, '{'))
		return false;
	if (take(j, '}'))
		return true;
	do {
		const char *key;

		if (!read_string(j, &key) || !take(j, ':'))
			return false;
		if (on_member ? !on_member(j, key, data) : !skip_value(j, depth + 1))
			return false;
	} while (take(j, ','));
	return take(j, '}');
}

static bool skip_value(struct json *j, int depth)
{
	skip_space(j);
	if (depth > 32 || j->p >= j->end)
		return false;
	if (*j->p == '"')
		return read_string(j, NULL);
	if (*j->p == '{')
		return read_object(j, depth, NULL, NULL);
	if (*j->p == '[') {
		j->p++;
		if (take(j, ']'))
			return true;
		do {
			if (!skip_value(j, depth + 1))
				return false;
		} while (take(j, ','));
		return take(j, ']');
	}
	while (j->p < j->end && (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9') ||
				 (*j->p >= 'a' && *j->p <= 'z')))
		j->p++; /* a number, true, false or null */
	return true;
}

static bool read_line_number(struct json *j, uint32_t *line)
{
	uint64_t value = 0;

	skip_space(j);
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return skip_value(j, 0);
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		if ((value = value * 10 + (unsigned)(*j->p++ - '0')) > UINT32_MAX)
			return false;
	*line = (uint32_t)value;
	return true;
}

static bool frame_member(struct json *j, const char *key, void *data)
{
	struct pc_llvm_frame *frame = data;

	if (!strcmp(key, "FunctionName"))
		return read_string(j, &frame->function);
	if (!strcmp(key, "FileName"))
		return read_string(j, &frame->file);
	if (!strcmp(key, "Line"))
		return read_line_number(j, &frame->line);
	return skip_value(j, 1);
}

static bool answer_member(struct json *j, const char *key, void *data)
{
	struct pc_llvm_answers *answers = data;

	if (strcmp(key, "Symbol"))
		return skip_value(j, 1);
	if (!take(j, '['))
		return false;
	if (take(j, ']'))
		return true;
	do {
		struct pc_llvm_frame frame = { .function = "", .file = "" };

		if (!read_object(j, 1, frame_member, &frame))
			return false;
		if (!*frame.function || !strcmp(frame.function, "??"))
			continue; /* nothing known at this address */
		pc_grow(&answers->frames, &answers->frames_cap, answers->nframes + 1,
			sizeof(*answers->frames));
		answers->frames[answers->nframes++] = frame;
	} while (take(j, ','));
	return take(j, ']');
}

bool pc_llvm_parse_answer(struct pc_llvm_answers *answers, const char *line, size_t len)
{
	struct json j = { .p = line, .end = line + len, .arena = &answers->strings };
	size_t before = answers->nframes;

	if (!read_object(&j, 0, answer_member, answers)) {
		answers->nframes = before;
		return false;
	}
	skip_space(&j);
	if (j.p != j.end) {
		answers->nframes = before;
		return false;
	}
	answers->nqueries++;
	pc_grow(&answers->first, &answers->first_cap, answers->nqueries + 1, sizeof(*answers->first));
	answers->first[answers->nqueries] = answers->nframes;
	return true;
}

void pc_llvm_answers_release(struct pc_llvm_answers *answers)
{
	free(answers->frames);
	free(answers->first);
	pc_arena_release(&answers->strings);
	memset(answers, 0, sizeof(*answers));
}

/* ---- the subprocess ---- */

struct collect {
	struct pc_llvm_answers *answers;
};

static bool take_line(void *data, const char *line, size_t len)
{
	struct collect *c = data;

	return !len || pc_llvm_parse_answer(c->answers, line, len);
}

static char *format_queries(const struct pc_llvm_query *queries, size_t n, size_t *len)
{
	size_t cap = 0;
	char *out = NULL;

	*len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t path_len = strlen(queries[i].path);

		pc_grow(&out, &cap, *len + path_len + 32, 1);
		*len += (size_t)snprintf(out + *len, path_len + 32, "\"%s\" 0x%llx\n",
					 queries[i].path, (unsigned long long)queries[i].address);
	}
	return out;
}

int pc_llvm_symbolize(const struct pc_llvm_query *queries, size_t n, bool inlines,
		      bool demangle, struct pc_llvm_answers *answers, char *err, size_t err_size)
{
	static char json[] = "--output-style=JSON", with_inlines[] = "--inlines",
		    no_inlines[] = "--no-inlines", with_demangle[] = "--demangle",
		    no_demangle[] = "--no-demangle";
	char *args[] = { json, inlines ? with_inlines : no_inlines,
			 demangle ? with_demangle : no_demangle, NULL };
	struct collect c = { answers };
	size_t len;
	char *input;
	int ret;

	memset(answers, 0, sizeof(*answers));
	pc_arena_init(&answers->strings);
	pc_grow(&answers->first, &answers->first_cap, 1, sizeof(*answers->first));
	answers->first[0] = 0;
	if (!n)
		return 0;
	input = format_queries(queries, n, &len);
	ret = pc_run_filter(programs, "llvm", args, input, len, take_line, &c, err, err_size);
	free(input);
	if (!ret && answers->nqueries != n) {
		snprintf(err, err_size, "llvm-symbolizer gave %zu answers to %zu queries",
			 answers->nqueries, n);
		ret = -1;
	}
	return ret;
}
