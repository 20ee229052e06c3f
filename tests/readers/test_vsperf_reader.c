/*
 * test_vsperf_reader.c - the Visual Studio CSV report reader (and through
 * it the row builder, vsperf_model.c): exact model contents for
 * CallerCallee in both flavours, CallTree (sampling and the IDE
 * instrumentation export with apportioned times), Function summaries and
 * several processes; frame identity (address, module, process; the
 * unknown frame); the lexical grammar (RFC 4180 quoting, trailing commas,
 * CRLF, blank lines, no final newline, BOMs, UTF-16LE/BE with and without
 * a BOM, grouped numbers, decimal commas, header spellings); every error
 * class at its exact line:column; the consistency warnings and --strict;
 * times with a fraction (rounded, warned); --skip-bad;
 * streaming over pipes and long lines; the probe.
 */
#include "pipeline/registry.h"
#include "support/fixture.h"
#include "support/read_memory.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_reader pc_vsperf_reader;
extern const struct pc_writer pc_dump_writer;

#define SAMPLING_HEADER \
	"Type,Function Name,Inclusive Samples,Exclusive Samples,Inclusive Samples %," \
	"Exclusive Samples %,Source File,Function Line Number,Module Name,Module Path," \
	"Function Address,Root Function Name,Process Name,Process ID,\n"

#define INSTRUMENTATION_HEADER \
	"Type,Function Name,Elapsed Inclusive Time,Elapsed Exclusive Time,Application " \
	"Inclusive Time,Application Exclusive Time,Elapsed Inclusive Time %,Elapsed " \
	"Exclusive Time %,Application Inclusive Time %,Application Exclusive Time %,Time " \
	"Inclusive Probe Overhead,Time Exclusive Probe Overhead,Min Elapsed Inclusive Time," \
	"Avg Elapsed Inclusive Time,Max Elapsed Inclusive Time,Min Elapsed Exclusive Time," \
	"Avg Elapsed Exclusive Time,Max Elapsed Exclusive Time,Min Application Inclusive " \
	"Time,Avg Application Inclusive Time,Max Application Inclusive Time,Min Application " \
	"Exclusive Time,Avg Application Exclusive Time,Max Application Exclusive Time,Number " \
	"of Calls,Source File,Function Line Number,Module Name,Module Path,Function Address," \
	"Root Function Name,Process Name,Process ID,\r\n"

#define IDE_TREE_HEADER \
	"Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive " \
	"Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,\r\n"

/* --- reading and looking things up --- */

static int read_bytes_named(struct fixture *f, const char *name, const void *data,
			    size_t size, bool pipe)
{
	return pct_read_memory(&f->ctx, f->m, &pc_vsperf_reader, name, data, size, pipe);
}

static int read_bytes(struct fixture *f, const void *data, size_t size)
{
	return read_bytes_named(f, "test.csv", data, size, false);
}

static int read_text(struct fixture *f, const char *text)
{
	return read_bytes(f, text, strlen(text));
}

static int column_of(const struct pc_model *m, const char *type)
{
	for (size_t i = 0; i < pc_model_ncolumns(m); i++)
		if (!strcmp(pc_str(m, pc_model_column(m, i)->type), type))
			return (int)i;
	return -1;
}

static const char *frame_name(const struct pc_model *m, uint32_t frame)
{
	return pc_str(m, pc_model_frame(m, frame)->function);
}

/* The numeric pid label of sample i, or -1. */
static int64_t sample_pid(const struct pc_model *m, size_t i)
{
	size_t n;
	const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, i)->labels, &n);

	for (size_t k = 0; k < n; k++) {
		const struct pc_label *label = pc_model_label(m, labels[k]);

		if (!strcmp(pc_str(m, label->key), "pid"))
			return label->num;
	}
	return -1;
}

/* The comm label of sample i, or "". */
static const char *sample_comm(const struct pc_model *m, size_t i)
{
	size_t n;
	const uint32_t *labels = pc_model_labelset(m, pc_model_sample(m, i)->labels, &n);

	for (size_t k = 0; k < n; k++) {
		const struct pc_label *label = pc_model_label(m, labels[k]);

		if (!strcmp(pc_str(m, label->key), "comm"))
			return pc_str(m, label->str);
	}
	return "";
}

/* The stack of sample i as "root;...;leaf". */
static void stack_text(const struct pc_model *m, size_t i, char *buf, size_t size)
{
	size_t n, used = 0;
	const uint32_t *frames = pc_model_stack(m, pc_model_sample(m, i)->stack, &n);

	buf[0] = '\0';
	for (size_t k = n; k-- > 0;) {
		used += (size_t)snprintf(buf + used, size - used, "%s%s", k + 1 < n ? ";" : "",
					 frame_name(m, frames[k]));
		assert_true(used < size);
	}
}

/* The sample whose stack reads as text (and whose pid is pid, unless -1). */
static const struct pc_sample *find_sample(const struct pc_model *m, const char *text,
					   int64_t pid, size_t *index)
{
	char buf[4096];

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		stack_text(m, i, buf, sizeof(buf));
		if (!strcmp(buf, text) && (pid < 0 || sample_pid(m, i) == pid)) {
			*index = i;
			return pc_model_sample(m, i);
		}
	}
	return NULL;
}

/* A value of the sample with that stack in the named column; -1 when there is no sample. */
static int64_t value_of(const struct pc_model *m, const char *stack, int64_t pid,
			const char *column)
{
	size_t i;
	int c = column_of(m, column);

	assert_true(c >= 0);
	if (!find_sample(m, stack, pid, &i))
		return -1;
	return (int64_t)pc_model_values(m, i)[c];
}

/* The count of the call arc from -> to (function names); -1 when there is none. */
static int64_t arc_count(const struct pc_model *m, const char *from, const char *to)
{
	for (size_t i = 0; i < pc_model_narcs(m); i++)
		if (pc_model_arc(m, i)->kind == PC_ARC_CALL && !strcmp(frame_name(m, pc_model_arc(m, i)->from), from) &&
		    !strcmp(frame_name(m, pc_model_arc(m, i)->to), to))
			return (int64_t)pc_model_arc(m, i)->count;
	return -1;
}

static uint64_t column_total(const struct pc_model *m, const char *column)
{
	int c = column_of(m, column);
	uint64_t total = 0;

	assert_true(c >= 0);
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		total += pc_model_values(m, i)[c];
	return total;
}

/* The only frame whose function is name. */
static const struct pc_frame *frame_named(const struct pc_model *m, const char *name)
{
	const struct pc_frame *found = NULL;

	for (size_t i = 0; i < pc_model_nframes(m); i++)
		if (!strcmp(pc_str(m, pc_model_frame(m, (uint32_t)(i) + 1)->function), name)) {
			assert_null(found);
			found = pc_model_frame(m, (uint32_t)(i) + 1);
		}
	assert_non_null(found);
	return found;
}

static bool has_fact(const struct pc_model *m, const char *key, const char *value)
{
	for (size_t i = 0; i < pc_model_nfacts(m); i++)
		if (!strcmp(pc_str(m, pc_model_fact(m, i)->key), key) &&
		    !strcmp(pc_str(m, pc_model_fact(m, i)->value), value))
			return true;
	return false;
}

static void assert_error(struct fixture *f, const char *text, uint32_t line, uint32_t column,
			 const char *message)
{
	assert_int_equal(read_text(f, text), -1);
	assert_int_equal(f->ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f->ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f->ctx.err.format, "vsperf");
	assert_string_equal(f->ctx.err.path, "test.csv");
	assert_string_equal(f->ctx.err.message, message);
	assert_int_equal(f->ctx.err.line, line);
	assert_int_equal(f->ctx.err.column, column);
}

/* The dump of text read into a fresh model (malloc'd). */
static char *dump_of(const void *data, size_t size, bool pipe)
{
	struct fixture f;
	char *text;
	size_t len;

	pc_ctx_init(&f.ctx);
	f.m = pc_model_new();
	assert_int_equal(read_bytes_named(&f, "test.csv", data, size, pipe), 0);
	assert_int_equal(pct_write_model(&f.ctx, f.m, &pc_dump_writer, &text, &len), 0);
	pc_model_free(f.m);
	return text;
}

/* UTF-8 text as UTF-16 (le or be), with a byte-order mark when bom; *size set. */
static uint8_t *utf16_of(const char *text, bool le, bool bom, size_t *size)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t len = strlen(text), used = 0;
	uint8_t *out = pc_xmalloc(4 * len + 2);
	uint32_t units[2];

	if (bom) {
		out[used++] = le ? 0xff : 0xfe;
		out[used++] = le ? 0xfe : 0xff;
	}
	for (size_t i = 0; i < len;) {
		uint32_t code = s[i];
		size_t n = code < 0x80 ? 1 : code < 0xe0 ? 2 : code < 0xf0 ? 3 : 4, k = 1;

		if (n > 1)
			code &= 0x3fu >> (n - 1);
		for (size_t j = 1; j < n; j++)
			code = code << 6 | (s[i + j] & 0x3f);
		i += n;
		units[0] = code;
		if (code >= 0x10000) {
			units[0] = 0xd800 | (code - 0x10000) >> 10;
			units[1] = 0xdc00 | ((code - 0x10000) & 0x3ff);
			k = 2;
		}
		for (size_t j = 0; j < k; j++) {
			out[used++] = (uint8_t)(le ? units[j] & 0xff : units[j] >> 8);
			out[used++] = (uint8_t)(le ? units[j] >> 8 : units[j] & 0xff);
		}
	}
	*size = used;
	return out;
}

/* --- CallerCallee, sampling --- */

static const char sampling_report[] = SAMPLING_HEADER
	"\"Root\",\"_main\",9,1,90.00,10.00,\"c:\\src\\a.cpp\",72,\"a.exe\",\"C:\\a\\a.exe\","
	"0x00401690,\"_main\",\"a.exe\",6360,\n"
	"\"Caller\",\"_mainCRTStartup\",9,0,90.00,0.00,\"f:\\crt\\crtexe.c\",393,\"a.exe\","
	"\"C:\\a\\a.exe\",0x00402C8E,\"_main\",\"a.exe\",6360,\n"
	"\"Callee\",\"_free\",8,8,80.00,80.00,\"\",0,\"MSVCR90.dll\",\"C:\\W\\MSVCR90.dll\","
	"0x78583B4E,\"_main\",\"a.exe\",6360,\n"
	"\"Root\",\"_free\",8,8,80.00,80.00,\"\",0,\"MSVCR90.dll\",\"C:\\W\\MSVCR90.dll\","
	"0x78583B4E,\"_free\",\"a.exe\",6360,\n"
	"\"Caller\",\"_main\",8,1,80.00,10.00,\"c:\\src\\a.cpp\",72,\"a.exe\",\"C:\\a\\a.exe\","
	"0x00401690,\"_free\",\"a.exe\",6360,\n"
	"\"Root\",\"_mainCRTStartup\",10,1,100.00,10.00,\"f:\\crt\\crtexe.c\",393,\"a.exe\","
	"\"C:\\a\\a.exe\",0x00402C8E,\"_mainCRTStartup\",\"a.exe\",6360,\n"
	"\"Callee\",\"_main\",9,1,90.00,10.00,\"c:\\src\\a.cpp\",72,\"a.exe\",\"C:\\a\\a.exe\","
	"0x00401690,\"_mainCRTStartup\",\"a.exe\",6360,\n";

static void test_sampling_caller_callee(void **state)
{
	struct fixture *f = *state;
	const struct pc_frame *frame;
	const struct pc_module *module;

	assert_int_equal(read_text(f, sampling_report), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_int_equal(pc_model_nsources(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_source(f->m, 0)), "vsperf");
	assert_int_equal(pc_model_ncomments(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 0)), "Visual Studio CallerCallee summary: "
			    "no call stacks; inclusive values are per function and do not add up");
	assert_true(has_fact(f->m, "vsperf.report", "CallerCallee"));
	assert_true(has_fact(f->m, "vsperf.flavour", "sampling"));
	assert_int_equal(pc_model_ncolumns(f->m), 2);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "samples");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->unit), "count");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 1)->type), "inclusive_samples");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 1)->unit), "count");
	assert_int_equal(pc_model_default_column(f->m), 0);
	assert_int_equal(pc_model_arc_self_column(f->m), 0);
	assert_int_equal(pc_model_arc_total_column(f->m), 1);
	/* one one-frame sample per Root row */
	assert_int_equal(pc_model_nsamples(f->m), 3);
	assert_int_equal(value_of(f->m, "_main", 6360, "samples"), 1);
	assert_int_equal(value_of(f->m, "_main", 6360, "inclusive_samples"), 9);
	assert_int_equal(value_of(f->m, "_free", 6360, "samples"), 8);
	assert_int_equal(value_of(f->m, "_free", 6360, "inclusive_samples"), 8);
	assert_int_equal(value_of(f->m, "_mainCRTStartup", 6360, "samples"), 1);
	assert_int_equal(value_of(f->m, "_mainCRTStartup", 6360, "inclusive_samples"), 10);
	assert_int_equal(column_total(f->m, "samples"), 10);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++)
		assert_string_equal(sample_comm(f->m, i), "a.exe");
	/* Caller rows are the arcs; Callee rows only check them */
	assert_int_equal(pc_model_narcs(f->m), 2);
	assert_int_equal(arc_count(f->m, "_mainCRTStartup", "_main"), 9);
	assert_int_equal(arc_count(f->m, "_main", "_free"), 8);
	/* frames: module path, absolute address, file and line */
	assert_int_equal(pc_model_nframes(f->m), 3);
	frame = frame_named(f->m, "_main");
	assert_int_equal(frame->flags, PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE);
	assert_int_equal(frame->address, 0x401690);
	assert_string_equal(pc_str(f->m, frame->file), "c:\\src\\a.cpp");
	assert_int_equal(frame->line, 72);
	module = pc_model_module(f->m, frame->module);
	assert_string_equal(pc_str(f->m, module->name), "C:\\a\\a.exe");
	assert_int_equal(module->space, 6361);
	assert_true(module->has_range);
	assert_int_equal(module->start, 0x401690);
	assert_int_equal(module->limit, 0x402C8F);
	frame = frame_named(f->m, "_free");
	assert_int_equal(frame->file, 0);
	assert_int_equal(frame->line, 0);
	assert_int_equal(pc_model_nmodules(f->m), 2);
}

static void test_labels_are_comm_and_pid(void **state)
{
	struct fixture *f = *state;
	size_t n, i;
	const uint32_t *labels;

	assert_int_equal(read_text(f, sampling_report), 0);
	assert_non_null(find_sample(f->m, "_main", -1, &i));
	labels = pc_model_labelset(f->m, pc_model_sample(f->m, i)->labels, &n);
	assert_int_equal(n, 2);
	assert_string_equal(pc_str(f->m, pc_model_label(f->m, labels[0])->key), "comm");
	assert_string_equal(pc_str(f->m, pc_model_label(f->m, labels[0])->str), "a.exe");
	assert_string_equal(pc_str(f->m, pc_model_label(f->m, labels[1])->key), "pid");
	assert_int_equal(pc_model_label(f->m, labels[1])->num, 6360);
	assert_string_equal(pc_str(f->m, pc_model_label(f->m, labels[1])->unit), "pid");
}

/* --- CallerCallee, instrumentation --- */

#define INSTR_ROW(type, name, ei, ee, ai, ae, calls, line, addr, root) \
	"\"" type "\",\"" name "\"," ei "," ee "," ai "," ae ",1.00,1.00,1.00,1.00,63,63," \
	"0,766,861,0,152,276,0,766,861,0,152,276," calls ",\"c:\\p\\fib.cpp\"," line \
	",\"fib.exe\",\"C:\\p\\fib.exe\"," addr ",\"" root "\",\"fib.exe\",3320,\r\n"

static const char instrumentation_report[] = INSTRUMENTATION_HEADER
	INSTR_ROW("Root", "Fib(int)", "76683", "76251", "76600", "76200", "500", "7",
		  "0x011412B8", "Fib(int)")
	INSTR_ROW("Caller", "DoStuff(void)", "76683", "23709", "76600", "23700", "100", "20",
		  "0x01141340", "Fib(int)")
	INSTR_ROW("Caller", "Fib(int)", "0", "52542", "0", "52500", "400", "7", "0x011412B8",
		  "Fib(int)")
	INSTR_ROW("Callee", "Fib(int)", "0", "52542", "0", "52500", "400", "7", "0x011412B8",
		  "Fib(int)")
	INSTR_ROW("Root", "DoStuff(void)", "80000", "3317", "79900", "3300", "1", "20",
		  "0x01141340", "DoStuff(void)")
	INSTR_ROW("Callee", "Fib(int)", "76683", "23709", "76600", "23700", "100", "7",
		  "0x011412B8", "DoStuff(void)");

static void test_instrumentation_caller_callee(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, instrumentation_report), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_true(has_fact(f->m, "vsperf.flavour", "instrumentation"));
	assert_int_equal(pc_model_ncolumns(f->m), 5);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "elapsed_exclusive");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->unit), "ticks");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 1)->type), "elapsed_inclusive");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 2)->type), "application_exclusive");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 3)->type), "application_inclusive");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 3)->unit), "ticks");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 4)->type), "calls");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 4)->unit), "count");
	assert_int_equal(pc_model_default_column(f->m), 0);
	assert_int_equal(pc_model_arc_self_column(f->m), 0);
	assert_int_equal(pc_model_arc_total_column(f->m), 1);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "Fib(int)", 3320, "elapsed_exclusive"), 76251);
	assert_int_equal(value_of(f->m, "Fib(int)", 3320, "elapsed_inclusive"), 76683);
	assert_int_equal(value_of(f->m, "Fib(int)", 3320, "application_exclusive"), 76200);
	assert_int_equal(value_of(f->m, "Fib(int)", 3320, "application_inclusive"), 76600);
	assert_int_equal(value_of(f->m, "Fib(int)", 3320, "calls"), 500);
	assert_int_equal(value_of(f->m, "DoStuff(void)", 3320, "elapsed_exclusive"), 3317);
	assert_int_equal(value_of(f->m, "DoStuff(void)", 3320, "calls"), 1);
	/* the recursive self-caller row: an arc of 0 elapsed inclusive time */
	assert_int_equal(pc_model_narcs(f->m), 2);
	assert_int_equal(arc_count(f->m, "DoStuff(void)", "Fib(int)"), 76683);
	assert_int_equal(arc_count(f->m, "Fib(int)", "Fib(int)"), 0);
}

/* --- frames --- */

static void test_functions_are_keyed_by_process_module_and_address(void **state)
{
	struct fixture *f = *state;

	/* two __SEH_epilog roots in different modules, one name at two addresses */
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Module Path,Function Address,Process ID\n"
				      "Root,__SEH_epilog,1,1,C:\\ntdll.dll,0x7C90E906,1\n"
				      "Root,__SEH_epilog,2,2,C:\\kernel32.dll,0x7C802511,1\n"
				      "Root,f,3,3,C:\\a.exe,0x1000,1\n"
				      "Root,f,4,4,C:\\a.exe,0x2000,1\n"
				      "Root,f,5,5,C:\\a.exe,0x1000,2\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 5);
	assert_int_equal(pc_model_nframes(f->m), 5);
	assert_int_equal(pc_model_nmodules(f->m), 4);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_int_equal(column_total(f->m, "samples"), 15);
}

static void test_a_caller_row_makes_the_frame_its_root_row_reuses(void **state)
{
	struct fixture *f = *state;
	const struct pc_frame *frame;

	/* g first appears as a Caller (with another line number), then as a Root */
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Source File,Function Line Number,Module Name,Function "
				      "Address\n"
				      "Root,f,1,1,a.c,10,a.exe,0x10\n"
				      "Caller,g,1,0,a.c,20,a.exe,0x20\n"
				      "Root,g,1,0,a.c,21,a.exe,0x20\n"), 0);
	assert_int_equal(pc_model_nframes(f->m), 2);
	frame = frame_named(f->m, "g");
	assert_int_equal(frame->line, 20);
	assert_int_equal(value_of(f->m, "g", -1, "inclusive_samples"), 1);
	assert_int_equal(arc_count(f->m, "g", "f"), 1);
}

static void test_functions_without_address_are_keyed_by_name(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Module Name\n"
				      "Root,f,1,1,a.exe\nRoot,g,2,2,a.exe\nRoot,f,3,3,b.dll\n"
				      "Caller,g,1,0,a.exe\n"), 0);
	assert_int_equal(pc_model_nframes(f->m), 3);
	assert_int_equal(pc_model_nmodules(f->m), 2);
	assert_int_equal(pc_model_frame(f->m, pc_model_arc(f->m, 0)->from)->flags, 0);
	assert_int_equal(arc_count(f->m, "g", "f"), 1);
}

static void test_the_unknown_frame(void **state)
{
	struct fixture *f = *state;
	const struct pc_frame *frame;

	assert_int_equal(read_text(f, SAMPLING_HEADER
				   "\"Root\",\"Unknown Frame(s)\",34,0,29.06,0.00,\"<Unknown>\",0,"
				   "\"UNKNOWN\",\"UNKNOWN\",0xBAADF00D,\"Unknown Frame(s)\","
				   "\"p.exe\",6360,\n"
				   "\"Root\",\"x\",1,1,1.00,1.00,\"\",0,\"UNKNOWN\",\"UNKNOWN\","
				   "0x1234,\"x\",\"p.exe\",6360,\n"
				   "\"Root\",\"y\",1,1,1.00,1.00,\"\",0,\"m->dll\",\"C:\\m->dll\","
				   "0xBAADF00D,\"y\",\"p.exe\",6360,\n"), 0);
	assert_int_equal(pc_model_nmodules(f->m), 0);
	assert_int_equal(pc_model_nframes(f->m), 3);
	for (size_t i = 0; i < pc_model_nframes(f->m); i++) {
		frame = pc_model_frame(f->m, (uint32_t)(i) + 1);
		assert_int_equal(frame->module, 0);
		assert_int_equal(frame->flags, 0);
		assert_int_equal(frame->address, 0);
		assert_int_equal(frame->file, 0);
		assert_int_equal(frame->line, 0);
	}
	assert_int_equal(value_of(f->m, "Unknown Frame(s)", 6360, "inclusive_samples"), 34);
}

/* --- the lexical grammar --- */

static void test_quoting_commas_and_doubled_quotes(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Root Function Name\n"
				      "\"Root\",\"std::map<int,int>::find(int const &) \",5,2,"
				      "\"std::map<int,int>::find(int const &) \"\n"
				      "\"Caller\",\"say(\"\"hi, \"\"\"\"there\"\"\"\")\",5,0,"
				      "\"std::map<int,int>::find(int const &) \"\n"
				      "  \"Root\" , \"say(\"\"hi, \"\"\"\"there\"\"\"\")\" ,5,0,"
				      "\"say(\"\"hi, \"\"\"\"there\"\"\"\")\"\n"), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_int_equal(value_of(f->m, "std::map<int,int>::find(int const &) ", -1,
				  "samples"), 2);
	assert_int_equal(value_of(f->m, "say(\"hi, \"\"there\"\")", -1, "inclusive_samples"), 5);
	assert_int_equal(arc_count(f->m, "say(\"hi, \"\"there\"\")",
				   "std::map<int,int>::find(int const &) "), 5);
}

static void test_line_ends_blank_lines_and_trailing_commas(void **state)
{
	struct fixture *f = *state;
	char *lf, *crlf;

	/* with and without trailing commas, CRLF, blank lines, no final newline */
	static const char lf_text[] = "Type,Function Name,Inclusive Samples,Exclusive Samples,\n"
				      "Root,f,3,1,\nCaller,g,3,0,\n\nRoot,g,3,2,";
	static const char crlf_text[] = "\r\n  \r\nType,Function Name,Inclusive Samples,"
					"Exclusive Samples\r\nRoot,f,3,1\r\n\r\nCaller,g,3,0\r\n"
					"Root,g,3,2\r\n\r\n";

	lf = dump_of(lf_text, strlen(lf_text), false);
	crlf = dump_of(crlf_text, strlen(crlf_text), false);
	assert_string_equal(lf, crlf);
	free(lf);
	free(crlf);
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,\n"
				      "Root,f,3,1,\nCaller,g,3,0,\n\nRoot,g,3,2,"), 0);
	assert_int_equal(value_of(f->m, "g", -1, "samples"), 2);
	assert_int_equal(arc_count(f->m, "g", "f"), 3);
}

static void test_type_numbers_and_case(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
				      "0,f,3,1\n1,g,2,0\nCALLER,h,1,0\n2,k,2,2\n"
				      " root ,g,2,0\ncallee,f,2,1\nRoot,h,1,0\n\"cAlLeE\",f,1,1\n"
				      "Root,k,2,2\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 4);
	assert_int_equal(arc_count(f->m, "g", "f"), 2);
	assert_int_equal(arc_count(f->m, "h", "f"), 1);
	assert_int_equal(pc_model_narcs(f->m), 2);
	assert_int_equal(f->ctx.nwarnings, 1); /* f -> k is only a Callee row */
}

static void test_grouped_numbers(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Process ID\n"
				      "Root,a,\"8,735\",\"2,893,824\",\"1,000\"\n"
				      "Root,b,\"8.735\",\"1.234.567\",1\n"
				      "Root,c,\"8 735\",\"8'735\",1\n"
				      "Root,d,\"8\xc2\xa0" "735\",\"8\xe2\x80\xaf" "735\",1\n"
				      "Root,e, 12 ,\" 0012 \",1\n"
				      "Root,g,\"1,00,000\",1,1\n"), 0);
	assert_int_equal(value_of(f->m, "a", 1000, "inclusive_samples"), 8735);
	assert_int_equal(value_of(f->m, "a", 1000, "samples"), 2893824);
	assert_int_equal(value_of(f->m, "b", 1, "inclusive_samples"), 8735);
	assert_int_equal(value_of(f->m, "b", 1, "samples"), 1234567);
	assert_int_equal(value_of(f->m, "c", 1, "inclusive_samples"), 8735);
	assert_int_equal(value_of(f->m, "c", 1, "samples"), 8735);
	assert_int_equal(value_of(f->m, "d", 1, "inclusive_samples"), 8735);
	assert_int_equal(value_of(f->m, "d", 1, "samples"), 8735);
	assert_int_equal(value_of(f->m, "e", 1, "inclusive_samples"), 12);
	assert_int_equal(value_of(f->m, "e", 1, "samples"), 12);
	assert_int_equal(value_of(f->m, "g", 1, "inclusive_samples"), 100000);
}

static void test_percentages_are_not_read(void **state)
{
	struct fixture *f = *state;

	/* decimal commas (quoted) or nonsense: percentages are recomputed, never read */
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Inclusive Samples%,Exclusive Samples %\n"
				      "Root,a,4,4,\"100,00\",n/a\n"), 0);
	assert_int_equal(value_of(f->m, "a", -1, "samples"), 4);
	/* nor are the instrumentation averages outside call trees */
	pc_model_free(f->m);
	f->m = pc_model_new();
	assert_int_equal(read_text(f, "Type,Function Name,Elapsed Inclusive Time,Elapsed "
				      "Exclusive Time,Avg Elapsed Inclusive Time,Elapsed Exclusive "
				      "Time %\nRoot,a,4,3,n/a,-\n"), 0);
	assert_int_equal(value_of(f->m, "a", -1, "elapsed_exclusive"), 3);
}

static void test_header_spellings(void **state)
{
	struct fixture *f = *state;

	/* any order, ASCII case ignored, blanks and quotes around names, "%" with or without
	 * a space, unknown columns ignored */
	assert_int_equal(read_text(f, "\"Exclusive Samples\", inclusive samples ,X,FUNCTION NAME,"
				      "Elapsed Exclusive Time%,tYPE,Avg Elapsed Inclusive Time\n"
				      "1,4,zz,f,1,Root,1\n"), 0);
	assert_int_equal(value_of(f->m, "f", -1, "samples"), 1);
	assert_int_equal(value_of(f->m, "f", -1, "inclusive_samples"), 4);
	assert_int_equal(pc_model_ncolumns(f->m), 2);
}

static void test_utf8_bom_and_8bit_text(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "\xef\xbb\xbfType,Function Name,Inclusive Samples,"
				      "Exclusive Samples\r\nRoot,Gr\xc3\xb6\xc3\x9f" "e,1,1\r\n"
				      "Root,caf\xe9,2,2\r\n"), 0);
	assert_int_equal(value_of(f->m, "Gr\xc3\xb6\xc3\x9f" "e", -1, "samples"), 1);
	/* bytes that are not UTF-8 (an ANSI code page) are kept as they are */
	assert_int_equal(value_of(f->m, "caf\xe9", -1, "samples"), 2);
}

static const char unicode_report[] = "Type,Function Name,Inclusive Samples,Exclusive Samples,"
	"Module Path,Function Address,Process Name,Process ID,\r\n"
	"\"Root\",\"Gr\xc3\xb6\xc3\x9f" "e(int)\",6,6,\"C:\\\xc3\xbc\\a.exe\",0x10,"
	"\"\xc3\xbc.exe\",7,\r\n"
	"\"Caller\",\"\xe6\x8f\x8f\xe7\x94\xbb::\xf0\x9f\x98\x80()\",6,1,\"C:\\\xc3\xbc\\a.exe\","
	"0x20,\"\xc3\xbc.exe\",7,\r\n"
	"\"Root\",\"\xe6\x8f\x8f\xe7\x94\xbb::\xf0\x9f\x98\x80()\",7,1,\"C:\\\xc3\xbc\\a.exe\","
	"0x20,\"\xc3\xbc.exe\",7,\r\n";

static void test_utf16_is_converted(void **state)
{
	struct fixture *f = *state;
	char *want = dump_of(unicode_report, strlen(unicode_report), false);
	static const bool variants[][2] = { { true, true }, { true, false }, { false, true },
					    { false, false } };

	for (size_t v = 0; v < PC_ARRAY_SIZE(variants); v++) {
		size_t size;
		uint8_t *wide = utf16_of(unicode_report, variants[v][0], variants[v][1], &size);
		char *got = dump_of(wide, size, false), *piped = dump_of(wide, size, true);

		assert_string_equal(got, want);
		assert_string_equal(piped, want);
		free(got);
		free(piped);
		free(wide);
	}
	free(want);
	assert_int_equal(read_text(f, unicode_report), 0);
	assert_int_equal(value_of(f->m, "Gr\xc3\xb6\xc3\x9f" "e(int)", 7, "samples"), 6);
	assert_int_equal(arc_count(f->m, "\xe6\x8f\x8f\xe7\x94\xbb::\xf0\x9f\x98\x80()",
				   "Gr\xc3\xb6\xc3\x9f" "e(int)"), 6);
}

/* --- CallTree --- */

static const char sampling_tree[] = "\xef\xbb\xbfLevel,Function Name,Inclusive Samples,"
	"Exclusive Samples,Inclusive Samples %,Exclusive Samples %,Module Name,\r\n"
	"0,\"demo.exe\",\"8,735\",0,100.00,0.00,\"\",\r\n"
	"1,\"main\",\"8,735\",35,100.00,0.40,\"demo.exe\",\r\n"
	"2,\"parse(char const *,int)\",\"5,000\",\"1,000\",57.24,11.45,\"demo.exe\",\r\n"
	"3,\"lex(void)\",\"4,000\",\"4,000\",45.79,45.79,\"demo.exe\",\r\n"
	"2,\"eval(struct node *)\",\"3,700\",\"2,500\",42.36,28.62,\"demo.exe\",\r\n"
	"3,\"malloc\",\"1,200\",\"1,200\",13.74,13.74,\"ucrtbase.dll\",\r\n"
	"3,\"lex(void)\",0,0,0.00,0.00,\"demo.exe\",\r\n";

static void test_sampling_call_tree(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, sampling_tree), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_true(has_fact(f->m, "vsperf.report", "CallTree"));
	assert_true(has_fact(f->m, "vsperf.flavour", "sampling"));
	assert_int_equal(pc_model_ncomments(f->m), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 1);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "samples");
	assert_int_equal(pc_model_arc_self_column(f->m), -1);
	assert_int_equal(pc_model_arc_total_column(f->m), -1);
	assert_int_equal(pc_model_narcs(f->m), 0);
	/* a sample per row with exclusive samples; the Level 0 row is the comm label */
	assert_int_equal(pc_model_nsamples(f->m), 5);
	assert_int_equal(value_of(f->m, "main", -1, "samples"), 35);
	assert_int_equal(value_of(f->m, "main;parse(char const *,int)", -1, "samples"), 1000);
	assert_int_equal(value_of(f->m, "main;parse(char const *,int);lex(void)", -1, "samples"),
			 4000);
	assert_int_equal(value_of(f->m, "main;eval(struct node *)", -1, "samples"), 2500);
	assert_int_equal(value_of(f->m, "main;eval(struct node *);malloc", -1, "samples"), 1200);
	assert_int_equal(column_total(f->m, "samples"), 8735);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		assert_string_equal(sample_comm(f->m, i), "demo.exe");
		assert_int_equal(sample_pid(f->m, i), -1);
	}
	/* the same function under two parents is one frame */
	assert_int_equal(pc_model_nframes(f->m), 5);
	assert_int_equal(pc_model_nmodules(f->m), 2);
}

static void test_call_tree_without_level_0(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Level,Function Name,Exclusive Samples,Process Name\n"
				      "1,main,1,a.exe\n2,f,2,a.exe\n3,g,3,a.exe\n1,other,4,\n"
				      "2,g,5,\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 5);
	assert_int_equal(value_of(f->m, "main;f;g", -1, "samples"), 3);
	assert_int_equal(value_of(f->m, "other;g", -1, "samples"), 5);
	assert_int_equal(pc_model_nframes(f->m), 4);
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_several_processes_in_a_call_tree(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Level,Function Name,Exclusive Samples\n"
				      "0,a.exe,0\n1,main,1\n0,b.exe,2\n1,main,3\n"), 0);
	assert_int_equal(pc_model_nsamples(f->m), 3);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++) {
		char stack[64];

		stack_text(f->m, i, stack, sizeof(stack));
		if (!strcmp(sample_comm(f->m, i), "a.exe")) {
			assert_string_equal(stack, "main");
			assert_int_equal(pc_model_values(f->m, i)[0], 1);
		} else if (!stack[0]) { /* Level 0's own samples: a sample without frames */
			assert_string_equal(sample_comm(f->m, i), "b.exe");
			assert_int_equal(pc_model_values(f->m, i)[0], 2);
		} else {
			assert_string_equal(sample_comm(f->m, i), "b.exe");
			assert_int_equal(pc_model_values(f->m, i)[0], 3);
		}
	}
}

static void test_call_tree_inclusive_check(void **state)
{
	struct fixture *f = *state;

	/* f: 2 + 5 > 6 */
	assert_int_equal(read_text(f, "Level,Function Name,Inclusive Samples,Exclusive Samples\n"
				      "1,f,6,2\n2,g,5,5\n1,h,1,1\n"), 0);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf: the exclusive value of \"f\" "
			    "(line 2) plus its children's inclusive values (7) pass its "
			    "inclusive value (6)");
	assert_int_equal(column_total(f->m, "samples"), 8);
}

static const char ide_tree[] = IDE_TREE_HEADER
	"0,\"tiny.exe\",0,100.00,0.00,0.00,0.00,\"\",\r\n"
	"1,\"Main()\",1,99.50,9.95,\"1,000.00\",99.50,\"tiny.exe\",\r\n"
	"2,\"Work(int32)\",3,59.70,49.75,200.00,166.67,\"tiny.exe\",\r\n"
	"3,\"Helper()\",6,9.95,9.95,16.67,16.67,\"tiny.exe\",\r\n"
	"2,\"WriteLine(string)\",\"1,500\",29.85,29.85,0.20,0.20,\"mscorlib.dll\",\r\n"
	"1,\"Finalize()\",2,0.50,0.50,2.50,2.50,\"tiny.exe\",\r\n";

static void test_ide_call_tree_apportions_times(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, ide_tree), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	assert_true(has_fact(f->m, "vsperf.flavour", "instrumentation"));
	assert_int_equal(pc_model_ncolumns(f->m), 2);
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->type), "elapsed_exclusive");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 0)->unit), "ticks");
	assert_string_equal(pc_str(f->m, pc_model_column(f->m, 1)->type), "calls");
	assert_int_equal(pc_model_default_column(f->m), 0);
	assert_int_equal(pc_model_ncomments(f->m), 1);
	assert_non_null(strstr(pc_str(f->m, pc_model_comment(f->m, 0)), "Number of Calls x Avg Elapsed "
			       "Inclusive Time"));
	/* Main's subtree: 1 x 1,000.00 = 1000 by exclusive % 9.95 : 49.75 : 9.95 : 29.85 */
	assert_int_equal(value_of(f->m, "Main()", -1, "elapsed_exclusive"), 100);
	assert_int_equal(value_of(f->m, "Main();Work(int32)", -1, "elapsed_exclusive"), 500);
	assert_int_equal(value_of(f->m, "Main();Work(int32);Helper()", -1, "elapsed_exclusive"),
			 100);
	assert_int_equal(value_of(f->m, "Main();WriteLine(string)", -1, "elapsed_exclusive"),
			 300);
	/* Finalize's: 2 x 2.50 = 5 */
	assert_int_equal(value_of(f->m, "Finalize()", -1, "elapsed_exclusive"), 5);
	assert_int_equal(column_total(f->m, "elapsed_exclusive"), 1005);
	/* calls are exact per node */
	assert_int_equal(value_of(f->m, "Main()", -1, "calls"), 1);
	assert_int_equal(value_of(f->m, "Main();Work(int32)", -1, "calls"), 3);
	assert_int_equal(value_of(f->m, "Main();Work(int32);Helper()", -1, "calls"), 6);
	assert_int_equal(value_of(f->m, "Main();WriteLine(string)", -1, "calls"), 1500);
	assert_int_equal(value_of(f->m, "Finalize()", -1, "calls"), 2);
	for (size_t i = 0; i < pc_model_nsamples(f->m); i++)
		assert_string_equal(sample_comm(f->m, i), "tiny.exe");
}

static void test_ide_call_tree_with_decimal_commas(void **state)
{
	char *want = dump_of(ide_tree, strlen(ide_tree), false), *got;
	static const char german[] = IDE_TREE_HEADER
		"0,\"tiny.exe\",0,\"100,00\",\"0,00\",\"0,00\",\"0,00\",\"\",\r\n"
		"1,\"Main()\",1,\"99,50\",\"9,95\",\"1.000,00\",\"99,50\",\"tiny.exe\",\r\n"
		"2,\"Work(int32)\",3,\"59,70\",\"49,75\",\"200,00\",\"166,67\",\"tiny.exe\",\r\n"
		"3,\"Helper()\",6,\"9,95\",\"9,95\",\"16,67\",\"16,67\",\"tiny.exe\",\r\n"
		"2,\"WriteLine(string)\",\"1.500\",\"29,85\",\"29,85\",\"0,20\",\"0,20\","
		"\"mscorlib.dll\",\r\n"
		"1,\"Finalize()\",2,\"0,50\",\"0,50\",\"2,50\",\"2,50\",\"tiny.exe\",\r\n";

	(void)state;
	got = dump_of(german, strlen(german), false);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_ide_call_tree_rounds_the_subtree_total(void **state)
{
	struct fixture *f = *state;

	/* 471 x 401.92 = 189304.32 -> 189304; 1 x 18,160.51 -> 18161 */
	assert_int_equal(read_text(f, IDE_TREE_HEADER
				   "1,\"a\",471,91.25,18.39,401.92,81.02,\"x\",\r\n"
				   "2,\"b\",\"2,893,824\",54.37,4.21,0.04,0.00,\"x\",\r\n"
				   "1,\"c\",1,8.75,0.69,\"18,160.51\",\"1,426.50\",\"x\",\r\n"
				   "2,\"d\",1,8.06,8.06,\"16,734.01\",\"16,734.01\",\"x\",\r\n"), 0);
	assert_int_equal(value_of(f->m, "a", -1, "elapsed_exclusive") +
			 value_of(f->m, "a;b", -1, "elapsed_exclusive"), 189304);
	assert_int_equal(value_of(f->m, "c", -1, "elapsed_exclusive") +
			 value_of(f->m, "c;d", -1, "elapsed_exclusive"), 18161);
	assert_int_equal(value_of(f->m, "a;b", -1, "calls"), 2893824);
}

static void test_ide_call_tree_without_percentages(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, IDE_TREE_HEADER
				   "1,\"a\",4,0.00,0.00,2.50,0.00,\"x\",\r\n"
				   "2,\"b\",1,0.00,0.00,1.00,0.00,\"x\",\r\n"), 0);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf: the rows below \"a\" (line 2) have "
			    "no exclusive percentages: its whole time goes to it");
	assert_int_equal(value_of(f->m, "a", -1, "elapsed_exclusive"), 10);
	assert_int_equal(value_of(f->m, "a;b", -1, "calls"), 1);
	assert_int_equal(column_total(f->m, "elapsed_exclusive"), 10);
}

static void test_instrumentation_call_tree_with_times(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Level,Function Name,Elapsed Inclusive Time,Elapsed "
				      "Exclusive Time,Application Exclusive Time,Number of Calls\n"
				      "1,main,100,10,9,1\n2,f,90,90,80,7\n"), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 3);
	assert_int_equal(pc_model_ncomments(f->m), 0);
	assert_int_equal(value_of(f->m, "main", -1, "elapsed_exclusive"), 10);
	assert_int_equal(value_of(f->m, "main;f", -1, "elapsed_exclusive"), 90);
	assert_int_equal(value_of(f->m, "main;f", -1, "application_exclusive"), 80);
	assert_int_equal(value_of(f->m, "main;f", -1, "calls"), 7);
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* --- Function summaries and processes --- */

static void test_function_summary(void **state)
{
	struct fixture *f = *state;
	const struct pc_frame *frame;

	assert_int_equal(read_text(f, "Function Name,Inclusive Samples,Exclusive Samples,"
				      "Inclusive Samples %,Exclusive Samples %,Source File,Function "
				      "Line Number,Function Address,Module Name,Module Path,Process "
				      "Name,Process ID,\r\n"
				      "\"main\",10,2,100.00,20.00,\"c:\\d.c\",12,0x00401000,\"d.exe\","
				      "\"C:\\d\\d.exe\",\"d.exe\",512,\r\n"
				      "\"compute(int)\",8,8,80.00,80.00,\"c:\\d.c\",30,0x00401080,"
				      "\"d.exe\",\"C:\\d\\d.exe\",\"d.exe\",512,\r\n"), 0);
	assert_true(has_fact(f->m, "vsperf.report", "Function"));
	assert_string_equal(pc_str(f->m, pc_model_comment(f->m, 0)), "Visual Studio Function summary: "
			    "no call stacks; inclusive values are per function and do not add up");
	assert_int_equal(pc_model_arc_self_column(f->m), 0);
	assert_int_equal(pc_model_arc_total_column(f->m), 1);
	assert_int_equal(pc_model_narcs(f->m), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "main", 512, "samples"), 2);
	assert_int_equal(value_of(f->m, "main", 512, "inclusive_samples"), 10);
	assert_int_equal(value_of(f->m, "compute(int)", 512, "samples"), 8);
	frame = frame_named(f->m, "compute(int)");
	assert_int_equal(frame->address, 0x401080);
	assert_int_equal(frame->line, 30);
}

static void test_instrumentation_function_summary(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Function Name,Elapsed Inclusive Time,Elapsed Exclusive "
				      "Time,Number of Calls\nf,\"1,000\",\"250\",3\n"), 0);
	assert_int_equal(value_of(f->m, "f", -1, "elapsed_exclusive"), 250);
	assert_int_equal(value_of(f->m, "f", -1, "elapsed_inclusive"), 1000);
	assert_int_equal(value_of(f->m, "f", -1, "calls"), 3);
	assert_int_equal(pc_model_arc_self_column(f->m), column_of(f->m, "elapsed_exclusive"));
	assert_int_equal(pc_model_arc_total_column(f->m), column_of(f->m, "elapsed_inclusive"));
}

static void test_several_processes(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Module Path,Function Address,Process Name,Process ID\n"
				      "Root,main,7,4,C:\\app.exe,0x401000,app.exe,100\n"
				      "Caller,Unknown Frame(s),7,0,UNKNOWN,0xBAADF00D,app.exe,100\n"
				      "Root,main,5,5,C:\\app.exe,0x401000,app.exe,200\n"
				      "Caller,Unknown Frame(s),5,0,UNKNOWN,0xBAADF00D,app.exe,200\n"
				      "Root,Unknown Frame(s),7,0,UNKNOWN,0xBAADF00D,app.exe,100\n"
				      "Root,Unknown Frame(s),5,0,UNKNOWN,0xBAADF00D,app.exe,200\n"), 0);
	assert_int_equal(f->ctx.nwarnings, 0);
	/* the same module in two processes: two modules (address spaces) */
	assert_int_equal(pc_model_nmodules(f->m), 2);
	assert_int_equal(pc_model_module(f->m, 1)->space + pc_model_module(f->m, 2)->space, 302);
	assert_int_equal(pc_model_nsamples(f->m), 4);
	assert_int_equal(value_of(f->m, "main", 100, "samples"), 4);
	assert_int_equal(value_of(f->m, "main", 200, "samples"), 5);
	assert_int_equal(value_of(f->m, "Unknown Frame(s)", 100, "inclusive_samples"), 7);
	assert_int_equal(value_of(f->m, "Unknown Frame(s)", 200, "inclusive_samples"), 5);
	/* one unknown frame, two main frames, two arcs */
	assert_int_equal(pc_model_nframes(f->m), 3);
	assert_int_equal(pc_model_narcs(f->m), 2);
	assert_int_equal(pc_model_arc(f->m, 0)->count + pc_model_arc(f->m, 1)->count, 12);
}

static void test_an_earlier_default_column_is_kept(void **state)
{
	struct fixture *f = *state;
	int other = pc_model_add_column(f->m, "cycles", "count");

	pc_model_set_default_column(f->m, other);
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
				      "Root,f,1,1\n"), 0);
	assert_int_equal(pc_model_default_column(f->m), other);
	assert_int_equal(pc_model_arc_self_column(f->m), column_of(f->m, "samples"));
	assert_int_equal(pc_model_arc_total_column(f->m), column_of(f->m, "inclusive_samples"));
}

/* --- warnings --- */

static void test_consistency_warnings(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,"
				      "Root Function Name\n"
				      "Root,f,3,4,f\n"   /* exclusive > inclusive */
				      "Caller,g,3,0,h\n" /* wrong Root Function Name; no g group */
				      "Callee,k,9,9,f\n" /* no Caller row in k's group */
				      "Root,f,1,1,f\n"   /* a second Root row for f */
				      "Root,k,9,9,k\n"), 0);
	assert_int_equal(f->ctx.nwarnings, 4);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf: the exclusive value of \"f\" (4, "
			    "line 2) passes its inclusive value (3)");
	assert_string_equal(f->ctx.warnings[1].text, "vsperf: the Root Function Name \"h\" at "
			    "line 3 is not the name of its group's Root row, \"f\"");
	assert_string_equal(f->ctx.warnings[2].text, "vsperf: function \"f\" has more than one "
			    "Root row (again at line 5); their values add up");
	assert_string_equal(f->ctx.warnings[3].text, "vsperf: Caller and Callee rows disagree "
			    "about 2 call edges (the Caller rows are used), e.g. \"g\" -> \"f\": "
			    "3 in Caller rows, none in Callee rows");
	assert_int_equal(value_of(f->m, "f", -1, "samples"), 5);
	assert_int_equal(value_of(f->m, "f", -1, "inclusive_samples"), 4);
}

static void test_strict_turns_warnings_into_errors(void **state)
{
	struct fixture *f = *state;

	/* an inconsistent input kept as given: a notice, no error */
	f->ctx.opt.strict = true;
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
				      "Root,f,3,4\n"), 0);
	/* values added together: a loss */
	assert_int_equal(read_text(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
				      "Root,f,3,3\nRoot,f,2,2\n"), -1);
	assert_string_equal(f->ctx.err.message, "function \"f\" has more than one Root row "
			    "(again at line 3); their values add up (an error with --strict)");
	assert_string_equal(f->ctx.err.path, "test.csv");
}

/*
 * Times with a fraction (an IDE export's "12.5") are read, rounded to
 * whole ticks half up, with one counted warning; integer times and every
 * count stay exact ("1,000" is 1000), and a fractional sample count is
 * still refused (test_bad_count). --strict: the first rounding is the error.
 */
static void test_fractional_times_are_rounded(void **state)
{
	struct fixture *f = *state;
	static const char report[] =
		"Type,Function Name,Elapsed Inclusive Time,Elapsed Exclusive Time,Number of Calls\n"
		"Root,f,12.5,\"2,25\",3\n"
		"Root,g,\"1,000\",7,1\n"
		"Root,h,\"1,000.50\",0.49,1\n";

	assert_int_equal(read_text(f, report), 0);
	assert_int_equal(value_of(f->m, "f", -1, "elapsed_inclusive"), 13);
	assert_int_equal(value_of(f->m, "f", -1, "elapsed_exclusive"), 2);
	assert_int_equal(value_of(f->m, "g", -1, "elapsed_inclusive"), 1000);
	assert_int_equal(value_of(f->m, "g", -1, "elapsed_exclusive"), 7);
	assert_int_equal(value_of(f->m, "h", -1, "elapsed_inclusive"), 1001);
	assert_int_equal(value_of(f->m, "h", -1, "elapsed_exclusive"), 0);
	assert_int_equal(value_of(f->m, "f", -1, "calls"), 3);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 4);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf: rounded times with a fraction to "
			    "whole ticks, the first \"12.5\" in column \"Elapsed Inclusive Time\" "
			    "at line 2 to 13");

	pc_ctx_init(&f->ctx);
	pc_model_free(f->m);
	f->m = pc_model_new();
	f->ctx.opt.strict = true;
	assert_error(f, report, 2, 8, "\"12.5\" in column \"Elapsed Inclusive Time\" has a "
		     "fraction, which would be rounded to 13 (an error with --strict)");
}

/*
 * --skip-bad: a row that does not parse (a bad number, too few fields, an
 * unterminated quote) is skipped, counted in one warning that names the
 * first; --strict makes that the located error again. A row that parses
 * but does not fit (a Caller before any Root) stays an error.
 */
static void test_skip_bad_skips_unparseable_rows(void **state)
{
	struct fixture *f = *state;
	static const char report[] =
		"Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		"Root,f,3,2\n"
		"Root,g,x,1\n"
		"Root,h,1\n"
		"Root,\"i,1,1\n"
		"Root,j,5,5\n";

	f->ctx.opt.skip_bad = true;
	assert_int_equal(read_text(f, report), 0);
	assert_int_equal(pc_model_nsamples(f->m), 2);
	assert_int_equal(value_of(f->m, "j", -1, "samples"), 5);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 3);
	assert_string_equal(f->ctx.warnings[0].text, "vsperf: skipped an unparseable line, the "
			    "first at test.csv:3:8: expected a count in column \"Inclusive "
			    "Samples\", found \"x\"");

	pc_ctx_init(&f->ctx);
	pc_model_free(f->m);
	f->m = pc_model_new();
	f->ctx.opt.skip_bad = true;
	f->ctx.opt.strict = true;
	assert_error(f, report, 3, 8, "expected a count in column \"Inclusive Samples\", found \"x\"");

	pc_ctx_init(&f->ctx);
	pc_model_free(f->m);
	f->m = pc_model_new();
	f->ctx.opt.skip_bad = true;
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nCaller,f,1,1\n",
		     2, 1, "a Caller row before any Root row (each group of rows starts with its "
		     "Root row)");
}

/* --- errors --- */

static void test_wrong_header(void **state)
{
	assert_error(*state, "main;f 3\n", 1, 1, "expected the header of a Visual Studio report "
		     "(\"Type,Function Name,...\" for CallerCallee, \"Level,Function Name,...\" "
		     "for CallTree or \"Function Name,...\" for a Function summary), found "
		     "\"main;f 3\"");
}

static void test_missing_measure_columns(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Module Name\nRoot,f,1,m\n",
		     1, 1, "missing column \"Exclusive Samples\" (a CallerCallee report needs "
		     "Inclusive Samples and Exclusive Samples, or Elapsed Inclusive Time and "
		     "Elapsed Exclusive Time)");
}

static void test_missing_instrumentation_columns(void **state)
{
	assert_error(*state, "\n\nType,Function Name,Number of Calls,Application Inclusive "
		     "Time\n", 3, 1, "missing columns \"Elapsed Inclusive Time\" and \"Elapsed "
		     "Exclusive Time\" (a CallerCallee report needs Inclusive Samples and "
		     "Exclusive Samples, or Elapsed Inclusive Time and Elapsed Exclusive Time)");
}

static void test_missing_call_tree_columns(void **state)
{
	struct fixture *f = *state;

	assert_error(f, "Level,Function Name,Inclusive Samples\n", 1, 1, "missing column "
		     "\"Exclusive Samples\" (a CallTree report needs Exclusive Samples, or "
		     "Elapsed Exclusive Time, or Number of Calls with Avg Elapsed Inclusive Time "
		     "and Elapsed Exclusive Time %)");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Level,Function Name,Number of Calls,Elapsed Exclusive Time %\n", 1, 1,
		     "missing column \"Avg Elapsed Inclusive Time\" (a CallTree report needs "
		     "Exclusive Samples, or Elapsed Exclusive Time, or Number of Calls with Avg "
		     "Elapsed Inclusive Time and Elapsed Exclusive Time %)");
}

static void test_missing_function_name(void **state)
{
	assert_error(*state, "Type,Inclusive Samples,Exclusive Samples\n", 1, 1,
		     "missing column \"Function Name\" (a CallerCallee report needs it)");
}

static void test_function_summary_without_measures(void **state)
{
	assert_error(*state, "Function Name,Module Name\n", 1, 1, "missing columns \"Inclusive "
		     "Samples\" and \"Exclusive Samples\" (a Function report needs Inclusive "
		     "Samples and Exclusive Samples, or Elapsed Inclusive Time and Elapsed "
		     "Exclusive Time)");
}

static void test_a_column_named_twice(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples,Inclusive "
		     "Samples\n", 1, 56, "column \"Inclusive Samples\" appears twice (also at "
		     "column 20)");
}

static void test_line_summary_is_refused(void **state)
{
	assert_error(*state, "Function Name,Exclusive Samples,Exclusive Samples %,Source Line "
		     "Begin,Line Name,\n", 1, 1, "this is a Line summary, which profconv does not "
		     "read (expected a CallerCallee, CallTree or Function summary)");
}

static void test_short_row(void **state)
{
	assert_error(*state, SAMPLING_HEADER "\"Root\",\"f\",1,1,1.00,1.00,\"\",0\n", 2, 30,
		     "expected 14 fields as the header has, found 8");
}

static void test_long_row(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,f,1,1,\nRoot,g,1,1,x\n", 3, 12, "expected 4 fields as the header has, "
		     "found 5");
}

static void test_bad_count(void **state)
{
	struct fixture *f = *state;

	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nRoot,f,1,\"1.5\"\n",
		     2, 10, "expected a count in column \"Exclusive Samples\", found \"1.5\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nRoot,f,,1\n",
		     2, 8, "expected a count in column \"Inclusive Samples\", found an empty field");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nRoot,f,-1,1\n",
		     2, 8, "expected a count in column \"Inclusive Samples\", found \"-1\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,f,\"1,00,00\",1\n", 2, 8, "expected a count in column \"Inclusive "
		     "Samples\", found \"1,00,00\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,f,\"1,000.000\",1\n", 2, 8, "expected a count in column \"Inclusive "
		     "Samples\", found \"1,000.000\"");
}

static void test_count_too_large(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,f,9223372036854775808,1\n", 2, 8, "\"9223372036854775808\" in column "
		     "\"Inclusive Samples\" is too large (at most 9223372036854775807)");
}

static void test_count_overflow(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,f,9223372036854775807,9223372036854775807\n"
		     "Root,f,1,1\n", 3, 1, "the inclusive_samples values of \"f\" add up to more than "
		     "9223372036854775807");
}

static void test_bad_decimal(void **state)
{
	assert_error(*state, IDE_TREE_HEADER "1,a,1,1.00,1.00,\"1.0.0,5\",1.00,x,\r\n", 2, 17,
		     "expected a decimal number in column \"Avg Elapsed Inclusive Time\", found "
		     "\"1.0.0,5\"");
}

static void test_bad_address_type_level_line_and_pid(void **state)
{
	struct fixture *f = *state;

	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples,Function "
		     "Address\nRoot,f,1,1,0xZZ\n", 2, 12, "expected a hexadecimal address such "
		     "as 0x7C90FE81 in column \"Function Address\", found \"0xZZ\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nBranch,f,1,1\n",
		     2, 1, "expected Root, Caller or Callee (or 0, 1, 2) in column \"Type\", "
		     "found \"Branch\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Level,Function Name,Exclusive Samples\none,f,1\n", 2, 1,
		     "expected a Level (a number from 0 to 2147483647) in column \"Level\", "
		     "found \"one\"");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Function Name,Inclusive Samples,Exclusive Samples,Function Line "
		     "Number\nf,1,1,4294967296\n", 2, 7, "\"4294967296\" in column \"Function "
		     "Line Number\" is too large (at most 4294967295)");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Function Name,Inclusive Samples,Exclusive Samples,Process ID\n"
		     "f,1,1,pid\n", 2, 7, "expected a count in column \"Process ID\", found "
		     "\"pid\"");
}

static void test_caller_before_root(void **state)
{
	assert_error(*state, SAMPLING_HEADER "\"Caller\",\"_free\",2,0,1.71,0.00,\"\",0,\"m\","
		     "\"m\",0x1,\"r\",\"p\",1,\n", 2, 1, "a Caller row before any Root row (each "
		     "group of rows starts with its Root row)");
}

static void test_level_errors(void **state)
{
	struct fixture *f = *state;

	assert_error(f, "Level,Function Name,Exclusive Samples\n0,p,0\n1,a,1\n3,b,1\n", 4, 1,
		     "Level 3 skips a level: the row before is at Level 1 (expected at most "
		     "Level 2)");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Level,Function Name,Exclusive Samples\n2,a,1\n", 2, 1,
		     "the first row is at Level 2 (expected Level 0 or 1)");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Level,Function Name,Exclusive Samples\n1,a,1\n-1,b,1\n", 3, 1,
		     "Level -1 is negative (expected 0 or more)");
}

static void test_unterminated_quote(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,\"f,1,1\nRoot,g,1,1\n", 2, 6, "unterminated quoted field (no closing "
		     "'\"' before the end of the line)");
}

static void test_text_after_a_closing_quote(void **state)
{
	assert_error(*state, "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
		     "Root,\"f\"x,1,1\n", 2, 9, "expected ',' or the end of the line after a "
		     "closing quote, found \"x,1,1\"");
}

static void test_binary_bytes(void **state)
{
	struct fixture *f = *state;
	static const char nul[] = "Type,Function Name,Inclusive Samples,Exclusive Samples\n"
				  "Root,f\0,1,1\n";

	assert_int_equal(read_bytes(f, nul, sizeof(nul) - 1), -1);
	assert_string_equal(f->ctx.err.message, "unexpected NUL byte (is this binary data?)");
	assert_int_equal(f->ctx.err.line, 2);
	assert_int_equal(f->ctx.err.column, 7);
	pc_error_clear(&f->ctx.err);
	assert_error(f, "Type,Function Name,Inclusive Samples,Exclusive Samples\nRoot,f\r,1,1\n",
		     2, 7, "unexpected control byte 0x0d (is this binary data?)");
}

static void test_bad_utf16(void **state)
{
	struct fixture *f = *state;
	/* "Ty" then a lone high surrogate, in UTF-16LE with a BOM, on line 2 */
	static const uint8_t lone[] = { 0xff, 0xfe, '\n', 0, 'T', 0, 'y', 0, 0x00, 0xd8, 'p', 0 };
	static const uint8_t odd[] = { 0xff, 0xfe, 'T', 0, 'y', 0, 'p' };

	assert_int_equal(read_bytes(f, lone, sizeof(lone)), -1);
	assert_string_equal(f->ctx.err.message, "invalid UTF-16: a lone surrogate 0xD800");
	assert_int_equal(f->ctx.err.line, 2);
	assert_int_equal(f->ctx.err.column, 3);
	pc_error_clear(&f->ctx.err);
	assert_int_equal(read_bytes(f, odd, sizeof(odd)), -1);
	assert_string_equal(f->ctx.err.message, "the UTF-16 text ends in the middle of a "
			    "character (an odd number of bytes)");
	assert_int_equal(f->ctx.err.line, 1);
	assert_int_equal(f->ctx.err.column, 3);
}

static void test_empty_input(void **state)
{
	struct fixture *f = *state;

	assert_error(f, "", 1, 1, "the input ends before the report's header");
	pc_error_clear(&f->ctx.err);
	assert_error(f, "\r\n \n", 2, 1, "the input ends before the report's header");
}

static void test_a_header_alone_is_an_empty_profile(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(read_text(f, SAMPLING_HEADER), 0);
	assert_int_equal(pc_model_nsamples(f->m), 0);
	assert_int_equal(pc_model_ncolumns(f->m), 2);
}

/* --- streaming --- */

static void test_long_names_and_pipes(void **state)
{
	struct fixture *f = *state;
	size_t name_len = 200000, size;
	char *text = pc_xmalloc(name_len + 256), *name = pc_xmalloc(name_len + 1);
	char *file, *pipe;

	memset(name, 'n', name_len);
	name[name_len] = '\0';
	size = (size_t)snprintf(text, name_len + 256, "Type,Function Name,Inclusive Samples,"
				"Exclusive Samples\nRoot,\"%s\",2,1\nRoot,g,1,1\nRoot,x,y,1\n", name);
	file = dump_of(text, size - 11, false); /* without the bad last line */
	pipe = dump_of(text, size - 11, true);
	assert_string_equal(file, pipe);
	free(file);
	free(pipe);
	/* line numbers stay right after the long line */
	assert_int_equal(read_bytes_named(f, "test.csv", text, size, true), -1);
	assert_int_equal(f->ctx.err.line, 4);
	assert_int_equal(f->ctx.err.column, 8);
	free(text);
	free(name);
}

/* --- probe and descriptor --- */

static int probe(const void *head, size_t len)
{
	return pc_vsperf_reader.probe(head, len);
}

static int probe_text(const char *text)
{
	return probe(text, strlen(text));
}

static void test_probe(void **state)
{
	size_t size;
	uint8_t *wide;

	(void)state;
	assert_int_equal(probe_text(SAMPLING_HEADER), PC_PROBE_STRONG);
	assert_int_equal(probe_text(INSTRUMENTATION_HEADER), PC_PROBE_STRONG);
	assert_int_equal(probe_text("\xef\xbb\xbf" IDE_TREE_HEADER), PC_PROBE_STRONG);
	assert_int_equal(probe_text("Level,Function Name,Inclusive Samples,Exclusive Samples,"),
			 PC_PROBE_STRONG);
	assert_int_equal(probe_text("Function Name,Inclusive Samples,Exclusive Samples,\n"),
			 PC_PROBE_STRONG);
	assert_int_equal(probe_text("function name,Elapsed Inclusive Time,x\n"), PC_PROBE_STRONG);
	assert_int_equal(probe_text("Function Name,Exclusive Samples,Inclusive Samples"),
			 PC_PROBE_STRONG);
	assert_int_equal(probe_text("Function Name,Inclusive Samples %\n"), PC_PROBE_NO);
	assert_int_equal(probe_text("Type,Function Name,x,Root Function Name\r\n"),
			 PC_PROBE_STRONG);
	assert_int_equal(probe_text("Type,Function Name,Inclusive Samples,Exclusive Samples\n"),
			 PC_PROBE_WEAK);
	assert_int_equal(probe_text("Function Name,Module Name\n"), PC_PROBE_NO);
	assert_int_equal(probe_text("main;f 3\n"), PC_PROBE_NO);
	assert_int_equal(probe_text("a,b,c\n1,2,3\n"), PC_PROBE_NO);
	assert_int_equal(probe_text(""), PC_PROBE_NO);
	wide = utf16_of(SAMPLING_HEADER, true, true, &size);
	assert_int_equal(probe(wide, size), PC_PROBE_STRONG);
	free(wide);
	wide = utf16_of("Level,Function Name,Exclusive Samples\r\n", true, false, &size);
	assert_int_equal(probe(wide, size), PC_PROBE_STRONG);
	free(wide);
	wide = utf16_of(SAMPLING_HEADER, false, true, &size);
	assert_int_equal(probe(wide, size), PC_PROBE_STRONG);
	free(wide);
}

static void test_probe_random_bytes(void **state)
{
	uint8_t head[PC_PROBE_BYTES];
	uint32_t x = 12345;

	(void)state;
	for (int round = 0; round < 100; round++) {
		for (size_t i = 0; i < sizeof(head); i++) {
			x = x * 1103515245u + 12345u;
			head[i] = (uint8_t)(x >> 16);
		}
		assert_int_equal(probe(head, sizeof(head)), PC_PROBE_NO);
	}
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_reader_find("vsperf"), &pc_vsperf_reader);
	assert_ptr_equal(pc_reader_find("vsperfreport"), &pc_vsperf_reader);
	assert_ptr_equal(pc_reader_find("vsperf-csv"), &pc_vsperf_reader);
	assert_string_equal(pc_vsperf_reader.extensions[0], ".csv");
	assert_null(pc_vsperf_reader.extensions[1]);
}

#define T(name) cmocka_unit_test_setup_teardown(name, pct_setup, pct_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_sampling_caller_callee),
		T(test_labels_are_comm_and_pid),
		T(test_instrumentation_caller_callee),
		T(test_functions_are_keyed_by_process_module_and_address),
		T(test_a_caller_row_makes_the_frame_its_root_row_reuses),
		T(test_functions_without_address_are_keyed_by_name),
		T(test_the_unknown_frame),
		T(test_quoting_commas_and_doubled_quotes),
		T(test_line_ends_blank_lines_and_trailing_commas),
		T(test_type_numbers_and_case),
		T(test_grouped_numbers),
		T(test_percentages_are_not_read),
		T(test_header_spellings),
		T(test_utf8_bom_and_8bit_text),
		T(test_utf16_is_converted),
		T(test_sampling_call_tree),
		T(test_call_tree_without_level_0),
		T(test_several_processes_in_a_call_tree),
		T(test_call_tree_inclusive_check),
		T(test_ide_call_tree_apportions_times),
		T(test_ide_call_tree_with_decimal_commas),
		T(test_ide_call_tree_rounds_the_subtree_total),
		T(test_ide_call_tree_without_percentages),
		T(test_instrumentation_call_tree_with_times),
		T(test_function_summary),
		T(test_instrumentation_function_summary),
		T(test_several_processes),
		T(test_an_earlier_default_column_is_kept),
		T(test_consistency_warnings),
		T(test_strict_turns_warnings_into_errors),
		T(test_fractional_times_are_rounded),
		T(test_skip_bad_skips_unparseable_rows),
		T(test_wrong_header),
		T(test_missing_measure_columns),
		T(test_missing_instrumentation_columns),
		T(test_missing_call_tree_columns),
		T(test_missing_function_name),
		T(test_function_summary_without_measures),
		T(test_a_column_named_twice),
		T(test_line_summary_is_refused),
		T(test_short_row),
		T(test_long_row),
		T(test_bad_count),
		T(test_count_too_large),
		T(test_count_overflow),
		T(test_bad_decimal),
		T(test_bad_address_type_level_line_and_pid),
		T(test_caller_before_root),
		T(test_level_errors),
		T(test_unterminated_quote),
		T(test_text_after_a_closing_quote),
		T(test_binary_bytes),
		T(test_bad_utf16),
		T(test_empty_input),
		T(test_a_header_alone_is_an_empty_profile),
		T(test_long_names_and_pipes),
		T(test_probe),
		T(test_probe_random_bytes),
		T(test_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
