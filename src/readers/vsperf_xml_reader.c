/*
 * vsperf_xml_reader.c - reads the XML reports of the Visual Studio
 * profiler (`vsperfreport /summary:calltree,function /XML`, files
 * <base>_CallTreeSummary.xml and <base>_FunctionSummary.xml, and the
 * IDE's XML exports), parsed with libxml2.
 *
 * Sources: research/vsperf.md section 6 (rxantos/vsptree, which reads
 * these files from VS2012; Stack Overflow 50939349, VS2017) and DESIGN.md
 * section 3.3. No real file is public: the samples in samples/vsperf/ are
 * ours, written from those names. Encodings: whatever libxml2 reads (UTF-8
 * with or without a byte-order mark, UTF-16 with one, an encoding
 * declaration). The grammar read (element and attribute names compared
 * without regard to ASCII case):
 *
 *   <PerformanceReport>                               the root, required
 *     <CallTreeSummary>                               a call tree ...
 *       <CallTree FunctionName=".." Level="0" .../>   pre-order rows
 *     </CallTreeSummary>
 *     <FunctionSummary>                               ... or a flat list
 *       <Function FunctionName=".." .../>
 *     </FunctionSummary>
 *   </PerformanceReport>
 *
 * Summaries may sit at any depth under the root and rows at any depth
 * under their summary (flat, as vsptree reads them, or nested: Level
 * alone gives the tree). Every other element, text, comment and
 * processing instruction is skipped. A file holds one kind of report:
 * a CallTreeSummary and a FunctionSummary in one file is an error; two
 * summaries of one kind are read as one. A summary without rows is an
 * empty profile; a root without a summary is an error.
 *
 * Attributes of a row (unknown ones are skipped; the first of two
 * spellings of one field wins):
 *   FunctionName (required), Level (required in CallTree: the row type
 *   the builder gets), InclSamples, ExclSamples, SourceFile, LineNumber,
 *   ModuleName, ModulePath, FunctionAddress (hex, 0x optional), ProcessName,
 *   PID - as vsptree reads them. InclSamplesPercent and ExclSamplesPercent
 *   are ignored: percentages are recomputed from the counts. Empty
 *   LineNumber, PID and FunctionAddress mean "not given".
 *   GUESSES (the instrumentation attribute names are not public; these
 *   follow the sampling names' pattern and the CSV column names):
 *   ElapsedInclTime, ElapsedExclTime, AppInclTime, AppExclTime (also
 *   ApplicationInclTime, ApplicationExclTime), NumCalls (also
 *   NumberOfCalls, Calls), AvgElapsedInclTime, AvgElapsedExclTime,
 *   ElapsedInclTimePercent, ElapsedExclTimePercent, and FunctionLineNumber
 *   and ProcessID as other spellings of LineNumber and PID.
 * The first row decides which counts the report has (the layout); a later
 * row that lacks one of them is an error, one that has more is read
 * without them (a counted warning). Numbers are read as the CSV reader
 * reads them ("numbers as Visual Studio writes them" in vsperf_model.h):
 * counts (and LineNumber, PID) are decimal digits, optionally grouped by
 * one kind of separator among , . ' space U+00A0 U+202F ("1,444",
 * "1.444", "1,00,000"); the values of the guessed decimal attributes may
 * use a decimal point or comma (the last of the two, or a lone one:
 * "97.30", "100,00", "1.000,50"); the times (ElapsedInclTime, ...) are a
 * count, exactly, or a decimal such as "12.5" rounded to whole ticks,
 * half up, with one counted warning (--strict: an error); FunctionAddress
 * is hexadecimal.
 *
 * What maps where: the rows go, decoded, to the shared builder
 * (readers/vsperf_model.h, which documents the model side): CallTree ->
 * VSPERF_CALL_TREE with the row type = Level, Function -> VSPERF_FUNCTIONS.
 * What is lost: everything but the rows' attributes above (other
 * summaries, the document's other elements and attributes), the
 * percentages.
 *
 * Errors, located at LINE:COL of the input as libxml2 counts them
 * (characters, from 1): malformed XML (libxml2's message, at libxml2's
 * position; also invalid encodings), a root other than PerformanceReport,
 * two kinds of summaries, a row without FunctionName (or Level), a bad
 * number (at the attribute, naming it), and the builder's errors (a Level
 * that skips a level, ...) at the row's '<'. With --skip-bad a row
 * without FunctionName (or Level) or with a bad number is skipped and
 * counted in one warning naming the first (--strict: the located error);
 * malformed XML and the builder's errors stay errors.
 *
 * Security: the document is parsed with XML_PARSE_NONET and without
 * XML_PARSE_NOENT, XML_PARSE_DTDLOAD, XML_PARSE_DTDATTR, XML_PARSE_DTDVALID
 * and XML_PARSE_HUGE (libxml2's size and depth limits stay on), with SAX2
 * callbacks that declare no entities: a DOCTYPE's internal subset is
 * parsed but its entities are never stored, so a reference to one
 * ("&e;", external or internal, billion laughs included) is an
 * "Entity 'e' not defined" error and nothing is ever expanded, loaded or
 * fetched; only the five predefined entities and character references
 * are decoded. The external subset is never loaded (attribute defaults of
 * the internal subset apply, as XML wants). As a second line, an external
 * entity loader that refuses everything is in force while this reader
 * parses (see install_loader()).
 *
 * libxml2 state: xmlInitParser() once per process (xmlCleanupParser is
 * never called: that is for the program to do, if ever); all errors,
 * the parser's and the context-less ones (encoding conversion, I/O), are
 * captured for the calling thread during the read (its previous handlers
 * are put back after) and never printed by libxml2 itself. A start tag is
 * only read once libxml2 has seen its '>'. Reading streams through struct pc_input (files and
 * pipes alike) with no allocation per row: memory grows with the
 * builder's functions and stacks, not with the input.
 */
#include "model/format.h"
#include "readers/vsperf_model.h"

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <pthread.h>
#include <stdarg.h>

#define FORMAT "vsperf-xml"
#define ROOT_ELEMENT "PerformanceReport"
#define QUOTE_MAX 40

#if LIBXML_VERSION >= 21200
typedef const xmlError *xml_error_ptr;
#else
typedef xmlErrorPtr xml_error_ptr;
#endif

/* --- attributes --- */

/* Where an attribute's value goes. */
enum attr_target {
	TARGET_NAME,
	TARGET_MODULE_NAME,
	TARGET_MODULE_PATH,
	TARGET_SOURCE_FILE,
	TARGET_PROCESS_NAME,
	TARGET_LINE,
	TARGET_ADDRESS,
	TARGET_PID,
	TARGET_LEVEL,
	TARGET_COUNT,                                  /* + enum vsperf_count */
	TARGET_REAL = TARGET_COUNT + VSPERF_NCOUNTS,   /* + enum vsperf_real */
	TARGET_IGNORED = TARGET_REAL + VSPERF_NREALS,  /* known, not read */
};

_Static_assert(TARGET_IGNORED < 32, "the targets seen fit a 32-bit mask");

struct attr_spec {
	const char *name;
	enum attr_target target;
};

static const struct attr_spec attr_specs[] = {
	{ "FunctionName", TARGET_NAME },
	{ "ModuleName", TARGET_MODULE_NAME },
	{ "ModulePath", TARGET_MODULE_PATH },
	{ "SourceFile", TARGET_SOURCE_FILE },
	{ "ProcessName", TARGET_PROCESS_NAME },
	{ "LineNumber", TARGET_LINE },
	{ "FunctionAddress", TARGET_ADDRESS },
	{ "PID", TARGET_PID },
	{ "Level", TARGET_LEVEL },
	{ "InclSamples", TARGET_COUNT + VSPERF_INCLUSIVE_SAMPLES },
	{ "ExclSamples", TARGET_COUNT + VSPERF_EXCLUSIVE_SAMPLES },
	{ "InclSamplesPercent", TARGET_IGNORED },
	{ "ExclSamplesPercent", TARGET_IGNORED },
	/* guesses: see the top comment */
	{ "FunctionLineNumber", TARGET_LINE },
	{ "ProcessID", TARGET_PID },
	{ "ElapsedInclTime", TARGET_COUNT + VSPERF_ELAPSED_INCLUSIVE },
	{ "ElapsedExclTime", TARGET_COUNT + VSPERF_ELAPSED_EXCLUSIVE },
	{ "AppInclTime", TARGET_COUNT + VSPERF_APPLICATION_INCLUSIVE },
	{ "AppExclTime", TARGET_COUNT + VSPERF_APPLICATION_EXCLUSIVE },
	{ "ApplicationInclTime", TARGET_COUNT + VSPERF_APPLICATION_INCLUSIVE },
	{ "ApplicationExclTime", TARGET_COUNT + VSPERF_APPLICATION_EXCLUSIVE },
	{ "NumCalls", TARGET_COUNT + VSPERF_CALLS },
	{ "NumberOfCalls", TARGET_COUNT + VSPERF_CALLS },
	{ "Calls", TARGET_COUNT + VSPERF_CALLS },
	{ "AvgElapsedInclTime", TARGET_REAL + VSPERF_AVG_ELAPSED_INCLUSIVE },
	{ "AvgElapsedExclTime", TARGET_REAL + VSPERF_AVG_ELAPSED_EXCLUSIVE },
	{ "ElapsedInclTimePercent", TARGET_REAL + VSPERF_ELAPSED_INCLUSIVE_PCT },
	{ "ElapsedExclTimePercent", TARGET_REAL + VSPERF_ELAPSED_EXCLUSIVE_PCT },
};

/* One attribute as libxml2's SAX2 startElementNs gives it. */
struct xml_attr {
	const char *local, *prefix;
	const char *value;
	size_t len;
};

/* The summaries and their rows. */
struct report_kind {
	const char *summary, *row;
	enum vsperf_report report;
};

static const struct report_kind report_kinds[] = {
	{ "CallTreeSummary", "CallTree", VSPERF_CALL_TREE },
	{ "FunctionSummary", "Function", VSPERF_FUNCTIONS },
};

/* --- the reader --- */

struct xml_position {
	uint32_t line, column;
};

struct xml_reader {
	struct pc_ctx *ctx;
	struct pc_input *in;
	xmlParserCtxtPtr parser;
	struct vsperf_builder builder;
	bool failed;                /* ctx->err holds the first error */
	unsigned depth;             /* of the open element; the root is 1 */
	unsigned summary_depth;     /* of the open summary, 0 = none */
	const struct report_kind *kind; /* the report, once a summary was seen */
	struct xml_position root, summary, end;
	unsigned layout_counts, layout_reals; /* the first row's, once begun */
	char *scratch;              /* decoded texts of the current row */
	size_t scratch_cap;
};

/* A row being decoded, and what it had. */
struct xml_row {
	struct vsperf_row row;
	uint32_t seen; /* bit 1u << enum attr_target */
};

static int fail_at(struct xml_reader *r, struct xml_position at, const char *fmt, ...)
	PC_PRINTF(3, 4);

/* Records the first error of the read; later ones are dropped. */
static int fail_at(struct xml_reader *r, struct xml_position at, const char *fmt, ...)
{
	char message[sizeof(r->ctx->err.message)];
	va_list ap;

	if (r->failed)
		return -1;
	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	r->failed = true;
	return pc_fail_line(&r->ctx->err, FORMAT, at.line ? at.line : 1,
			    at.column ? at.column : 1, "%s", message);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool name_is(const char *name, const char *want)
{
	for (; *name && *want; name++, want++) {
		char a = *name, b = *want;

		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (b >= 'A' && b <= 'Z')
			b = (char)(b - 'A' + 'a');
		if (a != b)
			return false;
	}
	return *name == *want;
}

/* --- positions in the input --- */

/* The parser's position: the next character it will read. */
static struct xml_position parser_position(const struct xml_reader *r)
{
	const xmlParserInput *input = r->parser ? r->parser->input : NULL;
	struct xml_position at = { 1, 1 };

	if (input && input->line > 0)
		at.line = (uint32_t)input->line;
	if (input && input->col > 0)
		at.column = (uint32_t)input->col;
	return at;
}

static bool is_continuation(uint8_t c)
{
	return (c & 0xc0) == 0x80;
}

/* Characters (UTF-8 sequences) in [from, to). */
static uint32_t chars_between(const xmlChar *from, const xmlChar *to)
{
	uint32_t n = 0;

	for (; from < to; from++)
		n += !is_continuation(*from);
	return n;
}

/*
 * The position of p, a byte of the parser's buffer before its current
 * position (whose line and column libxml2 knows): counted back from there.
 * A column on an earlier line is counted from that line's start when the
 * buffer still holds it (libxml2 keeps at least the current element).
 */
static struct xml_position position_of(const struct xml_reader *r, const xmlChar *p)
{
	const xmlParserInput *input = r->parser->input;
	struct xml_position at = parser_position(r);
	uint32_t newlines = 0, back;
	const xmlChar *line_start = p;

	for (const xmlChar *q = p; q < input->cur; q++)
		newlines += *q == '\n';
	if (!newlines) {
		back = chars_between(p, input->cur);
		at.column = at.column > back ? at.column - back : 1;
		return at;
	}
	at.line = at.line > newlines ? at.line - newlines : 1;
	while (line_start > input->base && line_start[-1] != '\n')
		line_start--;
	at.column = chars_between(line_start, p) + 1;
	return at;
}

/*
 * The '<' of the start tag being reported: libxml2 calls startElementNs
 * with its position at the tag's '>' (or "/>"), and the whole tag is still
 * in its buffer; '<' cannot occur inside a tag. NULL if not found.
 */
static const xmlChar *tag_start(const struct xml_reader *r)
{
	const xmlParserInput *input = r->parser->input;
	const xmlChar *p;

	if (!input || !input->cur || !input->base || input->cur < input->base)
		return NULL;
	for (p = input->cur; p > input->base && *p != '<'; p--)
		;
	return *p == '<' ? p : NULL;
}

/*
 * Whether the start tag being reported ends in '>' or "/>": libxml2 calls
 * startElementNs before it checks, and reports a cut tag just after.
 */
static bool tag_is_complete(const struct xml_reader *r)
{
	const xmlChar *cur = r->parser->input ? r->parser->input->cur : NULL;

	return cur && (cur[0] == '>' || (cur[0] == '/' && cur[1] == '>'));
}

static struct xml_position element_position(const struct xml_reader *r)
{
	const xmlChar *lt = tag_start(r);

	return lt ? position_of(r, lt) : parser_position(r);
}

/* Skips an attribute's value in a raw tag: the quote, the text, the quote. */
static const xmlChar *skip_value(const xmlChar *p, const xmlChar *end)
{
	xmlChar quote;

	while (p < end && is_blank((char)*p))
		p++;
	if (p < end && *p == '=')
		p++;
	while (p < end && is_blank((char)*p))
		p++;
	if (p >= end || (*p != '"' && *p != '\''))
		return end;
	quote = *p++;
	while (p < end && *p != quote)
		p++;
	return p < end ? p + 1 : end;
}

static bool raw_name_is(const xmlChar *p, size_t len, const struct xml_attr *attr)
{
	size_t prefix = attr->prefix ? strlen(attr->prefix) : 0, local = strlen(attr->local);

	if (attr->prefix)
		return len == prefix + 1 + local && !memcmp(p, attr->prefix, prefix) &&
		       p[prefix] == ':' && !memcmp(p + prefix + 1, attr->local, local);
	return len == local && !memcmp(p, attr->local, local);
}

/*
 * Where attr's name is in the raw start tag; the tag's '<' when it is not
 * there (an attribute defaulted by the DTD), the parser's position when
 * even that is gone.
 */
static struct xml_position attr_position(const struct xml_reader *r,
					 const struct xml_attr *attr)
{
	const xmlChar *lt = tag_start(r), *end = r->parser->input->cur, *p;

	if (!lt)
		return parser_position(r);
	for (p = lt + 1; p < end && !is_blank((char)*p) && *p != '/' && *p != '>'; p++)
		;
	while (p < end) {
		const xmlChar *name;

		while (p < end && is_blank((char)*p))
			p++;
		name = p;
		while (p < end && !is_blank((char)*p) && *p != '=' && *p != '/' && *p != '>')
			p++;
		if (p == name)
			break;
		if (raw_name_is(name, (size_t)(p - name), attr))
			return position_of(r, name);
		p = skip_value(p, end);
	}
	return position_of(r, lt);
}

/* --- decoding a row --- */

/* The spec of an attribute name, or NULL for an unknown attribute. */
static const struct attr_spec *find_spec(const struct xml_attr *attr)
{
	if (attr->prefix)
		return NULL;
	for (size_t i = 0; i < PC_ARRAY_SIZE(attr_specs); i++)
		if (name_is(attr->local, attr_specs[i].name))
			return &attr_specs[i];
	return NULL;
}

/*
 * A text attribute. Without XML_PARSE_NOENT libxml2 hands an '&' in an
 * attribute value (written &amp; or &#38;) to SAX2 as "&#38;" for the
 * tree builder to decode again; the other references are decoded already,
 * and no other entity can be declared (see the top comment). The decoded
 * text goes to the row's scratch space when it differs.
 */
static struct vsperf_text decode_text(struct xml_reader *r, const struct xml_attr *attr,
				      size_t *used)
{
	static const char amp[] = "&#38;";
	char *out = r->scratch + *used;
	size_t n = 0;

	if (!memchr(attr->value, '&', attr->len))
		return (struct vsperf_text){ attr->value, attr->len };
	for (size_t i = 0; i < attr->len; i++) {
		out[n++] = attr->value[i];
		if (attr->value[i] == '&' && attr->len - i >= sizeof(amp) - 1 &&
		    !memcmp(attr->value + i, amp, sizeof(amp) - 1))
			i += sizeof(amp) - 2;
	}
	*used += n;
	return (struct vsperf_text){ out, n };
}

/* Elapsed/Application Inclusive/Exclusive Time. */
static bool is_time(enum attr_target target)
{
	int count = (int)target - TARGET_COUNT;

	return target >= TARGET_COUNT && target < TARGET_REAL &&
	       (count == VSPERF_ELAPSED_INCLUSIVE || count == VSPERF_ELAPSED_EXCLUSIVE ||
		count == VSPERF_APPLICATION_INCLUSIVE || count == VSPERF_APPLICATION_EXCLUSIVE);
}

static const char *expected_for(enum attr_target target)
{
	if (target == TARGET_ADDRESS)
		return "a hexadecimal address (as in 0x00401690)";
	if (target == TARGET_LEVEL)
		return "a level (digits)";
	if (target >= TARGET_REAL)
		return "a decimal number (as in 97.30)";
	if (is_time(target))
		return "a time (a count, or a decimal such as 12.5)";
	return "a count (digits, maybe grouped as in 1,444)";
}

static int bad_number(struct xml_reader *r, const struct xml_attr *attr,
		      enum attr_target target, enum vsperf_number status)
{
	char quoted[4 * QUOTE_MAX + 8];

	pc_quote(quoted, sizeof(quoted), attr->value, attr->len, QUOTE_MAX);
	if (status == VSPERF_NUMBER_TOO_LARGE)
		return fail_at(r, attr_position(r, attr), "attribute %s: \"%s\" is too large",
			       attr->local, quoted);
	return fail_at(r, attr_position(r, attr), "attribute %s: expected %s, found \"%s\"",
		       attr->local, expected_for(target), quoted);
}

/* An optional number: an empty value means "not given". */
static int decode_optional(struct xml_reader *r, const struct xml_attr *attr,
			   enum attr_target target, struct vsperf_row *row)
{
	enum vsperf_number status;
	uint64_t value = 0;

	if (target == TARGET_LINE) {
		status = vsperf_parse_count(attr->value, attr->len, UINT32_MAX, &value);
		row->line = (uint32_t)value;
	} else if (target == TARGET_ADDRESS) {
		status = vsperf_parse_address(attr->value, attr->len, &row->address);
		row->has_address = status == VSPERF_NUMBER_OK;
	} else {
		status = vsperf_parse_count(attr->value, attr->len, VSPERF_MAX_PID, &value);
		row->pid = (int64_t)value;
		row->has_pid = status == VSPERF_NUMBER_OK;
	}
	if (status == VSPERF_NUMBER_EMPTY || status == VSPERF_NUMBER_OK)
		return 0;
	return bad_number(r, attr, target, status);
}

/*
 * A time: a count, or a decimal rounded to whole ticks (vsperf_model.h),
 * which a counted warning says (--strict: an error at the attribute).
 */
static int decode_time(struct xml_reader *r, const struct xml_attr *attr,
		       enum attr_target target, uint64_t *out)
{
	bool rounded;
	enum vsperf_number status = vsperf_parse_time(attr->value, attr->len, PC_COUNT_MAX, out,
						      &rounded);
	struct xml_position at = attr_position(r, attr);
	char quoted[4 * QUOTE_MAX + 8];

	if (status != VSPERF_NUMBER_OK)
		return bad_number(r, attr, target, status);
	if (!rounded)
		return 0;
	pc_quote(quoted, sizeof(quoted), attr->value, attr->len, QUOTE_MAX);
	if (!pc_warn(r->ctx, FORMAT, "rounded times with a fraction to whole ticks, the first "
		     "\"%s\" in attribute %s at line %u to %llu", quoted, attr->local, at.line,
		     (unsigned long long)*out))
		return 0;
	pc_error_clear(&r->ctx->err);
	return fail_at(r, at, "attribute %s: \"%s\" has a fraction, which would be rounded to "
		       "%llu (an error with --strict)", attr->local, quoted,
		       (unsigned long long)*out);
}

static int decode_number(struct xml_reader *r, const struct xml_attr *attr,
			 enum attr_target target, struct vsperf_row *row)
{
	enum vsperf_number status;

	if (is_time(target))
		return decode_time(r, attr, target, &row->counts[target - TARGET_COUNT]);
	if (target == TARGET_LEVEL)
		status = vsperf_parse_level(attr->value, attr->len, &row->type);
	else if (target >= TARGET_REAL)
		status = vsperf_parse_real(attr->value, attr->len,
					   &row->reals[target - TARGET_REAL]);
	else if (target >= TARGET_COUNT)
		status = vsperf_parse_count(attr->value, attr->len, PC_COUNT_MAX,
					    &row->counts[target - TARGET_COUNT]);
	else
		return decode_optional(r, attr, target, row);
	return status == VSPERF_NUMBER_OK ? 0 : bad_number(r, attr, target, status);
}

static int decode_attr(struct xml_reader *r, const struct xml_attr *attr,
		       struct xml_row *x, size_t *used)
{
	const struct attr_spec *spec = find_spec(attr);
	struct vsperf_row *row = &x->row;
	struct vsperf_text *texts[] = {
		[TARGET_NAME] = &row->name,
		[TARGET_MODULE_NAME] = &row->module_name,
		[TARGET_MODULE_PATH] = &row->module_path,
		[TARGET_SOURCE_FILE] = &row->source_file,
		[TARGET_PROCESS_NAME] = &row->process_name,
	};

	if (!spec || spec->target == TARGET_IGNORED || (x->seen & 1u << spec->target))
		return 0;
	x->seen |= 1u << spec->target;
	if (spec->target <= TARGET_PROCESS_NAME) {
		*texts[spec->target] = decode_text(r, attr, used);
		return 0;
	}
	return decode_number(r, attr, spec->target, row);
}

static unsigned seen_counts(const struct xml_row *x)
{
	return (x->seen >> TARGET_COUNT) & ((1u << VSPERF_NCOUNTS) - 1);
}

static unsigned seen_reals(const struct xml_row *x)
{
	return (x->seen >> TARGET_REAL) & ((1u << VSPERF_NREALS) - 1);
}

/* The (first) attribute name of a target. */
static const char *target_name(enum attr_target target)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(attr_specs); i++)
		if (attr_specs[i].target == target)
			return attr_specs[i].name;
	return "?";
}

/* The builder set ctx->err; no other error may replace it. */
static int builder_failed(struct xml_reader *r)
{
	r->failed = true;
	return -1;
}

static int begin_report(struct xml_reader *r, const struct xml_row *x)
{
	struct vsperf_layout layout = { .report = r->kind->report, .counts = seen_counts(x),
					.reals = seen_reals(x) };

	r->layout_counts = layout.counts;
	r->layout_reals = layout.reals;
	if (!layout.counts && !layout.reals)
		return fail_at(r, (struct xml_position){ x->row.at_line, x->row.at_column },
			       "expected counts in the first <%s> (InclSamples and ExclSamples, "
			       "or instrumentation times), found none", r->kind->row);
	if (vsperf_builder_begin(&r->builder, &layout, x->row.at_line, x->row.at_column))
		return builder_failed(r);
	return 0;
}

/*
 * The first row's values declare the report's layout; a later row must
 * have them all, and the values it has beyond them are dropped.
 */
static int keep_layout(struct xml_reader *r, struct xml_row *x)
{
	uint32_t wanted = r->layout_counts << TARGET_COUNT | r->layout_reals << TARGET_REAL;
	uint32_t missing = wanted & ~x->seen;

	if (!r->builder.begun)
		return begin_report(r, x);
	for (unsigned t = TARGET_COUNT; missing; t++)
		if (missing & 1u << t)
			return fail_at(r, (struct xml_position){ x->row.at_line, x->row.at_column },
				       "expected attribute %s in <%s> (the first row has it), "
				       "found none", target_name((enum attr_target)t),
				       r->kind->row);
	if (!(seen_counts(x) & ~r->layout_counts) && !(seen_reals(x) & ~r->layout_reals))
		return 0;
	for (int c = 0; c < VSPERF_NCOUNTS; c++)
		if (!(r->layout_counts & 1u << c))
			x->row.counts[c] = 0;
	for (int k = 0; k < VSPERF_NREALS; k++)
		if (!(r->layout_reals & 1u << k))
			x->row.reals[k] = 0;
	if (pc_warn(r->ctx, FORMAT, "ignored values that the first <%s> lacks, the first "
		    "at line %u", r->kind->row, x->row.at_line))
		return fail_at(r, (struct xml_position){ x->row.at_line, x->row.at_column },
			       "ignored values that the first <%s> lacks (an error with "
			       "--strict)", r->kind->row);
	return 0;
}

/* The i-th attribute of a SAX2 start tag (5 pointers each). */
static struct xml_attr attr_at(const xmlChar **attributes, size_t i)
{
	const xmlChar **a = attributes + 5 * i;

	return (struct xml_attr){
		.local = (const char *)a[0], .prefix = (const char *)a[1],
		.value = (const char *)a[3], .len = (size_t)(a[4] - a[3]),
	};
}

/* Decodes the attributes into x; the scratch space holds all the texts at once. */
static int decode_row(struct xml_reader *r, const xmlChar **attributes, size_t n,
		      struct xml_row *x)
{
	size_t total = 0, used = 0;

	for (size_t i = 0; i < n; i++)
		total += attr_at(attributes, i).len;
	pc_grow(&r->scratch, &r->scratch_cap, total + 1, 1);
	for (size_t i = 0; i < n; i++) {
		struct xml_attr attr = attr_at(attributes, i);

		if (decode_attr(r, &attr, x, &used))
			return -1;
	}
	return 0;
}

/* Decodes a row's attributes and checks the required ones. */
static int parse_row(struct xml_reader *r, const xmlChar **attributes, size_t n,
		     struct xml_position at, struct xml_row *x)
{
	if (decode_row(r, attributes, n, x))
		return -1;
	if (!(x->seen & 1u << TARGET_NAME))
		return fail_at(r, at, "expected a FunctionName attribute in <%s>, found none",
			       r->kind->row);
	if (r->kind->report == VSPERF_CALL_TREE && !(x->seen & 1u << TARGET_LEVEL))
		return fail_at(r, at, "expected a Level attribute in <%s>, found none",
			       r->kind->row);
	return 0;
}

/*
 * A row that does not parse (ctx->err says where): an error, or with
 * --skip-bad a counted warning, which --strict turns back into the error.
 */
static int bad_row(struct xml_reader *r)
{
	struct pc_error located = r->ctx->err;

	if (!r->ctx->opt.skip_bad)
		return -1;
	pc_error_clear(&r->ctx->err);
	r->failed = false;
	if (!pc_warn(r->ctx, FORMAT, "skipped an unparseable row, the first at %s:%u:%u: %s",
		     r->in->name, located.line, located.column, located.message))
		return 0;
	r->ctx->err = located;
	r->failed = true;
	return -1;
}

static int handle_row(struct xml_reader *r, const xmlChar **attributes, size_t n)
{
	struct xml_position at = element_position(r);
	struct xml_row x = { .row = { .at_line = at.line, .at_column = at.column } };

	if (parse_row(r, attributes, n, at, &x))
		return bad_row(r);
	if (keep_layout(r, &x))
		return -1;
	if (vsperf_builder_add(&r->builder, &x.row))
		return builder_failed(r);
	return 0;
}

/* --- elements --- */

static const struct report_kind *summary_kind(const char *name)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(report_kinds); i++)
		if (name_is(name, report_kinds[i].summary))
			return &report_kinds[i];
	return NULL;
}

static int start_root(struct xml_reader *r, const char *name)
{
	char quoted[4 * QUOTE_MAX + 8];

	r->root = element_position(r);
	if (name_is(name, ROOT_ELEMENT))
		return 0;
	pc_quote(quoted, sizeof(quoted), name, strlen(name), QUOTE_MAX);
	return fail_at(r, r->root, "expected the root element <" ROOT_ELEMENT "> of a Visual "
		       "Studio report, found <%s>", quoted);
}

static int start_summary(struct xml_reader *r, const struct report_kind *kind)
{
	struct xml_position at = element_position(r);

	if (r->kind && r->kind != kind)
		return fail_at(r, at, "found a <%s> after a <%s>: a file holds one report; "
			       "convert each report on its own", kind->summary,
			       r->kind->summary);
	if (!r->kind)
		r->summary = at;
	r->kind = kind;
	r->summary_depth = r->depth;
	return 0;
}

static int start_element(struct xml_reader *r, const char *name,
			 const xmlChar **attributes, size_t n)
{
	const struct report_kind *kind;

	if (r->depth == 1)
		return start_root(r, name);
	if (r->summary_depth)
		return name_is(name, r->kind->row) ? handle_row(r, attributes, n) : 0;
	kind = summary_kind(name);
	return kind ? start_summary(r, kind) : 0;
}

/* --- libxml2 callbacks --- */

static void on_start_element(void *data, const xmlChar *localname, const xmlChar *prefix,
			     const xmlChar *uri, int nb_namespaces,
			     const xmlChar **namespaces, int nb_attributes,
			     int nb_defaulted, const xmlChar **attributes)
{
	struct xml_reader *r = data;

	(void)prefix, (void)uri, (void)nb_namespaces, (void)namespaces, (void)nb_defaulted;
	if (r->failed)
		return;
	r->depth++;
	if (!tag_is_complete(r))
		return; /* libxml2's error follows */
	if (start_element(r, (const char *)localname, attributes,
			  nb_attributes > 0 ? (size_t)nb_attributes : 0))
		xmlStopParser(r->parser);
}

static void on_end_element(void *data, const xmlChar *localname, const xmlChar *prefix,
			   const xmlChar *uri)
{
	struct xml_reader *r = data;

	(void)localname, (void)prefix, (void)uri;
	if (r->failed || !r->depth)
		return;
	if (r->depth == r->summary_depth)
		r->summary_depth = 0;
	if (r->depth == 1)
		r->end = parser_position(r);
	r->depth--;
}

/* libxml2's message on one line, without its final newline. */
static void tidy_message(char *out, size_t size, const char *message)
{
	size_t n = 0;

	for (; message && *message && n + 1 < size; message++) {
		char c = *message;

		if ((unsigned char)c < 0x20)
			c = ' ';
		if (c == ' ' && (!n || out[n - 1] == ' '))
			continue;
		out[n++] = c;
	}
	while (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
}

/*
 * Every libxml2 error of the read comes here: the parser's, with its line
 * and column, and the context-less ones (encoding conversion, I/O), which
 * are placed where the parser is. Warnings are dropped.
 */
static void on_xml_error(void *data, xml_error_ptr error)
{
	struct xml_reader *r = data;
	struct xml_position at;
	char message[256];

	if (!error || error->level < XML_ERR_ERROR || r->failed)
		return;
	at = parser_position(r);
	if (error->line > 0) {
		at.line = (uint32_t)error->line;
		at.column = error->int2 > 0 ? (uint32_t)error->int2 : 1;
	}
	tidy_message(message, sizeof(message), error->message);
	fail_at(r, at, "malformed XML: %s", message[0] ? message : "unknown libxml2 error");
}

static void ignore_generic_error(void *data, const char *fmt, ...)
{
	(void)data, (void)fmt;
}

/* libxml2 pulls the input through this: whole chunks, short only at the end. */
static int read_chunk(void *context, char *buffer, int len)
{
	struct xml_reader *r = context;
	const uint8_t *data;
	size_t want = len > 0 ? (size_t)len : 0, have = pc_input_fill(r->in, want, &data);

	if (have > want)
		have = want;
	if (have)
		memcpy(buffer, data, have);
	pc_input_consume(r->in, have);
	return (int)have;
}

/* --- libxml2 set-up --- */

/*
 * The external entity loader is one process-wide hook (xmlSetExternalEntityLoader).
 * It is installed once, keeps the loader that was there before, and
 * refuses only while this reader parses on the calling thread
 * (refusing_reader); everyone else's parsing keeps the previous loader.
 * The options and callbacks already keep libxml2 from loading anything
 * (see the top comment): this is the second line of defence.
 */
static _Thread_local struct xml_reader *refusing_reader;
static xmlExternalEntityLoader previous_loader;
static pthread_once_t libxml2_once = PTHREAD_ONCE_INIT;

static xmlParserInputPtr refuse_entity(const char *url, const char *id,
				       xmlParserCtxtPtr parser)
{
	char quoted[4 * QUOTE_MAX + 8];
	const char *what = url ? url : id ? id : "";

	if (!refusing_reader)
		return previous_loader ? previous_loader(url, id, parser) : NULL;
	pc_quote(quoted, sizeof(quoted), what, strlen(what), QUOTE_MAX);
	fail_at(refusing_reader, parser_position(refusing_reader),
		"refused to load the external entity \"%s\": external entities are never read",
		quoted);
	return NULL;
}

static void install_loader(void)
{
	xmlInitParser();
	previous_loader = xmlGetExternalEntityLoader();
	xmlSetExternalEntityLoader(refuse_entity);
}

/* The calling thread's libxml2 error handlers, kept while ours are in force. */
struct xml_handlers {
	xmlStructuredErrorFunc structured;
	void *structured_data;
	xmlGenericErrorFunc generic;
	void *generic_data;
};

static void capture_errors(struct xml_reader *r, struct xml_handlers *saved)
{
	saved->structured = xmlStructuredError;
	saved->structured_data = xmlStructuredErrorContext;
	saved->generic = xmlGenericError;
	saved->generic_data = xmlGenericErrorContext;
	xmlSetStructuredErrorFunc(r, on_xml_error);
	xmlSetGenericErrorFunc(r, ignore_generic_error);
	refusing_reader = r;
}

static void restore_errors(const struct xml_handlers *saved)
{
	refusing_reader = NULL;
	xmlSetGenericErrorFunc(saved->generic_data, saved->generic);
	xmlSetStructuredErrorFunc(saved->structured_data, saved->structured);
}

static xmlParserCtxtPtr new_parser(struct xml_reader *r)
{
	xmlSAXHandler sax = {
		.initialized = XML_SAX2_MAGIC,
		.startElementNs = on_start_element,
		.endElementNs = on_end_element,
		.serror = on_xml_error,
	};
	int options = XML_PARSE_NONET;
	xmlParserCtxtPtr parser;

#if LIBXML_VERSION >= 21300
	options |= XML_PARSE_NO_XXE;
#endif
	parser = xmlCreateIOParserCtxt(&sax, r, read_chunk, NULL, r, XML_CHAR_ENCODING_NONE);
	if (!parser)
		return NULL;
	xmlCtxtUseOptions(parser, options);
	/* whatever the process-wide defaults say */
	parser->replaceEntities = 0;
	parser->loadsubset = 0;
	parser->validate = 0;
	parser->recovery = 0;
	return parser;
}

/* --- reading --- */

static int finish_report(struct xml_reader *r)
{
	static const struct vsperf_layout empty = {
		.report = VSPERF_CALL_TREE,
		.counts = 1u << VSPERF_INCLUSIVE_SAMPLES | 1u << VSPERF_EXCLUSIVE_SAMPLES,
	};
	struct vsperf_layout layout = empty;

	if (!r->kind)
		return fail_at(r, r->root, "expected a <CallTreeSummary> or <FunctionSummary> "
			       "in <" ROOT_ELEMENT ">, found neither (only these reports can be "
			       "read)");
	layout.report = r->kind->report;
	/* a summary without rows: an empty profile */
	if (!r->builder.begun &&
	    vsperf_builder_begin(&r->builder, &layout, r->summary.line, r->summary.column))
		return -1;
	return vsperf_builder_finish(&r->builder, r->end.line);
}

static int parse(struct xml_reader *r)
{
	struct xml_handlers saved;
	int rc;

	capture_errors(r, &saved);
	r->parser = new_parser(r);
	if (!r->parser) {
		restore_errors(&saved);
		return pc_fail(&r->ctx->err, PC_STATUS_INPUT, "cannot create an XML parser "
			       "(out of memory?)");
	}
	rc = xmlParseDocument(r->parser);
	if (!r->failed && (rc || !r->parser->wellFormed))
		fail_at(r, parser_position(r), "malformed XML");
	restore_errors(&saved);
	if (r->parser->myDoc)
		xmlFreeDoc(r->parser->myDoc);
	xmlFreeParserCtxt(r->parser);
	r->parser = NULL;
	return r->failed ? -1 : 0;
}

/* Whether the text is UTF-16: a byte-order mark, or '<' as its first character. */
static bool starts_utf16(struct pc_input *in)
{
	const uint8_t *head;
	size_t n = pc_input_fill(in, 2, &head);

	return n >= 2 && ((head[0] == 0xff && head[1] == 0xfe) || (head[0] == 0xfe && head[1] == 0xff) ||
			  (head[0] == '<' && !head[1]) || (!head[0] && head[1] == '<'));
}

/* UTF-16 text is whole code units: libxml2 would drop a last odd byte unsaid. */
static int check_whole_units(struct xml_reader *r)
{
	const uint8_t *data;
	size_t n;
	uint64_t size;

	while ((n = pc_input_fill(r->in, 1, &data))) /* what libxml2 left, to the end */
		pc_input_consume(r->in, n);
	size = pc_input_offset(r->in);

	if (!(size & 1))
		return 0;
	return pc_fail_at(&r->ctx->err, FORMAT, size - 1, "UTF-16 text of an odd number of "
			  "bytes (%llu): its last byte is half a code unit", (unsigned long long)size);
}

static int vsperf_xml_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct xml_reader r = { .ctx = ctx, .in = in };
	bool utf16;
	int rc;

	pthread_once(&libxml2_once, install_loader);
	vsperf_builder_init(&r.builder, ctx, m, FORMAT);
	utf16 = starts_utf16(in);
	rc = parse(&r);
	if (in->io_errno) {
		/* what libxml2 made of the cut input does not matter */
		pc_error_clear(&ctx->err);
		rc = pc_input_check_io(in, &ctx->err);
	}
	if (!rc && utf16)
		rc = check_whole_units(&r);
	if (!rc)
		rc = finish_report(&r);
	if (rc)
		pc_error_set_path(&ctx->err, in->name);
	vsperf_builder_release(&r.builder);
	free(r.scratch);
	return rc;
}

/* --- probe and descriptor --- */

#define PROBE_TEXT (PC_PROBE_BYTES + 1)

/*
 * The head as ASCII text: after a UTF-8 byte-order mark as it is, UTF-16
 * (with a byte-order mark, or "<" as its first character) one byte of each
 * pair; other characters become '?'.
 */
static size_t probe_text(const uint8_t *head, size_t len, char *text, size_t size)
{
	size_t at = 0, step = 1, low = 0, n = 0;

	if (len >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf) {
		at = 3;
	} else if (len >= 2 && ((head[0] == 0xff && head[1] == 0xfe) ||
				(head[0] == '<' && head[1] == 0))) {
		at = head[0] == 0xff ? 2 : 0, step = 2;
	} else if (len >= 2 && ((head[0] == 0xfe && head[1] == 0xff) ||
				(head[0] == 0 && head[1] == '<'))) {
		at = head[0] == 0xfe ? 2 : 0, step = 2, low = 1;
	}
	for (; at + step <= len && n + 1 < size; at += step) {
		uint8_t c = head[at + low];
		bool ascii = c < 0x80 && (step == 1 || !head[at + 1 - low]);

		text[n++] = ascii && c ? (char)c : '?';
	}
	text[n] = '\0';
	return n;
}

static bool has_root_tag(const char *text)
{
	const char *p = text;

	while ((p = strstr(p, "<" ROOT_ELEMENT))) {
		char next = p[sizeof(ROOT_ELEMENT)];

		if (next == '>' || next == '/' || is_blank(next))
			return true;
		p++;
	}
	return false;
}

/* Strong: an XML document whose root is <PerformanceReport>; weak: any XML declaration. */
static int vsperf_xml_probe(const uint8_t *head, size_t len)
{
	char text[PROBE_TEXT];
	const char *start = text;

	probe_text(head, len, text, sizeof(text));
	while (is_blank(*start))
		start++;
	if (*start != '<')
		return PC_PROBE_NO;
	if (has_root_tag(start))
		return PC_PROBE_STRONG;
	return strncmp(start, "<?xml", 5) ? PC_PROBE_NO : PC_PROBE_WEAK;
}

static const char *const vsperf_xml_extensions[] = { ".xml", NULL };

const struct pc_reader pc_vsperf_xml_reader = {
	.name = "vsperf-xml",
	.extensions = vsperf_xml_extensions,
	.summary = "Visual Studio profiler XML reports (vsperfreport /XML: CallTreeSummary, "
		   "FunctionSummary)",
	.provides = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS,
	.probe = vsperf_xml_probe,
	.read = vsperf_xml_read,
};
