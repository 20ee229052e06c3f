/*
 * perfgen.c - writes large, deterministic `perf script` text for the
 * benchmark (make bench). A standalone tool: libc only.
 *
 *   perfgen --random SEED --bytes N [--pid] OUT|-
 *
 * The text looks like `perf script --header` output of
 * `perf record -g -a -e cpu-clock -e page-faults -F 4000` made by perf 6.1
 * on a 4-CPU machine: a `#` header block, then samples
 *
 *   comm  tid [cpu]  secs.usecs:     period   cpu-clock:
 *   	ffffffff816b30f4 rw_verify_area+0x54 ([kernel.kallsyms])
 *   	           f838f __GI___libc_write+0x4f (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *   	            1348 [unknown] (/home/user/demo/work)
 *   (blank line)
 *
 * with comms that hold spaces, digits, slashes and brackets (`my worker 0`,
 * `V8 WorkerThread`, `FS Broker 5858`, `kworker/u8:1-ev`, `t`), several
 * processes and threads, DSO-relative user addresses and absolute kernel
 * and JIT addresses (as perf 6.1 prints them), `sym+0xoff` frames of real
 * libc and kernel names and of generated C, C++ and JIT names (some with
 * blanks and colons), `[unknown]` frames, `/tmp/perf-PID.map` JIT frames,
 * kernel tails (syscalls, page faults, interrupts), kernel-only threads,
 * 10-40 frames per stack (a few short broken ones and a rare zero-frame
 * sample), about 3% page-faults samples with varying periods (the event
 * names right-aligned as perf does), and a few thousand call paths per
 * process shared as a tree, drawn with a skew so that the text holds some
 * ten thousand distinct stacks. --pid prints `pid/tid` instead of `tid`.
 *
 * The same SEED and N give the same bytes; the output ends after the first
 * sample that reaches N bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define NORETURN __attribute__((noreturn))
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define NORETURN
#define PRINTF_LIKE(fmt, args)
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NO_SYM UINT32_MAX
#define NO_DSO UINT32_MAX /* the "0 [unknown] ([unknown])" bottom frame */

/* --- helpers ---------------------------------------------------------------- */

static NORETURN PRINTF_LIKE(1, 2) void die(const char *fmt, ...)
{
	va_list ap;

	fputs("perfgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xrealloc(void *ptr, size_t size)
{
	void *grown = realloc(ptr, size ? size : 1);

	if (!grown)
		die("out of memory");
	return grown;
}

static char *xstrdup(const char *text)
{
	size_t len = strlen(text) + 1;

	return memcpy(xrealloc(NULL, len), text, len);
}

static PRINTF_LIKE(1, 2) char *format(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return xstrdup(buf);
}

/* splitmix64: small, fast, and the same everywhere */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* uniform in [0, n) */
static uint32_t rng_below(uint32_t n)
{
	return n ? (uint32_t)((rng_next() >> 32) * n >> 32) : 0;
}

static uint32_t rng_range(uint32_t lo, uint32_t hi)
{
	return lo + rng_below(hi - lo + 1);
}

/* true with probability percent/100 */
static int rng_chance(uint32_t percent)
{
	return rng_below(100) < percent;
}

/* skewed to small values: n * u^3 */
static uint32_t rng_skewed(uint32_t n)
{
	double u = (double)(rng_next() >> 11) / 9007199254740992.0;

	return (uint32_t)((double)n * u * u * u);
}

/* --- names ------------------------------------------------------------------------ */

static const char *const kernel_names[] = {
	"entry_SYSCALL_64_after_hwframe", "do_syscall_64", "syscall_exit_to_user_mode",
	"__x64_sys_read", "ksys_read", "vfs_read", "new_sync_read", "ext4_file_read_iter",
	"filemap_read", "filemap_get_pages", "copy_page_to_iter", "_copy_to_iter",
	"__x64_sys_write", "ksys_write", "vfs_write", "rw_verify_area", "pipe_write",
	"__wake_up_common_lock", "__x64_sys_futex", "do_futex", "futex_wait", "futex_wake",
	"__x64_sys_mmap", "ksys_mmap_pgoff", "vm_mmap_pgoff", "do_mmap", "mmap_region",
	"__x64_sys_munmap", "__vm_munmap", "do_vmi_munmap", "unmap_region", "unmap_vmas",
	"unmap_page_range", "zap_pte_range", "tlb_finish_mmu", "release_pages",
	"__x64_sys_openat", "do_sys_openat2", "do_filp_open", "path_openat", "link_path_walk",
	"__d_lookup_rcu", "lookup_fast", "__x64_sys_newfstatat", "vfs_fstatat",
	"asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault",
	"__handle_mm_fault", "do_anonymous_page", "alloc_pages_mpol", "__alloc_pages",
	"get_page_from_freelist", "clear_page_erms", "do_wp_page", "wp_page_copy",
	"filemap_map_pages", "next_uptodate_folio", "set_pte_range", "folio_add_lru",
	"asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "__irq_exit_rcu",
	"__do_softirq", "run_timer_softirq", "rcu_core", "rcu_do_batch", "kmem_cache_free",
	"irqentry_exit_to_user_mode", "exit_to_user_mode_prepare", "schedule", "__schedule",
	"finish_task_switch.isra.0", "__perf_event_task_sched_in", "perf_ctx_enable",
	"native_write_msr", "update_curr", "pick_next_task_fair", "dequeue_task_fair",
	"enqueue_task_fair", "try_to_wake_up", "ttwu_do_activate", "select_task_rq_fair",
	"ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread", "process_one_work",
	"flush_to_ldisc", "n_tty_receive_buf_common", "drm_fb_helper_damage_work",
	"vmstat_update", "refresh_cpu_vm_stats", "secondary_startup_64_no_verify",
	"start_secondary", "cpu_startup_entry", "do_idle", "default_idle_call",
	"default_idle", "pv_native_safe_halt", "mutex_lock", "mutex_unlock", "_raw_spin_lock",
	"_raw_spin_unlock_irqrestore", "__fget_light", "fput", "security_file_permission",
	"apparmor_file_permission", "aa_file_perm", "fsnotify", "__fsnotify_parent",
	"ext4_da_write_begin", "generic_perform_write", "ext4_buffered_write_iter",
	"copy_user_enhanced_fast_string", "memset_orig", "__memcpy", "xas_load",
	"__rcu_read_unlock", "__rcu_read_lock", "percpu_counter_add_batch",
};

/* chains of kernel_names indexes, root (entry) first */
static const char *const kernel_chains[][10] = {
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_read", "ksys_read",
	  "vfs_read", "ext4_file_read_iter", "filemap_read", "copy_page_to_iter", "_copy_to_iter" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_write", "ksys_write",
	  "vfs_write", "ext4_buffered_write_iter", "generic_perform_write",
	  "ext4_da_write_begin", "xas_load" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_write", "ksys_write",
	  "vfs_write", "pipe_write", "__wake_up_common_lock", "try_to_wake_up",
	  "select_task_rq_fair" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_futex", "do_futex",
	  "futex_wait", "schedule", "__schedule", "finish_task_switch.isra.0",
	  "__perf_event_task_sched_in" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_munmap", "__vm_munmap",
	  "do_vmi_munmap", "unmap_region", "unmap_vmas", "unmap_page_range", "zap_pte_range" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_openat",
	  "do_sys_openat2", "do_filp_open", "path_openat", "link_path_walk", "lookup_fast",
	  "__d_lookup_rcu" },
	{ "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault",
	  "__handle_mm_fault", "do_anonymous_page", "alloc_pages_mpol", "__alloc_pages",
	  "clear_page_erms" },
	{ "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault",
	  "__handle_mm_fault", "filemap_map_pages", "next_uptodate_folio", "set_pte_range" },
	{ "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "__irq_exit_rcu",
	  "__do_softirq", "rcu_core", "rcu_do_batch", "kmem_cache_free" },
	{ "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
	  "irqentry_exit_to_user_mode", "exit_to_user_mode_prepare", "schedule", "__schedule",
	  "finish_task_switch.isra.0", "native_write_msr" },
};

static const char *const kworker_chain[] = {
	"ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread", "process_one_work",
};
static const char *const kworker_leaves[] = {
	"flush_to_ldisc", "n_tty_receive_buf_common", "drm_fb_helper_damage_work",
	"vmstat_update", "refresh_cpu_vm_stats", "memset_orig", "__memcpy", "mutex_lock",
};
static const char *const idle_chain[] = {
	"secondary_startup_64_no_verify", "start_secondary", "cpu_startup_entry", "do_idle",
	"default_idle_call", "default_idle", "pv_native_safe_halt",
};

/* the last four are only roots of stacks, never called at random */
static const char *const libc_names[] = {
	"malloc", "free", "_int_malloc", "_int_free", "malloc_consolidate", "realloc",
	"__memmove_avx_unaligned_erms", "__memset_avx2_unaligned_erms", "__strlen_avx2",
	"__strchr_avx2", "__memcmp_avx2_movbe", "__strcmp_avx2", "qsort_r", "msort_with_tmp.part.0",
	"__GI___libc_write", "__GI___libc_read", "__libc_pwrite", "__GI___mmap64", "__munmap",
	"__GI___futex_abstimed_wait_cancelable64", "pthread_mutex_lock", "pthread_mutex_unlock",
	"__lll_lock_wait", "pthread_cond_wait@@GLIBC_2.3.2", "__vfprintf_internal",
	"__printf_fp_l", "_IO_file_xsputn@@GLIBC_2.2.5", "_IO_fwrite", "fgets", "getc",
	"__GI___clock_gettime", "__tls_get_addr", "__cxa_finalize", "bsearch", "strtol",
	"____strtod_l_internal", "__mpn_mul_1", "__sincos_fma", "__ieee754_exp_fma",
	"__GI___poll", "epoll_wait", "__GI___ioctl", "__open64_nocancel", "__fstatat64",
	"__libc_start_main_impl", "__libc_start_call_main", "clone3", "start_thread",
};

static const char *const c_prefixes[] = {
	"hash", "tree", "parse", "emit", "ggc", "cselib", "df", "bitmap", "rtx", "gimple",
	"lzma", "lz", "rc", "deflate", "inflate", "crc32", "buf", "str", "list", "vec",
	"pool", "arena", "lex", "yy", "symtab", "cgraph", "ipa", "ssa", "loop", "reg",
};
static const char *const c_nouns[] = {
	"node", "table", "entry", "block", "expr", "stmt", "insn", "edge", "slot", "chain",
	"match", "window", "token", "range", "value", "state", "frame", "cache", "set", "map",
};
static const char *const c_verbs[] = {
	"insert", "lookup", "find", "walk", "alloc", "free", "copy", "update", "compute",
	"encode", "decode", "emit", "scan", "check", "build", "merge", "split", "hash",
	"compare", "process",
};
static const char *const cxx_namespaces[] = {
	"v8::internal", "node", "std", "mozilla", "js::jit", "llvm", "base", "WTF",
	"v8::internal::compiler", "icu_72",
};
static const char *const cxx_classes[] = {
	"Heap", "Scavenger", "MarkCompactCollector", "Isolate", "Parser", "Builtins",
	"Runtime", "Factory", "Map", "JSObject", "String", "Zone", "Graph", "Node",
	"Pipeline", "TurboAssembler", "Environment", "TaskRunner", "Worker", "HashMap",
};
static const char *const cxx_methods[] = {
	"Run", "Execute", "Call", "Invoke", "Allocate", "CollectGarbage", "Scavenge",
	"VisitPointers", "Lookup", "Insert", "Compile", "Optimize", "Parse", "Evaluate",
	"Dispatch", "Flush", "Resize", "operator()", "~Node", "Iterate",
};
static const char *const js_functions[] = {
	"fib", "processTicksAndRejections", "emit", "onStreamRead", "Module._compile",
	"JSON.parse", "Array.prototype.map", "render", "tick", "next", "resolve", "compare",
	"parseHeaders", "readableAddChunk", "Socket._write", "hashString",
};
static const char *const js_files[] = {
	"/home/user/demo/busy.js", "node:internal/process/task_queues", "node:events",
	"node:internal/stream_base_commons", "node:internal/modules/cjs/loader",
	"/home/user/demo/lib/render.js", "/home/user/demo/lib/util.js",
};
static const char *const java_classes[] = {
	"Ljava/util/HashMap;", "Ljava/lang/String;", "Ljava/util/ArrayList;",
	"Lorg/apache/catalina/connector/CoyoteAdapter;", "Lio/netty/channel/nio/NioEventLoop;",
	"Lcom/example/demo/OrderService;", "Ljava/util/concurrent/ThreadPoolExecutor;",
};
static const char *const java_methods[] = {
	"getNode", "hashCode", "equals", "add", "service", "run", "processSelectedKeys",
	"placeOrder", "runWorker", "put", "toString", "compareTo",
};

/* --- model of the machine ---------------------------------------------------------------- */

enum dso_kind { DSO_USER, DSO_KERNEL, DSO_JIT };

struct sym {
	const char *name;
	uint64_t addr, size;
};

struct dso {
	const char *path;
	enum dso_kind kind;
	struct sym *syms;
	uint32_t nsyms;
	uint32_t first_callable, ncallable; /* the symbols random calls go to */
};

struct frame {
	uint32_t dso, sym; /* sym NO_SYM: [unknown] */
	uint64_t off;
};

enum thread_kind { THREAD_USER, THREAD_KWORKER, THREAD_IDLE };

struct thread {
	const char *comm;
	int pid, tid;
	enum thread_kind kind;
	uint32_t exe, libs[4], nlibs, jit; /* dso indexes; jit 0 = none */
	uint32_t weight;
	uint32_t first, count; /* its templates */
	uint32_t entry;        /* the exe symbol its thread starts in */
	int main_thread;
};

/* a call path: its text minus the leaf line, and its leaf frame */
struct path {
	char *body;
	size_t body_len;
	struct frame leaf;
};

static struct dso *dsos;
static uint32_t ndsos;
static struct thread *threads;
static uint32_t nthreads;
static struct path *paths;
static uint32_t npaths;

static uint32_t add_dso(const char *path, enum dso_kind kind)
{
	dsos = xrealloc(dsos, (ndsos + 1) * sizeof *dsos);
	dsos[ndsos] = (struct dso){ .path = path, .kind = kind };
	return ndsos++;
}

static void add_sym(uint32_t index, const char *name, uint64_t *next)
{
	struct dso *dso = &dsos[index];
	uint64_t size = 0x20 + rng_below(0x600);

	dso->syms = xrealloc(dso->syms, (dso->nsyms + 1) * sizeof *dso->syms);
	dso->syms[dso->nsyms++] = (struct sym){ .name = name, .addr = *next, .size = size };
	*next += (size + 0xf) & ~(uint64_t)0xf;
}

static uint32_t find_sym(uint32_t index, const char *name)
{
	for (uint32_t i = 0; i < dsos[index].nsyms; i++)
		if (!strcmp(dsos[index].syms[i].name, name))
			return i;
	die("no symbol %s in %s", name, dsos[index].path);
}

static uint32_t kernel_dso, libc_dso;

static void make_kernel(void)
{
	uint64_t next = 0xffffffff81000000u;

	kernel_dso = add_dso("[kernel.kallsyms]", DSO_KERNEL);
	for (size_t i = 0; i < ARRAY_SIZE(kernel_names); i++)
		add_sym(kernel_dso, kernel_names[i], &next);
}

static void make_libc(void)
{
	uint64_t next = 0x28000;

	libc_dso = add_dso("/usr/lib/x86_64-linux-gnu/libc.so.6", DSO_USER);
	for (size_t i = 0; i < ARRAY_SIZE(libc_names); i++)
		add_sym(libc_dso, libc_names[i], &next);
	dsos[libc_dso].ncallable = dsos[libc_dso].nsyms - 4;
}

enum style { STYLE_C, STYLE_CXX, STYLE_JS, STYLE_JAVA };

static char *make_name(enum style style)
{
	switch (style) {
	case STYLE_C:
		return format("%s_%s_%s", c_prefixes[rng_below(ARRAY_SIZE(c_prefixes))],
			      c_nouns[rng_below(ARRAY_SIZE(c_nouns))],
			      c_verbs[rng_below(ARRAY_SIZE(c_verbs))]);
	case STYLE_CXX:
		if (rng_chance(15))
			return format("std::_Hashtable<%s::%s*, std::pair<%s::%s* const, int>, "
				      "std::allocator<std::pair<%s::%s* const, int> > >::_M_find_before_node",
				      cxx_namespaces[0], cxx_classes[rng_below(ARRAY_SIZE(cxx_classes))],
				      cxx_namespaces[0], cxx_classes[1], cxx_namespaces[0], cxx_classes[1]);
		return format("%s::%s::%s", cxx_namespaces[rng_below(ARRAY_SIZE(cxx_namespaces))],
			      cxx_classes[rng_below(ARRAY_SIZE(cxx_classes))],
			      cxx_methods[rng_below(ARRAY_SIZE(cxx_methods))]);
	case STYLE_JS:
		return format("%s:%s%s %s:%u:%u",
			      rng_chance(60) ? "LazyCompile" : "Function",
			      rng_chance(50) ? "*" : "~",
			      js_functions[rng_below(ARRAY_SIZE(js_functions))],
			      js_files[rng_below(ARRAY_SIZE(js_files))], rng_range(1, 400),
			      rng_range(1, 60));
	case STYLE_JAVA:
		if (rng_chance(10))
			return xstrdup("Interpreter");
		return format("%s::%s", java_classes[rng_below(ARRAY_SIZE(java_classes))],
			      java_methods[rng_below(ARRAY_SIZE(java_methods))]);
	}
	return xstrdup("?");
}

static uint32_t make_dso(const char *path, enum dso_kind kind, enum style style, uint32_t nsyms,
			 uint64_t base)
{
	uint32_t index = add_dso(path, kind);
	uint64_t next = base;

	for (uint32_t i = 0; i < nsyms; i++) {
		if (i == 0 && kind == DSO_USER && style != STYLE_JS)
			add_sym(index, xstrdup("_start"), &next);
		else if (i == 1 && kind == DSO_USER)
			add_sym(index, xstrdup("main"), &next);
		else
			add_sym(index, make_name(style), &next);
	}
	/* not _start and main */
	dsos[index].first_callable = kind == DSO_USER && style != STYLE_JS ? 2 : 0;
	dsos[index].ncallable = nsyms - dsos[index].first_callable;
	return index;
}

struct process_spec {
	const char *exe;
	enum style style;
	uint32_t nsyms;
	const char *libs[3];
	int jit; /* 1: node-style /tmp/perf-PID.map, 2: java-style */
	const char *comms[6];
	uint32_t weight;
	enum thread_kind kind;
};

static const struct process_spec process_specs[] = {
	{ "/usr/lib/gcc/x86_64-linux-gnu/12/cc1", STYLE_C, 900,
	  { "/usr/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libgmp.so.10.4.1",
	    "/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.4" },
	  0, { "cc1" }, 22, THREAD_USER },
	{ "/usr/bin/node", STYLE_CXX, 1200,
	  { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "/usr/lib/x86_64-linux-gnu/libm.so.6" },
	  1, { "node", "V8 WorkerThread", "V8 WorkerThread", "V8 WorkerThread", "libuv-worker" }, 25,
	  THREAD_USER },
	{ "/home/user/demo/work", STYLE_C, 120, { "/usr/lib/x86_64-linux-gnu/libm.so.6" }, 0,
	  { "work", "my worker 0", "my worker 1", "my worker 2", "my worker 3" }, 14, THREAD_USER },
	{ "/usr/lib/firefox-esr/libxul.so", STYLE_CXX, 1500,
	  { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30", "/usr/lib/x86_64-linux-gnu/libz.so.1.2.13" },
	  0, { "firefox-esr", "FS Broker 5858", "DOM Worker", "[ET_NET 0]", "Socket Thread" }, 10,
	  THREAD_USER },
	{ "/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so", STYLE_CXX, 800,
	  { "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30" }, 2,
	  { "java", "C2 CompilerThre", "GC Thread#0", "VM Thread", "http-nio-8080-e" }, 12,
	  THREAD_USER },
	{ "/usr/bin/xz", STYLE_C, 150, { "/usr/lib/x86_64-linux-gnu/liblzma.so.5.4.1" }, 0,
	  { "xz" }, 6, THREAD_USER },
	{ "/usr/bin/perl", STYLE_C, 400, { "/usr/lib/x86_64-linux-gnu/libcrypt.so.1.1.0" }, 0,
	  { "perl" }, 4, THREAD_USER },
	{ "/tmp/t", STYLE_C, 20, { NULL }, 0, { "t" }, 2, THREAD_USER },
	{ NULL, STYLE_C, 0, { NULL }, 0, { "kworker/u8:1-ev", "kworker/0:2-mm_" }, 3, THREAD_KWORKER },
	{ NULL, STYLE_C, 0, { NULL }, 0, { "swapper" }, 2, THREAD_IDLE },
};

static uint32_t find_or_make_lib(const char *path)
{
	for (uint32_t i = 0; i < ndsos; i++)
		if (!strcmp(dsos[i].path, path))
			return i;
	return make_dso(path, DSO_USER, strstr(path, "++") ? STYLE_CXX : STYLE_C, 300, 0x9000);
}

static void make_processes(void)
{
	int pid = 2100;

	for (size_t p = 0; p < ARRAY_SIZE(process_specs); p++) {
		const struct process_spec *spec = &process_specs[p];
		uint32_t exe = 0, libs[4], nlibs = 0, jit = 0;
		int this_pid = spec->kind == THREAD_IDLE ? 0 : pid;

		if (spec->exe) {
			exe = make_dso(spec->exe, DSO_USER, spec->style, spec->nsyms, 0x1000);
			libs[nlibs++] = libc_dso;
			for (size_t l = 0; l < ARRAY_SIZE(spec->libs) && spec->libs[l]; l++)
				libs[nlibs++] = find_or_make_lib(spec->libs[l]);
		}
		if (spec->jit)
			jit = make_dso(format("/tmp/perf-%d.map", this_pid), DSO_JIT,
				       spec->jit == 1 ? STYLE_JS : STYLE_JAVA, 600,
				       0x7f0000000000u + ((uint64_t)rng_below(0x100000) << 12));
		for (size_t t = 0; t < ARRAY_SIZE(spec->comms) && spec->comms[t]; t++) {
			struct thread *th;

			threads = xrealloc(threads, (nthreads + 1) * sizeof *threads);
			th = &threads[nthreads++];
			*th = (struct thread){
				.comm = spec->comms[t],
				.pid = this_pid,
				.tid = spec->kind == THREAD_USER ? this_pid + (int)t * 3 : this_pid + (int)t,
				.kind = spec->kind,
				.exe = exe,
				.nlibs = nlibs,
				.jit = jit,
				.weight = spec->weight * (t == 0 ? 2 : 1),
				.main_thread = t == 0,
			};
			memcpy(th->libs, libs, sizeof libs);
			if (spec->exe)
				th->entry = 2 + rng_below(dsos[exe].nsyms - 2);
		}
		pid += 37 + (int)rng_below(400);
	}
}

/* --- call paths ------------------------------------------------------------------------- */

struct buffer {
	char *data;
	size_t len, cap;
};

static void buffer_add(struct buffer *buf, const char *text, size_t len)
{
	if (buf->len + len > buf->cap) {
		buf->cap = (buf->len + len) * 2 + 256;
		buf->data = xrealloc(buf->data, buf->cap);
	}
	memcpy(buf->data + buf->len, text, len);
	buf->len += len;
}

static size_t format_frame(char *out, size_t size, const struct frame *frame)
{
	const struct dso *dso = frame->dso == NO_DSO ? NULL : &dsos[frame->dso];
	int n;

	if (!dso)
		n = snprintf(out, size, "\t%16" PRIx64 " [unknown] ([unknown])\n", frame->off);
	else if (frame->sym == NO_SYM)
		n = snprintf(out, size, "\t%16" PRIx64 " [unknown] (%s)\n", frame->off, dso->path);
	else
		n = snprintf(out, size, "\t%16" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
			     dso->syms[frame->sym].addr + frame->off, dso->syms[frame->sym].name,
			     frame->off, dso->path);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

static struct frame frame_at(uint32_t dso, uint32_t sym)
{
	struct frame frame = { .dso = dso, .sym = sym };

	frame.off = 1 + rng_below((uint32_t)dsos[dso].syms[sym].size - 1);
	return frame;
}

static struct frame named_frame(uint32_t dso, const char *name)
{
	return frame_at(dso, find_sym(dso, name));
}

/* a frame the user code of th calls: its own code mostly, libraries, JIT */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return x;
}

/* n * u^3 for u = the top bits of a hash: a skew like rng_skewed's */
static uint32_t hash_skewed(uint64_t hash, uint32_t n)
{
	double u = (double)(hash >> 11) / 9007199254740992.0;

	return (uint32_t)((double)n * u * u * u);
}

/*
 * The function that `caller` calls next: each function calls a few others
 * (its k-th callee is fixed by a hash, k skewed to the first ones), as in
 * a real, sparse call graph: its own code mostly, then libraries and, in
 * deep stacks of processes with a JIT, JIT code. Without a caller: any.
 */
static struct frame user_frame(const struct thread *th, uint32_t depth, const struct frame *caller)
{
	uint64_t hash = caller ? mix(((uint64_t)caller->dso << 40) ^ ((uint64_t)caller->sym << 8) ^
				     rng_skewed(6) ^ ((uint64_t)th->pid << 52))
			       : rng_next();
	uint32_t dso = th->exe, roll = (uint32_t)(hash % 100);

	if (th->jit && depth > 6 && roll < 45)
		dso = th->jit;
	else if (roll >= 80 && th->nlibs)
		dso = th->libs[(hash >> 8) % th->nlibs];
	hash = mix(hash);
	if (dsos[dso].kind == DSO_JIT && hash % 25 == 0) {
		struct frame unknown = { .dso = dso, .sym = NO_SYM };

		unknown.off = dsos[dso].syms[0].addr - 0x1000 + (hash >> 32) % 16 * 0x80;
		return unknown;
	}
	return frame_at(dso, dsos[dso].first_callable + hash_skewed(mix(hash), dsos[dso].ncallable));
}

#define MAX_FRAMES 64

/* root first; returns the number of frames */
static uint32_t root_frames(const struct thread *th, struct frame *frames)
{
	uint32_t n = 0;

	if (th->kind == THREAD_KWORKER) {
		for (size_t i = 0; i < ARRAY_SIZE(kworker_chain); i++)
			frames[n++] = named_frame(kernel_dso, kworker_chain[i]);
		return n;
	}
	if (th->kind == THREAD_IDLE) {
		for (size_t i = 0; i < ARRAY_SIZE(idle_chain); i++)
			frames[n++] = named_frame(kernel_dso, idle_chain[i]);
		return n;
	}
	if (th->main_thread) {
		frames[n++] = named_frame(th->exe, "_start");
		frames[n++] = named_frame(libc_dso, "__libc_start_main_impl");
		frames[n++] = named_frame(libc_dso, "__libc_start_call_main");
		frames[n++] = named_frame(th->exe, "main");
	} else {
		frames[n++] = named_frame(libc_dso, "clone3");
		frames[n++] = named_frame(libc_dso, "start_thread");
		frames[n++] = frame_at(th->exe, th->entry);
	}
	return n;
}

static uint32_t kernel_tail(struct frame *frames, uint32_t n, uint32_t room)
{
	const char *const *chain = kernel_chains[rng_below(ARRAY_SIZE(kernel_chains))];
	uint32_t len = 0;

	while (len < ARRAY_SIZE(kernel_chains[0]) && chain[len])
		len++;
	len = rng_range(3, len);
	for (uint32_t i = 0; i < len && room; i++, room--)
		frames[n++] = named_frame(kernel_dso, chain[i]);
	if (room && rng_chance(30))
		frames[n++] = frame_at(kernel_dso, rng_below(ARRAY_SIZE(kernel_names)));
	return n;
}

/* the user part of a path (root first) of the thread's path `index` */
struct user_path {
	struct frame frames[MAX_FRAMES];
	uint32_t n;
};

/*
 * A caller's return address depends only on what it calls: one call site
 * per (caller, callee), as in real code.
 */
static void place_call_sites(struct frame *frames, uint32_t n)
{
	for (uint32_t i = 0; i + 1 < n; i++) {
		struct frame *caller = &frames[i];
		const struct frame *callee = &frames[i + 1];
		uint64_t size;

		if (caller->dso == NO_DSO || caller->sym == NO_SYM)
			continue;
		size = dsos[caller->dso].syms[caller->sym].size;
		caller->off = 1 + mix(((uint64_t)caller->dso << 48) ^ ((uint64_t)caller->sym << 32) ^
				      ((uint64_t)callee->dso << 20) ^ callee->sym) % (size - 1);
	}
}

static void add_path(struct frame *frames, uint32_t n)
{
	struct buffer body = { 0 };
	char line[1024];

	place_call_sites(frames, n);
	paths = xrealloc(paths, (npaths + 1) * sizeof *paths);
	for (uint32_t i = n - 1; i-- > 0;)
		buffer_add(&body, line, format_frame(line, sizeof line, &frames[i]));
	paths[npaths++] = (struct path){ .body = body.data, .body_len = body.len,
					 .leaf = frames[n - 1] };
}

static void make_paths(const struct thread *th, uint32_t count)
{
	struct user_path *users = xrealloc(NULL, count * sizeof *users);
	struct frame frames[MAX_FRAMES];

	for (uint32_t k = 0; k < count; k++) {
		struct user_path *user = &users[k];
		uint32_t n, total;

		if (th->kind != THREAD_USER) {
			n = root_frames(th, frames);
			frames[n++] = th->kind == THREAD_KWORKER
				? named_frame(kernel_dso, kworker_leaves[rng_below(ARRAY_SIZE(kworker_leaves))])
				: frame_at(kernel_dso, rng_below(ARRAY_SIZE(kernel_names)));
			add_path(frames, n);
			continue;
		}
		user->n = 0;
		if (rng_chance(3)) {
			/* a broken frame-pointer chain: a few frames over 0 [unknown] */
			n = 0;
			frames[n++] = (struct frame){ .dso = NO_DSO, .sym = NO_SYM, .off = 0 };
			for (uint32_t i = rng_range(1, 3); i > 0; i--)
				frames[n++] = user_frame(th, 0, NULL);
			add_path(frames, n);
			continue;
		}
		if (k > 0 && rng_chance(85)) {
			/* share a prefix with an earlier path (a broken one has none) */
			const struct user_path *parent = &users[rng_skewed(k)];
			uint32_t keep = parent->n > 4 ? rng_range(3, parent->n - 1) : 0;

			memcpy(user->frames, parent->frames, keep * sizeof *user->frames);
			user->n = keep;
		}
		if (user->n < 3) {
			user->n = root_frames(th, user->frames);
		}
		total = rng_range(10, 40);
		while (user->n < total - (total > 20 ? 6 : 2) && user->n < MAX_FRAMES - 16)
			user->frames[user->n] = user_frame(th, user->n, &user->frames[user->n - 1]),
			user->n++;
		memcpy(frames, user->frames, user->n * sizeof *frames);
		n = user->n;
		if (rng_chance(30) && n < total)
			n = kernel_tail(frames, n, total - n);
		add_path(frames, n);
	}
	free(users);
}

static void make_all_paths(void)
{
	for (uint32_t t = 0; t < nthreads; t++) {
		struct thread *th = &threads[t];
		uint32_t count = th->kind == THREAD_USER ? 150 + th->weight * 40 : 40;

		th->first = npaths;
		make_paths(th, count);
		th->count = npaths - th->first;
	}
}

/* --- output ------------------------------------------------------------------------------ */

static FILE *out;
static uint64_t written;

static void emit(const char *text, size_t len)
{
	if (fwrite(text, 1, len, out) != len)
		die("write failed: %s", strerror(errno));
	written += len;
}

static void emit_header(unsigned long long seed)
{
	char text[2048];
	int n = snprintf(text, sizeof text,
		"# ========\n"
		"# captured on    : Sat Nov 21 07:15:43 2026\n"
		"# header version : 1\n"
		"# hostname : bench\n"
		"# os release : 6.1.0-13-amd64\n"
		"# perf version : 6.1.187\n"
		"# arch : x86_64\n"
		"# nrcpus online : 4\n"
		"# nrcpus avail : 4\n"
		"# cpudesc : AMD EPYC\n"
		"# total memory : 24684084 kB\n"
		"# cmdline : /usr/bin/perf record -g -a -e cpu-clock -e page-faults -F 4000 "
		"(perfgen --random %llu)\n"
		"# event : name = cpu-clock, , id = { 11, 12, 13, 14 }, type = 1, size = 128, "
		"{ sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD, "
		"read_format = ID|LOST, disabled = 1, inherit = 1, mmap = 1, comm = 1, freq = 1, "
		"task = 1, sample_id_all = 1, exclude_guest = 1, mmap2 = 1, comm_exec = 1\n"
		"# event : name = page-faults, , id = { 15, 16, 17, 18 }, type = 1, size = 128, "
		"config = 0x2, { sample_period, sample_freq } = 4000, "
		"sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD, read_format = ID|LOST, disabled = 1, "
		"inherit = 1, freq = 1, sample_id_all = 1, exclude_guest = 1\n"
		"# pmu mappings: software = 1, uprobe = 8, breakpoint = 5, tracepoint = 2\n"
		"# ========\n"
		"#\n", seed);

	emit(text, (size_t)n);
}

static uint32_t *weights; /* cumulative thread weights */
static uint32_t weight_total;

static uint32_t pick_thread(void)
{
	uint32_t roll = rng_below(weight_total), lo = 0, hi = nthreads - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (weights[mid] > roll)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void emit_samples(uint64_t bytes, int with_pid)
{
	uint64_t usecs = 81234567890u;
	uint64_t samples = 0;
	char text[1024];

	weights = xrealloc(NULL, nthreads * sizeof *weights);
	for (uint32_t t = 0; t < nthreads; t++)
		weights[t] = weight_total += threads[t].weight;
	while (written < bytes) {
		const struct thread *th = &threads[pick_thread()];
		const struct path *path = &paths[th->first + rng_skewed(th->count)];
		int faults = samples > 0 && th->kind == THREAD_USER && rng_chance(3);
		size_t len = 0;
		int n;

		usecs += 1 + rng_below(120);
		if (with_pid)
			n = snprintf(text, sizeof text, "%s %5d/%-5d [%03u] %5" PRIu64 ".%06" PRIu64 ": ",
				     th->comm, th->pid, th->tid, rng_below(4), usecs / 1000000,
				     usecs % 1000000);
		else
			n = snprintf(text, sizeof text, "%s %5d [%03u] %5" PRIu64 ".%06" PRIu64 ": ",
				     th->comm, th->tid, rng_below(4), usecs / 1000000, usecs % 1000000);
		len = (size_t)n;
		if (faults)
			n = snprintf(text + len, sizeof text - len, "%10u page-faults: \n",
				     rng_chance(70) ? 1 : rng_range(2, 300));
		else
			n = snprintf(text + len, sizeof text - len, "%10u   cpu-clock: \n", 250000u);
		len += (size_t)n;
		emit(text, len);
		samples++;
		if (samples % 4099 == 1000) {
			/* a sample whose frames were all lost */
			emit("\n", 1);
			continue;
		}
		{
			struct frame leaf = path->leaf;

			/* hot instructions: up to 32 spots per function, skewed */
			if (leaf.sym != NO_SYM)
				leaf.off = dsos[leaf.dso].syms[leaf.sym].size / 32 * rng_skewed(32) +
					   leaf.off % 8;
			emit(text, format_frame(text, sizeof text, &leaf));
		}
		emit(path->body, path->body_len);
		emit("\n", 1);
	}
}

static uint64_t parse_number(const char *text, const char *what)
{
	char *end;
	unsigned long long value;

	errno = 0;
	value = strtoull(text, &end, 0);
	if (errno || end == text || *end)
		die("%s: not a number: '%s'", what, text);
	return value;
}

int main(int argc, char **argv)
{
	const char *output = NULL;
	uint64_t seed = 0, bytes = 0;
	int have_seed = 0, with_pid = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--random") && i + 1 < argc) {
			seed = parse_number(argv[++i], "--random");
			have_seed = 1;
		} else if (!strcmp(argv[i], "--bytes") && i + 1 < argc) {
			bytes = parse_number(argv[++i], "--bytes");
		} else if (!strcmp(argv[i], "--pid")) {
			with_pid = 1;
		} else if (!output && (argv[i][0] != '-' || !strcmp(argv[i], "-"))) {
			output = argv[i];
		} else {
			output = NULL;
			break;
		}
	}
	if (!have_seed || !bytes || !output) {
		fprintf(stderr, "usage: perfgen --random SEED --bytes N [--pid] OUT|-\n");
		return 2;
	}
	out = strcmp(output, "-") ? fopen(output, "wb") : stdout;
	if (!out)
		die("%s: %s", output, strerror(errno));
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	rng_state = seed;
	make_kernel();
	make_libc();
	make_processes();
	make_all_paths();
	emit_header((unsigned long long)seed);
	emit_samples(bytes, with_pid);
	if (fflush(out) || (out != stdout && fclose(out)))
		die("%s: %s", output, strerror(errno));
	return 0;
}
