/*
 * test_vsperf_xml_reader.c - the Visual Studio XML report reader: exact
 * models of a sampling call tree (two processes, the unknown frame,
 * entities and UTF-8 in names) and of a function summary; grouped counts;
 * the guessed instrumentation attributes; what is skipped (unknown
 * elements, nested rows, comments, namespaces); every error class at its
 * exact line:column (malformed XML, truncation at every byte, bad
 * numbers, missing attributes, Level jumps, encodings); security
 * (external entities never read, billion laughs bounded, libxml2 never
 * prints, the thread's error handlers and the entity loader left as they
 * were); files and pipes; the probe.
 */
#include "pipeline/registry.h"
#include "support/fixture.h"
#include "support/read_memory.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>

extern const struct pc_reader pc_vsperf_xml_reader;

#define XML_DECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
/* A CallTree row: name, inclusive, exclusive, level (line of its own). */
#define ROW(name, incl, excl, level)                                              \
	"    <CallTree FunctionName=\"" name "\" InclSamples=\"" incl "\" ExclSamples=\"" \
	excl "\" Level=\"" level "\" />\n"
#define TREE_HEAD XML_DECL "<PerformanceReport>\n  <CallTreeSummary>\n"
#define TREE_TAIL "  </CallTreeSummary>\n</PerformanceReport>\n"

static int read_bytes(struct fixture *f, const void *data, size_t size)
{
	return pct_read_memory(&f->ctx, f->m, &pc_vsperf_xml_reader, "test.xml", data, size,
			       false);
}

static int read_text(struct fixture *f, const char *text)
{
	return read_bytes(f, text, strlen(text));
}

/* A label's text ("comm=app.exe", "pid=4242"), appended to buf. */
static size_t label_text(const struct pc_model *m, uint32_t id, char *buf, size_t size)
{
	const struct pc_label *label = pc_model_label(m, id);

	if (label->str)
		return (size_t)snprintf(buf, size, "%s=%s,", pc_str(m, label->key),
					pc_str(m, label->str));
	return (size_t)snprintf(buf, size, "%s=%lld,", pc_str(m, label->key),
				(long long)label->num);
}

/* Sample i as "LABELS|root;...;leaf" (function names). */
static void sample_text(const struct pc_model *m, size_t i, char *buf, size_t size)
{
	size_t n, used = 0;
	const uint32_t *ids = pc_model_labelset(m, pc_model_sample(m, i)->labels, &n);
	const uint32_t *frames;

	buf[0] = '\0';
	for (size_t k = 0; k < n; k++)
		used += label_text(m, ids[k], buf + used, size - used);
	used += (size_t)snprintf(buf + used, size - used, "|");
	frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);
	for (size_t k = n; k-- > 0;) {
		pc_str_id name = pc_model_frame(m, frames[k])->function;

		used += (size_t)snprintf(buf + used, size - used, "%s%s", pc_str(m, name),
					 k ? ";" : "");
		assert_true(used < size);
	}
}

/* The value in column of the sample that reads as text; -1 when none. */
static int64_t value_of(const struct pc_model *m, const char *text, size_t column)
{
	char buf[4096];

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		sample_text(m, i, buf, sizeof(buf));
		if (!strcmp(buf, text))
			return (int64_t)pc_model_values(m, i)[column];
	}
	return -1;
}

static uint64_t column_total(const struct pc_model *m, size_t column)
{
	uint64_t total = 0;

	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		total += pc_model_values(m, i)[column];
	return total;
}

/* The frame named name (the first), or NULL. */
static const struct pc_frame *frame_named(const struct pc_model *m, const char *name)
{
	for (size_t i = 0; i < pc_model_nframes(m); i++)
		if (!strcmp(pc_str(m, pc_model_frame(m, (uint32_t)(i) + 1)->function), name))
			return pc_model_frame(m, (uint32_t)(i) + 1);
	return NULL;
}

static const char *fact(const struct pc_model *m, const char *key)
{
	for (size_t i = 0; i < pc_model_nfacts(m); i++)
		if (!strcmp(pc_str(m, pc_model_fact(m, i)->key), key))
			return pc_str(m, pc_model_fact(m, i)->value);
	return NULL;
}

static void assert_column(const struct pc_model *m, size_t column, const char *type,
			  const char *unit)
{
	assert_true(column < pc_model_ncolumns(m));
	assert_string_equal(pc_str(m, pc_model_column(m, column)->type), type);
	assert_string_equal(pc_str(m, pc_model_column(m, column)->unit), unit);
}

static void assert_failed_at(struct fixture *f, uint32_t line, uint32_t column,
			     const char *message)
{
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f->ctx.err.format, "vsperf-xml");
	assert_string_equal(f->ctx.err.path, "test.xml");
	assert_string_equal(f->ctx.err.message, message);
	assert_int_equal(f->ctx.err.line, line);
	assert_int_equal(f->ctx.err.column, column);
}

static void assert_error(struct fixture *f, const char *text, uint32_t line,
			 uint32_t column, const char *message)
{
	assert_int_equal(read_text(f, text), -1);
	assert_failed_at(f, line, column, message);
}

/* --- the sampling call tree --- */

static const char call_tree[] =
	XML_DECL
	"<PerformanceReport>\n"
	"  <CallTreeSummary>\n"
	"    <CallTree FunctionName=\"app.exe\" InclSamples=\"1,500\" ExclSamples=\"0\" "
	"ModuleName=\"\" ModulePath=\"\" FunctionAddress=\"\" Level=\"0\" "
	"ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"main\" InclSamples=\"1,500\" ExclSamples=\"10\" "
	"SourceFile=\"c:\\src\\main.cpp\" LineNumber=\"12\" ModuleName=\"app.exe\" "
	"ModulePath=\"C:\\app\\app.exe\" FunctionAddress=\"0x00401000\" Level=\"1\" "
	"ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"parse&lt;std::vector&lt;int&gt; &gt;\" "
	"InclSamples=\"1,200\" ExclSamples=\"1,050\" ModulePath=\"C:\\app\\app.exe\" "
	"FunctionAddress=\"0x00401200\" Level=\"2\" ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"Unknown Frame(s)\" InclSamples=\"150\" "
	"ExclSamples=\"150\" SourceFile=\"&lt;Unknown&gt;\" LineNumber=\"0\" "
	"ModuleName=\"UNKNOWN\" ModulePath=\"UNKNOWN\" FunctionAddress=\"0xBAADF00D\" "
	"Level=\"3\" ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"R\xc3\xa4ksm\xc3\xb6rg\xc3\xa5s::ber\xc3\xa4kna(int &amp;)\" "
	"InclSamples=\"290\" ExclSamples=\"90\" ModulePath=\"C:\\app\\app.exe\" "
	"FunctionAddress=\"0x00401800\" Level=\"2\" ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"operator&amp;&amp;\" InclSamples=\"200\" "
	"ExclSamples=\"200\" ModuleName=\"msvcrt.dll\" "
	"ModulePath=\"C:\\Windows\\System32\\msvcrt.dll\" FunctionAddress=\"0x77C01234\" "
	"Level=\"3\" ProcessName=\"app.exe\" PID=\"4242\" />\n"
	"    <CallTree FunctionName=\"worker.exe\" InclSamples=\"35\" ExclSamples=\"0\" "
	"Level=\"0\" ProcessName=\"worker.exe\" PID=\"77\" />\n"
	"    <CallTree FunctionName=\"wmain\" InclSamples=\"35\" ExclSamples=\"5\" "
	"ModulePath=\"C:\\w\\worker.exe\" FunctionAddress=\"0x00401000\" Level=\"1\" "
	"ProcessName=\"worker.exe\" PID=\"77\" />\n"
	"    <CallTree FunctionName=\"main\" InclSamples=\"30\" ExclSamples=\"30\" "
	"ModulePath=\"C:\\w\\worker.exe\" FunctionAddress=\"0x00401100\" Level=\"2\" "
	"ProcessName=\"worker.exe\" PID=\"77\" />\n"
	"  </CallTreeSummary>\n"
	"</PerformanceReport>\n";

#define APP "comm=app.exe,pid=4242,|"
#define WORKER "comm=worker.exe,pid=77,|"
#define BERAKNA "R\xc3\xa4ksm\xc3\xb6rg\xc3\xa5s::ber\xc3\xa4kna(int &)"

static void test_call_tree(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;

	assert_int_equal(read_text(f, call_tree), 0);
	assert_int_equal(pc_model_ncolumns(m), 1);
	assert_column(m, 0, "samples", "count");
	assert_int_equal(pc_model_default_column(m), 0);
	assert_int_equal(pc_model_nsamples(m), 7);
	assert_int_equal(column_total(m, 0), 1535);
	assert_int_equal(value_of(m, APP "main", 0), 10);
	assert_int_equal(value_of(m, APP "main;parse<std::vector<int> >", 0), 1050);
	assert_int_equal(value_of(m, APP "main;parse<std::vector<int> >;Unknown Frame(s)", 0),
			 150);
	assert_int_equal(value_of(m, APP "main;" BERAKNA, 0), 90);
	assert_int_equal(value_of(m, APP "main;" BERAKNA ";operator&&", 0), 200);
	assert_int_equal(value_of(m, WORKER "wmain", 0), 5);
	assert_int_equal(value_of(m, WORKER "wmain;main", 0), 30);
	assert_string_equal(pc_str(m, pc_model_source(m, 0)), "vsperf");
	assert_string_equal(fact(m, "vsperf.report"), "CallTree");
	assert_string_equal(fact(m, "vsperf.flavour"), "sampling");
}

static void test_call_tree_frames(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;
	const struct pc_frame *frame;
	const struct pc_module *module;

	assert_int_equal(read_text(f, call_tree), 0);
	/* main of app.exe and main of worker.exe, wmain, parse, unknown, beräkna, && */
	assert_int_equal(pc_model_nframes(m), 7);
	frame = frame_named(m, "main");
	assert_non_null(frame);
	assert_int_equal(frame->flags, PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE);
	assert_int_equal(frame->address, 0x401000);
	assert_string_equal(pc_str(m, frame->file), "c:\\src\\main.cpp");
	assert_int_equal(frame->line, 12);
	module = pc_model_module(m, frame->module);
	assert_string_equal(pc_str(m, module->name), "C:\\app\\app.exe");
	assert_int_equal(module->space, 4243);
	frame = frame_named(m, "Unknown Frame(s)");
	assert_non_null(frame);
	assert_int_equal(frame->module, 0);
	assert_int_equal(frame->flags, 0);
	assert_int_equal(frame->file, 0);
	frame = frame_named(m, "operator&&");
	assert_non_null(frame);
	assert_int_equal(frame->address, 0x77c01234);
	assert_string_equal(pc_str(m, pc_model_module(m, frame->module)->name),
			    "C:\\Windows\\System32\\msvcrt.dll");
}

static void test_nested_rows_and_skipped_elements(void **state)
{
	struct fixture *f = *state;

	/* rows nested in rows and in other elements, comments, PIs, text, CDATA,
	   other summaries and namespaces: only Level gives the tree */
	assert_int_equal(read_text(f, XML_DECL
		"<?xml-stylesheet href=\"r.xsl\"?>\n"
		"<PerformanceReport xmlns=\"urn:x\" xmlns:v=\"urn:v\" Version=\"17\">\n"
		"  <Header><Function FunctionName=\"no\" InclSamples=\"9\" ExclSamples=\"9\"/></Header>\n"
		"  <ModuleSummary><Module Name=\"a.dll\"/></ModuleSummary>\n"
		"  <Outer><CallTreeSummary>\n"
		"    <!-- a comment -->\n"
		"    <CallTree FunctionName=\"a\" InclSamples=\"3\" ExclSamples=\"1\" Level=\"1\""
		" v:Extra=\"1\" Unknown=\"x\">\n"
		"      text <![CDATA[ <CallTree FunctionName=\"cdata\"/> ]]>\n"
		"      <Group><CallTree FunctionName=\"b\" InclSamples=\"2\" ExclSamples=\"2\""
		" Level=\"2\"/></Group>\n"
		"      <Function FunctionName=\"not a row here\" InclSamples=\"7\" ExclSamples=\"7\"/>\n"
		"    </CallTree>\n"
		"  </CallTreeSummary></Outer>\n"
		"  <CallTree FunctionName=\"outside\" InclSamples=\"5\" ExclSamples=\"5\" Level=\"1\"/>\n"
		"</PerformanceReport>\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "|a", 0), 1);
	assert_int_equal(value_of(f->m, "|a;b", 0), 2);
}

static void test_two_summaries_of_one_kind_are_one_report(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, XML_DECL "<PerformanceReport>\n"
		"  <CallTreeSummary>\n" ROW("a", "3", "1", "1") "  </CallTreeSummary>\n"
		"  <Other/>\n"
		"  <CallTreeSummary>\n" ROW("b", "2", "2", "2") "  </CallTreeSummary>\n"
		"</PerformanceReport>\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "|a;b", 0), 2);
}

static void test_empty_summary_is_an_empty_profile(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, XML_DECL "<PerformanceReport><FunctionSummary/>"
				   "</PerformanceReport>"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 0);
	assert_string_equal(fact(f->m, "vsperf.report"), "Function");
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "vsperf");
}

/* --- the function summary --- */

static const char function_summary[] =
	XML_DECL
	"<PerformanceReport>\n"
	"  <FunctionSummary>\n"
	"    <Function FunctionName=\"MatrixMultiply.Program.FunctionName\" "
	"InclSamples=\"1,444\" ExclSamples=\"881\" InclSamplesPercent=\"97.30\" "
	"ExclSamplesPercent=\"59.37\" PID=\"5120\" ProcessName=\"MatrixMultiply.exe\" />\n"
	"    <Function FunctionName=\"Main\" InclSamples=\"1,484\" ExclSamples=\"40\" "
	"PID=\"5120\" ProcessName=\"MatrixMultiply.exe\" />\n"
	"    <Function FunctionName=\"Matrix&lt;double&gt;.op_Multiply\" InclSamples=\"500\" "
	"ExclSamples=\"500\" PID=\"5120\" ProcessName=\"MatrixMultiply.exe\" />\n"
	"    <Function FunctionName=\"\xce\xa9mega.\xce\xa3um &amp; Co\" InclSamples=\"63\" "
	"ExclSamples=\"63\" PID=\"5120\" ProcessName=\"MatrixMultiply.exe\" />\n"
	"  </FunctionSummary>\n"
	"</PerformanceReport>\n";

#define MM "comm=MatrixMultiply.exe,pid=5120,|"

static void test_function_summary(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;

	assert_int_equal(read_text(f, function_summary), 0);
	assert_int_equal(pc_model_ncolumns(m), 2);
	assert_column(m, 0, "samples", "count");
	assert_column(m, 1, "inclusive_samples", "count");
	assert_int_equal(pc_model_arc_self_column(m), 0);
	assert_int_equal(pc_model_arc_total_column(m), 1);
	assert_int_equal(pc_model_nsamples(m), 4);
	assert_int_equal(column_total(m, 0), 1484);
	assert_int_equal(value_of(m, MM "MatrixMultiply.Program.FunctionName", 0), 881);
	assert_int_equal(value_of(m, MM "MatrixMultiply.Program.FunctionName", 1), 1444);
	assert_int_equal(value_of(m, MM "Main", 1), 1484);
	assert_int_equal(value_of(m, MM "Matrix<double>.op_Multiply", 0), 500);
	assert_int_equal(value_of(m, MM "\xce\xa9mega.\xce\xa3um & Co", 0), 63);
	assert_string_equal(fact(m, "vsperf.report"), "Function");
	assert_int_equal(pc_model_narcs(m), 0);
}

/* --- attribute values --- */

static void test_entities_in_names(void **state)
{
	struct fixture *f = *state;

	/* "&amp;#38;" is the text "&#38;": decoded once, not twice */
	assert_int_equal(read_text(f, TREE_HEAD
		ROW("&amp;&#38;&#x26;&lt;&gt;&quot;&apos;&#x263A;\xc3\xa9|a&amp;#38;b", "1", "1", "1")
		ROW("tab&#9;nl&#10;", "1", "1", "1")
		TREE_TAIL), 0);
	assert_int_equal(value_of(f->m, "|&&&<>\"'\xe2\x98\xba\xc3\xa9|a&#38;b", 0), 1);
	assert_int_equal(value_of(f->m, "|tab\tnl\n", 0), 1);
}

static void test_grouped_counts(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, TREE_HEAD
		ROW("comma", "1,444", "1,444", "1")
		ROW("dot", "1.444", "1.444", "1")
		ROW("space", "1 444", "1 444", "1")
		ROW("apostrophe", "1'444", "1'444", "1")
		ROW("nbsp", "1\xc2\xa0" "444", "1\xc2\xa0" "444", "1")
		ROW("narrow", "1\xe2\x80\xaf" "444", "1\xe2\x80\xaf" "444", "1")
		ROW("indian", "1,00,000", "1,00,000", "1")
		ROW("millions", "12,345,678", "12,345,678", "1")
		ROW("blanks", " 7 ", "\t7\n", "1")
		ROW("largest", "9,223,372,036,854,775,807", "9223372036854775807", "1")
		TREE_TAIL), 0);
	assert_int_equal(value_of(f->m, "|comma", 0), 1444);
	assert_int_equal(value_of(f->m, "|dot", 0), 1444);
	assert_int_equal(value_of(f->m, "|space", 0), 1444);
	assert_int_equal(value_of(f->m, "|apostrophe", 0), 1444);
	assert_int_equal(value_of(f->m, "|nbsp", 0), 1444);
	assert_int_equal(value_of(f->m, "|narrow", 0), 1444);
	assert_int_equal(value_of(f->m, "|indian", 0), 100000);
	assert_int_equal(value_of(f->m, "|millions", 0), 12345678);
	assert_int_equal(value_of(f->m, "|blanks", 0), 7);
	assert_int_equal(value_of(f->m, "|largest", 0), INT64_MAX);
}

/* Reads a one-row call tree whose ExclSamples is value; fails at 4:col. */
static void assert_bad_count(struct fixture *f, const char *value, const char *message)
{
	char text[1024];

	snprintf(text, sizeof(text), TREE_HEAD "    <CallTree FunctionName=\"a\" "
		 "InclSamples=\"1\" ExclSamples=\"%s\" Level=\"1\"/>\n" TREE_TAIL, value);
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_text(f, text), -1);
	assert_failed_at(f, 4, 48, message);
}

#define EXPECTED_COUNT "attribute ExclSamples: expected a count (digits, maybe grouped as " \
	"in 1,444), found "

static void test_bad_counts(void **state)
{
	struct fixture *f = *state;

	assert_bad_count(f, "", EXPECTED_COUNT "\"\"");
	assert_bad_count(f, "12x", EXPECTED_COUNT "\"12x\"");
	assert_bad_count(f, "-3", EXPECTED_COUNT "\"-3\"");
	assert_bad_count(f, "1.5", EXPECTED_COUNT "\"1.5\"");
	assert_bad_count(f, "1,44", EXPECTED_COUNT "\"1,44\"");
	assert_bad_count(f, "1,,444", EXPECTED_COUNT "\"1,,444\"");
	assert_bad_count(f, ",444", EXPECTED_COUNT "\",444\"");
	assert_bad_count(f, "1,444,", EXPECTED_COUNT "\"1,444,\"");
	assert_bad_count(f, "1,444.000", EXPECTED_COUNT "\"1,444.000\"");
	assert_bad_count(f, "1234,567", EXPECTED_COUNT "\"1234,567\"");
	assert_bad_count(f, "0x10", EXPECTED_COUNT "\"0x10\"");
	assert_bad_count(f, "\xc3\xa9", EXPECTED_COUNT "\"\\xc3\\xa9\"");
	assert_bad_count(f, "9223372036854775808",
			 "attribute ExclSamples: \"9223372036854775808\" is too large");
	assert_bad_count(f, "99,999,999,999,999,999,999",
			 "attribute ExclSamples: \"99,999,999,999,999,999,999\" is too large");
}

static void test_optional_values(void **state)
{
	struct fixture *f = *state;
	const struct pc_frame *frame;

	assert_int_equal(read_text(f, TREE_HEAD
		"    <CallTree FunctionName=\"a\" InclSamples=\"1\" ExclSamples=\"1\" Level=\"1\""
		" LineNumber=\"\" PID=\" \" FunctionAddress=\"\" ModulePath=\"m->dll\"/>\n"
		"    <CallTree FunctionName=\"b\" InclSamples=\"1\" ExclSamples=\"1\" Level=\"1\""
		" LineNumber=\"1,234\" PID=\"8\" FunctionAddress=\"7fff0000ABCD\""
		" ModulePath=\"m->dll\"/>\n"
		TREE_TAIL), 0);
	frame = frame_named(f->m, "a");
	assert_int_equal(frame->flags, 0);
	assert_int_equal(frame->line, 0);
	assert_int_equal(value_of(f->m, "|a", 0), 1);
	frame = frame_named(f->m, "b");
	assert_int_equal(frame->flags, PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE);
	assert_int_equal(frame->address, 0x7fff0000abcd);
	assert_int_equal(frame->line, 1234);
	assert_int_equal(value_of(f->m, "pid=8,|b", 0), 1);
}

static void assert_bad_attribute(struct fixture *f, const char *attribute,
				 uint32_t column, const char *message)
{
	char text[1024];

	snprintf(text, sizeof(text), TREE_HEAD "    <CallTree FunctionName=\"a\" "
		 "InclSamples=\"1\" ExclSamples=\"1\" Level=\"1\" %s/>\n" TREE_TAIL, attribute);
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_text(f, text), -1);
	assert_failed_at(f, 4, column, message);
}

static void test_bad_optional_values(void **state)
{
	struct fixture *f = *state;

	assert_bad_attribute(f, "LineNumber=\"x\"", 74, "attribute LineNumber: expected a "
			     "count (digits, maybe grouped as in 1,444), found \"x\"");
	assert_bad_attribute(f, "LineNumber=\"4294967296\"", 74,
			     "attribute LineNumber: \"4294967296\" is too large");
	assert_bad_attribute(f, "PID=\"-1\"", 74, "attribute PID: expected a count (digits, "
			     "maybe grouped as in 1,444), found \"-1\"");
	assert_bad_attribute(f, "FunctionAddress=\"0xZZ\"", 74, "attribute FunctionAddress: "
			     "expected a hexadecimal address (as in 0x00401690), found \"0xZZ\"");
	assert_bad_attribute(f, "FunctionAddress=\"0x\"", 74, "attribute FunctionAddress: "
			     "expected a hexadecimal address (as in 0x00401690), found \"0x\"");
	assert_bad_attribute(f, "FunctionAddress=\"0x11112222333344445\"", 74,
			     "attribute FunctionAddress: \"0x11112222333344445\" is too large");
	assert_bad_attribute(f, "Extra=\"1\"   linenumber=\"x\"", 86, "attribute linenumber: "
			     "expected a count (digits, maybe grouped as in 1,444), found \"x\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, TREE_HEAD ROW("a", "1", "1", "1x") TREE_TAIL, 4, 64,
		     "attribute Level: expected a level (digits), found \"1x\"");
}

static void test_attribute_names_in_any_case_first_spelling_wins(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, TREE_HEAD
		"    <CallTree functionname=\"a\" INCLSAMPLES=\"4\" exclSamples=\"3\" LEVEL=\"1\""
		" lineNumber=\"5\" FunctionLineNumber=\"6\" ExclSamples=\"999\" PID=\"1\""
		" ProcessID=\"2\" ModulePath=\"m\"/>\n"
		TREE_TAIL), 0);
	assert_int_equal(value_of(f->m, "pid=1,|a", 0), 3);
	assert_int_equal(frame_named(f->m, "a")->line, 5);
}

static void test_instrumentation_guesses(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;

	assert_int_equal(read_text(f, XML_DECL "<PerformanceReport><CallTreeSummary>\n"
		"<CallTree FunctionName=\"a\" ElapsedInclTime=\"1,000\" ElapsedExclTime=\"400\""
		" AppInclTime=\"900\" AppExclTime=\"300\" NumCalls=\"2\" Level=\"1\"/>\n"
		"<CallTree FunctionName=\"b\" ElapsedInclTime=\"600\" ElapsedExclTime=\"600\""
		" AppInclTime=\"600\" AppExclTime=\"600\" NumCalls=\"5\" Level=\"2\"/>\n"
		"</CallTreeSummary></PerformanceReport>\n"), 0);
	assert_int_equal(pc_model_ncolumns(m), 3);
	assert_column(m, 0, "elapsed_exclusive", "ticks");
	assert_column(m, 1, "application_exclusive", "ticks");
	assert_column(m, 2, "calls", "count");
	assert_int_equal(value_of(m, "|a", 0), 400);
	assert_int_equal(value_of(m, "|a", 1), 300);
	assert_int_equal(value_of(m, "|a", 2), 2);
	assert_int_equal(value_of(m, "|a;b", 0), 600);
	assert_int_equal(value_of(m, "|a;b", 2), 5);
	assert_string_equal(fact(m, "vsperf.flavour"), "instrumentation");
}

/* Times with a fraction are rounded to whole ticks, half up, with one counted warning. */
static void test_fractional_times_are_rounded(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;

	assert_int_equal(read_text(f, XML_DECL "<PerformanceReport><CallTreeSummary>\n"
		"<CallTree FunctionName=\"a\" ElapsedInclTime=\"12.5\" ElapsedExclTime=\"2.25\""
		" NumCalls=\"2\" Level=\"1\"/>\n"
		"<CallTree FunctionName=\"b\" ElapsedInclTime=\"10\" ElapsedExclTime=\"10\""
		" NumCalls=\"5\" Level=\"2\"/>\n"
		"</CallTreeSummary></PerformanceReport>\n"), 0);
	assert_int_equal(value_of(m, "|a", 0), 2);
	assert_int_equal(value_of(m, "|a;b", 0), 10);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf-xml: rounded times with a fraction "
			    "to whole ticks, the first \"12.5\" in attribute ElapsedInclTime at "
			    "line 3 to 13");
}

/*
 * --skip-bad: a row whose attributes do not parse is skipped, counted in
 * one warning; --strict makes that the located error again.
 */
static void test_skip_bad_skips_unparseable_rows(void **state)
{
	struct fixture *f = *state;
	static const char report[] = TREE_HEAD ROW("main", "10", "2", "1")
		ROW("bad", "x", "1", "2") "    <CallTree InclSamples=\"1\" ExclSamples=\"1\" "
		"Level=\"2\" />\n" ROW("work", "8", "8", "2") TREE_TAIL;

	f->ctx.opt.skip_bad = true;
	assert_int_equal(read_text(f, report), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "|main;work", 0), 8);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_non_null(strstr(f->ctx.warnings[0].text, "vsperf-xml: skipped an unparseable "
			       "row, the first at test.xml:5:"));

	pc_ctx_init(&f->ctx);
	pc_model_free(f->m);
	f->m = pc_model_new();
	f->ctx.opt.skip_bad = true;
	f->ctx.opt.strict = true;
	assert_int_equal(read_text(f, report), -1);
	assert_int_equal(f->ctx.err.line, 5);
	assert_non_null(strstr(f->ctx.err.message, "attribute InclSamples: expected a count"));
}

static void test_ide_call_tree_with_decimals(void **state)
{
	struct fixture *f = *state;
	const struct pc_model *m = f->m;

	/* 2 calls x 1000.50 = 2001 ticks, shared 25 % : 75 % */
	assert_int_equal(read_text(f, XML_DECL "<PerformanceReport><CallTreeSummary>\n"
		"<CallTree FunctionName=\"p.exe\" NumCalls=\"0\" AvgElapsedInclTime=\"0\""
		" AvgElapsedExclTime=\"0\" ElapsedInclTimePercent=\"100,00\""
		" ElapsedExclTimePercent=\"0,00\" Level=\"0\"/>\n"
		"<CallTree FunctionName=\"a\" NumCalls=\"2\" AvgElapsedInclTime=\"1.000,50\""
		" AvgElapsedExclTime=\"250.125\" ElapsedInclTimePercent=\"100.00\""
		" ElapsedExclTimePercent=\"25,00\" Level=\"1\"/>\n"
		"<CallTree FunctionName=\"b\" NumCalls=\"1,000\" AvgElapsedInclTime=\"1.5\""
		" AvgElapsedExclTime=\"1.5\" ElapsedInclTimePercent=\"75\""
		" ElapsedExclTimePercent=\"75.00\" Level=\"2\"/>\n"
		"</CallTreeSummary></PerformanceReport>\n"), 0);
	assert_column(m, 0, "elapsed_exclusive", "ticks");
	assert_column(m, 1, "calls", "count");
	assert_int_equal(column_total(m, 0), 2001);
	assert_int_equal(value_of(m, "comm=p.exe,|a;b", 0), 1501);
	assert_int_equal(value_of(m, "comm=p.exe,|a;b", 1), 1000);
}

static void test_bad_decimal(void **state)
{
	struct fixture *f = *state;

	assert_error(f, XML_DECL "<PerformanceReport><CallTreeSummary>\n"
		"<CallTree FunctionName=\"a\" NumCalls=\"2\" AvgElapsedInclTime=\"1.2.3,4,5\""
		" ElapsedExclTimePercent=\"25\" Level=\"1\"/>\n"
		"</CallTreeSummary></PerformanceReport>\n", 3, 41,
		"attribute AvgElapsedInclTime: expected a decimal number (as in 97.30), "
		"found \"1.2.3,4,5\"");
}

/* --- structure errors --- */

static void test_missing_function_name(void **state)
{
	assert_error(*state, TREE_HEAD ROW("a", "1", "1", "1")
		     "    <CallTree InclSamples=\"1\" ExclSamples=\"1\" Level=\"2\" />\n" TREE_TAIL,
		     5, 5, "expected a FunctionName attribute in <CallTree>, found none");
}

static void test_missing_level(void **state)
{
	assert_error(*state, TREE_HEAD
		     "    <CallTree FunctionName=\"a\" InclSamples=\"1\" ExclSamples=\"1\" />\n"
		     TREE_TAIL, 4, 5, "expected a Level attribute in <CallTree>, found none");
}

static void test_level_jump(void **state)
{
	assert_error(*state, TREE_HEAD ROW("a", "2", "1", "1") ROW("b", "1", "1", "3")
		     TREE_TAIL, 5, 5, "Level 3 skips a level: the row before is at Level 1 "
		     "(expected at most Level 2)");
}

static void test_negative_level(void **state)
{
	assert_error(*state, TREE_HEAD ROW("a", "2", "1", "-1") TREE_TAIL, 4, 5,
		     "Level -1 is negative (expected 0 or more)");
}

static void test_first_row_without_counts(void **state)
{
	assert_error(*state, TREE_HEAD "    <CallTree FunctionName=\"a\" Level=\"1\"/>\n"
		     TREE_TAIL, 4, 5, "expected counts in the first <CallTree> (InclSamples "
		     "and ExclSamples, or instrumentation times), found none");
}

static void test_later_row_without_a_count_of_the_first(void **state)
{
	assert_error(*state, TREE_HEAD ROW("a", "2", "1", "1")
		     "    <CallTree FunctionName=\"b\" InclSamples=\"1\" Level=\"2\"/>\n" TREE_TAIL,
		     5, 5, "expected attribute ExclSamples in <CallTree> (the first row has "
		     "it), found none");
}

static void test_later_row_with_more_counts_warns(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, TREE_HEAD
		"    <CallTree FunctionName=\"a\" ExclSamples=\"1\" Level=\"1\"/>\n"
		"    <CallTree FunctionName=\"b\" ExclSamples=\"2\" NumCalls=\"5\" Level=\"1\"/>\n"
		"    <CallTree FunctionName=\"c\" ExclSamples=\"3\" NumCalls=\"5\" Level=\"1\"/>\n"
		TREE_TAIL), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_int_equal(value_of(f->m, "|b", 0), 2);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf-xml: ignored values that the "
			    "first <CallTree> lacks, the first at line 5");
	f->ctx.opt.strict = true;
	assert_error(f, TREE_HEAD
		"    <CallTree FunctionName=\"a\" ExclSamples=\"1\" Level=\"1\"/>\n"
		"    <CallTree FunctionName=\"b\" ExclSamples=\"2\" NumCalls=\"5\" Level=\"1\"/>\n"
		TREE_TAIL, 5, 5, "ignored values that the first <CallTree> lacks (an error "
		"with --strict)");
}

static void test_wrong_root(void **state)
{
	assert_error(*state, XML_DECL "<!-- x -->\n  <CallTreeSummary/>\n", 3, 3,
		     "expected the root element <PerformanceReport> of a Visual Studio "
		     "report, found <CallTreeSummary>");
}

static void test_no_summary(void **state)
{
	assert_error(*state, XML_DECL "\n<PerformanceReport>\n<ModuleSummary/>\n"
		     "</PerformanceReport>\n", 3, 1, "expected a <CallTreeSummary> or "
		     "<FunctionSummary> in <PerformanceReport>, found neither (only these "
		     "reports can be read)");
}

static void test_two_kinds_of_summaries(void **state)
{
	assert_error(*state, XML_DECL "<PerformanceReport>\n<CallTreeSummary/>\n"
		     "  <FunctionSummary/>\n</PerformanceReport>\n", 4, 3, "found a "
		     "<FunctionSummary> after a <CallTreeSummary>: a file holds one report; "
		     "convert each report on its own");
}

/* --- malformed XML --- */

static void test_unclosed_tag(void **state)
{
	assert_error(*state, TREE_HEAD
		     "    <CallTree FunctionName=\"a\" InclSamples=\"1\" ExclSamples=\"1\" "
		     "Level=\"1\">\n" TREE_TAIL, 5, 21, "malformed XML: Opening and ending tag "
		     "mismatch: CallTree line 4 and CallTreeSummary");
}

static void test_bad_attribute_syntax(void **state)
{
	assert_error(*state, TREE_HEAD "    <CallTree FunctionName=a Level=\"1\"/>\n" TREE_TAIL,
		     4, 28, "malformed XML: AttValue: \" or ' expected");
}

static void test_empty_input(void **state)
{
	assert_error(*state, "", 1, 1, "malformed XML: Document is empty");
}

static void test_text_instead_of_xml(void **state)
{
	assert_error(*state, "main;f 1\n", 1, 1, "malformed XML: Start tag expected, '<' "
		     "not found");
}

static void test_invalid_utf8_is_one_line(void **state)
{
	assert_error(*state, TREE_HEAD ROW("a\xff", "1", "1", "1") TREE_TAIL, 4, 30,
		     "malformed XML: Input is not proper UTF-8, indicate encoding ! Bytes: "
		     "0xFF 0x22 0x20 0x49");
}

static void test_unknown_encoding(void **state)
{
	assert_error(*state, "<?xml version=\"1.0\" encoding=\"x-bogus\"?>\n<PerformanceReport/>",
		     1, 39, "malformed XML: Unsupported encoding x-bogus");
}

static void test_nul_byte(void **state)
{
	static const char text[] = XML_DECL "<PerformanceReport>\0</PerformanceReport>\n";

	assert_int_equal(read_bytes(*state, text, sizeof(text) - 1), -1);
	/* libxml2 takes a NUL for the end of its buffer: it stops right there */
	assert_failed_at(*state, 2, 20, "malformed XML: Premature end of data in tag "
			 "PerformanceReport line 2");
}

static void test_deep_nesting_is_refused(void **state)
{
	struct fixture *f = *state;
	size_t cap = 1 << 16, used = 0;
	char *text = pc_xmalloc(cap);

	used += (size_t)snprintf(text + used, cap - used, "<PerformanceReport>");
	for (int i = 0; i < 1000; i++)
		used += (size_t)snprintf(text + used, cap - used, "<a>");
	assert_int_equal(read_bytes(f, text, used), -1);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_non_null(strstr(f->ctx.err.message, "Excessive depth in document: 256"));
	free(text);
}

/* Redirects stderr to a file while a test reads; stderr_bytes() ends it. */
static int saved_stderr = -1;
static char stderr_path[64];

static void capture_stderr(void)
{
	int fd;

	snprintf(stderr_path, sizeof(stderr_path), "/tmp/pc-test-xml-err.XXXXXX");
	fd = mkstemp(stderr_path);
	assert_true(fd >= 0);
	fflush(stderr);
	saved_stderr = dup(2);
	assert_true(saved_stderr >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static off_t stderr_bytes(void)
{
	off_t size;

	fflush(stderr);
	size = lseek(2, 0, SEEK_END);
	assert_int_equal(dup2(saved_stderr, 2), 2);
	close(saved_stderr);
	unlink(stderr_path);
	return size;
}

static void test_every_truncation_fails_cleanly(void **state)
{
	struct fixture *f = *state;
	size_t size = strlen(call_tree);

	capture_stderr();
	for (size_t cut = 0; cut < size; cut++) {
		struct pc_model *m;
		struct pc_input in;
		int rc;

		m = pc_model_new();
		pc_error_clear(&f->ctx.err);
		pc_input_from_memory(&in, "test.xml", call_tree, cut);
		rc = pc_vsperf_xml_reader.read(&f->ctx, &in, m);
		pc_input_close(&in);
		pc_model_free(m);
		/* the last cut leaves only the final newline out */
		if (cut == size - 1) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, -1);
		assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
		assert_true(f->ctx.err.line >= 1 && f->ctx.err.line <= 15);
		assert_true(f->ctx.err.column >= 1);
		assert_true(f->ctx.err.message[0] != '\0');
		assert_string_equal(f->ctx.err.format, "vsperf-xml");
	}
	assert_int_equal(stderr_bytes(), 0);
}

static void test_truncated_in_a_row(void **state)
{
	char text[sizeof(call_tree)];
	const char *cut = strstr(call_tree, "ExclSamples=\"1,050\"");

	memcpy(text, call_tree, (size_t)(cut - call_tree));
	text[cut - call_tree] = '\0';
	assert_error(*state, text, 6, 87, "malformed XML: Couldn't find end of Start Tag "
		     "CallTree line 6");
}

/* UTF-16 with a lone surrogate: libxml2 reports it without a parser context. */
static void test_encoding_errors_are_captured(void **state)
{
	struct fixture *f = *state;
	static const char utf8[] = "<?xml version=\"1.0\"?>\n<PerformanceReport a=\"";
	char text[256];
	size_t n = 0;

	text[n++] = (char)0xff, text[n++] = (char)0xfe;
	for (size_t i = 0; utf8[i]; i++)
		text[n++] = utf8[i], text[n++] = 0;
	text[n++] = 0, text[n++] = (char)0xd8, text[n++] = 'x', text[n++] = 0;
	text[n++] = '"', text[n++] = 0, text[n++] = '/', text[n++] = 0;
	text[n++] = '>', text[n++] = 0;
	capture_stderr();
	assert_int_equal(read_bytes(f, text, n), -1);
	assert_int_equal(stderr_bytes(), 0);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f->ctx.err.message, "malformed XML: input conversion failed due "
			    "to input error, bytes 0x00 0xD8 0x78 0x00");
}

static char *utf16(const char *utf8_ascii_or_latin, bool big_endian, size_t *size)
{
	const uint8_t *s = (const uint8_t *)utf8_ascii_or_latin;
	size_t len = strlen(utf8_ascii_or_latin), n = 0;
	char *out = pc_xmalloc(2 * len + 2);

	out[n++] = (char)(big_endian ? 0xfe : 0xff);
	out[n++] = (char)(big_endian ? 0xff : 0xfe);
	for (size_t i = 0; i < len; i++) {
		unsigned c = s[i];

		if (c >= 0xc0) /* two-byte UTF-8 sequences only */
			c = (c & 0x1f) << 6 | (s[++i] & 0x3f);
		out[n++] = (char)(big_endian ? c >> 8 : c & 0xff);
		out[n++] = (char)(big_endian ? c & 0xff : c >> 8);
	}
	*size = n;
	return out;
}

static void test_utf16_with_byte_order_mark(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n"
		"<PerformanceReport><CallTreeSummary>\n"
		ROW("gr\xc3\xbc\xc3\x9f" "e", "1,234", "1,234", "1")
		"</CallTreeSummary></PerformanceReport>\n";

	for (int big = 0; big < 2; big++) {
		size_t size;
		char *data = utf16(text, big, &size);

		pc_model_free(f->m);
		f->m = pc_model_new();
		assert_int_equal(read_bytes(f, data, size), 0);
		assert_int_equal(value_of(f->m, "|gr\xc3\xbc\xc3\x9f" "e", 0), 1234);
		assert_int_equal(pc_vsperf_xml_reader.probe((const uint8_t *)data, size),
				 PC_PROBE_STRONG);
		free(data);
	}
}

/* --- security --- */

static char *write_temp(const char *text)
{
	char *path = pc_xmalloc(64);
	int fd;

	snprintf(path, 64, "/tmp/pc-test-xml.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

#define SECRET "SECRET-7f3a"

/* A document whose DOCTYPE is doctype and whose one row has the attributes attrs. */
static void read_with_doctype(struct fixture *f, const char *doctype, const char *attrs,
			      int want)
{
	char text[2048];

	snprintf(text, sizeof(text), XML_DECL "%s\n<PerformanceReport><CallTreeSummary>\n"
		 "<CallTree %s InclSamples=\"1\" ExclSamples=\"1\" Level=\"1\"/>\n"
		 "</CallTreeSummary></PerformanceReport>\n", doctype, attrs);
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_text(f, text), want);
	assert_null(strstr(f->ctx.err.message, SECRET));
}

static void test_external_entities_are_never_read(void **state)
{
	struct fixture *f = *state;
	char *secret = write_temp(SECRET);
	char *dtd = write_temp("<!ATTLIST CallTree FunctionName CDATA \"" SECRET "\">\n"
			       "<!ENTITY e \"" SECRET "\">\n");
	char doctype[512];

	snprintf(doctype, sizeof(doctype), "<!DOCTYPE PerformanceReport [<!ENTITY e SYSTEM "
		 "\"file://%s\">]>", secret);
	read_with_doctype(f, doctype, "FunctionName=\"&e;\"", -1);
	assert_failed_at(f, 4, 28, "malformed XML: Entity 'e' not defined");
	/* the external subset is not loaded: no default FunctionName from it */
	snprintf(doctype, sizeof(doctype), "<!DOCTYPE PerformanceReport SYSTEM \"%s\">", dtd);
	read_with_doctype(f, doctype, "", -1);
	assert_failed_at(f, 4, 1, "expected a FunctionName attribute in <CallTree>, found none");
	/* nor an external parameter entity */
	snprintf(doctype, sizeof(doctype), "<!DOCTYPE PerformanceReport [<!ENTITY %% pe SYSTEM "
		 "\"%s\"> %%pe;]>", dtd);
	read_with_doctype(f, doctype, "FunctionName=\"a\"", -1);
	assert_string_equal(f->ctx.err.message, "malformed XML: PEReference: %pe; not found");
	/* nor a network one */
	read_with_doctype(f, "<!DOCTYPE PerformanceReport [<!ENTITY e SYSTEM "
			  "\"http://127.0.0.1:9/x\">]>", "FunctionName=\"&e;\"", -1);
	assert_string_equal(f->ctx.err.message, "malformed XML: Entity 'e' not defined");
	/* a DOCTYPE without references is fine */
	read_with_doctype(f, "<!DOCTYPE PerformanceReport [<!ELEMENT x ANY>]>",
			  "FunctionName=\"a\"", 0);
	unlink(secret);
	unlink(dtd);
	free(secret);
	free(dtd);
}

static void test_internal_entities_are_not_expanded(void **state)
{
	struct fixture *f = *state;
	char text[4096];
	size_t used = 0;

	used += (size_t)snprintf(text + used, sizeof(text) - used, XML_DECL
				 "<!DOCTYPE PerformanceReport [\n<!ENTITY lol \"lol\">\n");
	for (int i = 1; i <= 9; i++) {
		used += (size_t)snprintf(text + used, sizeof(text) - used, "<!ENTITY lol%d \"", i);
		for (int k = 0; k < 10; k++)
			used += (size_t)snprintf(text + used, sizeof(text) - used, "&lol%.0d;",
						 i - 1);
		used += (size_t)snprintf(text + used, sizeof(text) - used, "\">\n");
	}
	snprintf(text + used, sizeof(text) - used, "]>\n<PerformanceReport><CallTreeSummary>"
		 "<CallTree FunctionName=\"&lol9;\" ExclSamples=\"1\" Level=\"1\"/>"
		 "</CallTreeSummary><x>&lol9;</x></PerformanceReport>\n");
	assert_error(f, text, 14, 67, "malformed XML: Entity 'lol9' not defined");
	pc_error_clear(&f->ctx.err);
	assert_error(f, XML_DECL "<!DOCTYPE PerformanceReport [<!ENTITY e \"a\">]>\n"
		     "<PerformanceReport>&e;</PerformanceReport>", 3, 23,
		     "malformed XML: Entity 'e' not defined");
}

static int foreign_errors;

static void foreign_handler(void *data, xmlErrorPtr error)
{
	(void)data, (void)error;
	foreign_errors++;
}

static void test_the_threads_error_handlers_are_restored(void **state)
{
	struct fixture *f = *state;
	int marker;
	xmlGenericErrorFunc generic = xmlGenericError;
	void *generic_data = xmlGenericErrorContext;

	xmlSetStructuredErrorFunc(&marker, foreign_handler);
	assert_error(f, XML_DECL "<PerformanceReport>\n<a></b>", 3, 8, "malformed XML: "
		     "Opening and ending tag mismatch: a line 3 and b");
	assert_int_equal(foreign_errors, 0);
	assert_ptr_equal(xmlStructuredError, foreign_handler);
	assert_ptr_equal(xmlStructuredErrorContext, &marker);
	xmlSetStructuredErrorFunc(NULL, NULL);
	assert_ptr_equal(xmlGenericError, generic);
	assert_ptr_equal(xmlGenericErrorContext, generic_data);
}

static void test_the_entity_loader_serves_others(void **state)
{
	struct fixture *f = *state;
	char *path = write_temp("<x/>");
	xmlParserCtxtPtr parser;
	xmlParserInputPtr input;

	assert_int_equal(read_text(f, function_summary), 0);
	/* outside a read, the loader that was there before does the work */
	parser = xmlNewParserCtxt();
	assert_non_null(parser);
	input = xmlGetExternalEntityLoader()(path, NULL, parser);
	assert_non_null(input);
	xmlFreeInputStream(input);
	xmlFreeParserCtxt(parser);
	unlink(path);
	free(path);
}

/* --- streaming and positions --- */

static char *big_tree(size_t rows, size_t *size)
{
	size_t cap = rows * 200 + 4096, used = 0;
	char *text = pc_xmalloc(cap);

	used += (size_t)snprintf(text + used, cap - used, TREE_HEAD);
	used += (size_t)snprintf(text + used, cap - used, ROW("root", "1", "1", "1"));
	for (size_t i = 0; i < rows; i++)
		used += (size_t)snprintf(text + used, cap - used, "    <CallTree FunctionName="
					 "\"f%zu\" InclSamples=\"%zu\" ExclSamples=\"%zu\" "
					 "Level=\"%zu\" />\n", i % 50, i, i, 2 + i % 2);
	used += (size_t)snprintf(text + used, cap - used, TREE_TAIL);
	*size = used;
	return text;
}

static void test_file_and_pipe_give_the_same_model(void **state)
{
	struct fixture *f = *state;
	size_t size, rows = 20000;
	char *text = big_tree(rows, &size), path[64] = "/tmp/pc-test-xml-big.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, size), (ssize_t)size);
	close(fd);
	assert_int_equal(read_bytes(f, text, size), 0);
	assert_int_equal(column_total(f->m, 0), 1 + (rows - 1) * rows / 2);
	for (int unknown_size = 0; unknown_size < 2; unknown_size++) {
		struct pc_model *from_file;
		struct pc_input in;

		from_file = pc_model_new();
		assert_int_equal(pc_input_open(&in, path, &f->ctx.err), 0);
		if (unknown_size)
			in.size = PC_SIZE_UNKNOWN;
		assert_int_equal(pc_vsperf_xml_reader.read(&f->ctx, &in, from_file), 0);
		pc_input_close(&in);
		pc_model_finalize(from_file);
		assert_int_equal(pc_model_nsamples(from_file), pc_model_nsamples(f->m));
		assert_int_equal(pc_model_nframes(from_file), pc_model_nframes(f->m));
		for (size_t i = 0; i < pc_model_nsamples(f->m); i++)
			assert_int_equal(pc_model_values(from_file, i)[0],
					 pc_model_values(f->m, i)[0]);
		pc_model_free(from_file);
	}
	unlink(path);
	free(text);
}

static void test_error_position_far_into_the_input(void **state)
{
	struct fixture *f = *state;
	size_t size;
	char *text = big_tree(30000, &size), *bad = strstr(text, "\"f7\" InclSamples=\"29007\"");

	assert_non_null(bad);
	bad[20] = 'x'; /* "29x07" */
	assert_int_equal(read_bytes(f, text, size), -1);
	assert_failed_at(f, 29012, 33, "attribute InclSamples: expected a count (digits, "
			 "maybe grouped as in 1,444), found \"29x07\"");
	free(text);
}

static void test_positions_in_a_tag_over_several_lines(void **state)
{
	assert_error(*state, TREE_HEAD "  <CallTree\n"
		     "\tFunctionName=\"\xc3\xa9\xc3\xa9\"   InclSamples=\"1\"\n"
		     "\t\tExclSamples=\"1\"\n"
		     "\t\tLevel=\"1\" \xc3\xa9=\"1\" PID=\"0x4\"/>\n" TREE_TAIL, 7, 19,
		     "attribute PID: expected a count (digits, maybe grouped as in 1,444), "
		     "found \"0x4\"");
	pc_error_clear(&((struct fixture *)*state)->ctx.err);
	assert_error(*state, TREE_HEAD "  <CallTree\n"
		     "\tExclSamples=\"1\" Level=\"1\"/>\n" TREE_TAIL, 4, 3,
		     "expected a FunctionName attribute in <CallTree>, found none");
}

/* --- probe and descriptor --- */

static int probe(const char *text)
{
	return pc_vsperf_xml_reader.probe((const uint8_t *)text, strlen(text));
}

static void test_probe(void **state)
{
	(void)state;
	assert_int_equal(probe(call_tree), PC_PROBE_STRONG);
	assert_int_equal(probe("\xef\xbb\xbf" XML_DECL "<PerformanceReport>"), PC_PROBE_STRONG);
	assert_int_equal(probe("\n <PerformanceReport\n/>"), PC_PROBE_STRONG);
	assert_int_equal(probe(XML_DECL "<!-- <PerformanceReport> --><x/>"), PC_PROBE_STRONG);
	assert_int_equal(probe(XML_DECL "<PerformanceReports/>"), PC_PROBE_WEAK);
	assert_int_equal(probe(XML_DECL "<svg/>"), PC_PROBE_WEAK);
	assert_int_equal(probe("<svg/>"), PC_PROBE_NO);
	assert_int_equal(probe("main;f 1\n"), PC_PROBE_NO);
	assert_int_equal(probe("Level,Function Name,\n"), PC_PROBE_NO);
	assert_int_equal(probe(""), PC_PROBE_NO);
	assert_int_equal(pc_vsperf_xml_reader.probe((const uint8_t *)"\xff\xfe<\0?\0x\0", 8),
			 PC_PROBE_NO);
	assert_int_equal(pc_vsperf_xml_reader.probe((const uint8_t *)"\xff\xfe<\0?\0x\0m\0l\0", 12),
			 PC_PROBE_WEAK);
	assert_int_equal(pc_vsperf_xml_reader.probe((const uint8_t *)"\0<\0?\0x\0m\0l", 11),
			 PC_PROBE_WEAK);
}

static void test_probe_random_bytes(void **state)
{
	uint8_t head[PC_PROBE_BYTES];
	uint32_t seed = 12345;

	(void)state;
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(head); i++) {
			seed = seed * 1103515245u + 12345u;
			head[i] = (uint8_t)(seed >> 16);
		}
		assert_int_equal(pc_vsperf_xml_reader.probe(head, sizeof(head)), PC_PROBE_NO);
	}
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_string_equal(pc_vsperf_xml_reader.name, "vsperf-xml");
	assert_string_equal(pc_vsperf_xml_reader.extensions[0], ".xml");
	assert_null(pc_vsperf_xml_reader.extensions[1]);
	assert_int_equal(pc_vsperf_xml_reader.provides,
			 PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS);
	assert_ptr_equal(pc_reader_find("vsperf-xml"), &pc_vsperf_xml_reader);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, pct_setup, pct_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_call_tree),
		T(test_call_tree_frames),
		T(test_nested_rows_and_skipped_elements),
		T(test_two_summaries_of_one_kind_are_one_report),
		T(test_empty_summary_is_an_empty_profile),
		T(test_function_summary),
		T(test_entities_in_names),
		T(test_grouped_counts),
		T(test_bad_counts),
		T(test_optional_values),
		T(test_bad_optional_values),
		T(test_attribute_names_in_any_case_first_spelling_wins),
		T(test_instrumentation_guesses),
		T(test_fractional_times_are_rounded),
		T(test_skip_bad_skips_unparseable_rows),
		T(test_ide_call_tree_with_decimals),
		T(test_bad_decimal),
		T(test_missing_function_name),
		T(test_missing_level),
		T(test_level_jump),
		T(test_negative_level),
		T(test_first_row_without_counts),
		T(test_later_row_without_a_count_of_the_first),
		T(test_later_row_with_more_counts_warns),
		T(test_wrong_root),
		T(test_no_summary),
		T(test_two_kinds_of_summaries),
		T(test_unclosed_tag),
		T(test_bad_attribute_syntax),
		T(test_empty_input),
		T(test_text_instead_of_xml),
		T(test_invalid_utf8_is_one_line),
		T(test_unknown_encoding),
		T(test_nul_byte),
		T(test_deep_nesting_is_refused),
		T(test_every_truncation_fails_cleanly),
		T(test_truncated_in_a_row),
		T(test_encoding_errors_are_captured),
		T(test_utf16_with_byte_order_mark),
		T(test_external_entities_are_never_read),
		T(test_internal_entities_are_not_expanded),
		T(test_the_threads_error_handlers_are_restored),
		T(test_the_entity_loader_serves_others),
		T(test_file_and_pipe_give_the_same_model),
		T(test_error_position_far_into_the_input),
		T(test_positions_in_a_tag_over_several_lines),
		T(test_probe),
		T(test_probe_random_bytes),
		T(test_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
