/*
 * test_perf_script_reader.c - the perf script reader: the exact model
 * (as the canonical dump) for every grammar case of research/perfscript.md
 * section 2, every error with its line:column, --skip-bad counting, the
 * probe, streaming through a file window (lines across refills and one
 * longer than the window), and the caches (a callchain seen before, the
 * same text in other address spaces and after a mapping), and the units
 * and period the reader takes from the printed periods.
 *
 * Inputs are small inline texts read through pc_input_from_memory; the
 * expected dumps were checked line by line against the grammar.
 */
#include "pipeline/registry.h"
#include "support/fixture.h"
#include "support/read_memory.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <unistd.h>

extern const struct pc_reader pc_perf_script_reader;
extern const struct pc_writer pc_dump_writer;

static int read_input(struct fixture *f, struct pc_input *in)
{
	int rc = pc_perf_script_reader.read(&f->ctx, in, f->m);

	pc_input_close(in);
	if (!rc)
		pc_model_finalize(f->m);
	return rc;
}

static int read_text(struct fixture *f, const char *text, size_t len)
{
	return pct_read_memory(&f->ctx, f->m, &pc_perf_script_reader, "test.perf", text, len,
			       false);
}

/* The model as profconv's canonical dump, in f->text. */
static const char *dump(struct fixture *f)
{
	free(f->text);
	assert_int_equal(pct_write_model(&f->ctx, f->m, &pc_dump_writer, &f->text, &f->size), 0);
	return f->text;
}

static void assert_dump(void **state, const char *input, const char *expected)
{
	struct fixture *f = *state;

	if (read_text(f, input, strlen(input)))
		fail_msg("read failed: %u:%u: %s", f->ctx.err.line, f->ctx.err.column,
			 f->ctx.err.message);
	assert_string_equal(dump(f), expected);
}

/* Reading len bytes fails at line:col with a message holding fragment. */
static void assert_error_bytes(const char *text, size_t len, uint32_t line, uint32_t col,
			       const char *fragment)
{
	struct fixture f = { 0 };

	pc_ctx_init(&f.ctx);
	f.m = pc_model_new();
	assert_int_equal(read_text(&f, text, len), -1);
	assert_int_equal(f.ctx.err.status, PC_STATUS_INPUT);
	assert_int_equal(f.ctx.err.where, PC_WHERE_LINE);
	assert_string_equal(f.ctx.err.format, "perf-script");
	assert_string_equal(f.ctx.err.path, "test.perf");
	if (f.ctx.err.line != line || f.ctx.err.column != col || !strstr(f.ctx.err.message, fragment))
		fail_msg("expected %u:%u '%s', got %u:%u '%s'", line, col, fragment, f.ctx.err.line,
			 f.ctx.err.column, f.ctx.err.message);
	pc_model_free(f.m);
}

static void assert_error(const char *text, uint32_t line, uint32_t col, const char *fragment)
{
	assert_error_bytes(text, strlen(text), line, col, fragment);
}

static const char comms_input[] =
		"my worker 0  6132 [001]   214.082263:    1001001 cpu-clock: \n"
		"\tffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])\n"
		"\n"
		"FS Broker 5858  5791/5860 [000]   215.000001:    1001001 cpu-clock: \n"
		"\t            1348 main+0x1 (/bin/w)\n"
		"\n"
		"[ET_NET 0]    12 [003]   216.000000:    1001001 cpu-clock: \n"
		"\t            1348 main+0x1 (/bin/w)\n"
		"\n"
		"t 99076 217.000000:    1001001 cpu-clock: \n"
		"\t            1348 main+0x1 (/bin/w)\n"
		"\n"
		"    42   218.000000:    1001001 cpu-clock: \n"
		"\t            1348 main+0x1 (/bin/w)\n"
		"\n"
		"kworker/u8:1-wr    33/33    [001]   219.000000:    1001001 cpu-clock: \n"
		"\t            1348 main+0x1 (/bin/w)\n"
		"\n";

static const char comms_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 4917737000\n"
		"period 1001001 \"cpu-clock_event\" \"nanoseconds\"\n"
		"column 0 \"cpu-clock_sample\" \"count\"\n"
		"column 1 \"cpu-clock_event\" \"nanoseconds\" default\n"
		"module 1 \"[kernel.kallsyms]\" build_id \"\"\n"
		"module 2 \"/bin/w\" build_id \"\" space 5792\n"
		"module 3 \"/bin/w\" build_id \"\"\n"
		"module 4 \"/bin/w\" build_id \"\" space 34\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/bin/w\"+0x1348 \"main\"\n"
		"  label \"comm\" = \"[ET_NET 0]\"\n"
		"  label \"cpu\" = 3 \"cpu\"\n"
		"  label \"tid\" = 12 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/bin/w\"+0x1348 \"main\"\n"
		"  label \"comm\" = \"t\"\n"
		"  label \"tid\" = 99076 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/bin/w\"+0x1348 \"main\"\n"
		"  label \"tid\" = 42 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/bin/w\"+0x1348 \"main\"\n"
		"  label \"comm\" = \"kworker/u8:1-wr\"\n"
		"  label \"cpu\" = 1 \"cpu\"\n"
		"  label \"pid\" = 33 \"pid\"\n"
		"  label \"tid\" = 33 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/bin/w\"+0x1348 \"main\"\n"
		"  label \"comm\" = \"FS Broker 5858\"\n"
		"  label \"cpu\" = 0 \"cpu\"\n"
		"  label \"pid\" = 5791 \"pid\"\n"
		"  label \"tid\" = 5860 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"[kernel.kallsyms]\"@0xffffffff816b30f4 \"rw_verify_area\"\n"
		"  label \"comm\" = \"my worker 0\"\n"
		"  label \"cpu\" = 1 \"cpu\"\n"
		"  label \"tid\" = 6132 \"tid\"\n";

static const char fields_input[] =
		"func_ab 15294 cpu-clock: \n"
		"\t  4005d0 main (/bin/f)\n"
		"\n"
		"my worker 0  6132   214.062813889:    1001001 cpu-clock: \n"
		"\t  4005d0 main (/bin/f)\n"
		"\n"
		"my worker 0  6132 U       214.062814:    1001001 cpu-clock: \n"
		"\t  4005d0 main (/bin/f)\n"
		"\n"
		"main  3258          1          cpu-clock: \n"
		"\t  4005d0 main (/bin/f)\n"
		"\n"
		" 6130/6132    214.062815: cpu-clock: \n"
		"\t  4005d0 main (/bin/f)\n"
		"\n";

static const char fields_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 1111\n"
		"period 400401 \"cpu-clock_event\" \"count\"\n"
		"column 0 \"cpu-clock_sample\" \"count\"\n"
		"column 1 \"cpu-clock_event\" \"count\" default\n"
		"module 1 \"/bin/f\" build_id \"\"\n"
		"module 2 \"/bin/f\" build_id \"\" space 6131\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1\n"
		"  frame \"/bin/f\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"func_ab\"\n"
		"  label \"tid\" = 15294 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1\n"
		"  frame \"/bin/f\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"main\"\n"
		"  label \"tid\" = 3258 \"tid\"\n"
		"sample cpu-clock_sample=2 cpu-clock_event=2002002\n"
		"  frame \"/bin/f\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"my worker 0\"\n"
		"  label \"tid\" = 6132 \"tid\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1\n"
		"  frame \"/bin/f\"+0x4005d0 \"main\"\n"
		"  label \"pid\" = 6130 \"pid\"\n"
		"  label \"tid\" = 6132 \"tid\"\n";

static const char events_input[] =
		"# event : name = instructions:u, , id = { 2 }\n"
		"work 10833   274.769530:          1 page-faults:u: \n"
		"\t  4005d0 main (/bin/e)\n"
		"\n"
		"work 10833   274.769684:     250000   cpu-clock:u: \n"
		"\t  4005d0 main (/bin/e)\n"
		"\n"
		"my worker 0 10306 [001]   263.469280: syscalls:sys_enter_write: fd: 0x00000003, buf: 0x7f3b9a3fee60, count: 0x00001000\n"
		"\t           f838f __GI___libc_write+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
		"\n"
		"work 10446 [001]   266.100742: sched:sched_switch: prev_comm=work prev_pid=10446 prev_prio=120 prev_state=R ==> next_comm=my worker 0 next_pid=10448 next_prio=120\n"
		"3871580/3871580 431345.473157382:         50                  branch-misses/period=50/u:                                      0     7fca99943ac7 dl_open_worker+0x37 (/usr/lib64/ld-2.28.so)\n"
		"825432/825432 339457.445933440:       1 cpu/event=0x3c,umask=0x0/u: \n"
		"\t  4005d0 main (/bin/e)\n"
		"\n";

static const char events_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"fact \"perf.event\" \"name = instructions:u, , id = { 2 }\"\n"
		"duration_nanos 431082003877382\n"
		"period 1 \"page-faults:u_event\" \"count\"\n"
		"column 0 \"instructions:u_sample\" \"count\"\n"
		"column 1 \"instructions:u_event\" \"count\"\n"
		"column 2 \"page-faults:u_sample\" \"count\"\n"
		"column 3 \"page-faults:u_event\" \"count\" default\n"
		"column 4 \"cpu-clock:u_sample\" \"count\"\n"
		"column 5 \"cpu-clock:u_event\" \"nanoseconds\"\n"
		"column 6 \"syscalls:sys_enter_write_sample\" \"count\"\n"
		"column 7 \"syscalls:sys_enter_write_event\" \"count\"\n"
		"column 8 \"sched:sched_switch_sample\" \"count\"\n"
		"column 9 \"sched:sched_switch_event\" \"count\"\n"
		"column 10 \"branch-misses/period=50/u_sample\" \"count\"\n"
		"column 11 \"branch-misses/period=50/u_event\" \"count\"\n"
		"column 12 \"cpu/event=0x3c,umask=0x0/u_sample\" \"count\"\n"
		"column 13 \"cpu/event=0x3c,umask=0x0/u_event\" \"count\"\n"
		"module 1 \"/bin/e\" build_id \"\"\n"
		"module 2 \"/usr/lib/x86_64-linux-gnu/libc.so.6\" build_id \"\"\n"
		"module 3 \"/usr/lib64/ld-2.28.so\" build_id \"\" space 3871581\n"
		"module 4 \"/bin/e\" build_id \"\" space 825433\n"
		"sample sched:sched_switch_sample=1 sched:sched_switch_event=1\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"cpu\" = 1 \"cpu\"\n"
		"  label \"tid\" = 10446 \"tid\"\n"
		"sample page-faults:u_sample=1 page-faults:u_event=1 cpu-clock:u_sample=1 cpu-clock:u_event=250000\n"
		"  frame \"/bin/e\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 10833 \"tid\"\n"
		"sample cpu/event=0x3c,umask=0x0/u_sample=1 cpu/event=0x3c,umask=0x0/u_event=1\n"
		"  frame \"/bin/e\"+0x4005d0 \"main\"\n"
		"  label \"pid\" = 825432 \"pid\"\n"
		"  label \"tid\" = 825432 \"tid\"\n"
		"sample syscalls:sys_enter_write_sample=1 syscalls:sys_enter_write_event=1\n"
		"  frame \"/usr/lib/x86_64-linux-gnu/libc.so.6\"+0xf838f \"__GI___libc_write\"\n"
		"  label \"comm\" = \"my worker 0\"\n"
		"  label \"cpu\" = 1 \"cpu\"\n"
		"  label \"tid\" = 10306 \"tid\"\n"
		"sample branch-misses/period=50/u_sample=1 branch-misses/period=50/u_event=50\n"
		"  frame \"/usr/lib64/ld-2.28.so\"@0x7fca99943ac7 \"dl_open_worker\"\n"
		"  label \"pid\" = 3871580 \"pid\"\n"
		"  label \"tid\" = 3871580 \"tid\"\n";

static const char frames_input[] =
		"work 7 1.000000: 1 cycles: \n"
		"\t    7f1e2215d058  (/lib/x86_64-linux-gnu/libc-2.15.so)\n"
		"\t            1348 [unknown] (/home/user/demo/work del (deleted))\n"
		"\t            1349 main+0x1 ([JIT app cache])\n"
		"\t    7f1e11300e8b Lsun/nio/ch/FileDispatcherImpl;.write0(Ljava/io/FileDescriptor;JI)I (/tmp/perf-3236.map)\n"
		"\t          2c8c90 v8::internal::(anonymous namespace)::Invoke+0x12b (/usr/bin/node)\n"
		"\t          2c8c91 do_work+0x10 (/usr/lib/libc.so.6+0x2c8c91)\n"
		"\t            4005 [unknown] ([unknown])\n"
		"\n"
		"work 7 2.000000: 1 cycles: \n"
		"            13a80b608e0a RegExp:[&<>\\\"\\'] (/tmp/perf-7539.map)\n"
		"        b3cea6c4\tLock::unlock() (/system/lib/libc.so)\n"
		"ffffffff8103d0ca native_write_msr_safe ([kernel.kallsyms])\n"
		"\t            127c spin_leaf\n"
		"\t            127d\n"
		"\n";

static const char frames_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 1000000000\n"
		"period 1 \"cycles_event\" \"count\"\n"
		"column 0 \"cycles_sample\" \"count\"\n"
		"column 1 \"cycles_event\" \"count\" default\n"
		"module 1 \"/lib/x86_64-linux-gnu/libc-2.15.so\" build_id \"\"\n"
		"module 2 \"/home/user/demo/work del (deleted)\" build_id \"\"\n"
		"module 3 \"[JIT app cache]\" build_id \"\"\n"
		"module 4 \"/tmp/perf-3236.map\" build_id \"\"\n"
		"module 5 \"/usr/bin/node\" build_id \"\"\n"
		"module 6 \"/usr/lib/libc.so.6\" build_id \"\"\n"
		"module 7 \"/tmp/perf-7539.map\" build_id \"\"\n"
		"module 8 \"/system/lib/libc.so\" build_id \"\"\n"
		"module 9 \"[kernel.kallsyms]\" build_id \"\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame \"/lib/x86_64-linux-gnu/libc-2.15.so\"@0x7f1e2215d058 \" \"\n"
		"  frame \"/home/user/demo/work del (deleted)\"+0x1348\n"
		"  frame \"[JIT app cache]\"+0x1349 \"main\"\n"
		"  frame \"/tmp/perf-3236.map\"@0x7f1e11300e8b \"Lsun/nio/ch/FileDispatcherImpl;.write0(Ljava/io/FileDescriptor;JI)I\"\n"
		"  frame \"/usr/bin/node\"+0x2c8c90 \"v8::internal::(anonymous namespace)::Invoke\"\n"
		"  frame \"/usr/lib/libc.so.6\"+0x2c8c91 \"do_work\"\n"
		"  frame ?@0x4005\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame \"/tmp/perf-7539.map\"@0x13a80b608e0a \"RegExp:[&<>\\\\\\\"\\\\']\"\n"
		"  frame \"/system/lib/libc.so\"+0xb3cea6c4 \"Lock::unlock()\"\n"
		"  frame \"[kernel.kallsyms]\"@0xffffffff8103d0ca \"native_write_msr_safe\"\n"
		"  frame ?@0x127c \"spin_leaf\"\n"
		"  frame ?@0x127d\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n";

static const char inline_srcline_input[] =
		"work 7 1.000000: 1 cycles: \n"
		"\t           712fa libc_feholdsetround_sse_ctx+0x2a (inlined)\n"
		"\t           712fa __sincos_fma+0x2a (/usr/lib/x86_64-linux-gnu/libm.so.6)\n"
		"\t            1347 leaf_a+0x57 (/home/user/demo/work)\n"
		"\n"
		"work 7 2.000000: 1 cycles: \n"
		"\t           712fa libc_feholdsetround_sse_ctx+0x2a\n"
		"  fenv_private.h:416 (inlined)\n"
		"\t           712fa __sincos_fma+0x2a (/usr/lib/x86_64-linux-gnu/libm.so.6)\n"
		"  s_sincos.c:41\n"
		"\tffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])\n"
		"  [kernel.kallsyms][ffffffff816b30f4]\n"
		"\t            1347 leaf_a+0x57 (/home/user/demo/work)\n"
		"  ??:0\n"
		"\n"
		"work 7 3.000000: 1 cycles: \n"
		"\t          1019b3 __GI___mmap64+0x13 (inlined)\n"
		"\t          1019b3 __GI___mmap64+0x13 (inlined)\n"
		"\t            1681 fault_main+0x83 (/home/user/demo/work)\n"
		"\t          2019b3 inner+0x1 (inlined)\n"
		"\t          3019b3 other+0x1 (inlined)\n"
		"\t          3019b3 outer+0x1 (/home/user/demo/work)\n"
		"\n";

static const char inline_srcline_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 2000000000\n"
		"period 1 \"cycles_event\" \"count\"\n"
		"column 0 \"cycles_sample\" \"count\"\n"
		"column 1 \"cycles_event\" \"count\" default\n"
		"module 1 \"/usr/lib/x86_64-linux-gnu/libm.so.6\" build_id \"\"\n"
		"module 2 \"/home/user/demo/work\" build_id \"\"\n"
		"module 3 \"[kernel.kallsyms]\" build_id \"\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame ?@0x712fa \"libc_feholdsetround_sse_ctx\" inline\n"
		"  frame \"/usr/lib/x86_64-linux-gnu/libm.so.6\"+0x712fa \"__sincos_fma\"\n"
		"  frame \"/home/user/demo/work\"+0x1347 \"leaf_a\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame ?@0x712fa \"libc_feholdsetround_sse_ctx\" \"fenv_private.h\":416 inline\n"
		"  frame \"/usr/lib/x86_64-linux-gnu/libm.so.6\"+0x712fa \"__sincos_fma\" \"s_sincos.c\":41\n"
		"  frame \"[kernel.kallsyms]\"@0xffffffff816b30f4 \"rw_verify_area\"\n"
		"  frame \"/home/user/demo/work\"+0x1347 \"leaf_a\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame ?@0x1019b3 \"__GI___mmap64\" inline\n"
		"  frame ?@0x1019b3 \"__GI___mmap64\"\n"
		"  frame \"/home/user/demo/work\"+0x1681 \"fault_main\"\n"
		"  frame ?@0x2019b3 \"inner\"\n"
		"  frame ?@0x3019b3 \"other\" inline\n"
		"  frame \"/home/user/demo/work\"+0x3019b3 \"outer\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n";

static const char single_line_input[] =
		"                true 11155   279.317533:     250000 cpu-clock:ppp:      7f56cf90862a handle_amd+0xa (/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2)\n"
		"                true 11155   279.318018:     250000 cpu-clock:ppp:  ffffffff816dcb92 __d_lookup_rcu+0x32 ([kernel.kallsyms])\n"
		"3871580/3871580 434242.821855667:          1                                        cbr:                        cbr: 47 freq: 4706 MHz (162%)                   0     7fca9993cb31 _dl_relocate_object+0x581 (/usr/lib64/ld-2.28.so)\n"
		"ls 13812 [003] 2167315.222583:       3270 instructions:u:      7fac71e2e494 __GI___tunables_init+0xf4 (/lib/x86_64-linux-gnu/ld-2.28.so) IPC: 1.23 (456/370)\n";

static const char single_line_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 2167035905050000\n"
		"period 250000 \"cpu-clock:ppp_event\" \"nanoseconds\"\n"
		"column 0 \"cpu-clock:ppp_sample\" \"count\"\n"
		"column 1 \"cpu-clock:ppp_event\" \"nanoseconds\" default\n"
		"column 2 \"cbr_sample\" \"count\"\n"
		"column 3 \"cbr_event\" \"count\"\n"
		"column 4 \"instructions:u_sample\" \"count\"\n"
		"column 5 \"instructions:u_event\" \"count\"\n"
		"module 1 \"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\" build_id \"\"\n"
		"module 2 \"[kernel.kallsyms]\" build_id \"\"\n"
		"module 3 \"/usr/lib64/ld-2.28.so\" build_id \"\" space 3871581\n"
		"module 4 \"/lib/x86_64-linux-gnu/ld-2.28.so\" build_id \"\"\n"
		"sample instructions:u_sample=1 instructions:u_event=3270\n"
		"  frame \"/lib/x86_64-linux-gnu/ld-2.28.so\"@0x7fac71e2e494 \"__GI___tunables_init\"\n"
		"  label \"comm\" = \"ls\"\n"
		"  label \"cpu\" = 3 \"cpu\"\n"
		"  label \"tid\" = 13812 \"tid\"\n"
		"sample cpu-clock:ppp_sample=1 cpu-clock:ppp_event=250000\n"
		"  frame \"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\"@0x7f56cf90862a \"handle_amd\"\n"
		"  label \"comm\" = \"true\"\n"
		"  label \"tid\" = 11155 \"tid\"\n"
		"sample cbr_sample=1 cbr_event=1\n"
		"  frame \"/usr/lib64/ld-2.28.so\"@0x7fca9993cb31 \"_dl_relocate_object\"\n"
		"  label \"pid\" = 3871580 \"pid\"\n"
		"  label \"tid\" = 3871580 \"tid\"\n"
		"sample cpu-clock:ppp_sample=1 cpu-clock:ppp_event=250000\n"
		"  frame \"[kernel.kallsyms]\"@0xffffffff816dcb92 \"__d_lookup_rcu\"\n"
		"  label \"comm\" = \"true\"\n"
		"  label \"tid\" = 11155 \"tid\"\n";

static const char zero_frames_input[] =
		"work 7 1.000000: 1 cycles: \n"
		"\n"
		"work 7 2.000000: 1 cycles: \n"
		"\n"
		"\n"
		"work 8 3.000000: sched:sched_wakeup: comm=rcu_preempt pid=15 prio=120 target_cpu=000\n"
		"work 8 4.000000: sched:sched_wakeup: comm=rcu_preempt pid=15 prio=120 target_cpu=000\n"
		"work 9 5.000000: 1 cycles: ";

static const char zero_frames_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 4000000000\n"
		"period 1 \"cycles_event\" \"count\"\n"
		"column 0 \"cycles_sample\" \"count\"\n"
		"column 1 \"cycles_event\" \"count\" default\n"
		"column 2 \"sched:sched_wakeup_sample\" \"count\"\n"
		"column 3 \"sched:sched_wakeup_event\" \"count\"\n"
		"sample cycles_sample=2 cycles_event=2\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"sample sched:sched_wakeup_sample=2 sched:sched_wakeup_event=2\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 8 \"tid\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 9 \"tid\"\n";

static const char no_blank_at_end_input[] =
		"simple-terminat    10 198792.736893:    1001001 cpu-clock:\n"
		"\t             643 _Z4betav (/workdir/simple-terminates)\n"
		"\t             6f3 main (/workdir/simple-terminates)";

static const char no_blank_at_end_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"period 1001001 \"cpu-clock_event\" \"nanoseconds\"\n"
		"column 0 \"cpu-clock_sample\" \"count\"\n"
		"column 1 \"cpu-clock_event\" \"nanoseconds\" default\n"
		"module 1 \"/workdir/simple-terminates\" build_id \"\"\n"
		"sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		"  frame \"/workdir/simple-terminates\"+0x643 \"_Z4betav\"\n"
		"  frame \"/workdir/simple-terminates\"+0x6f3 \"main\"\n"
		"  label \"comm\" = \"simple-terminat\"\n"
		"  label \"tid\" = 10 \"tid\"\n";

static const char mmap_input[] =
		"swapper     0 [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1206448) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		"work  6130   214.061082: PERF_RECORD_MMAP2 6130/6130: [0x559e97b5d000(0x1000) @ 0x1000 fe:00 10953854 2072968206]: r-xp /home/user/demo/work\n"
		"work  6130   214.061090: PERF_RECORD_MMAP2 6130/6130: [0x559e97b60000(0x1000) @ 0x3000 fe:00 10953854 2072968206]: rw-p /home/user/demo/work\n"
		"work del     0     0.000000: PERF_RECORD_MMAP2 12631/12631: [0x560313a19000(0x1000) @ 0x1000 fe:00 10958793 0]: r-xp /home/user/demo/work del (deleted)\n"
		"work  6130   214.062579: PERF_RECORD_FORK(6130:6132):(6130:6130)\n"
		"perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:6130/6133\n"
		"work  6130   214.062600: PERF_RECORD_EXIT(6130:6134):(6128:6128)\n"
		"my worker 0 11578   284.655431: PERF_RECORD_SWITCH OUT preempt\n"
		"my worker 0  6132   214.082263:    1001001 cycles:u: \n"
		"\tffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])\n"
		"\t    559e97b5d382 leaf_a+0x92 (/home/user/demo/work)\n"
		"\t            1382 leaf_a+0x92 (/home/user/demo/work)\n"
		"\t    7f0000001000 [unknown] ([unknown])\n"
		"\n"
		"my worker 1  6133   214.082264:    1001001 cycles:u: \n"
		"\t    559e97b5d382 leaf_a+0x92 (/home/user/demo/work)\n"
		"\n"
		"other  7000   214.082265:    1001001 cycles:u: \n"
		"\t    559e97b5d382 leaf_a+0x92 (/home/user/demo/work)\n"
		"\n"
		"work del 12631/12631   214.2:    1001001 cycles:u: \n"
		"\t    560313a19010 [unknown] (/home/user/demo/work del (deleted))\n"
		"\n"
		"work  6130   214.3: PERF_RECORD_LOST lost 17\n";

static const char mmap_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"comment \"perf-script: the input reports 17 lost events\"\n"
		"duration_nanos 117737000\n"
		"period 1001001 \"cycles:u_event\" \"count\"\n"
		"column 0 \"cycles:u_sample\" \"count\"\n"
		"column 1 \"cycles:u_event\" \"count\" default\n"
		"module 1 \"[kernel.kallsyms]\" build_id \"\" range 0xffffffff81000000-0xffffffff82206448 offset 0xffffffff81000000\n"
		"module 2 \"/home/user/demo/work\" build_id \"\" space 6131 range 0x559e97b5d000-0x559e97b5e000 offset 0x1000\n"
		"module 3 \"/home/user/demo/work del (deleted)\" build_id \"\" space 12632 range 0x560313a19000-0x560313a1a000 offset 0x1000\n"
		"module 4 \"[kernel.kallsyms]\" build_id \"\" space 6131 range 0xffffffff81000000-0xffffffff82206448 offset 0xffffffff81000000\n"
		"module 5 \"/home/user/demo/work\" build_id \"\"\n"
		"sample cycles:u_sample=1 cycles:u_event=1001001\n"
		"  frame \"/home/user/demo/work\"@0x559e97b5d382 \"leaf_a\"\n"
		"  label \"comm\" = \"other\"\n"
		"  label \"tid\" = 7000 \"tid\"\n"
		"sample cycles:u_sample=1 cycles:u_event=1001001\n"
		"  frame \"/home/user/demo/work\"@0x559e97b5d382 \"leaf_a\"\n"
		"  label \"comm\" = \"my worker 1\"\n"
		"  label \"pid\" = 6130 \"pid\"\n"
		"  label \"tid\" = 6133 \"tid\"\n"
		"sample cycles:u_sample=1 cycles:u_event=1001001\n"
		"  frame \"/home/user/demo/work del (deleted)\"@0x560313a19010\n"
		"  label \"comm\" = \"work del\"\n"
		"  label \"pid\" = 12631 \"pid\"\n"
		"  label \"tid\" = 12631 \"tid\"\n"
		"sample cycles:u_sample=1 cycles:u_event=1001001\n"
		"  frame \"[kernel.kallsyms]\"@0xffffffff816b30f4 \"rw_verify_area\"\n"
		"  frame \"/home/user/demo/work\"@0x559e97b5d382 \"leaf_a\"\n"
		"  frame \"/home/user/demo/work\"+0x1382 \"leaf_a\"\n"
		"  frame ?@0x7f0000001000\n"
		"  label \"comm\" = \"my worker 0\"\n"
		"  label \"pid\" = 6130 \"pid\"\n"
		"  label \"tid\" = 6132 \"tid\"\n";

static const char brstack_input[] =
		"PERF_RECORD_MMAP2 21450/21450: [0x260000(0x153000) @ 0x5f000 fd:01 21193997 0]: r-xp /bin/dap\n"
		"           40062f 0x40062f/0x4005b0/P/-/-/9  0x400645/0x4005ff/P/-/-/1\n"
		"         55b978933cb4 0x260010/0x260020/P/-/-/4//-  0x7f00(/lib/libc.so.6)/0x7f10(/lib/libc.so.6)/M/X/A/1/COND/-\n"
		"\n"
		"\t          26090f\n"
		"\t          7f83e84e7793\n"
		" 0x2608bb/0x26090f/P/-/-/2//-  0x3510ab/0x2608af/P/-/-/3//-\n"
		"\n"
		"work 7 1.000000: 1 cycles: main+0x1f/foo+0x0/P/-/-/0/CALL/-  [unknown]/bar/-/-/-/0 \n"
		"2\n"
		"\t          aabb1122:4005dc\n"
		" aabb1122:0x4005c8/aabb1122:0x4005dc aabb1122:0x40062f/aabb1122:0x4005b0\n";

static const char brstack_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"column 0 \"unknown_sample\" \"count\"\n"
		"column 1 \"unknown_event\" \"count\" default\n"
		"column 2 \"cycles_sample\" \"count\"\n"
		"column 3 \"cycles_event\" \"count\"\n"
		"module 1 \"/bin/dap\" build_id \"\" space 21451 range 0x260000-0x3b3000 offset 0x5f000\n"
		"module 2 \"/lib/libc.so.6\" build_id \"\"\n"
		"module 3 \"\" build_id \"aabb1122\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"  branch ? \"main\" -> ? \"foo\"\n"
		"  branch ? -> ? \"bar\"\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x40062f\n"
		"  branch ?@0x40062f -> ?@0x4005b0\n"
		"  branch ?@0x400645 -> ?@0x4005ff\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x55b978933cb4\n"
		"  branch \"/bin/dap\"@0x260010 -> \"/bin/dap\"@0x260020\n"
		"  branch \"/lib/libc.so.6\"@0x7f00 -> \"/lib/libc.so.6\"@0x7f10\n"
		"sample unknown_sample=2 unknown_event=2\n"
		"  frame \"\"+0x4005dc\n"
		"  branch \"\"+0x4005c8 -> \"\"+0x4005dc\n"
		"  branch \"\"+0x40062f -> \"\"+0x4005b0\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame \"/bin/dap\"@0x26090f\n"
		"  frame ?@0x7f83e84e7793\n"
		"  branch \"/bin/dap\"@0x2608bb -> \"/bin/dap\"@0x26090f\n"
		"  branch \"/bin/dap\"@0x3510ab -> \"/bin/dap\"@0x2608af\n";

static const char itrace_input[] =
		"perf  5880 [000]  9274.419884:          1  branches:k:                 0 [unknown] ([unknown]) => ffffffff8106a4a6 native_write_msr+0x6 (/lib/modules/5.6.0-rc6+/build/vmlinux)\n"
		"364691/364691 62709.735347717:                            1   branches:uH:   jmp                            40baf1 itch_bbo::book::Book::delete_order+0x261 (foo.so) =>           40bb03 itch_bbo::book::Book::delete_order+0x273 (foo.so)\n"
		"681400/681400 2065408.180095842:   hw int                   7faea66c0a6e _dl_map_object_from_fd+0xc4e => ffffffffae200ab0 asm_exc_page_fault+0x0\n"
		" instruction trace error type 1 time 2472089.651285037 cpu -1 pid 1439745 tid 1439745 ip 0x7f5948676e18 code 7: Overflow packet (foo.so)\n"
		"main  3258          1          branches:  ffff800010c46670 [unknown] ([kernel.kallsyms]) => ffff800010c4eaec [unknown] ([kernel.kallsyms])\n";

static const char itrace_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"comment \"perf-script: 1 instruction trace error line(s) skipped\"\n"
		"duration_nanos 2056133760211842\n"
		"period 1 \"branches:k_event\" \"count\"\n"
		"column 0 \"branches:k_sample\" \"count\"\n"
		"column 1 \"branches:k_event\" \"count\" default\n"
		"column 2 \"branches:uH_sample\" \"count\"\n"
		"column 3 \"branches:uH_event\" \"count\"\n"
		"column 4 \"branches_sample\" \"count\"\n"
		"column 5 \"branches_event\" \"count\"\n"
		"module 1 \"/lib/modules/5.6.0-rc6+/build/vmlinux\" build_id \"\"\n"
		"module 2 \"foo.so\" build_id \"\" space 364692\n"
		"module 3 \"[kernel.kallsyms]\" build_id \"\"\n"
		"sample branches:k_sample=1 branches:k_event=1\n"
		"  label \"comm\" = \"perf\"\n"
		"  label \"cpu\" = 0 \"cpu\"\n"
		"  label \"tid\" = 5880 \"tid\"\n"
		"sample branches_sample=1 branches_event=1\n"
		"  frame ?@0x7faea66c0a6e \"_dl_map_object_from_fd\"\n"
		"  label \"pid\" = 681400 \"pid\"\n"
		"  label \"tid\" = 681400 \"tid\"\n"
		"  branch ?@0x7faea66c0a6e \"_dl_map_object_from_fd\" -> ?@0xffffffffae200ab0 \"asm_exc_page_fault\"\n"
		"sample branches_sample=1 branches_event=1\n"
		"  frame \"[kernel.kallsyms]\"@0xffff800010c46670\n"
		"  label \"comm\" = \"main\"\n"
		"  label \"tid\" = 3258 \"tid\"\n"
		"  branch \"[kernel.kallsyms]\"@0xffff800010c46670 -> \"[kernel.kallsyms]\"@0xffff800010c4eaec\n"
		"sample branches:uH_sample=1 branches:uH_event=1\n"
		"  frame \"foo.so\"+0x40baf1 \"itch_bbo::book::Book::delete_order\"\n"
		"  label \"pid\" = 364691 \"pid\"\n"
		"  label \"tid\" = 364691 \"tid\"\n"
		"  branch \"foo.so\"+0x40baf1 \"itch_bbo::book::Book::delete_order\" -> \"foo.so\"+0x40bb03 \"itch_bbo::book::Book::delete_order\"\n";

static const char f_pid_ip_dso_input[] =
		"  6130 \n"
		"\t            127c (/work/workload)\n"
		"\t            12cb (/work/workload)\n"
		"\n"
		"  6130      7f56cf90862a (/usr/lib/ld.so)\n";

static const char f_pid_ip_dso_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"column 0 \"unknown_sample\" \"count\"\n"
		"column 1 \"unknown_event\" \"count\" default\n"
		"module 1 \"/work/workload\" build_id \"\" space 6131\n"
		"module 2 \"/usr/lib/ld.so\" build_id \"\" space 6131\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame \"/usr/lib/ld.so\"@0x7f56cf90862a\n"
		"  label \"pid\" = 6130 \"pid\"\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame \"/work/workload\"+0x127c\n"
		"  frame \"/work/workload\"+0x12cb\n"
		"  label \"pid\" = 6130 \"pid\"\n";

static const char f_ip_brstack_input[] =
		"           40062f 0x40062f/0x4005b0/P/-/-/9  0x400645/0x4005ff/P/-/-/1\n"
		"           4005d7 0x4005d7/0x4005e5/P/-/-/8\n";

static const char f_ip_brstack_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"column 0 \"unknown_sample\" \"count\"\n"
		"column 1 \"unknown_event\" \"count\" default\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x4005d7\n"
		"  branch ?@0x4005d7 -> ?@0x4005e5\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x40062f\n"
		"  branch ?@0x40062f -> ?@0x4005b0\n"
		"  branch ?@0x400645 -> ?@0x4005ff\n";

static const char f_comm_tid_time_event_ip_sym_dso_input[] =
		"            true 11155   279.317533: cpu-clock:ppp:      7f56cf90862a handle_amd+0xa (/usr/lib/ld.so)\n"
		"  my worker 0  6132   279.317534: cpu-clock:ppp:      7f56cf90862a handle_amd+0xa (/usr/lib/ld.so)\n";

static const char f_comm_tid_time_event_ip_sym_dso_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"duration_nanos 1000\n"
		"column 0 \"cpu-clock:ppp_sample\" \"count\"\n"
		"column 1 \"cpu-clock:ppp_event\" \"count\" default\n"
		"module 1 \"/usr/lib/ld.so\" build_id \"\"\n"
		"sample cpu-clock:ppp_sample=1 cpu-clock:ppp_event=1\n"
		"  frame \"/usr/lib/ld.so\"@0x7f56cf90862a \"handle_amd\"\n"
		"  label \"comm\" = \"my worker 0\"\n"
		"  label \"tid\" = 6132 \"tid\"\n"
		"sample cpu-clock:ppp_sample=1 cpu-clock:ppp_event=1\n"
		"  frame \"/usr/lib/ld.so\"@0x7f56cf90862a \"handle_amd\"\n"
		"  label \"comm\" = \"true\"\n"
		"  label \"tid\" = 11155 \"tid\"\n";

static const char f_ip_sym_input[] =
		"\n"
		"\t            127c spin_leaf\n"
		"\t            12cb recurse\n"
		"\n"
		"     7f56cf90862a handle_amd+0xa\n"
		"     7f56cf90862b handle_amd+0xb\n";

static const char f_ip_sym_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"column 0 \"unknown_sample\" \"count\"\n"
		"column 1 \"unknown_event\" \"count\" default\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x127c \"spin_leaf\"\n"
		"  frame ?@0x12cb \"recurse\"\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x7f56cf90862a \"handle_amd\"\n"
		"sample unknown_sample=1 unknown_event=1\n"
		"  frame ?@0x7f56cf90862b \"handle_amd\"\n";

static const char header_input[] =
		"# ========\n"
		"# captured on    : Thu Aug 17 14:14:43 2017\n"
		"# hostname : box\n"
		"# perf version : 6.1.0\n"
		"# cmdline : /usr/bin/perf record -g ./work \n"
		"# event : name = cycles:u, , id = { 1 }\n"
		"# HEADER_CPU_TOPOLOGY info available, use -I to display\n"
		"# ========\n"
		"#\n"
		"work 7 1.000000: 1 cycles:u: \n"
		"\t  4005d0 main (/bin/h)\n"
		"\n"
		"# late : comments after samples are not facts\n";

static const char header_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"comment \"perf-version:6.1.0\"\n"
		"comment \"perf-command:/usr/bin/perf record -g ./work\"\n"
		"fact \"perf.captured_on\" \"Thu Aug 17 14:14:43 2017\"\n"
		"fact \"perf.hostname\" \"box\"\n"
		"fact \"perf.perf_version\" \"6.1.0\"\n"
		"fact \"perf.cmdline\" \"/usr/bin/perf record -g ./work\"\n"
		"fact \"perf.event\" \"name = cycles:u, , id = { 1 }\"\n"
		"time_nanos 1502979283000000000\n"
		"period 1 \"cycles:u_event\" \"count\"\n"
		"column 0 \"cycles:u_sample\" \"count\"\n"
		"column 1 \"cycles:u_event\" \"count\" default\n"
		"module 1 \"/bin/h\" build_id \"\"\n"
		"sample cycles:u_sample=1 cycles:u_event=1\n"
		"  frame \"/bin/h\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n";

static const char crlf_stray_blank_input[] =
		"work 7 1.000000: 1 cycles: \r\n"
		"\t 4005d0 main (/bin/t)\r\n"
		"\r\n"
		"work 7 2.000000: 1 cycles: \n"
		"\n"
		"\t 4005d0 main (/bin/t)\n"
		"\n"
		"Warning:\n"
		"work 8 3.000000: 1 cycles: \n"
		"\t 4005d0 main (/bin/t)\n"
		"\n";

static const char crlf_stray_blank_dump[] =
		"profconv-dump 1\n"
		"source perf-script\n"
		"comment \"perf-script: 1 line(s) of perf's own messages skipped\"\n"
		"duration_nanos 2000000000\n"
		"period 1 \"cycles_event\" \"count\"\n"
		"column 0 \"cycles_sample\" \"count\"\n"
		"column 1 \"cycles_event\" \"count\" default\n"
		"module 1 \"/bin/t\" build_id \"\"\n"
		"sample cycles_sample=2 cycles_event=2\n"
		"  frame \"/bin/t\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 7 \"tid\"\n"
		"sample cycles_sample=1 cycles_event=1\n"
		"  frame \"/bin/t\"+0x4005d0 \"main\"\n"
		"  label \"comm\" = \"work\"\n"
		"  label \"tid\" = 8 \"tid\"\n";


/* ---- the grammar, case by case (exact model contents) ---- */

/* comms with spaces and a trailing number, brackets, one letter, none (right-aligned tid only), slashes and colons; pid/tid and [cpu] */
static void test_comms(void **state)
{
	assert_dump(state, comms_input, comms_dump);
}

/* no time, --ns, -F +misc, a period before the event without a time, -F pid,tid,time,event */
static void test_fields(void **state)
{
	assert_dump(state, fields_input, fields_dump);
}

/* event names with modifiers, tracepoints with payloads (': ', '==>'), PMU names with '/' '=' ','; right-aligned names; '# event :' order first, the default is the first sampled event */
static void test_events(void **state)
{
	assert_dump(state, events_input, events_dump);
}

/* sym+0xoff, [unknown] with and without dso, dso with blanks, brackets and (deleted), perf's empty symbol, Java and C++ names, dsoff, tab/space/column-0 indents, simpleperf's tab, -F ip,sym and -F ip frames */
static void test_frames(void **state)
{
	assert_dump(state, frames_input, frames_dump);
}

/*
 * (inlined) frames, srcline lines with (inlined), unknown [kernel.kallsyms][...]
 * and ??:0 forms; runs of (inlined) frames that no frame of their address
 * follows end in a physical frame
 */
static void test_inline_srcline(void **state)
{
	assert_dump(state, inline_srcline_input, inline_srcline_dump);
}

/* samples without callchain: right-aligned comm, PT payload before the ip, IPC after the dso */
static void test_single_line(void **state)
{
	assert_dump(state, single_line_input, single_line_dump);
}

/* header then blank, extra blank lines, tracepoint samples with no callchain, a header at the end of the input */
static void test_zero_frames(void **state)
{
	assert_dump(state, zero_frames_input, zero_frames_dump);
}

/* the last sample without a trailing blank line or newline */
static void test_no_blank_at_end(void **state)
{
	assert_dump(state, no_blank_at_end_input, no_blank_at_end_dump);
}

/* MMAP (kernel, pid -1), MMAP2 exec and non-exec, FORK/COMM/EXIT teach tid -> pid, other records skipped, LOST counted; absolute vs DSO-relative addresses */
static void test_mmap(void **state)
{
	assert_dump(state, mmap_input, mmap_dump);
}

/* -F ip,brstack (4 and 6 flag fields, dso), brstacksym, llvm-profgen's hybrid callchain + branch line and its aggregated repeat/build-id form */
static void test_brstack(void **state)
{
	assert_dump(state, brstack_input, brstack_dump);
}

/* Intel PT branches with flags, without event, CoreSight without time; trace errors counted */
static void test_itrace(void **state)
{
	assert_dump(state, itrace_input, itrace_dump);
}

/* -F pid,ip,dso with and without callchain (a lone number is the pid) */
static void test_f_pid_ip_dso(void **state)
{
	assert_dump(state, f_pid_ip_dso_input, f_pid_ip_dso_dump);
}

/* -F ip,brstack */
static void test_f_ip_brstack(void **state)
{
	assert_dump(state, f_ip_brstack_input, f_ip_brstack_dump);
}

/* -F comm,tid,time,event,ip,sym,dso */
static void test_f_comm_tid_time_event_ip_sym_dso(void **state)
{
	assert_dump(state, f_comm_tid_time_event_ip_sym_dso_input, f_comm_tid_time_event_ip_sym_dso_dump);
}

/* -F ip,sym with a callchain (headerless, after an empty header line) and without */
static void test_f_ip_sym(void **state)
{
	assert_dump(state, f_ip_sym_input, f_ip_sym_dump);
}

/* --header lines: captured on, perf version, cmdline, facts; comments after the first sample are ignored */
static void test_header(void **state)
{
	assert_dump(state, header_input, header_dump);
}

/* CRLF line ends, a blank line between header and callchain (warned), perf's Warning: lines */
static void test_crlf_stray_blank(void **state)
{
	assert_dump(state, crlf_stray_blank_input, crlf_stray_blank_dump);
}

/* A payload's own aligned hex word is no single-line frame unless a "(dso)" ends the line. */
static void test_payload_hex_word(void **state)
{
	assert_dump(state,
		    "swapper     0 [000]  1.000000: napi:napi_poll: napi poll on napi struct "
		    "ffff88810c9c6a50 for device eth0 work 0 budget 64\n"
		    "swapper     0 [000]  2.000000: irq:irq_handler_entry: irq=9 name=acpi"
		    "      ffffffff816dcb92 __d_lookup_rcu+0x32 ([kernel.kallsyms])\n",
		    "profconv-dump 1\n"
		    "source perf-script\n"
		    "duration_nanos 1000000000\n"
		    "column 0 \"napi:napi_poll_sample\" \"count\"\n"
		    "column 1 \"napi:napi_poll_event\" \"count\" default\n"
		    "column 2 \"irq:irq_handler_entry_sample\" \"count\"\n"
		    "column 3 \"irq:irq_handler_entry_event\" \"count\"\n"
		    "module 1 \"[kernel.kallsyms]\" build_id \"\"\n"
		    "sample napi:napi_poll_sample=1 napi:napi_poll_event=1\n"
		    "  label \"comm\" = \"swapper\"\n"
		    "  label \"cpu\" = 0 \"cpu\"\n"
		    "  label \"tid\" = 0 \"tid\"\n"
		    "sample irq:irq_handler_entry_sample=1 irq:irq_handler_entry_event=1\n"
		    "  frame \"[kernel.kallsyms]\"@0xffffffff816dcb92 \"__d_lookup_rcu\"\n"
		    "  label \"comm\" = \"swapper\"\n"
		    "  label \"cpu\" = 0 \"cpu\"\n"
		    "  label \"tid\" = 0 \"tid\"\n");
}

/* "# captured on" becomes time_nanos only when it parses and fits. */
static void test_captured_on(void **state)
{
	static const char *const dates[] = {
		"Thu Aug 17 14:14:43 2017", "Sat Sep  4 10:27:47 2021", "Thu Aug 17 14:14:43 9999",
		"Thu Foo 17 14:14:43 2017", "Thu Aug 17 14:14 2017", "Thu Aug 17 14:14:43 2017 x",
	};
	static const int64_t expected[] = {
		1502979283000000000LL, 1630751267000000000LL, 0, 0, 0, 0,
	};

	(void)state;
	for (size_t i = 0; i < PC_ARRAY_SIZE(dates); i++) {
		struct fixture f = { 0 };
		char text[200];

		pc_ctx_init(&f.ctx);
		f.m = pc_model_new();
		snprintf(text, sizeof(text), "# captured on    : %s\nwork 7 1.0: 1 cycles: \n\t1 a (/x)\n\n",
			 dates[i]);
		assert_int_equal(read_text(&f, text, strlen(text)), 0);
		assert_int_equal(pc_model_time_nanos(f.m), expected[i]);
		pc_model_free(f.m);
	}
}

/* ---- errors ---- */

static void test_errors_located(void **state)
{
	(void)state;
	/* a callchain line with a bad address */
	assert_error("work 7 1.0: 1 cycles: \n\tffffzzzz main (x)\n", 2, 2,
		     "expected a callchain line (HEXADDRESS [SYMBOL] [(DSO)]), found 'ffffzzzz'");
	assert_error("work 7 1.0: 1 cycles: \n\t  4005d0 main (x)\n\t          THIS_IS_A_WEIRD_LINE\n",
		     3, 12, "found 'THIS_IS_A_WEIRD_LINE'");
	assert_error("work 7 1.0: 1 cycles: \n\t12345678901234567 main (x)\n", 2, 2,
		     "an address of at most 16 hexadecimal digits, found '12345678901234567'");
	/* a header whose event lacks its colon, or has none after the time */
	assert_error("work 7 1.0: 1 cycles: \n\t4005d0 main (x)\n\nwork 7 2.0:   1000 cycles\n", 4, 20,
		     "expected an event name ending in ':', found 'cycles'");
	assert_error("java 25607 4794564.109216: cyc", 1, 28, "found 'cyc'");
	/* truncated lines: a frame cut inside its dso, a header cut in its time */
	assert_error("work 7 1.0: 1 cycles: \n\tffff main (/usr/li", 2, 20,
		     "the input ends inside this frame line");
	assert_error("work 7 1.0: 1 cycles: \n\tffff main (x)\n\tffff mai", 3, 10,
		     "the input ends inside this frame line");
	assert_error("work 7 1.0: 1 cycles: \n\tffff main (x)\n\njava 25607 4794564.1092", 4, 1,
		     "expected a sample header (COMM TID [CPU] TIME: [PERIOD] EVENT:), found 'java 25607");
	/* not perf script at all */
	assert_error("hello world\n", 1, 1, "expected a sample header");
	assert_error("a;b;c 10\n", 1, 1, "expected a sample header");
	assert_error_bytes("\x01\x02\x00\x7fgarbage\n", 12, 1, 3, "binary data (a NUL byte)");
	/* side records and branch entries */
	assert_error("PERF_RECORD_MMAP2 1/1: [0xzz(0x10) @ 0 0:0 0 0]: r-xp /x\n", 1, 24,
		     "the mapping '[0xSTART(0xLEN) @ PGOFF ...]: PROT PATH'");
	assert_error("PERF_RECORD_MMAP2 one: [0x1(0x10) @ 0 0:0 0 0]: r-xp /x\n", 1, 19,
		     "PID/TID: after the MMAP record name");
	assert_error("work 7 1.0: 1 cycles: \n\tffff main (x)\n 0x1/0x2/P/-/-/0 0x12/\n", 3, 18,
		     "a branch entry 0xFROM/0xTO/FLAGS");
	assert_error("work 7 1.0: 1 cycles: \n\tffff main (x)\n\n0\n", 4, 1,
		     "a repeat count must be from 1");
}

static void test_count_overflow(void **state)
{
	(void)state;
	assert_error("9223372036854775807\nwork 7 1.0: 2 cycles: \n\tffff main (x)\n\n", 2, 1,
		     "passes 2^63-1");
	assert_error("work 7 1.0: 9223372036854775807 cycles: \n\tffff main (x)\n\n"
		     "work 7 1.0: 1 cycles: \n\tffff main (x)\n\n", 4, 1, "pass 2^63-1");
}

/* --skip-bad: bad lines and their samples are skipped and counted. */
static void test_skip_bad(void **state)
{
	struct fixture *f = *state;
	static const char text[] =
		"work 7 1.0: 1 cycles: \n"
		"\t4005d0 main (/x)\n"
		"\n"
		"work 7 2.0: 1 cycles: \n"
		"\t4005d1 main (/x)\n"
		"\tTHIS_IS_A_WEIRD_LINE\n"
		"\t4005d2 main (/x)\n"
		"\n"
		"garbage here\n"
		"\t4005d3 main (/x)\n"
		"work 7 3.0: 1 cycles: \n"
		"\t4005d0 main (/x)\n"
		"\n";

	f->ctx.opt.skip_bad = true;
	assert_int_equal(read_text(f, text, strlen(text)), 0);
	assert_string_equal(dump(f),
			    "profconv-dump 1\n"
			    "source perf-script\n"
			    "duration_nanos 2000000000\n"
			    "period 1 \"cycles_event\" \"count\"\n"
			    "column 0 \"cycles_sample\" \"count\"\n"
			    "column 1 \"cycles_event\" \"count\" default\n"
			    "module 1 \"/x\" build_id \"\"\n"
			    "sample cycles_sample=2 cycles_event=2\n"
			    "  frame \"/x\"+0x4005d0 \"main\"\n"
			    "  label \"comm\" = \"work\"\n"
			    "  label \"tid\" = 7 \"tid\"\n");
	assert_int_equal(f->ctx.nwarnings, 2);
	assert_int_equal(f->ctx.warnings[0].count, 2);
	assert_non_null(strstr(f->ctx.warnings[0].text,
			       "skipped an unparseable line (first: line 6:2: expected a callchain line"));
	assert_int_equal(f->ctx.warnings[1].count, 1);
	assert_non_null(strstr(f->ctx.warnings[1].text, "first at line 4"));
}

static void test_skip_bad_strict(void **state)
{
	struct fixture *f = *state;
	static const char text[] = "hello world\n";

	f->ctx.opt.skip_bad = true;
	f->ctx.opt.strict = true;
	assert_int_equal(read_text(f, text, strlen(text)), -1);
	assert_non_null(strstr(f->ctx.err.message, "--strict"));
}

/* ---- probe and descriptor ---- */

static void test_probe(void **state)
{
	static const char *const perf[] = {
		"# ========\n# captured on    : Thu Aug 17 14:14:43 2017\n# perf version : 6.1\n",
		"work 7 [000] 1.000000:     250000 cpu-clock: \n\tffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])\n\n",
		"                true 11155   279.317533:     250000 cpu-clock:ppp:      7f56cf90862a handle_amd+0xa (/lib/ld.so)\n",
		"           40062f 0x40062f/0x4005b0/P/-/-/9  0x400645/0x4005ff/P/-/-/1\n           4005d7 0x4005d7/0x4005e5/P/-/-/8\n",
		"\n\t            127c spin_leaf\n\t            12cb recurse\n\n",
		"  6130 \n\t            127c (/work/workload)\n\t            12cb (/work/workload)\n\n",
		"PERF_RECORD_MMAP2 1/1: [0x1000(0x10) @ 0 0:0 0 0]: r-xp /x\n",
	};
	static const char *const other[] = {
		"hello world\n", "main;parse;lex 12\nmain;parse 3\n", "a b c\nd e f\n",
		"SPT:\x01\x00\x00\x00", "Root,foo,12\n", "",
	};

	(void)state;
	for (size_t i = 0; i < PC_ARRAY_SIZE(perf); i++)
		assert_true(pc_perf_script_reader.probe((const uint8_t *)perf[i], strlen(perf[i])) >=
			    PC_PROBE_STRONG);
	for (size_t i = 0; i < PC_ARRAY_SIZE(other); i++)
		assert_true(pc_perf_script_reader.probe((const uint8_t *)other[i], strlen(other[i])) <
			    PC_PROBE_WEAK);
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_reader_find("perf-script"), &pc_perf_script_reader);
	assert_ptr_equal(pc_reader_find("perf"), &pc_perf_script_reader);
	assert_true(pc_perf_script_reader.provides & PC_PART_BRANCHES);
	assert_null(pc_perf_script_reader.info);
}

/* ---- streaming and caches ---- */

/* Appends text to a growing buffer. */
static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...) PC_PRINTF(4, 5);

static void append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	pc_grow(buf, cap, *len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(*buf + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

/*
 * A 3 MB input read from a file (through the 1 MiB window, so lines and
 * callchains straddle refills, one symbol is longer than the window) gives
 * the same model as from memory.
 */
static void test_streaming_file_equals_memory(void **state)
{
	struct fixture *f = *state;
	struct fixture g = { 0 };
	char path[] = "/tmp/profconv-perf-test-XXXXXX";
	char *text = NULL, *huge = pc_xmalloc((size_t)1500000 + 1);
	size_t len = 0, cap = 0;
	struct pc_input in;
	int fd;

	memset(huge, 'x', 1500000);
	huge[1500000] = '\0';
	for (int i = 0; i < 9000; i++) {
		append(&text, &len, &cap, "my worker %d %5d [%03d] %d.%06d: %10d cycles: \n", i % 3,
		       100 + i % 7, i % 4, i, i, 1000 + i % 5);
		for (int d = 0; d < 1 + i % 13; d++)
			append(&text, &len, &cap, "\t%16x fn_%d_%d+0x%x (/lib/lib%d.so)\n",
			       0x1000 + d * 16 + i % 3, d, i % 11, d, d % 3);
		if (i == 4000)
			append(&text, &len, &cap, "\t%16x %s (/lib/huge.so)\n", 0x99, huge);
		append(&text, &len, &cap, "\n");
	}
	assert_true(len > (3u << 20));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);

	assert_int_equal(read_text(f, text, len), 0);
	pc_ctx_init(&g.ctx);
	g.m = pc_model_new();
	assert_int_equal(pc_input_open(&in, path, &g.ctx.err), 0);
	assert_int_equal(read_input(&g, &in), 0);
	assert_string_equal(dump(f), dump(&g));
	assert_non_null(strstr(f->text, "sample cycles_sample="));
	assert_int_equal(pc_model_nframes(f->m), 3 * 11 * 13 + 1);
	unlink(path);
	free(text);
	free(huge);
	free(g.text);
	pc_model_free(g.m);
}

/*
 * The same callchain bytes give the same stack each time (the callchain
 * cache), the frames of another address space their own modules, and a
 * mapping that arrives later changes what an address is (absolute).
 */
static void test_caches_follow_spaces_and_mappings(void **state)
{
	struct fixture *f = *state;
	static const char chain[] = "\t    559e97b5d382 leaf_a+0x92 (/w)\n\t            1382 main+0x2 (/w)\n";
	char text[4096];

	snprintf(text, sizeof(text),
		 "w 1/1 1.0: 1 cycles: \n%s\n"
		 "w 1/1 2.0: 1 cycles: \n%s\n"
		 "w 2/2 3.0: 1 cycles: \n%s\n"
		 "PERF_RECORD_MMAP2 1/1: [0x1000(0x1000) @ 0 0:0 0 0]: r-xp /w\n"
		 "w 1/1 4.0: 1 cycles: \n%s\n"
		 "w 1/1 5.0: 1 cycles: \n%s\n",
		 chain, chain, chain, chain, chain);
	assert_int_equal(read_text(f, text, strlen(text)), 0);
	assert_string_equal(dump(f),
			    "profconv-dump 1\n"
			    "source perf-script\n"
			    "duration_nanos 4000000000\n"
			    "period 1 \"cycles_event\" \"count\"\n"
			    "column 0 \"cycles_sample\" \"count\"\n"
			    "column 1 \"cycles_event\" \"count\" default\n"
			    "module 1 \"/w\" build_id \"\" space 2 range 0x1000-0x2000 offset 0x0\n"
			    "module 2 \"/w\" build_id \"\" space 3\n"
			    /* after the mapping: leaf_a lies outside it (relative), main inside */
			    "sample cycles_sample=2 cycles_event=2\n"
			    "  frame \"/w\"+0x559e97b5d382 \"leaf_a\"\n"
			    "  frame \"/w\"@0x1382 \"main\"\n"
			    "  label \"comm\" = \"w\"\n"
			    "  label \"pid\" = 1 \"pid\"\n"
			    "  label \"tid\" = 1 \"tid\"\n"
			    /* before it: only the address above 2^32 is taken as absolute */
			    "sample cycles_sample=2 cycles_event=2\n"
			    "  frame \"/w\"@0x559e97b5d382 \"leaf_a\"\n"
			    "  frame \"/w\"+0x1382 \"main\"\n"
			    "  label \"comm\" = \"w\"\n"
			    "  label \"pid\" = 1 \"pid\"\n"
			    "  label \"tid\" = 1 \"tid\"\n"
			    "sample cycles_sample=1 cycles_event=1\n"
			    "  frame \"/w\"@0x559e97b5d382 \"leaf_a\"\n"
			    "  frame \"/w\"+0x1382 \"main\"\n"
			    "  label \"comm\" = \"w\"\n"
			    "  label \"pid\" = 2 \"pid\"\n"
			    "  label \"tid\" = 2 \"tid\"\n");
}

/* Line numbers stay right after callchains read whole from the window. */
static void test_line_numbers_after_cached_callchains(void **state)
{
	(void)state;
	assert_error("w 1 1.0: 1 cycles: \n\t1 a (/x)\n\t2 b (/x)\n\n"
		     "w 1 2.0: 1 cycles: \n\t1 a (/x)\n\t2 b (/x)\n\n"
		     "w 1 3.0: 1 cycles: \n\t1 a (/x)\n\t2 b (/x)\n\n"
		     "w 1 4.0: 1 cycles\n", 13, 12, "found 'cycles'");
	assert_error("w 1 1.0: 1 cycles: \n\t1 a (/x)\n\t2 b (/x)\n\n"
		     "w 1 2.0: 1 cycles: \n\t1 a (/x)\n\tzz b (/x)\n\n", 7, 2,
		     "found 'zz'");
}

/* Reads text; fails the test when the read fails. */
static void read_ok(struct fixture *f, const char *text)
{
	if (read_text(f, text, strlen(text)))
		fail_msg("read failed: %u:%u: %s", f->ctx.err.line, f->ctx.err.column,
			 f->ctx.err.message);
}

static const char *column_unit(const struct fixture *f, size_t c)
{
	return pc_str(f->m, pc_model_column(f->m, c)->unit);
}

/*
 * A clock's weight is in nanoseconds when every sample printed its
 * period; the period is the one printed when all agree, else the rounded
 * mean, and its type the default column's.
 */
static void test_units_and_period(void **state)
{
	struct fixture *f = *state;
	const struct pc_value_type *type;

	read_ok(f, "w 1 1.0: 1000 task-clock:u: \n\t1 a (/x)\n\n"
		   "w 1 2.0: 3001 task-clock:u: \n\t1 a (/x)\n\n"
		   "w 1 3.0: 7 cycles: \n\t1 a (/x)\n\n");
	assert_string_equal(column_unit(f, 0), "count");
	assert_string_equal(column_unit(f, 1), "nanoseconds");
	assert_string_equal(column_unit(f, 3), "count");
	type = pc_model_period_type(f->m);
	assert_string_equal(pc_str(f->m, type->type), "task-clock:u_event");
	assert_string_equal(pc_str(f->m, type->unit), "nanoseconds");
	assert_int_equal(pc_model_period(f->m), 2001); /* 4001 / 2, rounded */
}

static void test_period_printed_once(void **state)
{
	struct fixture *f = *state;

	read_ok(f, "w 1 1.0: 250000 cpu-clock:ppp: \n\t1 a (/x)\n\n"
		   "w 1 2.0: 250000 cpu-clock:ppp: \n\t2 b (/x)\n\n"
		   "w 1 3.0: 250000 cpu-clock:ppp: \n\t3 c (/x)\n\n");
	assert_int_equal(pc_model_period(f->m), 250000);
	assert_string_equal(pc_str(f->m, pc_model_period_type(f->m)->type),
			    "cpu-clock:ppp_event");
	assert_string_equal(column_unit(f, 1), "nanoseconds");
}

/* Without printed periods a clock's weight counts samples: no unit of time, no period. */
static void test_no_period_printed(void **state)
{
	struct fixture *f = *state;

	read_ok(f, "w 1 1.0: cpu-clock: \n\t1 a (/x)\n\n"
		   "w 1 2.0: cpu-clock: \n\t2 b (/x)\n\n");
	assert_string_equal(column_unit(f, 1), "count");
	assert_int_equal(pc_model_period(f->m), 0);
	assert_int_equal(pc_model_period_type(f->m)->type, 0);
	assert_int_equal(pc_model_period_type(f->m)->unit, 0);
}

/* Some samples with a period and some without: the weight is a mix, so a count. */
static void test_some_periods_missing(void **state)
{
	struct fixture *f = *state;

	read_ok(f, "w 1 1.0: 10 cpu-clock: \n\t1 a (/x)\n\n"
		   "w 1 2.0: cpu-clock: \n\t2 b (/x)\n\n");
	assert_string_equal(column_unit(f, 1), "count");
	assert_int_equal(pc_model_period(f->m), 6); /* (10 + 1) / 2, rounded */
}

/*
 * perf record --buildid-mmap: MMAP2 records carry "<BUILDID>" (kept, in
 * lowercase) instead of device and inode; the kernel's map (pid -1) has no
 * protection bits ("---p") and is executable all the same.
 */
static void test_mmap_build_ids(void **state)
{
	assert_dump(state,
		    "swapper     0/0     0.000000: PERF_RECORD_MMAP2 -1/0: "
		    "[0xffffffff81000000(0x1000000) @ 0xffffffff81000000 "
		    "<E4F18D9DC1D0E6FC2B17E93E885A647B3C0A6FC1>]: ---p [kernel.kallsyms]_text\n"
		    "w  7/7  1.000000: PERF_RECORD_MMAP2 7/7: [0x5622d948c000(0x1000) @ 0x1000 "
		    "<a8d343d57d8a140815a2d4d023b09b4942a1f079>]: r-xp /tmp/bid/w\n"
		    "w  7/7  1.000001: PERF_RECORD_MMAP2 7/7: [0x7f68207a9000(0x2000) @ 0 "
		    "00:00 0 0]: r-xp [vdso]\n"
		    "w  7/7  1.000002: PERF_RECORD_MMAP2 7/7: [0x7f6820000000(0x1000) @ 0 "
		    "<not-hex>]: r-xp /tmp/bid/odd\n"
		    "w  7/7  2.000000:    1001001 cpu-clock:      5622d948c289 (/tmp/bid/w)\n"
		    "w  7/7  2.000001:    1001001 cpu-clock:  ffffffff813fda15 ([kernel.kallsyms])\n"
		    "w  7/7  2.000002:    1001001 cpu-clock:      7f68207a9010 ([vdso])\n",
		    "profconv-dump 1\n"
		    "source perf-script\n"
		    "duration_nanos 2000\n"
		    "period 1001001 \"cpu-clock_event\" \"nanoseconds\"\n"
		    "column 0 \"cpu-clock_sample\" \"count\"\n"
		    "column 1 \"cpu-clock_event\" \"nanoseconds\" default\n"
		    "module 1 \"[kernel.kallsyms]\" build_id \"e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1\" "
		    "range 0xffffffff81000000-0xffffffff82000000 offset 0xffffffff81000000\n"
		    "module 2 \"/tmp/bid/w\" build_id \"a8d343d57d8a140815a2d4d023b09b4942a1f079\" "
		    "space 8 range 0x5622d948c000-0x5622d948d000 offset 0x1000\n"
		    "module 3 \"[vdso]\" build_id \"\" space 8 range 0x7f68207a9000-0x7f68207ab000 "
		    "offset 0x0\n"
		    "module 4 \"/tmp/bid/odd\" build_id \"\" space 8 range 0x7f6820000000-0x7f6820001000 "
		    "offset 0x0\n"
		    "module 5 \"[kernel.kallsyms]\" build_id \"e4f18d9dc1d0e6fc2b17e93e885a647b3c0a6fc1\" "
		    "space 8 range 0xffffffff81000000-0xffffffff82000000 offset 0xffffffff81000000\n"
		    "sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		    "  frame \"/tmp/bid/w\"@0x5622d948c289\n"
		    "  label \"comm\" = \"w\"\n"
		    "  label \"pid\" = 7 \"pid\"\n"
		    "  label \"tid\" = 7 \"tid\"\n"
		    "sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		    "  frame \"[kernel.kallsyms]\"@0xffffffff813fda15\n"
		    "  label \"comm\" = \"w\"\n"
		    "  label \"pid\" = 7 \"pid\"\n"
		    "  label \"tid\" = 7 \"tid\"\n"
		    "sample cpu-clock_sample=1 cpu-clock_event=1001001\n"
		    "  frame \"[vdso]\"@0x7f68207a9010\n"
		    "  label \"comm\" = \"w\"\n"
		    "  label \"pid\" = 7 \"pid\"\n"
		    "  label \"tid\" = 7 \"tid\"\n");
}

/* Runtime addresses in binaries that no mmap record placed: one counted warning. */
static const char unmapped_input[] =
		"PERF_RECORD_MMAP2 9/9: [0x7f0000000000(0x1000) @ 0 0:0 0 0]: r-xp /lib/placed.so\n"
		"w 7/7 1.0: 1 cycles: \n"
		"\t    559e97b5d382 leaf (/bin/w)\n"
		"\t    7f68207a9010 lib (/lib/x.so)\n"
		"\t            1382 main (/bin/w)\n"
		"\n"
		"w 8/8 2.0: 1 cycles: \n"
		"\t    559e97b5d382 leaf (/bin/w)\n"
		"\n"
		"w 7/7 3.0: 1 cycles: \n"
		"\tffffffff813fda15 k ([kernel.kallsyms])\n"
		"\t    7f68207a0000 [unknown] (/tmp/perf-7.map)\n"
		"\t            1382 main (/bin/w)\n"
		"\n"
		"w 9/9 4.0: 1 cycles: \n"
		"\t    7f0000000010 f (/lib/placed.so)\n"
		"\n";

static void test_unmapped_runtime_addresses_warned(void **state)
{
	struct fixture *f = *state;

	read_ok(f, unmapped_input);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 1);
	assert_string_equal(f->ctx.warnings[0].text,
			    "perf-script: 2 samples in 2 binaries have runtime addresses but no "
			    "mmap records: pprof cannot re-symbolize them (print them with perf "
			    "script --show-mmap-events)");
}

/* The input has no mmap records to give: a notice, never an error with --strict. */
static void test_unmapped_runtime_addresses_strict(void **state)
{
	struct fixture *f = *state;

	f->ctx.opt.strict = true;
	assert_int_equal(read_text(f, unmapped_input, strlen(unmapped_input)), 0);
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "2 samples in 2 binaries"));
}

/* One sample, one binary; DSO offsets and placed binaries are no reason to warn. */
static void test_unmapped_warning_counts(void **state)
{
	struct fixture *f = *state;

	read_ok(f, "w 7/7 1.0: 1 cycles: \n\t    559e97b5d382 leaf (/bin/w)\n\n"
		   "w 7/7 2.0: 1 cycles: \n\t            1382 main (/bin/w)\n\n");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "perf-script: 1 sample in 1 binary has "
				"runtime addresses"));
	pc_model_free(f->m);
	f->m = pc_model_new();
	pc_ctx_init(&f->ctx);
	read_ok(f, "w 7/7 1.0: 1 cycles: \n\t            1382 main (/bin/w)\n\n"
		   "PERF_RECORD_MMAP2 7/7: [0x559e97b5d000(0x1000) @ 0x1000 0:0 0 0]: r-xp /bin/w\n"
		   "w 7/7 2.0: 1 cycles: \n\t    559e97b5d382 leaf (/bin/w)\n\n");
	assert_int_equal(f->ctx.nwarnings, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_comms, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_fields, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_events, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_frames, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_inline_srcline, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_single_line, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_zero_frames, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_no_blank_at_end, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_mmap, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_brstack, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_itrace, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_f_pid_ip_dso, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_f_ip_brstack, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_f_comm_tid_time_event_ip_sym_dso, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_f_ip_sym, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_header, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_crlf_stray_blank, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_payload_hex_word, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_captured_on, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_errors_located, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_count_overflow, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_skip_bad, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_skip_bad_strict, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_probe, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_descriptor, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_streaming_file_equals_memory, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_caches_follow_spaces_and_mappings, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_line_numbers_after_cached_callchains, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_units_and_period, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_mmap_build_ids, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_runtime_addresses_warned, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_runtime_addresses_strict, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_unmapped_warning_counts, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_period_printed_once, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_no_period_printed, pct_setup, pct_teardown),
		cmocka_unit_test_setup_teardown(test_some_periods_missing, pct_setup, pct_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
