/*
 * perf_data_reader.c - reads perf.data, the file of Linux `perf record`
 * (file and pipe modes, either byte order, zstd-compressed records), into
 * the same model that `perf script | profconv -f perf-script` gives.
 *
 * Source: ../shared/research/perfdata.md (the container, records, sample
 * layout, perf's order and how perf script resolves addresses); the
 * container is perf_data_file.c, the DWARF unwinder perf_data_unwind.c;
 * this file keeps the state perf keeps (threads and their names over
 * time, each process's maps with fork inheritance and overlap
 * replacement, the kernel's maps) and maps samples onto the model:
 *   event              -> columns NAME_sample and NAME_event (perf_events.h),
 *                         NAME from EVENT_DESC, in the order of their first
 *                         samples; a sample's weight is its PERIOD field, else
 *                         its attr's sample_period (1 for frequency mode).
 *   callchain          -> the stack, leaf first, the context markers (kernel,
 *                         user...) setting how the entries after them resolve;
 *                         without a callchain, the sample's ip.
 *   address            -> as perf script prints it: in a file mapping of the
 *                         sample's process, the module of that path (and
 *                         build id) in space pid + 1 at the file offset
 *                         (ip - start + pgoff); in [kernel.kallsyms] or
 *                         anonymous memory (module /tmp/perf-PID.map), the
 *                         runtime address; in no mapping, module 0.
 *                         Names come later, from the binaries, as perf
 *                         script's do (symbols/symbolize.h).
 *   KSYMBOL            -> a kernel map named after its symbol (a BPF program),
 *                         whose frames have that name, as perf script shows.
 *   branch stack       -> the sample's branch stack (LBR), newest first, each
 *                         end a runtime address in the module of its map.
 *   labels             -> comm (the thread's name at the time of the
 *                         sample), pid, tid, cpu (when recorded).
 *   header             -> source "perf-data", comments perf-command and
 *                         perf-version, facts perf.hostname, perf.os_release,
 *                         perf.arch, perf.cpudesc, perf.nrcpus_online,
 *                         perf.nrcpus_avail, perf.cmdline;
 *                         duration = last - first sample time.
 *   --call-graph dwarf -> the kernel part of the callchain, then the user
 *                         frames unwound from the sampled registers and stack
 *                         copy (perf_data_unwind.c), callers at return
 *                         address - 1 as perf reports them; a sample not
 *                         unwound to its end keeps what was found (counted).
 * What is lost: each sample's time unless the model keeps times
 * (pc_model_keep_times: --time, cpuprofile output; identical samples merge), raw
 * tracepoint payloads, read values, branch flags and cycles, data
 * addresses, weights and data sources, guest frames (counted in a
 * warning), hardware trace (AUXTRACE: a warning says to decode it with
 * perf script --itrace).
 */
#include "readers/perf_data_file.h"
#include "readers/perf_data_unwind.h"
#include "readers/perf_events.h"

#include "base/index.h"
#include "model/format.h"

#include <linux/perf_event.h>

#define MAX_FRAMES 4096
#define FRAME_CACHE_SLOTS 4096
#define PROT_EXEC_BIT 4
#define MISC_MMAP_DATA (1u << 13)
#define MISC_COMM_EXEC (1u << 13)
#define MISC_MMAP_BUILD_ID (1u << 14)

enum map_kind {
	MAP_FILE,   /* resolved at its file offset */
	MAP_ANON,   /* JIT code: /tmp/perf-PID.map, at its runtime address */
	MAP_KERNEL, /* [kernel.kallsyms] or a kernel module, at its runtime address */
};

struct map {
	uint64_t start, end, pgoff;
	pc_str_id name, build_id;
	pc_str_id function;  /* a KSYMBOL's: the one function of its map */
	enum map_kind kind;
	uint32_t module; /* made on the first frame in it; 0 until then */
};

/* An address space: a process's maps, sorted by start, without overlaps. */
struct space {
	int32_t pid;
	struct map *maps;
	size_t nmaps, cap;
	uint32_t kernel_module; /* [kernel.kallsyms] in this space, once made */
	uint64_t generation;    /* changes with its maps */
};

struct thread {
	int32_t tid, pid;
	pc_str_id comm; /* 0: never named (perf prints ":TID") */
	/* the label set of its last sample, and what it was made of */
	uint32_t labels, labels_cpu;
	int32_t labels_pid;
	pc_str_id labels_comm;
	bool has_labels;
};

/* A slot of the cache (space, cpumode, ip) -> frame id. */
struct cached_frame {
	uint64_t ip, generation;
	uint32_t space, frame;
};

struct event_state {
	bool made;
	size_t column;  /* its entry in the reader's columns */
};

struct pd_reader {
	struct pc_ctx *ctx;
	struct pc_model *m;
	struct pd_file *file;

	struct space kernel;         /* pid -1 maps */
	uint64_t kernel_start;       /* of [kernel.kallsyms]; 0 when unknown */
	struct space *spaces;
	size_t nspaces, spaces_cap;
	struct pc_index space_index; /* pid -> space + 1 */
	struct thread *threads;
	size_t nthreads, threads_cap;
	struct pc_index thread_index; /* tid -> thread + 1 */
	struct pc_index build_id_index; /* path id -> build id, from the BUILD_ID feature */
	pc_str_id *build_id_paths, *build_id_values;
	size_t nbuild_ids;
	uint64_t generation;

	struct event_state *events;  /* per attr */
	struct perf_event_columns *columns; /* in order of first samples */
	size_t ncolumns, columns_cap;

	pc_str_id key_comm, key_pid, key_tid, key_cpu, kernel_name;
	uint32_t *frames;
	struct pc_branch *branches;
	struct cached_frame *cache;
	struct pd_unwinder *unwinder;
	uint64_t *unwound;
	struct pd_unwind_map *unwind_maps;
	size_t unwind_maps_cap;

	bool any_time;
	uint64_t first_time, last_time, samples;
	uint64_t lost, lost_samples, guest_frames, not_unwound, dwarf_samples, aux_records;
	uint64_t truncated_stacks, discarded_chains;
};

/* ---- spaces and threads ---- */

static bool space_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pd_reader *r = ctx;

	return r->spaces[id - 1].pid == *(const int32_t *)key;
}

static struct space *space_of(struct pd_reader *r, int32_t pid)
{
	uint64_t hash = pc_hash_u64((uint32_t)pid);
	uint32_t at;

	if (pid < 0)
		return &r->kernel;
	at = pc_index_find(&r->space_index, hash, space_equal, r, &pid);
	if (at)
		return &r->spaces[at - 1];
	pc_grow(&r->spaces, &r->spaces_cap, r->nspaces + 1, sizeof(*r->spaces));
	r->spaces[r->nspaces] = (struct space){ .pid = pid };
	pc_index_add(&r->space_index, hash, (uint32_t)++r->nspaces);
	return &r->spaces[r->nspaces - 1];
}

static bool thread_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pd_reader *r = ctx;

	return r->threads[id - 1].tid == *(const int32_t *)key;
}

static struct thread *thread_of(struct pd_reader *r, int32_t pid, int32_t tid)
{
	uint64_t hash = pc_hash_u64((uint32_t)tid);
	uint32_t at = pc_index_find(&r->thread_index, hash, thread_equal, r, &tid);

	if (at) {
		if (pid >= 0)
			r->threads[at - 1].pid = pid;
		return &r->threads[at - 1];
	}
	pc_grow(&r->threads, &r->threads_cap, r->nthreads + 1, sizeof(*r->threads));
	r->threads[r->nthreads] = (struct thread){ .tid = tid, .pid = pid };
	if (tid == 0) /* the idle task, as perf names it */
		r->threads[r->nthreads].comm = pc_model_intern_cstr(r->m, "swapper");
	pc_index_add(&r->thread_index, hash, (uint32_t)++r->nthreads);
	return &r->threads[r->nthreads - 1];
}

/* ---- maps ---- */

/* The first map of s ending after address. */
static size_t first_after(const struct space *s, uint64_t address)
{
	size_t lo = 0, hi = s->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].end <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct map *find_map(struct space *s, uint64_t address)
{
	size_t i = first_after(s, address);

	return i < s->nmaps && s->maps[i].start <= address ? &s->maps[i] : NULL;
}

static void insert_map(struct space *s, size_t at, const struct map *map)
{
	pc_grow(&s->maps, &s->cap, s->nmaps + 1, sizeof(*s->maps));
	memmove(s->maps + at + 1, s->maps + at, (s->nmaps - at) * sizeof(*s->maps));
	s->maps[at] = *map;
	s->nmaps++;
}

/* Adds map to s; what it overlaps of older maps is gone (perf's maps__fixup_overlappings). */
static void add_map(struct pd_reader *r, struct space *s, const struct map *map)
{
	size_t i = first_after(s, map->start);

	while (i < s->nmaps && s->maps[i].start < map->end) {
		struct map old = s->maps[i];

		memmove(s->maps + i, s->maps + i + 1, (s->nmaps - i - 1) * sizeof(*s->maps));
		s->nmaps--;
		if (old.start < map->start) {
			struct map before = old;

			before.end = map->start;
			insert_map(s, i++, &before);
		}
		if (old.end > map->end) {
			struct map after = old;

			after.pgoff += map->end - old.start;
			after.start = map->end;
			insert_map(s, i, &after);
			break;
		}
	}
	insert_map(s, first_after(s, map->start), map);
	s->generation = ++r->generation;
}

/* Where perf looks for the JIT symbols of a process's anonymous code. */
static pc_str_id perf_map_name(struct pd_reader *r, int32_t pid)
{
	char text[64];

	snprintf(text, sizeof(text), "/tmp/perf-%d.map", (int)pid);
	return pc_model_intern_cstr(r->m, text);
}

/* perf's name for the dso of a mapped file (util/map.c map__new). */
static pc_str_id dso_name(struct pd_reader *r, const char *path, size_t len, int32_t pid,
			  enum map_kind *kind)
{
	if ((len == 6 && !memcmp(path, "//anon", 6)) || (len >= 9 && !memcmp(path, "/dev/zero", 9)) ||
	    (len >= 14 && !memcmp(path, "/anon_hugepage", 14))) {
		*kind = MAP_ANON;
		return perf_map_name(r, pid);
	}
	if (len >= 17 && !memcmp(path, "[kernel.kallsyms]", 17)) {
		*kind = MAP_KERNEL;
		return r->kernel_name;
	}
	return pc_model_intern(r->m, path, len);
}

/* perf's name of a kernel module's map: "[NAME]" of /lib/modules/.../NAME.ko[.xz], '-' as '_'. */
static pc_str_id module_name(struct pd_reader *r, const char *path, size_t len)
{
	const char *base = path, *dot;
	char text[80];
	size_t n;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	dot = memchr(base, '.', len - (size_t)(base - path));
	n = (size_t)((dot ? dot : path + len) - base);
	if (n > sizeof(text) - 3)
		n = sizeof(text) - 3;
	text[0] = '[';
	for (size_t i = 0; i < n; i++)
		text[1 + i] = base[i] == '-' ? '_' : base[i];
	text[1 + n] = ']';
	return pc_model_intern(r->m, text, n + 2);
}

static bool build_id_path_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pd_reader *r = ctx;

	return r->build_id_paths[id - 1] == *(const pc_str_id *)key;
}

static pc_str_id recorded_build_id(const struct pd_reader *r, pc_str_id path)
{
	uint32_t at = pc_index_find(&r->build_id_index, pc_hash_u64(path), build_id_path_equal, r,
				    &path);

	return at ? r->build_id_values[at - 1] : 0;
}

/* The BUILD_ID feature: build ids by path (the kernel's under [kernel.kallsyms]). */
static void index_build_ids(struct pd_reader *r)
{
	const struct pd_features *ft = pd_file_features(r->file);

	r->build_id_paths = pc_xcalloc(ft->nbuild_ids + 1, sizeof(*r->build_id_paths));
	r->build_id_values = pc_xcalloc(ft->nbuild_ids + 1, sizeof(*r->build_id_values));
	for (size_t i = 0; i < ft->nbuild_ids; i++) {
		const struct pd_build_id *b = &ft->build_ids[i];
		pc_str_id path = pc_model_intern_cstr(r->m, b->path);

		if (!b->hex[0] || recorded_build_id(r, path))
			continue;
		r->build_id_paths[r->nbuild_ids] = path;
		r->build_id_values[r->nbuild_ids++] = pc_model_intern_cstr(r->m, b->hex);
		pc_index_add(&r->build_id_index, pc_hash_u64(path), (uint32_t)r->nbuild_ids);
	}
}

static pc_str_id hex_build_id(struct pd_reader *r, const uint8_t *id, size_t len)
{
	char hex[2 * 20 + 1];

	for (size_t i = 0; i < len && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return len ? pc_model_intern(r->m, hex, 2 * (len < 20 ? len : 20)) : 0;
}

/* MMAP {pid, tid; addr, len, pgoff; filename} and MMAP2 {...; maj/min/ino or build id; prot, flags; filename}. */
static int on_mmap(struct pd_reader *r, const struct pd_record *rec)
{
	struct pd_file *f = r->file;
	bool v2 = rec->type == PERF_RECORD_MMAP2;
	size_t fixed = v2 ? 8 + 24 + 24 + 8 : 8 + 24, body = rec->size - 8u, name_len;
	const char *name;
	int32_t pid;
	struct map map = { 0 };
	uint64_t len;

	if (body < fixed + 1)
		return pd_fail_record(f, rec, "%zu bytes: too short for its fields and file name",
				      body);
	pid = (int32_t)pd_u32(f, rec->body);
	map.start = pd_u64(f, rec->body + 8);
	len = pd_u64(f, rec->body + 16);
	map.pgoff = pd_u64(f, rec->body + 24);
	map.end = len > UINT64_MAX - map.start ? UINT64_MAX : map.start + len;
	name = (const char *)rec->body + fixed;
	name_len = strnlen(name, body - fixed);
	if (!len || (pid >= 0 && (v2 ? !(pd_u32(f, rec->body + 56) & PROT_EXEC_BIT)
				      : (rec->misc & MISC_MMAP_DATA) != 0)))
		return 0; /* data: no code runs there */
	map.name = dso_name(r, name, name_len, pid, &map.kind);
	if (pid < 0 && map.kind == MAP_FILE) { /* a kernel module */
		map.kind = MAP_KERNEL;
		map.name = module_name(r, name, name_len);
	}
	if (v2 && (rec->misc & MISC_MMAP_BUILD_ID))
		map.build_id = hex_build_id(r, rec->body + 36, rec->body[32] < 20 ? rec->body[32] : 20);
	if (!map.build_id)
		map.build_id = recorded_build_id(r, map.kind == MAP_KERNEL && map.name == r->kernel_name
						 ? r->kernel_name : pc_model_intern(r->m, name, name_len));
	if (map.name == r->kernel_name) {
		r->kernel_start = map.start;
		map.end = UINT64_MAX; /* perf: up to the next kernel map */
	}
	add_map(r, pid < 0 ? &r->kernel : space_of(r, pid), &map);
	return 0;
}

/*
 * KSYMBOL {addr; u32 len; u16 type, flags; name}: kernel code outside
 * kallsyms' knowledge (BPF programs, trampolines), a map named after its
 * one symbol as perf makes it; flags 1 unregisters it.
 */
static int on_ksymbol(struct pd_reader *r, const struct pd_record *rec)
{
	struct pd_file *f = r->file;
	size_t body = rec->size - 8u, name_len;
	struct map map = { .kind = MAP_KERNEL };
	uint32_t len;

	if (body < 17)
		return pd_fail_record(f, rec, "%zu bytes: too short for an address, length, type, "
				      "flags and name", body);
	map.start = pd_u64(f, rec->body);
	len = pd_u32(f, rec->body + 8);
	map.end = len > UINT64_MAX - map.start ? UINT64_MAX : map.start + len;
	name_len = strnlen((const char *)rec->body + 16, body - 16);
	if (pd_u16(f, rec->body + 14) & 1) { /* unregistered: its range is the kernel's again */
		struct map *old = find_map(&r->kernel, map.start);

		if (old && old->function && old->start == map.start) {
			size_t at = (size_t)(old - r->kernel.maps);

			memmove(old, old + 1, (r->kernel.nmaps - at - 1) * sizeof(*old));
			r->kernel.nmaps--;
			r->kernel.generation = ++r->generation;
		}
		return 0;
	}
	if (!len || !name_len)
		return 0;
	map.name = map.function = pc_model_intern(r->m, rec->body + 16, name_len);
	add_map(r, &r->kernel, &map);
	return 0;
}

/* COMM {pid, tid; comm}: a thread's (new) name. */
static int on_comm(struct pd_reader *r, const struct pd_record *rec)
{
	size_t body = rec->size - 8u;
	struct thread *t;

	if (body < 9)
		return pd_fail_record(r->file, rec, "%zu bytes: too short for a pid, tid and name",
				      body);
	t = thread_of(r, (int32_t)pd_u32(r->file, rec->body), (int32_t)pd_u32(r->file, rec->body + 4));
	t->comm = pc_model_intern(r->m, rec->body + 8, strnlen((const char *)rec->body + 8,
							       body - 8));
	return 0;
}

/* FORK {pid, ppid, tid, ptid; time}: a new thread named as its parent; a new process gets a copy of its maps. */
static int on_fork(struct pd_reader *r, const struct pd_record *rec)
{
	struct pd_file *f = r->file;
	int32_t pid, ppid, tid, ptid;
	pc_str_id comm;
	struct space *child, *parent;

	if (rec->size - 8u < 16)
		return pd_fail_record(f, rec, "too short for pid, ppid, tid and ptid");
	pid = (int32_t)pd_u32(f, rec->body);
	ppid = (int32_t)pd_u32(f, rec->body + 4);
	tid = (int32_t)pd_u32(f, rec->body + 8);
	ptid = (int32_t)pd_u32(f, rec->body + 12);
	comm = thread_of(r, ppid, ptid)->comm;
	thread_of(r, pid, tid)->comm = comm;
	if (pid == ppid || pid < 0 || ppid < 0)
		return 0;
	space_of(r, pid); /* made first: making the parent's cannot move it then */
	parent = space_of(r, ppid);
	child = space_of(r, pid);
	/* a new process (its pid maybe reused): the parent's maps, nothing older */
	child->nmaps = 0;
	child->kernel_module = 0;
	pc_grow(&child->maps, &child->cap, parent->nmaps + 1, sizeof(*child->maps));
	for (size_t i = 0; i < parent->nmaps; i++) {
		struct map map = parent->maps[i];

		map.module = 0; /* another space */
		if (map.kind == MAP_ANON)
			map.name = perf_map_name(r, pid);
		child->maps[child->nmaps++] = map;
	}
	child->generation = ++r->generation;
	return 0;
}

/* ---- frames ---- */

/* The model module of a map in space s (pid + 1, as perf script's reader makes them). */
static uint32_t module_of(struct pd_reader *r, const struct space *s, const struct map *map)
{
	struct pc_module module = {
		.name = map->name, .build_id = map->build_id,
		.space = s->pid >= 0 ? (uint32_t)s->pid + 1 : 0,
		.start = map->start, .limit = map->end, .file_offset = map->pgoff, .has_range = true,
	};

	return pc_model_add_module(r->m, &module);
}

static uint32_t map_module(struct pd_reader *r, struct space *s, struct map *map)
{
	if (!map->module)
		map->module = module_of(r, s, map);
	return map->module;
}

/* [kernel.kallsyms] in s's space, with the kernel's range; a kernel module or KSYMBOL's own. */
static uint32_t kernel_module(struct pd_reader *r, struct space *s, struct map *map)
{
	if (map->name != r->kernel_name)
		return module_of(r, s, map);
	if (!s->kernel_module)
		s->kernel_module = module_of(r, s, map);
	return s->kernel_module;
}

static bool is_kernel_mode(unsigned cpumode)
{
	return cpumode == PERF_RECORD_MISC_KERNEL;
}

static bool is_guest_mode(unsigned cpumode)
{
	return cpumode == PERF_RECORD_MISC_GUEST_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_USER;
}

/* The frame of ip in space s, as perf script resolves it (util/event.c thread__find_map). */
static uint32_t resolve_frame(struct pd_reader *r, struct space *s, unsigned cpumode, uint64_t ip,
			      uint32_t flags)
{
	struct pc_frame frame = { .flags = PC_FRAME_HAS_ADDRESS | flags, .address = ip };
	struct map *map = NULL;

	if (is_kernel_mode(cpumode) ||
	    (cpumode == PERF_RECORD_MISC_USER && r->kernel_start && ip >= r->kernel_start &&
	     !find_map(s, ip)))
		map = find_map(&r->kernel, ip);
	else if (cpumode == PERF_RECORD_MISC_USER)
		map = find_map(s, ip); /* the hypervisor and guests have no maps (perf) */
	if (!map) {
		frame.flags |= PC_FRAME_ABSOLUTE;
	} else if (map->kind == MAP_KERNEL) {
		frame.module = kernel_module(r, s, map);
		frame.function = map->function;
		frame.flags |= PC_FRAME_ABSOLUTE;
	} else {
		frame.module = map_module(r, s, map);
		if (map->kind == MAP_ANON)
			frame.flags |= PC_FRAME_ABSOLUTE;
		else
			frame.address = ip - map->start + map->pgoff;
	}
	return pc_model_add_frame(r->m, &frame);
}

/* The frame of ip, through a small cache; flags: PC_FRAME_UNWOUND for DWARF-unwound frames. */
static uint32_t frame_for(struct pd_reader *r, struct space *s, unsigned cpumode, uint64_t ip,
			  uint32_t flags)
{
	uint64_t key = ip ^ (uint64_t)cpumode << 56 ^ (uint64_t)flags << 60;
	uint32_t space = (uint32_t)s->pid;
	struct cached_frame *slot =
		&r->cache[(pc_hash_u64(key) ^ space) & (FRAME_CACHE_SLOTS - 1)];
	uint64_t generation = s->generation ^ r->kernel.generation << 32;

	if (is_guest_mode(cpumode))
		r->guest_frames++;
	if (slot->frame && slot->ip == key && slot->space == space &&
	    slot->generation == generation)
		return slot->frame;
	*slot = (struct cached_frame){
		.ip = key, .space = space, .generation = generation,
		.frame = resolve_frame(r, s, cpumode, ip, flags),
	};
	return slot->frame;
}

/* ---- samples ---- */

static struct perf_event_columns *columns_of(struct pd_reader *r, const struct pd_record *rec)
{
	struct event_state *ev = &r->events[rec->attr];
	const char *name;

	if (ev->made)
		return &r->columns[ev->column];
	name = pd_file_event_name(r->file, (size_t)rec->attr);
	pc_grow(&r->columns, &r->columns_cap, r->ncolumns + 1, sizeof(*r->columns));
	if (perf_event_columns_add(r->m, name, strlen(name), &r->columns[r->ncolumns]))
		return NULL;
	ev->made = true;
	ev->column = r->ncolumns++;
	return &r->columns[ev->column];
}

static uint32_t labels_for(struct pd_reader *r, const struct pd_attr *a, const struct pd_sample *s,
			   const struct thread *t)
{
	struct pc_label labels[4];
	size_t n = 0;
	char unnamed[24];
	pc_str_id comm = t ? t->comm : 0;

	if (!(a->sample_type & PERF_SAMPLE_TID))
		return 0;
	if (!comm) {
		snprintf(unnamed, sizeof(unnamed), ":%d", (int)(int32_t)s->tid);
		comm = pc_model_intern_cstr(r->m, unnamed);
	}
	labels[n++] = (struct pc_label){ .key = r->key_comm, .str = comm };
	labels[n++] = (struct pc_label){ .key = r->key_pid, .num = (int32_t)s->pid,
					 .unit = r->key_pid };
	labels[n++] = (struct pc_label){ .key = r->key_tid, .num = (int32_t)s->tid,
					 .unit = r->key_tid };
	if (a->sample_type & PERF_SAMPLE_CPU)
		labels[n++] = (struct pc_label){ .key = r->key_cpu, .num = s->cpu,
						 .unit = r->key_cpu };
	return pc_model_add_labels(r->m, labels, n);
}

/* The label set of a sample, through its thread's last one. */
static uint32_t thread_labels(struct pd_reader *r, const struct pd_attr *a,
			      const struct pd_sample *s, struct thread *t)
{
	uint32_t cpu = (a->sample_type & PERF_SAMPLE_CPU) ? s->cpu : UINT32_MAX;

	if (!t)
		return labels_for(r, a, s, t);
	if (!t->has_labels || t->labels_comm != t->comm || t->labels_cpu != cpu ||
	    t->labels_pid != (int32_t)s->pid) {
		t->labels = labels_for(r, a, s, t);
		t->labels_comm = t->comm;
		t->labels_cpu = cpu;
		t->labels_pid = (int32_t)s->pid;
		t->has_labels = true;
	}
	return t->labels;
}

/* The callchain, leaf first; markers set the cpumode of the entries after them. */
static size_t callchain_frames(struct pd_reader *r, struct space *sp, const struct pd_sample *s,
			       bool *user_part)
{
	unsigned cpumode = PERF_RECORD_MISC_USER;
	size_t n = 0;

	*user_part = false;
	for (uint64_t i = 0; i < s->nr_callchain; i++) {
		uint64_t ip = pd_u64(r->file, s->callchain + 8 * i);

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			switch (ip) {
			case (uint64_t)PERF_CONTEXT_HV:
				cpumode = PERF_RECORD_MISC_HYPERVISOR;
				break;
			case (uint64_t)PERF_CONTEXT_KERNEL:
				cpumode = PERF_RECORD_MISC_KERNEL;
				break;
			case (uint64_t)PERF_CONTEXT_USER:
				cpumode = PERF_RECORD_MISC_USER;
				*user_part = true;
				break;
			default: /* guest or unknown: perf 6.1 discards the whole chain */
				r->discarded_chains++;
				*user_part = true; /* nothing to unwind either */
				return 0;
			}
			continue;
		}
		if (n == MAX_FRAMES) {
			r->truncated_stacks++;
			break;
		}
		r->frames[n++] = frame_for(r, sp, cpumode, ip, 0);
	}
	return n;
}

/* The process's file maps, for the unwinder. */
static size_t unwind_maps(struct pd_reader *r, const struct space *sp)
{
	size_t n = 0;

	pc_grow(&r->unwind_maps, &r->unwind_maps_cap, sp->nmaps + 1, sizeof(*r->unwind_maps));
	for (size_t i = 0; i < sp->nmaps; i++) {
		const struct map *map = &sp->maps[i];

		if (map->kind != MAP_FILE)
			continue;
		r->unwind_maps[n++] = (struct pd_unwind_map){
			.start = map->start, .end = map->end, .pgoff = map->pgoff,
			.path = pc_str(r->m, map->name),
		};
	}
	return n;
}

/* --call-graph dwarf: the user frames unwound from the sampled registers and stack. */
static size_t dwarf_frames(struct pd_reader *r, struct space *sp, const struct pd_attr *a,
			   const struct pd_sample *s, size_t n)
{
	bool complete = false;
	size_t got = 0;
	uint64_t regs[64];

	r->dwarf_samples++;
	if (s->regs && s->nregs <= PC_ARRAY_SIZE(regs)) {
		for (unsigned i = 0; i < s->nregs; i++)
			regs[i] = pd_u64(r->file, s->regs + 8 * i);
		if (!r->unwinder) {
			r->unwinder = pd_unwinder_new();
			pd_unwinder_set_callers_minus_one(r->unwinder, true); /* as perf's */
		}
		size_t nmaps = unwind_maps(r, sp); /* may move r->unwind_maps: first */

		got = pd_unwind(r->unwinder, sp->pid, sp->generation, r->unwind_maps,
				nmaps, a->sample_regs_user, regs, s->stack,
				(size_t)s->stack_dyn_size, r->unwound, MAX_FRAMES - n, &complete);
	}
	if (!got && s->cpumode == PERF_RECORD_MISC_USER) {
		r->unwound[0] = s->ip;
		got = 1;
	}
	if (!complete)
		r->not_unwound++;
	for (size_t i = 0; i < got; i++)
		r->frames[n + i] = frame_for(r, sp, PERF_RECORD_MISC_USER, r->unwound[i],
					     PC_FRAME_UNWOUND);
	return n + got;
}

/* A branch end: the runtime address, in the module of its map (brstack, as perf script's reader takes it). */
static uint32_t branch_end(struct pd_reader *r, struct space *s, uint64_t ip)
{
	struct pc_frame frame = { .flags = PC_FRAME_HAS_ADDRESS | PC_FRAME_ABSOLUTE, .address = ip };
	bool kernel = r->kernel_start && ip >= r->kernel_start && !find_map(s, ip);
	struct map *map = kernel ? find_map(&r->kernel, ip) : find_map(s, ip);

	if (map)
		frame.module = map->kind == MAP_KERNEL ? kernel_module(r, s, map)
						       : map_module(r, s, map);
	return pc_model_add_frame(r->m, &frame);
}

/* The branch stack (LBR), newest first, as {from, to} frame pairs. */
static uint32_t branch_stack(struct pd_reader *r, struct space *s, const struct pd_sample *smp)
{
	size_t n = smp->nr_branches < MAX_FRAMES / 2 ? (size_t)smp->nr_branches : MAX_FRAMES / 2;

	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = smp->branches + 24 * i;

		r->branches[i].from = branch_end(r, s, pd_u64(r->file, e));
		r->branches[i].to = branch_end(r, s, pd_u64(r->file, e + 8));
	}
	return n ? pc_model_add_branches(r->m, r->branches, n) : 0;
}

static bool is_dwarf_mode(const struct pd_attr *a)
{
	return (a->sample_type & PERF_SAMPLE_REGS_USER) && (a->sample_type & PERF_SAMPLE_STACK_USER) &&
	       a->exclude_callchain_user;
}

static void note_time(struct pd_reader *r, uint64_t time)
{
	if (!time)
		return;
	if (!r->any_time || time < r->first_time)
		r->first_time = time;
	if (!r->any_time || time > r->last_time)
		r->last_time = time;
	r->any_time = true;
}

/* Adds a sample to the two columns of its event, at the record's time when it has one. */
static int add_sample(struct pd_reader *r, const struct pd_attr *a, const struct pd_sample *s,
		      const struct pc_sample *sample, const struct perf_event_columns *ev)
{
	const struct pc_column_count counts[2] = {
		{ (size_t)ev->col_sample, 1 }, { (size_t)ev->col_event, s->period },
	};
	int64_t time = (int64_t)s->time;
	bool timed = (a->sample_type & PERF_SAMPLE_TIME) && s->time <= (uint64_t)INT64_MAX;

	return pc_model_add_sample_counts(r->m, sample, counts, 2, timed ? &time : NULL);
}

static int on_sample(struct pd_reader *r, const struct pd_record *rec)
{
	const struct pd_attr *a = pd_file_attr(r->file, (size_t)rec->attr);
	struct perf_event_columns *ev;
	struct pd_sample s;
	struct thread *t = NULL;
	struct space *sp;
	struct pc_sample sample = { 0 };
	size_t n;
	bool user_part = false;

	if (pd_parse_sample(r->file, rec, &s))
		return -1;
	ev = columns_of(r, rec);
	if (!ev)
		return pd_fail_record(r->file, rec, "more than %d value columns", PC_MAX_COLUMNS);
	if (a->sample_type & PERF_SAMPLE_TID)
		t = thread_of(r, (int32_t)s.pid, (int32_t)s.tid);
	sp = space_of(r, (a->sample_type & PERF_SAMPLE_TID) ? (int32_t)s.pid : 0);
	if (a->sample_type & PERF_SAMPLE_CALLCHAIN)
		n = callchain_frames(r, sp, &s, &user_part);
	else
		n = (r->frames[0] = frame_for(r, sp, s.cpumode, s.ip, 0), 1);
	if (is_dwarf_mode(a) && !user_part)
		n = dwarf_frames(r, sp, a, &s, n);
	sample.labels = thread_labels(r, a, &s, t);
	sample.branches = branch_stack(r, sp, &s);
	sample.stack = pc_model_add_stack(r->m, r->frames, n);
	if (add_sample(r, a, &s, &sample, ev))
		return pd_fail_record(r->file, rec, "the counts of event '%s' pass 2^63-1",
				      pc_str(r->m, ev->name));
	perf_event_note(ev, true, s.period, 1, s.period);
	if (pc_model_default_column(r->m) < 0)
		pc_model_set_default_column(r->m, ev->col_event);
	note_time(r, s.time);
	r->samples++;
	return 0;
}

/* ---- records ---- */

static int on_record(void *data, const struct pd_record *rec)
{
	struct pd_reader *r = data;
	size_t body = rec->size - 8u;

	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		return on_sample(r, rec);
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return on_mmap(r, rec);
	case PERF_RECORD_COMM:
		return on_comm(r, rec);
	case PERF_RECORD_FORK:
		return on_fork(r, rec);
	case PERF_RECORD_KSYMBOL:
		return on_ksymbol(r, rec);
	case PERF_RECORD_LOST:
		if (body >= 16)
			r->lost += pd_u64(r->file, rec->body + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (body >= 8)
			r->lost_samples += pd_u64(r->file, rec->body);
		return 0;
	case PD_AUXTRACE:
	case PD_AUXTRACE_INFO:
		r->aux_records++;
		return 0;
	default:
		return 0;
	}
}

/* ---- the end ---- */

static void add_facts(struct pd_reader *r)
{
	const struct pd_features *ft = pd_file_features(r->file);
	char number[24];

	pc_model_add_source(r->m, PD_FORMAT);
	if (ft->cmdline) {
		pc_model_add_comment(r->m, "perf-command:%s", ft->cmdline);
		pc_model_add_fact(r->m, "perf.cmdline", ft->cmdline);
	}
	if (ft->version)
		pc_model_add_comment(r->m, "perf-version:%s", ft->version);
	if (ft->hostname)
		pc_model_add_fact(r->m, "perf.hostname", ft->hostname);
	if (ft->osrelease)
		pc_model_add_fact(r->m, "perf.os_release", ft->osrelease);
	if (ft->version)
		pc_model_add_fact(r->m, "perf.perf_version", ft->version);
	if (ft->arch)
		pc_model_add_fact(r->m, "perf.arch", ft->arch);
	if (ft->cpudesc)
		pc_model_add_fact(r->m, "perf.cpudesc", ft->cpudesc);
	if (ft->has_nrcpus) {
		snprintf(number, sizeof(number), "%u", ft->nr_cpus_online);
		pc_model_add_fact(r->m, "perf.nrcpus_online", number);
		snprintf(number, sizeof(number), "%u", ft->nr_cpus_avail);
		pc_model_add_fact(r->m, "perf.nrcpus_avail", number);
	}
}

static int unknown_records(const struct pd_reader *r)
{
	const uint64_t *census = pd_file_census(r->file);
	uint64_t n = census[PD_RECORD_TYPES];

	for (uint32_t type = 0; type < PD_RECORD_TYPES; type++)
		if (!pd_record_name(type))
			n += census[type];
	return n ? pc_warn(r->ctx, PD_FORMAT, "%llu record(s) of types this reader does not know "
			   "were skipped", (unsigned long long)n) : 0;
}

static int finish(struct pd_reader *r)
{
	perf_events_finish(r->m, r->columns, r->ncolumns);
	add_facts(r);
	if (r->any_time && r->last_time > r->first_time && !pc_model_duration_nanos(r->m) &&
	    r->last_time - r->first_time <= (uint64_t)INT64_MAX)
		pc_model_set_time(r->m, pc_model_time_nanos(r->m),
				  (int64_t)(r->last_time - r->first_time));
	if (r->lost || r->lost_samples) {
		pc_model_add_comment(r->m, "perf-data: the input reports %llu lost events and %llu "
				     "lost samples", (unsigned long long)r->lost,
				     (unsigned long long)r->lost_samples);
		if (pc_warn(r->ctx, PD_FORMAT, "perf lost %llu events and %llu samples while "
			    "recording (LOST, LOST_SAMPLES records): the profile lacks them",
			    (unsigned long long)r->lost, (unsigned long long)r->lost_samples))
			return -1;
	}
	if (r->aux_records &&
	    pc_warn(r->ctx, PD_FORMAT, "%llu AUXTRACE record(s): hardware trace data (Intel PT, "
		    "CoreSight) is not decoded here; decode it with perf script --itrace=... and "
		    "read that text (-f perf-script)", (unsigned long long)r->aux_records))
		return -1;
	if (r->not_unwound &&
	    pc_warn(r->ctx, PD_FORMAT, "%llu of %llu DWARF call-graph sample(s) could not be "
		    "unwound to the end of their stack: they keep the frames found",
		    (unsigned long long)r->not_unwound, (unsigned long long)r->dwarf_samples))
		return -1;
	if (r->guest_frames) /* kept as they are: a notice */
		pc_notice(r->ctx, PD_FORMAT, "%llu guest frame(s) (a virtual machine's): kept as "
			  "unknown addresses", (unsigned long long)r->guest_frames);
	if (r->discarded_chains &&
	    pc_warn(r->ctx, PD_FORMAT, "%llu callchain(s) with a guest or unknown context "
		    "marker: discarded, as perf does (those samples have no frames)",
		    (unsigned long long)r->discarded_chains))
		return -1;
	if (r->truncated_stacks &&
	    pc_warn(r->ctx, PD_FORMAT, "%llu callchain(s) longer than %d frames were cut",
		    (unsigned long long)r->truncated_stacks, MAX_FRAMES))
		return -1;
	if (!r->samples)
		pc_notice(r->ctx, PD_FORMAT, "no samples in the input");
	return unknown_records(r);
}

static void reader_init(struct pd_reader *r, struct pc_ctx *ctx, struct pc_model *m,
			struct pd_file *file)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	r->m = m;
	r->file = file;
	r->kernel.pid = -1;
	pc_index_init(&r->space_index);
	pc_index_init(&r->thread_index);
	pc_index_init(&r->build_id_index);
	r->key_comm = pc_model_intern_cstr(m, "comm");
	r->key_pid = pc_model_intern_cstr(m, "pid");
	r->key_tid = pc_model_intern_cstr(m, "tid");
	r->key_cpu = pc_model_intern_cstr(m, "cpu");
	r->kernel_name = pc_model_intern_cstr(m, "[kernel.kallsyms]");
	r->frames = pc_xmalloc(MAX_FRAMES * sizeof(*r->frames));
	r->branches = pc_xmalloc(MAX_FRAMES / 2 * sizeof(*r->branches));
	r->unwound = pc_xmalloc(MAX_FRAMES * sizeof(*r->unwound));
	r->cache = pc_xcalloc(FRAME_CACHE_SLOTS, sizeof(*r->cache));
	r->events = pc_xcalloc(PD_MAX_ATTRS, sizeof(*r->events));
}

static void reader_release(struct pd_reader *r)
{
	for (size_t i = 0; i < r->nspaces; i++)
		free(r->spaces[i].maps);
	free(r->spaces);
	free(r->kernel.maps);
	pc_index_release(&r->space_index);
	free(r->threads);
	pc_index_release(&r->thread_index);
	pc_index_release(&r->build_id_index);
	free(r->build_id_paths);
	free(r->build_id_values);
	free(r->events);
	free(r->columns);
	free(r->frames);
	free(r->branches);
	free(r->unwound);
	free(r->cache);
	free(r->unwind_maps);
	pd_unwinder_free(r->unwinder);
}

static int perf_data_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct pd_file *file = pd_file_new(ctx, in);
	struct pd_reader r;
	int ret;

	reader_init(&r, ctx, m, file);
	ret = pd_file_open(file);
	if (!ret) {
		index_build_ids(&r);
		ret = pd_file_records(file, on_record, &r);
	}
	if (!ret)
		ret = finish(&r);
	if (!ret)
		pc_model_want_names(m);
	reader_release(&r);
	pd_file_free(file);
	return ret;
}

/* ---- probe ---- */

static int perf_data_probe(const uint8_t *head, size_t len)
{
	if (len < 8)
		return PC_PROBE_NO;
	if (pc_le64(head) == PD_MAGIC || ((uint64_t)pc_be32(head) << 32 | pc_be32(head + 4)) == PD_MAGIC)
		return PC_PROBE_CERTAIN;
	return PC_PROBE_NO;
}

int pd_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views);

static const char *const perf_data_aliases[] = { "perf.data", "perfdata", NULL };
static const char *const perf_data_extensions[] = { ".data", NULL };

const struct pc_reader pc_perf_data_reader = {
	.name = "perf-data",
	.aliases = perf_data_aliases,
	.extensions = perf_data_extensions,
	.summary = "Linux perf.data of perf record (file and pipe modes, zstd, DWARF call graphs)",
	.provides = PC_PART_ADDRESSES | PC_PART_STACKS | PC_PART_BRANCHES,
	.probe = perf_data_probe,
	.read = perf_data_read,
	.info = pd_info,
};
