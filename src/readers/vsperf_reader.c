/*
 * vsperf_reader.c - reads the CSV reports of the Visual Studio profiler:
 * what `vsperfreport /summary:CallerCallee|CallTree|Function` writes (VS
 * 2008 and later) and what the IDE's "Export Report Data" writes (VS 2015
 * to 2019). Sources: research/vsperf.md sections 2-5 and 7 (real files:
 * VisPerf's pigLatin.csv and l4_cc.csv, inferno's CallTreeSummary.csv,
 * FlameGraph's stackcollapse-vsprof.pl), DESIGN.md section 3.3. The row
 * semantics (what maps where in the model, what is dropped) are the
 * builder's, documented in vsperf_model.h and vsperf_model.c.
 *
 * The grammar accepted:
 *   - encoding: UTF-8 with or without a byte-order mark, or 8-bit text
 *     (bytes that are not UTF-8 are kept as they are); UTF-16LE with a BOM
 *     (vsperfreport /U) or without one (NUL in every second byte of the
 *     first line), and likewise UTF-16BE, converted to UTF-8; a lone
 *     surrogate or an odd byte count is an error;
 *   - lines end in LF or CRLF, the last one may lack it; blank lines are
 *     skipped; a line is one record (a quoted field cannot hold a line
 *     break);
 *   - RFC 4180 fields: separated by ',', optionally in double quotes that
 *     may hold commas and doubled quotes (""); blanks before an opening or
 *     after a closing quote are ignored; every line may end in one
 *     trailing comma (an empty last field), as vsperfreport writes them;
 *   - the first line is the header; columns are found by name (ASCII case
 *     ignored, "Exclusive Samples%" = "Exclusive Samples %"), in any
 *     order; unknown columns are ignored. The report is CallerCallee when
 *     there is a Type column, CallTree when there is a Level column, else
 *     a Function summary (Function Name); Line summaries are refused.
 *     Required: Type or Level, Function Name, and the measures the
 *     builder needs (Inclusive and Exclusive Samples, or Elapsed Inclusive
 *     and Exclusive Time; for IDE call trees Number of Calls, Avg Elapsed
 *     Inclusive Time and Elapsed Exclusive Time %);
 *   - Type: Root, Caller, Callee or 0, 1, 2 (case ignored);
 *   - numbers as the XML reader reads them too ("numbers as Visual Studio
 *     writes them" in vsperf_model.h): Level a decimal integer; counts
 *     decimal integers, possibly grouped with one kind of separator (',',
 *     '.', '\'', space, U+00A0, U+202F) as IDE exports quote them
 *     ("8,735", "2,893,824", "1,00,000"); Function Line Number and
 *     Process ID likewise (empty = unknown); decimals (Avg ... Time,
 *     Elapsed ... Time %): grouped digits, then a decimal point: of '.'
 *     and ',' the last one is the point, and a lone ',' or '.' is one
 *     ("100,00" = 100.00, "18,160.51", "1.426,50"); times (Elapsed and
 *     Application Inclusive/Exclusive Time): a count, exactly, or a
 *     decimal such as "12.5" rounded to whole ticks, half up, with one
 *     counted warning (--strict: an error), as the model keeps times as
 *     integer ticks (samples and calls stay integers only); Function
 *     Address: hexadecimal, with or without 0x (empty = none).
 * Percentages and the instrumentation Min/Avg/Max and probe-overhead
 * columns are not read (percentages are recomputed from counts); the
 * Avg Elapsed Inclusive/Exclusive Time and Elapsed Inclusive/Exclusive
 * Time % columns are read (and checked) only in call trees, where IDE
 * exports without times need them.
 *
 * Errors, located at line:column (columns count bytes of the line in
 * UTF-8): a header that is not a report header, missing required
 * columns, a column named twice, a row with fewer fields than the header
 * has columns or with more, an unterminated quoted field, text after a
 * closing quote, a bad Type, Level, count, decimal, address, line number
 * or process id (naming the column), NUL or other control bytes, bad
 * UTF-16, and the builder's (a Caller or Callee row before any Root, a
 * Level that skips a level, a count overflow). With --skip-bad a row that
 * does not parse (control bytes, a bad quote, too few or too many fields,
 * a bad value) is skipped and counted in one warning naming the first
 * (--strict makes that the located error again); the header, a line over
 * 16 MiB, bad UTF-16 and the builder's errors stay errors. An input of 0
 * bytes never reaches the reader (pipeline/convert.c: "empty input"); a
 * header alone is a profile without samples.
 *
 * Reading streams through struct pc_input one line at a time with no
 * allocation per line: fields point into the input window (or the
 * decoded UTF-16 line), and buffers are reused from line to line.
 */
#include "model/format.h"
#include "base/utf16.h"
#include "vsperf_model.h"

#include <stdarg.h>

#define FORMAT "vsperf"
#define MAX_LINE_BYTES (16u << 20)
#define READ_AHEAD (64u << 10)
#define QUOTE_MAX 40

enum encoding {
	ENCODING_BYTES, /* UTF-8 or 8-bit */
	ENCODING_UTF16LE,
	ENCODING_UTF16BE,
};

enum field_kind {
	FIELD_IGNORED,
	FIELD_TYPE,
	FIELD_LEVEL,
	FIELD_NAME,
	FIELD_COUNT, /* index: enum vsperf_count */
	FIELD_TIME,  /* index: enum vsperf_count (a time: fractions rounded) */
	FIELD_REAL,  /* index: enum vsperf_real */
	FIELD_SOURCE_FILE,
	FIELD_LINE,
	FIELD_MODULE_NAME,
	FIELD_MODULE_PATH,
	FIELD_ADDRESS,
	FIELD_ROOT_NAME,
	FIELD_PROCESS_NAME,
	FIELD_PID,
	FIELD_LINE_SUMMARY, /* only in Line summaries */
};

struct column_name {
	const char *name;
	enum field_kind kind;
	int index;
};

static const struct column_name column_names[] = {
	{ "Type", FIELD_TYPE, 0 },
	{ "Level", FIELD_LEVEL, 0 },
	{ "Function Name", FIELD_NAME, 0 },
	{ "Inclusive Samples", FIELD_COUNT, VSPERF_INCLUSIVE_SAMPLES },
	{ "Exclusive Samples", FIELD_COUNT, VSPERF_EXCLUSIVE_SAMPLES },
	{ "Elapsed Inclusive Time", FIELD_TIME, VSPERF_ELAPSED_INCLUSIVE },
	{ "Elapsed Exclusive Time", FIELD_TIME, VSPERF_ELAPSED_EXCLUSIVE },
	{ "Application Inclusive Time", FIELD_TIME, VSPERF_APPLICATION_INCLUSIVE },
	{ "Application Exclusive Time", FIELD_TIME, VSPERF_APPLICATION_EXCLUSIVE },
	{ "Number of Calls", FIELD_COUNT, VSPERF_CALLS },
	{ "Avg Elapsed Inclusive Time", FIELD_REAL, VSPERF_AVG_ELAPSED_INCLUSIVE },
	{ "Avg Elapsed Exclusive Time", FIELD_REAL, VSPERF_AVG_ELAPSED_EXCLUSIVE },
	{ "Elapsed Inclusive Time %", FIELD_REAL, VSPERF_ELAPSED_INCLUSIVE_PCT },
	{ "Elapsed Exclusive Time %", FIELD_REAL, VSPERF_ELAPSED_EXCLUSIVE_PCT },
	{ "Source File", FIELD_SOURCE_FILE, 0 },
	{ "Function Line Number", FIELD_LINE, 0 },
	{ "Module Name", FIELD_MODULE_NAME, 0 },
	{ "Module Path", FIELD_MODULE_PATH, 0 },
	{ "Function Address", FIELD_ADDRESS, 0 },
	{ "Root Function Name", FIELD_ROOT_NAME, 0 },
	{ "Process Name", FIELD_PROCESS_NAME, 0 },
	{ "Process ID", FIELD_PID, 0 },
	{ "Source Line Begin", FIELD_LINE_SUMMARY, 0 },
	{ "Line Name", FIELD_LINE_SUMMARY, 0 },
};

/* One field of the current line: quotes removed, "" undoubled. */
struct csv_field {
	const char *p;
	size_t len;
	uint32_t column; /* 1-based byte column where the field starts */
};

struct vsperf_reader {
	struct pc_ctx *ctx;
	struct pc_input *in;
	struct vsperf_builder builder;
	enum encoding encoding;
	uint64_t line_number;
	bool have_header;
	/* the header: what each column is (its entry in column_names, or NULL) */
	const struct column_name **map;
	size_t ncolumns, map_cap;
	/* the current line, reused */
	struct csv_field *fields;
	size_t nfields, fields_cap;
	char *scratch; /* undoubled quoted fields */
	size_t scratch_cap, scratch_used;
	uint8_t *decoded; /* the UTF-16 line in UTF-8 */
	size_t decoded_cap;
};

struct text_line {
	const char *text;
	size_t len;
};

static uint32_t clamp_u32(uint64_t value)
{
	return value > UINT32_MAX ? UINT32_MAX : (uint32_t)value;
}

static int fail(struct vsperf_reader *r, size_t column, const char *fmt, ...)
	PC_PRINTF(3, 4);

static int fail(struct vsperf_reader *r, size_t column, const char *fmt, ...)
{
	char message[sizeof(r->ctx->err.message)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return pc_fail_line(&r->ctx->err, FORMAT, clamp_u32(r->line_number),
			    clamp_u32(column), "%s", message);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static void trim(const char **p, size_t *len)
{
	while (*len && is_blank(**p))
		(*p)++, (*len)--;
	while (*len && is_blank((*p)[*len - 1]))
		(*len)--;
}

static bool equal_nocase(const char *p, size_t len, const char *word)
{
	size_t i = 0;

	for (; i < len && word[i]; i++)
		if (ascii_lower(p[i]) != ascii_lower(word[i]))
			return false;
	return i == len && !word[i];
}

/* --- fields --- */

static int bad_field(struct vsperf_reader *r, const struct csv_field *f,
		     const struct column_name *column, const char *expected)
{
	char quoted[4 * QUOTE_MAX + 8];

	if (!f->len)
		return fail(r, f->column, "expected %s in column \"%s\", found an empty field",
			    expected, column->name);
	pc_quote(quoted, sizeof(quoted), f->p, f->len, QUOTE_MAX);
	return fail(r, f->column, "expected %s in column \"%s\", found \"%s\"", expected,
		    column->name, quoted);
}

/* Reports what vsperf_parse_count (or _time) said about f; 0 when it is a number. */
static int count_status(struct vsperf_reader *r, const struct csv_field *f,
			const struct column_name *column, uint64_t max,
			enum vsperf_number status)
{
	char quoted[4 * QUOTE_MAX + 8];

	if (status == VSPERF_NUMBER_OK)
		return 0;
	if (status != VSPERF_NUMBER_TOO_LARGE)
		return bad_field(r, f, column, column->kind == FIELD_TIME ?
				 "a time (a count, or a decimal such as 12.5)" : "a count");
	pc_quote(quoted, sizeof(quoted), f->p, f->len, QUOTE_MAX);
	return fail(r, f->column, "\"%s\" in column \"%s\" is too large (at most %llu)", quoted,
		    column->name, (unsigned long long)max);
}

static int number_field(struct vsperf_reader *r, const struct csv_field *f,
			const struct column_name *column, uint64_t max, uint64_t *out)
{
	return count_status(r, f, column, max, vsperf_parse_count(f->p, f->len, max, out));
}

/*
 * A time: a count, or a decimal rounded to whole ticks (vsperf_model.h),
 * which a counted warning says (--strict: an error).
 */
static int time_field(struct vsperf_reader *r, const struct csv_field *f,
		      const struct column_name *column, uint64_t *out)
{
	bool rounded;
	enum vsperf_number status = vsperf_parse_time(f->p, f->len, PC_COUNT_MAX, out, &rounded);
	char quoted[4 * QUOTE_MAX + 8];

	if (status != VSPERF_NUMBER_OK || !rounded)
		return count_status(r, f, column, PC_COUNT_MAX, status);
	pc_quote(quoted, sizeof(quoted), f->p, f->len, QUOTE_MAX);
	if (!pc_warn(r->ctx, FORMAT, "rounded times with a fraction to whole ticks, the first "
		     "\"%s\" in column \"%s\" at line %u to %llu", quoted, column->name,
		     clamp_u32(r->line_number), (unsigned long long)*out))
		return 0;
	pc_error_clear(&r->ctx->err);
	return fail(r, f->column, "\"%s\" in column \"%s\" has a fraction, which would be "
		    "rounded to %llu (an error with --strict)", quoted, column->name,
		    (unsigned long long)*out);
}

static int real_field(struct vsperf_reader *r, const struct csv_field *f,
		      const struct column_name *column, double *out)
{
	enum vsperf_number status = vsperf_parse_real(f->p, f->len, out);
	char quoted[4 * QUOTE_MAX + 8];

	if (status == VSPERF_NUMBER_OK)
		return 0;
	if (status != VSPERF_NUMBER_TOO_LARGE)
		return bad_field(r, f, column, "a decimal number");
	pc_quote(quoted, sizeof(quoted), f->p, f->len, QUOTE_MAX);
	return fail(r, f->column, "\"%s\" in column \"%s\" is too large", quoted, column->name);
}

static int type_field(struct vsperf_reader *r, const struct csv_field *f,
		      const struct column_name *column, int *type)
{
	static const char *const names[][2] = {
		[VSPERF_ROOT] = { "Root", "0" },
		[VSPERF_CALLER] = { "Caller", "1" },
		[VSPERF_CALLEE] = { "Callee", "2" },
	};
	const char *p = f->p;
	size_t len = f->len;

	trim(&p, &len);
	for (int i = 0; i < (int)PC_ARRAY_SIZE(names); i++)
		if (equal_nocase(p, len, names[i][0]) || equal_nocase(p, len, names[i][1])) {
			*type = i;
			return 0;
		}
	return bad_field(r, f, column, "Root, Caller or Callee (or 0, 1, 2)");
}

static int level_field(struct vsperf_reader *r, const struct csv_field *f,
		       const struct column_name *column, int *level)
{
	if (vsperf_parse_level(f->p, f->len, level) != VSPERF_NUMBER_OK)
		return bad_field(r, f, column, "a Level (a number from 0 to 2147483647)");
	return 0;
}

static int address_field(struct vsperf_reader *r, const struct csv_field *f,
			 const struct column_name *column, struct vsperf_row *row)
{
	enum vsperf_number status = vsperf_parse_address(f->p, f->len, &row->address);

	if (status == VSPERF_NUMBER_EMPTY)
		return 0;
	if (status != VSPERF_NUMBER_OK)
		return bad_field(r, f, column, "a hexadecimal address such as 0x7C90FE81");
	row->has_address = true;
	return 0;
}

/* An optional number: empty leaves *out alone. */
static int optional_number(struct vsperf_reader *r, const struct csv_field *f,
			   const struct column_name *column, uint64_t max, uint64_t *out,
			   bool *present)
{
	enum vsperf_number status = vsperf_parse_count(f->p, f->len, max, out);

	if (status == VSPERF_NUMBER_EMPTY)
		return 0;
	if (present)
		*present = true;
	return count_status(r, f, column, max, status);
}

static void set_text(struct vsperf_text *text, const struct csv_field *f)
{
	text->p = f->p;
	text->len = f->len;
}

/* Puts field f of column into the row. */
static int fill_field(struct vsperf_reader *r, const struct csv_field *f,
		      const struct column_name *column, struct vsperf_row *row)
{
	uint64_t number = 0;

	switch (column->kind) {
	case FIELD_TYPE:
		return type_field(r, f, column, &row->type);
	case FIELD_LEVEL:
		return level_field(r, f, column, &row->type);
	case FIELD_COUNT:
		return number_field(r, f, column, PC_COUNT_MAX, &row->counts[column->index]);
	case FIELD_TIME:
		return time_field(r, f, column, &row->counts[column->index]);
	case FIELD_REAL:
		return real_field(r, f, column, &row->reals[column->index]);
	case FIELD_LINE:
		if (optional_number(r, f, column, UINT32_MAX, &number, NULL))
			return -1;
		row->line = (uint32_t)number;
		return 0;
	case FIELD_PID:
		if (optional_number(r, f, column, VSPERF_MAX_PID, &number, &row->has_pid))
			return -1;
		row->pid = (int64_t)number;
		return 0;
	case FIELD_ADDRESS:
		return address_field(r, f, column, row);
	case FIELD_NAME:
		set_text(&row->name, f);
		return 0;
	case FIELD_SOURCE_FILE:
		set_text(&row->source_file, f);
		return 0;
	case FIELD_MODULE_NAME:
		set_text(&row->module_name, f);
		return 0;
	case FIELD_MODULE_PATH:
		set_text(&row->module_path, f);
		return 0;
	case FIELD_ROOT_NAME:
		set_text(&row->root_name, f);
		return 0;
	case FIELD_PROCESS_NAME:
		set_text(&row->process_name, f);
		return 0;
	case FIELD_IGNORED:
	case FIELD_LINE_SUMMARY:
		break;
	}
	return 0;
}

/* --- splitting a line into fields --- */

static struct csv_field *new_field(struct vsperf_reader *r, size_t column)
{
	struct csv_field *f;

	pc_grow(&r->fields, &r->fields_cap, r->nfields + 1, sizeof(*r->fields));
	f = &r->fields[r->nfields++];
	f->column = clamp_u32(column);
	return f;
}

/* A quoted field whose opening quote is text[open]; *at = the byte after the closing quote. */
static int quoted_field(struct vsperf_reader *r, const char *text, size_t len, size_t open,
			struct csv_field *f, size_t *at)
{
	size_t close = open + 1;
	bool doubled = false;

	for (;;) {
		const char *quote = memchr(text + close, '"', len - close);

		if (!quote)
			return fail(r, open + 1, "unterminated quoted field (no closing '\"' before "
				    "the end of the line)");
		close = (size_t)(quote - text);
		if (close + 1 < len && text[close + 1] == '"') {
			doubled = true;
			close += 2;
			continue;
		}
		break;
	}
	f->p = text + open + 1;
	f->len = close - open - 1;
	if (doubled) { /* undouble into the scratch buffer, reserved for the whole line */
		char *out = r->scratch + r->scratch_used;

		f->len = 0;
		for (size_t i = open + 1; i < close; i++) {
			out[f->len++] = text[i];
			i += text[i] == '"';
		}
		f->p = out;
		r->scratch_used += f->len;
	}
	*at = close + 1;
	while (*at < len && is_blank(text[*at]))
		(*at)++;
	if (*at < len && text[*at] != ',') {
		char quoted[4 * QUOTE_MAX + 8];

		pc_quote(quoted, sizeof(quoted), text + *at, len - *at, 8);
		return fail(r, *at + 1, "expected ',' or the end of the line after a closing "
			    "quote, found \"%s\"", quoted);
	}
	return 0;
}

static int check_bytes(struct vsperf_reader *r, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		if (!c)
			return fail(r, i + 1, "unexpected NUL byte (is this binary data?)");
		if (c < 0x20 && c != '\t')
			return fail(r, i + 1, "unexpected control byte 0x%02x (is this binary "
				    "data?)", c);
	}
	return 0;
}

/* Splits a line into r->fields. */
static int split_line(struct vsperf_reader *r, const char *text, size_t len)
{
	size_t at = 0;

	if (check_bytes(r, text, len))
		return -1;
	r->nfields = 0;
	r->scratch_used = 0;
	pc_grow(&r->scratch, &r->scratch_cap, len + 1, 1);
	for (;;) {
		struct csv_field *f = new_field(r, at + 1);
		size_t start = at;

		while (start < len && is_blank(text[start]))
			start++;
		if (start < len && text[start] == '"') {
			if (quoted_field(r, text, len, start, f, &at))
				return -1;
		} else {
			const char *comma = memchr(text + at, ',', len - at);
			size_t end = comma ? (size_t)(comma - text) : len;

			f->p = text + at;
			f->len = end - at;
			at = end;
		}
		if (at == len)
			return 0;
		at++; /* the comma */
	}
}

/* --- the header --- */

/* Whether a header field names column: ASCII case ignored, and "X%" = "X %". */
static bool header_equal(const char *p, size_t len, const char *name)
{
	size_t i = 0, j = 0;

	while (i < len && name[j]) {
		if (p[i] == ' ' && i + 1 < len && p[i + 1] == '%' && name[j] == '%') {
			i++;
			continue;
		}
		if (name[j] == ' ' && name[j + 1] == '%' && p[i] == '%') {
			j++;
			continue;
		}
		if (ascii_lower(p[i]) != ascii_lower(name[j]))
			return false;
		i++, j++;
	}
	return i == len && !name[j];
}

static const struct column_name *find_column(const char *p, size_t len)
{
	trim(&p, &len);
	for (size_t i = 0; i < PC_ARRAY_SIZE(column_names); i++)
		if (header_equal(p, len, column_names[i].name))
			return &column_names[i];
	return NULL;
}

/* The header field of the column of that kind, or NULL. */
static const struct csv_field *header_field(const struct vsperf_reader *r, enum field_kind kind)
{
	for (size_t i = 0; i < r->ncolumns; i++)
		if (r->map[i] && r->map[i]->kind == kind)
			return &r->fields[i];
	return NULL;
}

static int wrong_header(struct vsperf_reader *r, const char *text, size_t len)
{
	char quoted[4 * QUOTE_MAX + 8];

	pc_quote(quoted, sizeof(quoted), text, len, QUOTE_MAX);
	return fail(r, 1, "expected the header of a Visual Studio report (\"Type,Function "
		    "Name,...\" for CallerCallee, \"Level,Function Name,...\" for CallTree or "
		    "\"Function Name,...\" for a Function summary), found \"%s\"", quoted);
}

/* Maps each header field to its column and fills the layout's bits. */
static int map_columns(struct vsperf_reader *r, struct vsperf_layout *layout)
{
	r->ncolumns = r->nfields;
	if (r->ncolumns > 1 && !r->fields[r->ncolumns - 1].len)
		r->ncolumns--; /* the trailing comma */
	pc_grow(&r->map, &r->map_cap, r->ncolumns, sizeof(*r->map));
	for (size_t i = 0; i < r->ncolumns; i++) {
		const struct csv_field *f = &r->fields[i];
		const struct column_name *column = find_column(f->p, f->len);

		r->map[i] = column;
		for (size_t k = 0; column && k < i; k++)
			if (r->map[k] == column)
				return fail(r, f->column, "column \"%s\" appears twice (also at "
					    "column %u)", column->name, r->fields[k].column);
		if (column && (column->kind == FIELD_COUNT || column->kind == FIELD_TIME))
			layout->counts |= 1u << column->index;
		if (column && column->kind == FIELD_REAL)
			layout->reals |= 1u << column->index;
	}
	return 0;
}

/* Averages and percentages serve IDE call trees only: elsewhere they are not read. */
static void drop_reals(struct vsperf_reader *r, struct vsperf_layout *layout)
{
	for (size_t i = 0; i < r->ncolumns; i++)
		if (r->map[i] && r->map[i]->kind == FIELD_REAL)
			r->map[i] = NULL;
	layout->reals = 0;
}

static int read_header(struct vsperf_reader *r, const char *text, size_t len)
{
	struct vsperf_layout layout = { 0 };
	const char *needs = NULL;

	if (split_line(r, text, len) || map_columns(r, &layout))
		return -1;
	if (header_field(r, FIELD_TYPE)) {
		layout.report = VSPERF_CALLER_CALLEE;
		needs = "a CallerCallee report";
	} else if (header_field(r, FIELD_LEVEL)) {
		layout.report = VSPERF_CALL_TREE;
		needs = "a CallTree report";
	} else if (header_field(r, FIELD_LINE_SUMMARY) && header_field(r, FIELD_NAME)) {
		return fail(r, 1, "this is a Line summary, which profconv does not read "
			    "(expected a CallerCallee, CallTree or Function summary)");
	} else if (header_field(r, FIELD_NAME)) {
		layout.report = VSPERF_FUNCTIONS;
	} else {
		return wrong_header(r, text, len);
	}
	if (needs && !header_field(r, FIELD_NAME))
		return fail(r, 1, "missing column \"Function Name\" (%s needs it)", needs);
	if (layout.report != VSPERF_CALL_TREE)
		drop_reals(r, &layout);
	r->have_header = true;
	return vsperf_builder_begin(&r->builder, &layout, clamp_u32(r->line_number), 1);
}

/* --- rows --- */

static int check_field_count(struct vsperf_reader *r, size_t len)
{
	if (r->nfields < r->ncolumns)
		return fail(r, len + 1, "expected %zu fields as the header has, found %zu",
			    r->ncolumns, r->nfields);
	if (r->nfields > r->ncolumns + 1 ||
	    (r->nfields == r->ncolumns + 1 && r->fields[r->ncolumns].len))
		return fail(r, r->fields[r->ncolumns].column, "expected %zu fields as the header "
			    "has, found %zu", r->ncolumns, r->nfields);
	return 0;
}

static int parse_row(struct vsperf_reader *r, const char *text, size_t len,
		     struct vsperf_row *row)
{
	if (split_line(r, text, len) || check_field_count(r, len))
		return -1;
	for (size_t i = 0; i < r->ncolumns; i++)
		if (r->map[i] && fill_field(r, &r->fields[i], r->map[i], row))
			return -1;
	return 0;
}

/*
 * A row that does not parse (ctx->err says where): an error, or with
 * --skip-bad a counted warning, which --strict turns back into the error.
 */
static int bad_row(struct vsperf_reader *r)
{
	struct pc_error located = r->ctx->err;

	if (!r->ctx->opt.skip_bad)
		return -1;
	pc_error_clear(&r->ctx->err);
	if (!pc_warn(r->ctx, FORMAT, "skipped an unparseable line, the first at %s:%u:%u: %s",
		     r->in->name, located.line, located.column, located.message))
		return 0;
	r->ctx->err = located;
	return -1;
}

static int read_row(struct vsperf_reader *r, const char *text, size_t len)
{
	struct vsperf_row row = { .at_line = clamp_u32(r->line_number), .at_column = 1 };

	if (parse_row(r, text, len, &row))
		return bad_row(r);
	return vsperf_builder_add(&r->builder, &row);
}

static int handle_line(struct vsperf_reader *r, const char *text, size_t len)
{
	if (len && text[len - 1] == '\r')
		len--;
	if (r->line_number == 1 && r->encoding == ENCODING_BYTES && len >= 3 &&
	    !memcmp(text, "\xef\xbb\xbf", 3))
		text += 3, len -= 3;
	for (size_t i = 0; i < len; i++)
		if (!is_blank(text[i]))
			return r->have_header ? read_row(r, text, len) : read_header(r, text, len);
	return 0; /* a blank line */
}

/* --- lines, in either encoding --- */

/* Offset of the first line end (LF) at or after from in data[0, have), or have. */
static size_t find_line_end(const struct vsperf_reader *r, const uint8_t *data, size_t from,
			    size_t have)
{
	const uint8_t *newline;
	size_t at = from;

	switch (r->encoding) {
	case ENCODING_BYTES:
		newline = memchr(data + from, '\n', have - from);
		return newline ? (size_t)(newline - data) : have;
	case ENCODING_UTF16LE:
		for (; at + 2 <= have; at += 2)
			if (data[at] == '\n' && !data[at + 1])
				return at;
		break;
	case ENCODING_UTF16BE:
		for (; at + 2 <= have; at += 2)
			if (!data[at] && data[at + 1] == '\n')
				return at;
		break;
	}
	return have;
}

/*
 * Makes the window hold the next line (or the rest of the input): sets
 * *data, *have (bytes readable) and *end (offset of the line's LF, or
 * *have when the input ends first). -1 on a read error or an overlong line.
 */
static int fill_line(struct vsperf_reader *r, const uint8_t **data, size_t *have, size_t *end)
{
	size_t scanned = 0, unit = r->encoding == ENCODING_BYTES ? 1 : 2;

	*have = pc_input_fill(r->in, 1, data);
	while ((*end = find_line_end(r, *data, scanned, *have)) == *have) {
		size_t more;

		if (pc_input_check_io(r->in, &r->ctx->err))
			return -1;
		if (*have > MAX_LINE_BYTES)
			return pc_fail_line(&r->ctx->err, FORMAT, clamp_u32(r->line_number + 1), 1,
					    "line longer than %u MiB (is this a Visual Studio "
					    "report?)", MAX_LINE_BYTES >> 20);
		scanned = *have / unit * unit;
		more = pc_input_fill(r->in, *have + (*have < READ_AHEAD ? READ_AHEAD : *have), data);
		if (more == *have)
			break;
		*have = more;
	}
	if (pc_input_check_io(r->in, &r->ctx->err))
		return -1;
	if (*end > MAX_LINE_BYTES) /* the same limit whatever the buffer held */
		return pc_fail_line(&r->ctx->err, FORMAT, clamp_u32(r->line_number + 1), 1,
				    "line longer than %u MiB (is this a Visual Studio report?)",
				    MAX_LINE_BYTES >> 20);
	return 0;
}

/* Decodes the UTF-16 line data[0, nbytes) into r->decoded. */
static int decode_utf16(struct vsperf_reader *r, const uint8_t *data, size_t nbytes,
			struct text_line *line)
{
	enum pc_utf16_order order = r->encoding == ENCODING_UTF16LE ? PC_UTF16_LE : PC_UTF16_BE;
	size_t used, bad;

	pc_grow(&r->decoded, &r->decoded_cap, PC_UTF16_UTF8_MAX(nbytes) + 1, 1);
	if (pc_utf16_to_utf8(data, nbytes, order, r->decoded, &used, &bad))
		return fail(r, used + 1, "invalid UTF-16: a lone surrogate 0x%04X",
			    pc_utf16_unit(data + bad, order));
	if (nbytes & 1)
		return fail(r, used + 1, "the UTF-16 text ends in the middle of a character (an "
			    "odd number of bytes)");
	line->text = (const char *)r->decoded;
	line->len = used;
	return 0;
}

static int read_lines(struct vsperf_reader *r)
{
	for (;;) {
		struct text_line line;
		const uint8_t *data;
		size_t have, end;
		int rc;

		if (fill_line(r, &data, &have, &end))
			return -1;
		if (!have)
			return 0;
		r->line_number++;
		line.text = (const char *)data;
		line.len = end;
		rc = r->encoding != ENCODING_BYTES && decode_utf16(r, data, end, &line);
		rc = rc || handle_line(r, line.text, line.len);
		pc_input_consume(r->in, end < have ? end + (r->encoding == ENCODING_BYTES ? 1 : 2) :
						     have);
		if (rc)
			return -1;
	}
}

/* --- encodings --- */

/* Whether the head's first line looks like ASCII text in UTF-16 of that order. */
static bool looks_utf16(const uint8_t *head, size_t len, enum pc_utf16_order order)
{
	size_t units = 0;

	for (size_t i = 0; i + 2 <= len && i < 128; i += 2, units++) {
		uint16_t unit = pc_utf16_unit(head + i, order);

		if (unit == '\n' || unit == '\r')
			break;
		if (!unit || unit >= 0x80)
			return false;
	}
	return units >= 2;
}

/* The encoding of the input and the length of its byte-order mark. */
static enum encoding sniff_encoding(const uint8_t *head, size_t len, size_t *bom)
{
	*bom = 0;
	if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		return ENCODING_BYTES; /* handle_line drops it */
	if (len >= 2 && head[0] == 0xff && head[1] == 0xfe)
		return *bom = 2, ENCODING_UTF16LE;
	if (len >= 2 && head[0] == 0xfe && head[1] == 0xff)
		return *bom = 2, ENCODING_UTF16BE;
	if (len >= 4 && head[0] && !head[1] && looks_utf16(head, len, PC_UTF16_LE))
		return ENCODING_UTF16LE;
	if (len >= 4 && !head[0] && head[1] && looks_utf16(head, len, PC_UTF16_BE))
		return ENCODING_UTF16BE;
	return ENCODING_BYTES;
}

static int vsperf_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct vsperf_reader r = { .ctx = ctx, .in = in };
	const uint8_t *head;
	size_t bom, len = pc_input_fill(in, 128, &head);
	int rc;

	vsperf_builder_init(&r.builder, ctx, m, FORMAT);
	r.encoding = sniff_encoding(head, len, &bom);
	pc_input_consume(in, bom);
	rc = pc_input_check_io(in, &ctx->err) || read_lines(&r) ||
	     vsperf_builder_finish(&r.builder, clamp_u32(r.line_number ? r.line_number : 1)) ?
		-1 : 0;
	if (rc)
		pc_error_set_path(&ctx->err, in->name);
	vsperf_builder_release(&r.builder);
	free(r.map);
	free(r.fields);
	free(r.scratch);
	free(r.decoded);
	return rc;
}

/* --- probe and descriptor --- */

/*
 * The head's first line as ASCII (UTF-16 narrowed, byte-order marks
 * dropped) into buf; returns its length.
 */
static size_t probe_first_line(const uint8_t *head, size_t len, char *buf, size_t size)
{
	size_t bom, n = 0;
	enum encoding encoding = sniff_encoding(head, len, &bom);
	size_t unit = encoding == ENCODING_BYTES ? 1 : 2;

	if (encoding == ENCODING_BYTES && len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		bom = 3;
	for (size_t i = bom; i + unit <= len && n + 1 < size; i += unit) {
		uint16_t c = unit == 1 ? head[i] :
			pc_utf16_unit(head + i, encoding == ENCODING_UTF16LE ? PC_UTF16_LE :
									  PC_UTF16_BE);

		if (c == '\n' || c == '\r' || !c || c >= 0x80)
			break;
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return n;
}

static bool starts_with_nocase(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	return strlen(text) >= n && equal_nocase(text, n, prefix);
}

/* Whether the header line has a column (not the first) of that name. */
static bool has_column(const char *line, const char *name)
{
	size_t n = strlen(name), len = strlen(line);

	for (size_t i = 0; i + n + 1 <= len; i++)
		if (line[i] == ',' && equal_nocase(line + i + 1, n, name) &&
		    (i + 1 + n == len || line[i + 1 + n] == ','))
			return true;
	return false;
}

static int vsperf_probe(const uint8_t *head, size_t len)
{
	char line[1024];

	probe_first_line(head, len, line, sizeof(line));
	if (starts_with_nocase(line, "Type,Function Name,"))
		return has_column(line, "Root Function Name") ? PC_PROBE_STRONG : PC_PROBE_WEAK;
	if (starts_with_nocase(line, "Level,Function Name,"))
		return PC_PROBE_STRONG;
	if (starts_with_nocase(line, "Function Name,") &&
	    (has_column(line, "Inclusive Samples") || has_column(line, "Elapsed Inclusive Time")))
		return PC_PROBE_STRONG;
	return PC_PROBE_NO;
}

static const char *const vsperf_aliases[] = { "vsperfreport", "vsperf-csv", NULL };
static const char *const vsperf_extensions[] = { ".csv", NULL };

const struct pc_reader pc_vsperf_reader = {
	.name = "vsperf",
	.aliases = vsperf_aliases,
	.extensions = vsperf_extensions,
	.summary = "Visual Studio profiler reports in CSV (vsperfreport and IDE exports: "
		   "CallerCallee, CallTree, Function summaries)",
	.provides = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS | PC_PART_ARCS,
	.probe = vsperf_probe,
	.read = vsperf_read,
};
