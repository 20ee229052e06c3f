/*
 * test_folded_writer.c - the folded writer: stackcollapse-perf.pl's
 * naming of frames (tidying, [dso] fallbacks, "->" inline chains, _[k],
 * _[j], _[i], --addrs), the root frame (comm, --pid, --tid, "?"), counts
 * from the chosen column, merging and bytewise order, frames of other
 * readers, and the notices (what folded holds not) and warnings (losses,
 * errors with --strict).
 *
 * Models are built with the model's builder calls, as a reader would.
 */
#include "pipeline/registry.h"
#include "support/write_model.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

extern const struct pc_writer pc_folded_writer;

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	int events;    /* column of "cycles_event" */
	int samples;   /* column of "cycles_sample" */
	char *text;
	size_t size;
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	f->samples = pc_model_add_event_column(f->m, "cycles_sample", "count", "cycles", PC_ROLE_SAMPLES);
	f->events = pc_model_add_event_column(f->m, "cycles_event", "count", "cycles", PC_ROLE_WEIGHT);
	pc_model_set_default_column(f->m, f->events);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	free(f->text);
	free(f);
	return 0;
}

static uint32_t module(struct fixture *f, const char *name)
{
	struct pc_module mod = { .name = pc_model_intern_cstr(f->m, name) };

	return pc_model_add_module(f->m, &mod);
}

/* A frame of a perf-like reader: module (0: none), address, function or NULL. */
static uint32_t frame(struct fixture *f, uint32_t mod, uint64_t address, const char *function)
{
	struct pc_frame fr = {
		.module = mod,
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = address,
		.function = function ? pc_model_intern_cstr(f->m, function) : 0,
	};

	return pc_model_add_frame(f->m, &fr);
}

/* A frame with only a name (as the folded reader makes). */
static uint32_t named(struct fixture *f, const char *function)
{
	struct pc_frame fr = { .function = pc_model_intern_cstr(f->m, function) };

	return pc_model_add_frame(f->m, &fr);
}

struct labels {
	const char *comm;
	int64_t pid, tid, cpu; /* -1: absent */
};

static uint32_t labelset(struct fixture *f, const struct labels *l)
{
	struct pc_label set[4];
	size_t n = 0;

	if (!l)
		return 0;
	if (l->comm)
		set[n++] = (struct pc_label){ .key = pc_model_intern_cstr(f->m, "comm"),
					      .str = pc_model_intern_cstr(f->m, l->comm) };
	if (l->pid >= 0)
		set[n++] = (struct pc_label){ .key = pc_model_intern_cstr(f->m, "pid"),
					      .num = l->pid, .unit = pc_model_intern_cstr(f->m, "pid") };
	if (l->tid >= 0)
		set[n++] = (struct pc_label){ .key = pc_model_intern_cstr(f->m, "tid"),
					      .num = l->tid, .unit = pc_model_intern_cstr(f->m, "tid") };
	if (l->cpu >= 0)
		set[n++] = (struct pc_label){ .key = pc_model_intern_cstr(f->m, "cpu"),
					      .num = l->cpu, .unit = pc_model_intern_cstr(f->m, "cpu") };
	return pc_model_add_labels(f->m, set, n);
}

/* One sample: frames leaf first (0-terminated), one sample, period in _event. */
static void sample(struct fixture *f, const struct labels *l, uint64_t period, ...)
{
	uint32_t frames[32];
	size_t n = 0;
	va_list ap;
	struct pc_sample s = { 0 };

	va_start(ap, period);
	for (uint32_t id = va_arg(ap, uint32_t); id; id = va_arg(ap, uint32_t))
		frames[n++] = id;
	va_end(ap);
	s.stack = pc_model_add_stack(f->m, frames, n);
	s.labels = labelset(f, l);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->samples, 1), 0);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)f->events, period), 0);
}

static int write_folded(struct fixture *f)
{
	free(f->text);
	return pct_write_model(&f->ctx, f->m, &pc_folded_writer, &f->text, &f->size);
}

static void assert_folded(struct fixture *f, const char *expected)
{
	if (write_folded(f))
		fail_msg("write failed: %s", f->ctx.err.message);
	assert_string_equal(f->text, expected);
}

static const struct labels java = { "java", 24636, 25607, -1 };
static const struct labels worker = { "my worker 0", -1, 6132, 1 };
static const struct labels nocomm = { NULL, 6130, 6132, -1 };

/* Root = comm with blanks as '_', frames root to leaf, periods summed, sorted. */
static void test_root_frames_counts_and_order(void **state)
{
	struct fixture *f = *state;
	uint32_t libc = module(f, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	uint32_t leaf = frame(f, libc, 0xf838f, "__GI___libc_write");
	uint32_t root = frame(f, libc, 0x2ff75, "__libc_start_main");

	sample(f, &worker, 1001001, leaf, root, 0);
	sample(f, &worker, 1001001, leaf, root, 0);
	sample(f, &worker, 7, root, 0);
	sample(f, &java, 5, root, 0);
	sample(f, &worker, 3, 0); /* no frames: the root alone */
	assert_folded(f, "java;__libc_start_main 5\n"
			 "my_worker_0 3\n"
			 "my_worker_0;__libc_start_main 7\n"
			 "my_worker_0;__libc_start_main;__GI___libc_write 2002002\n");
}

static void test_pid_tid_roots(void **state)
{
	struct fixture *f = *state;
	uint32_t main_frame = frame(f, module(f, "/bin/w"), 0x1234, "main");

	sample(f, &worker, 1, main_frame, 0);
	sample(f, &java, 1, main_frame, 0);
	pc_ctx_set(&f->ctx, "pid", NULL);
	assert_folded(f, "java-24636;main 1\nmy_worker_0-?;main 1\n");
	pc_ctx_set(&f->ctx, "tid", NULL);
	assert_folded(f, "java-24636/25607;main 1\nmy_worker_0-?/6132;main 1\n");
}

/* Without a comm there is no root frame, whatever --pid/--tid say. */
static void test_no_comm_no_root(void **state)
{
	struct fixture *f = *state;
	uint32_t main_frame = frame(f, module(f, "/bin/w"), 0x1234, "main");

	sample(f, &nocomm, 4, main_frame, 0);
	sample(f, NULL, 5, main_frame, 0);
	sample(f, NULL, 6, 0); /* nothing to write */
	pc_ctx_set(&f->ctx, "tid", NULL);
	assert_folded(f, "main 9\n");
	assert_non_null(strstr(f->ctx.warnings[f->ctx.nwarnings - 1].text,
			       "1 samples with neither a comm nor frames are not written"));
}

/* Names without addresses (Sampler, sb-sprof) are not perf symbols: kept as they are. */
static void test_names_without_addresses_kept(void **state)
{
	struct fixture *f = *state;
	struct pc_frame lambda = {
		.module = module(f, "/usr/lib/sbcl/sbcl.core"),
		.function = pc_model_intern_cstr(f->m, "(LAMBDA (X) :IN MAIN)"),
	};
	struct pc_frame foreign = {
		.module = lambda.module,
		.function = pc_model_intern_cstr(f->m, "\"foreign function write\"->x"),
	};
	uint32_t a = pc_model_add_frame(f->m, &lambda), b = pc_model_add_frame(f->m, &foreign);

	sample(f, NULL, 3, b, a, 0);
	assert_folded(f, "(LAMBDA (X) :IN MAIN);\"foreign function write\"->x 3\n");
}

/* stackcollapse-perf.pl's generic tidying and its Java rule. */
static void test_tidy(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "/bin/x");
	uint32_t args = frame(f, mod, 1, "StealTask::do_it(GCTaskManager*, unsigned int)");
	uint32_t anon = frame(f, mod, 2, "v8::internal::(anonymous namespace)::Invoke(bool, int)");
	uint32_t go = frame(f, mod, 3, "net/http.(*Client).Do");
	uint32_t quotes = frame(f, mod, 4, "RegExp:[&<>\\\"\\']");
	uint32_t semi = frame(f, mod, 5, "Lsun/nio/ch/FileDispatcherImpl;.write0(Ljava/io/FileDescriptor;JI)I");
	uint32_t paren = frame(f, mod, 6, "(process name)");
	uint32_t blank = frame(f, mod, 7, " ");

	sample(f, &worker, 1, args, anon, go, quotes, semi, paren, blank, 0);
	sample(f, &java, 1, semi, 0);
	assert_folded(f, "java;sun/nio/ch/FileDispatcherImpl:.write0 1\n"
			 "my_worker_0; ;Lsun/nio/ch/FileDispatcherImpl:.write0;RegExp:[&<>\\\\];"
			 "net/http.(*Client).Do;v8::internal::(anonymous namespace)::Invoke;"
			 "StealTask::do_it 1\n");
}

/* Frames whose function starts with '(' are left out, even as the first ones named. */
static void test_skipped_frames(void **state)
{
	struct fixture *f = *state;
	uint32_t proc = frame(f, module(f, "/bin/x"), 1, "(process name)");
	const struct labels r = { "r", -1, -1, -1 };

	sample(f, NULL, 3, proc, 0);
	sample(f, &r, 4, proc, 0);
	assert_folded(f, "r 4\n");
	assert_non_null(strstr(f->ctx.warnings[f->ctx.nwarnings - 1].text,
			       "1 samples with neither a comm nor frames"));
}

/* Unknown symbols: [dso basename] or [unknown], with --addrs the address. */
static void test_unknown_symbols_and_addrs(void **state)
{
	struct fixture *f = *state;
	uint32_t dd = frame(f, module(f, "/bin/dd"), 0x31ef, NULL);
	uint32_t unknown = frame(f, 0, 0x7f2eb2b31c2c, NULL);
	uint32_t deleted = frame(f, module(f, "/memfd:jit code (deleted)"), 6, NULL);
	uint32_t none = named(f, "plain;name(x)");

	sample(f, &worker, 10, dd, unknown, 0);
	sample(f, &worker, 20, deleted, none, 0);
	assert_folded(f, "my_worker_0;[unknown];[dd] 10\n"
			 "my_worker_0;plain:name(x);[memfd:jit code (deleted)] 20\n");
	pc_ctx_set(&f->ctx, "addrs", NULL);
	assert_folded(f, "my_worker_0;[unknown <7f2eb2b31c2c>];[dd <31ef>] 10\n"
			 "my_worker_0;plain:name(x);[memfd:jit code (deleted) <6>] 20\n");
}

/*
 * --kernel: dso "[...]", ".ko", vmlinux[-version]; --jit: perf maps and jitdump
 * .so. An unknown kernel symbol is "[[kernel.kallsyms]]", as the script says.
 */
static void test_kernel_and_jit_annotations(void **state)
{
	struct fixture *f = *state;
	uint32_t kallsyms = frame(f, module(f, "[kernel.kallsyms]"), 1, "do_syscall_64");
	uint32_t vmlinux = frame(f, module(f, "/usr/lib/debug/boot/vmlinux-5.4.14-cloudflare-2020.1.11"),
				 2, "tcp_sendmsg");
	uint32_t ko = frame(f, module(f, "/lib/modules/5.4/kernel/mlx5_core.ko"), 3, "mlx5e_xdp_handle");
	uint32_t kunknown = frame(f, module(f, "[kernel.kallsyms]"), 4, NULL);
	uint32_t map = frame(f, module(f, "/tmp/perf-3236.map"), 5, "LazyCompile:~body_0 a.js:1");
	uint32_t jitted = frame(f, module(f, "/tmp/jitted-31714-4145673320.so"), 6, "fib.smx::fib");
	uint32_t user = frame(f, module(f, "/usr/bin/perf-top"), 7, "main");

	sample(f, &worker, 1, kallsyms, vmlinux, ko, kunknown, map, jitted, user, 0);
	pc_ctx_set(&f->ctx, "kernel", NULL);
	assert_folded(f, "my_worker_0;main;fib.smx::fib;LazyCompile:~body_0 a.js:1;"
			 "[[kernel.kallsyms]]_[k];mlx5e_xdp_handle_[k];tcp_sendmsg_[k];do_syscall_64_[k] 1\n");
	f->ctx.nsettings = 0; /* no options */
	pc_ctx_set(&f->ctx, "jit", NULL);
	assert_folded(f, "my_worker_0;main;fib.smx::fib_[j];LazyCompile:~body_0 a.js:1_[j];"
			 "[[kernel.kallsyms]];mlx5e_xdp_handle;tcp_sendmsg;do_syscall_64 1\n");
}

/* perf-map-agent's unfolded inline chains: a->b->c -> a;b_[i];c_[i]. */
static void test_inline_chains(void **state)
{
	struct fixture *f = *state;
	uint32_t chain = frame(f, module(f, "/tmp/perf-1.map"),
			       1, "Lcom/A;::run->Lcom/B;::call->Lcom/C;::get");
	uint32_t inlined = frame(f, 0, 2, "inlined_fn");
	struct pc_frame fr = *pc_model_frame(f->m, inlined);

	fr.flags |= PC_FRAME_INLINE;
	inlined = pc_model_add_frame(f->m, &fr);
	sample(f, &java, 1, inlined, chain, 0);
	pc_ctx_set(&f->ctx, "jit", NULL);
	assert_folded(f, "java;com/A:::run_[j];com/B:::call_[i];com/C:::get_[i];inlined_fn 1\n");
}

/* --event NAME: NAME_event, else the column NAME; an unknown one is an error. */
static void test_event_choice(void **state)
{
	struct fixture *f = *state;
	int faults = pc_model_add_column(f->m, "page-faults", "count");
	uint32_t main_frame = frame(f, module(f, "/bin/w"), 0x1234, "main");
	struct pc_sample s = { .stack = pc_model_add_stack(f->m, &main_frame, 1),
			       .labels = labelset(f, &worker) };

	sample(f, &worker, 100, main_frame, 0);
	assert_int_equal(pc_model_add_sample(f->m, &s, (size_t)faults, 7), 0);
	assert_folded(f, "my_worker_0;main 100\n");
	assert_non_null(strstr(f->ctx.warnings[0].text, "only column 'cycles_event' is written; "
						       "others such as 'page-faults' are lost"));
	f->ctx.opt.event = "cycles";
	assert_folded(f, "my_worker_0;main 100\n");
	f->ctx.opt.event = "cycles_sample";
	assert_folded(f, "my_worker_0;main 1\n");
	f->ctx.opt.event = "page-faults";
	assert_folded(f, "my_worker_0;main 7\n");
	f->ctx.opt.event = "instructions";
	assert_int_equal(write_folded(f), -1);
	assert_non_null(strstr(f->ctx.err.message, "no event 'instructions' in the input"));
}

/* Different frames that fold to one name merge; a stack that sums to 0 is left out. */
static void test_merge_and_zero(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "/bin/w");
	uint32_t a = frame(f, mod, 0x10, "fn(int)");
	uint32_t b = frame(f, mod, 0x20, "fn(long)");
	uint32_t c = frame(f, mod, 0x30, "other");

	sample(f, &worker, 2, a, 0);
	sample(f, &worker, 3, b, 0);
	sample(f, &worker, 0, c, 0);
	assert_folded(f, "my_worker_0;fn 5\n");
}

/*
 * Lines sort bytewise even where a name is a prefix of another: ';' sorts
 * after '!' and '.' but before 'z'. Inline chains share names with frames.
 */
static void test_bytewise_order(void **state)
{
	struct fixture *f = *state;
	uint32_t mod = module(f, "/tmp/perf-1.map");
	uint32_t fo = frame(f, mod, 1, "fo"), foo = frame(f, mod, 2, "foo");
	uint32_t fooz = frame(f, mod, 3, "fooz"), foobar = frame(f, mod, 4, "foo.bar");
	uint32_t a = frame(f, mod, 5, "a"), z = frame(f, mod, 6, "z");
	uint32_t chain = frame(f, mod, 7, "foo!x->y"), chain2 = frame(f, mod, 8, "foo->a");
	const struct labels r = { "r", -1, -1, -1 };

	sample(f, &r, 1, z, foo, 0);
	sample(f, &r, 1, foobar, 0);
	sample(f, &r, 1, foo, 0);
	sample(f, &r, 1, fooz, 0);
	sample(f, &r, 1, a, foo, 0);
	sample(f, &r, 1, fo, 0);
	sample(f, &r, 1, chain, 0);
	sample(f, &r, 1, chain2, 0);
	assert_folded(f, "r;fo 1\n"
			 "r;foo 1\n"
			 "r;foo!x;y_[i] 1\n"
			 "r;foo.bar 1\n"
			 "r;foo;a 1\n"
			 "r;foo;a_[i] 1\n"
			 "r;foo;z 1\n"
			 "r;fooz 1\n");
}

/* Frames from the folded reader (names only) come back as they were. */
static void test_folded_round_trip(void **state)
{
	struct fixture *f = *state;

	sample(f, NULL, 12, named(f, "lex"), named(f, "parse(x)"), named(f, "my main"), 0);
	sample(f, NULL, 3, named(f, "parse(x)"), named(f, "my main"), 0);
	assert_folded(f, "my main;parse(x) 3\nmy main;parse(x);lex 12\n");
}

static void test_lost_labels_warned(void **state)
{
	struct fixture *f = *state;
	uint32_t main_frame = frame(f, module(f, "/bin/w"), 0x1234, "main");

	sample(f, &worker, 1, main_frame, 0); /* has a cpu label */
	assert_folded(f, "my_worker_0;main 1\n");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_non_null(strstr(f->ctx.warnings[0].text, "labels other than comm, pid and tid are lost"));
	/* what folded holds not, by its nature: a notice, never an error */
	assert_true(f->ctx.warnings[0].notice);
	f->ctx.opt.strict = true;
	assert_folded(f, "my_worker_0;main 1\n");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_int_equal(f->ctx.warnings[0].count, 2);
}

/* Samples not written are a loss: --strict refuses them, said once, as the error. */
static void test_strict_refuses_rootless_samples(void **state)
{
	struct fixture *f = *state;
	uint32_t main_frame = frame(f, module(f, "/bin/w"), 0x1234, "main");

	sample(f, &java, 4, main_frame, 0);
	sample(f, NULL, 6, 0);
	f->ctx.opt.strict = true;
	assert_int_equal(write_folded(f), -1);
	assert_null(f->text);
	assert_string_equal(f->ctx.err.message, "1 samples with neither a comm nor frames are "
				"not written (an error with --strict)");
	assert_int_equal(f->ctx.nwarnings, 0);
}

/* NUL, CR and LF in names become U+FFFD so that the line reads back: a loss, warned. */
static void test_unwritable_bytes_replaced_with_a_warning(void **state)
{
	struct fixture *f = *state;
	struct pc_frame nul = { .function = pc_model_intern(f->m, "fo\0o\nx", 6) };
	uint32_t leaf = pc_model_add_frame(f->m, &nul);

	sample(f, &java, 2, leaf, 0);
	assert_folded(f, "java;fo\xef\xbf\xbdo\xef\xbf\xbdx 2\n");
	assert_int_equal(f->ctx.nwarnings, 1);
	assert_string_equal(f->ctx.warnings[0].text,
			    "folded: control bytes in names are written as U+FFFD");
	assert_false(f->ctx.warnings[0].notice);
	f->ctx.opt.strict = true;
	assert_int_equal(write_folded(f), -1);
	assert_string_equal(f->ctx.err.message, "control bytes in names are written as "
				"U+FFFD (an error with --strict)");
}

static void test_empty_model(void **state)
{
	struct fixture *f = *state;

	assert_folded(f, "");
	assert_int_equal(f->ctx.nwarnings, 0);
}

static void test_descriptor(void **state)
{
	(void)state;
	assert_ptr_equal(pc_writer_find("folded"), &pc_folded_writer);
	assert_ptr_equal(pc_writer_for_path("out.folded"), &pc_folded_writer);
	assert_ptr_equal(pc_writer_for_path("out.collapsed"), &pc_folded_writer);
	assert_false(pc_folded_writer.keeps & PC_PART_BRANCHES);
	assert_false(pc_folded_writer.keeps & PC_PART_ADDRESSES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_root_frames_counts_and_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pid_tid_roots, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_comm_no_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_without_addresses_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tidy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_skipped_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_symbols_and_addrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernel_and_jit_annotations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inline_chains, setup, teardown),
		cmocka_unit_test_setup_teardown(test_event_choice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_and_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bytewise_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_folded_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_labels_warned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_strict_refuses_rootless_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable_bytes_replaced_with_a_warning, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_empty_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_descriptor, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
