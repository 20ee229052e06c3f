/*
 * perf_data_file.c - the perf.data container: header, attrs, features,
 * records in perf's order, zstd. See perf_data_file.h.
 */
#define _DEFAULT_SOURCE 1 /* pread */
#include "readers/perf_data_file.h"

#include "base/index.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <unistd.h>
#include <zstd.h>

#define FILE_HEADER_BYTES 104
#define PIPE_HEADER_BYTES 16
#define ATTR_VER0_BYTES 64
#define MAX_FEATURE_BYTES ((uint64_t)64 << 20)
#define MAX_BUILD_ID_BYTES 20
#define BRANCH_COUNTERS (1ULL << 19) /* PERF_SAMPLE_BRANCH_COUNTERS, kernel 6.8 */
#define MISC_BUILD_ID_SIZE (1u << 15)
/*
 * Then the records up to the midpoint of their times go, as perf's
 * OE_FLUSH__HALF (perf script itself sets no bound: its order can differ
 * from this one past 64 MiB of records without a FINISHED_ROUND).
 */
#define QUEUE_MAX_BYTES ((size_t)64 << 20)

/* A record waiting in the queue for its turn (perf's ordered_events). */
struct pending {
	uint64_t time, seq;
	size_t at;               /* of its bytes in the queue */
	uint32_t size;
	uint64_t offset;
	bool compressed;
	int attr;
};

struct pd_file {
	struct pc_ctx *ctx;
	struct pc_input *in;
	bool big_endian, pipe;
	uint64_t attr_size;
	uint64_t attrs_offset, attrs_size, data_offset, data_size, data_end;
	uint64_t feature_bits[PD_FEAT_BITS / 64];

	struct pd_attr *attrs;
	size_t nattrs, attrs_cap;
	struct pc_index id_index;   /* sample id -> attr index + 1 */
	uint64_t *id_keys;
	uint32_t *id_attrs;
	size_t nids, ids_cap;

	struct pd_features feat;
	uint64_t census[PD_RECORD_TYPES + 1];

	pd_record_fn fn;
	void *fn_data;

	uint8_t *queue, *spare;     /* the bytes of the pending records */
	size_t queue_len, queue_cap, spare_cap;
	struct pending *pending;
	size_t npending, pending_cap;
	uint64_t seq, max_time, flush_limit;

	ZSTD_DStream *zstd;
	uint8_t *zout;              /* decompressed bytes not yet handed on */
	size_t zlen, zcap;
	uint64_t zbytes;
};

/* ---- loads ---- */

uint16_t pd_u16(const struct pd_file *f, const uint8_t *p)
{
	return f->big_endian ? (uint16_t)(p[0] << 8 | p[1]) : pc_le16(p);
}

uint32_t pd_u32(const struct pd_file *f, const uint8_t *p)
{
	return f->big_endian ? pc_be32(p) : pc_le32(p);
}

uint64_t pd_u64(const struct pd_file *f, const uint8_t *p)
{
	return f->big_endian ? (uint64_t)pc_be32(p) << 32 | pc_be32(p + 4) : pc_le64(p);
}

/* perf_event_attr's bit-field word: big-endian files allocate it from each byte's top bit. */
static uint64_t attr_bits(const struct pd_file *f, const uint8_t *p)
{
	uint8_t bytes[8];

	for (int i = 0; i < 8; i++) {
		uint8_t b = p[i], r = 0;

		for (int bit = 0; bit < 8; bit++)
			r |= (uint8_t)(((b >> bit) & 1) << (7 - bit));
		bytes[i] = f->big_endian ? r : b;
	}
	return pc_le64(bytes);
}

/* ---- errors ---- */

static const char *const record_names[] = {
	[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST", [PERF_RECORD_COMM] = "COMM",
	[PERF_RECORD_EXIT] = "EXIT", [PERF_RECORD_THROTTLE] = "THROTTLE",
	[PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE", [PERF_RECORD_FORK] = "FORK",
	[PERF_RECORD_READ] = "READ", [PERF_RECORD_SAMPLE] = "SAMPLE",
	[PERF_RECORD_MMAP2] = "MMAP2", [PERF_RECORD_AUX] = "AUX",
	[PERF_RECORD_ITRACE_START] = "ITRACE_START", [PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
	[PERF_RECORD_SWITCH] = "SWITCH", [PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
	[PERF_RECORD_NAMESPACES] = "NAMESPACES", [PERF_RECORD_KSYMBOL] = "KSYMBOL",
	[PERF_RECORD_BPF_EVENT] = "BPF_EVENT", [PERF_RECORD_CGROUP] = "CGROUP",
	[PERF_RECORD_TEXT_POKE] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[PD_HEADER_ATTR] = "HEADER_ATTR", [PD_HEADER_EVENT_TYPE] = "HEADER_EVENT_TYPE",
	[PD_HEADER_TRACING_DATA] = "HEADER_TRACING_DATA", [PD_HEADER_BUILD_ID] = "HEADER_BUILD_ID",
	[PD_FINISHED_ROUND] = "FINISHED_ROUND", [PD_ID_INDEX] = "ID_INDEX",
	[PD_AUXTRACE_INFO] = "AUXTRACE_INFO", [PD_AUXTRACE] = "AUXTRACE",
	[PD_AUXTRACE_ERROR] = "AUXTRACE_ERROR", [PD_THREAD_MAP] = "THREAD_MAP",
	[PD_CPU_MAP] = "CPU_MAP", [PD_STAT_CONFIG] = "STAT_CONFIG", [PD_STAT] = "STAT",
	[PD_STAT_ROUND] = "STAT_ROUND", [PD_EVENT_UPDATE] = "EVENT_UPDATE",
	[PD_TIME_CONV] = "TIME_CONV", [PD_HEADER_FEATURE] = "HEADER_FEATURE",
	[PD_COMPRESSED] = "COMPRESSED", [PD_FINISHED_INIT] = "FINISHED_INIT",
	[PD_COMPRESSED2] = "COMPRESSED2",
};

const char *pd_record_name(uint32_t type)
{
	return type < PC_ARRAY_SIZE(record_names) ? record_names[type] : NULL;
}

static int fail_at(struct pd_file *f, uint64_t offset, const char *fmt, ...) PC_PRINTF(3, 4);

static int fail_at(struct pd_file *f, uint64_t offset, const char *fmt, ...)
{
	char message[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	return pc_fail_at(&f->ctx->err, PD_FORMAT, offset, "%s", message);
}

int pd_fail_record(struct pd_file *f, const struct pd_record *rec, const char *fmt, ...)
{
	char message[300], type[24];
	const char *name = pd_record_name(rec->type);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(message, sizeof(message), fmt, ap);
	va_end(ap);
	if (!name) {
		snprintf(type, sizeof(type), "type %u", rec->type);
		name = type;
	}
	return fail_at(f, rec->offset, "%s record%s: %s", name,
		       rec->compressed ? " (in the COMPRESSED record here)" : "", message);
}

/* ---- random access to a file's sections ---- */

/*
 * Reads len bytes at offset into a new buffer; NULL (ctx->err set, at
 * claim: the field that gives the section's place) past the end.
 */
static uint8_t *read_section(struct pd_file *f, uint64_t claim, uint64_t offset, uint64_t len,
			     const char *what)
{
	struct pc_input *in = f->in;
	uint8_t *buf;

	if (in->size != PC_SIZE_UNKNOWN && (offset > in->size || len > in->size - offset)) {
		fail_at(f, claim, "the %s at 0x%llx (%llu bytes) passes the end of the file "
			"(%llu bytes)", what, (unsigned long long)offset, (unsigned long long)len,
			(unsigned long long)in->size);
		return NULL;
	}
	buf = pc_xmalloc(len ? (size_t)len : 1);
	if (in->fd < 0) {
		memcpy(buf, in->data + offset, (size_t)len);
		return buf;
	}
	for (uint64_t done = 0; done < len;) {
		ssize_t n = pread(in->fd, buf + done, (size_t)(len - done), (off_t)(offset + done));

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			fail_at(f, offset + done, "cannot read the %s: %s", what,
				n < 0 ? strerror(errno) : "the file ends");
			free(buf);
			return NULL;
		}
		done += (uint64_t)n;
	}
	return buf;
}

/* ---- attrs ---- */

static const char *const hardware_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};
static const char *const software_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

static char *copy_string(const char *text, size_t len)
{
	char *copy = pc_xmalloc(len + 1);

	memcpy(copy, text, len);
	copy[len] = '\0';
	return copy;
}

/* perf's name for an event that no EVENT_DESC or EVENT_UPDATE names. */
static char *made_up_name(const struct pd_attr *a)
{
	char text[64];

	if (a->type == PERF_TYPE_HARDWARE && a->config < PC_ARRAY_SIZE(hardware_names))
		return copy_string(hardware_names[a->config], strlen(hardware_names[a->config]));
	if (a->type == PERF_TYPE_SOFTWARE && a->config < PC_ARRAY_SIZE(software_names))
		return copy_string(software_names[a->config], strlen(software_names[a->config]));
	snprintf(text, sizeof(text), "event-%u:0x%llx", a->type, (unsigned long long)a->config);
	return copy_string(text, strlen(text));
}

/* The bytes of a sample_id trailer: [pid,tid] [time] [id] [stream_id] [cpu,res] [identifier]. */
static size_t trailer_bytes(uint64_t type)
{
	static const uint64_t fields[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	size_t n = 0;

	for (size_t i = 0; i < PC_ARRAY_SIZE(fields); i++)
		n += (type & fields[i]) ? 8 : 0;
	return n;
}

/* Decodes the attr at p (avail bytes); false when it is shorter than its first version. */
static bool decode_attr(const struct pd_file *f, const uint8_t *p, size_t avail,
			struct pd_attr *a)
{
	uint8_t full[128] = { 0 };
	uint32_t size;

	if (avail < 8)
		return false;
	size = pd_u32(f, p + 4);
	if (!size)
		size = ATTR_VER0_BYTES;
	if (size < ATTR_VER0_BYTES || size > avail)
		return false;
	memcpy(full, p, size < sizeof(full) ? size : sizeof(full));
	memset(a, 0, sizeof(*a));
	a->type = pd_u32(f, full);
	a->size = size;
	a->config = pd_u64(f, full + 8);
	a->sample_period = pd_u64(f, full + 16);
	a->sample_type = pd_u64(f, full + 24);
	a->read_format = pd_u64(f, full + 32);
	a->flags = attr_bits(f, full + 40);
	a->branch_sample_type = pd_u64(f, full + 72);
	a->sample_regs_user = pd_u64(f, full + 80);
	a->sample_stack_user = pd_u32(f, full + 88);
	a->sample_regs_intr = pd_u64(f, full + 96);
	a->freq = a->flags >> 10 & 1;
	a->sample_id_all = a->flags >> 18 & 1;
	a->exclude_callchain_user = a->flags >> 22 & 1;
	a->trailer_bytes = a->sample_id_all ? trailer_bytes(a->sample_type) : 0;
	return true;
}

static bool id_equal(const void *ctx, uint32_t id, const void *key)
{
	const struct pd_file *f = ctx;

	return f->id_keys[id - 1] == *(const uint64_t *)key;
}

static int attr_of_id(const struct pd_file *f, uint64_t id)
{
	uint32_t at = pc_index_find(&f->id_index, pc_hash_u64(id), id_equal, f, &id);

	return at ? (int)f->id_attrs[at - 1] : -1;
}

static void add_ids(struct pd_file *f, size_t attr, const uint8_t *p, size_t n)
{
	struct pd_attr *a = &f->attrs[attr];

	a->ids = pc_xrealloc(a->ids, (a->nids + n) * sizeof(*a->ids) + 1);
	for (size_t i = 0; i < n; i++) {
		uint64_t id = pd_u64(f, p + 8 * i);

		a->ids[a->nids++] = id;
		if (attr_of_id(f, id) >= 0)
			continue;
		if (f->nids == f->ids_cap) {
			size_t cap = f->ids_cap;

			pc_grow(&f->id_keys, &f->ids_cap, f->nids + 1, sizeof(*f->id_keys));
			pc_grow(&f->id_attrs, &cap, f->nids + 1, sizeof(*f->id_attrs));
		}
		f->id_keys[f->nids] = id;
		f->id_attrs[f->nids++] = (uint32_t)attr;
		pc_index_add(&f->id_index, pc_hash_u64(id), (uint32_t)f->nids);
	}
}

static int add_attr(struct pd_file *f, uint64_t offset, const uint8_t *p, size_t avail,
		    size_t *attr_bytes)
{
	struct pd_attr a;

	if (f->nattrs == PD_MAX_ATTRS)
		return fail_at(f, offset, "more than %d events", PD_MAX_ATTRS);
	if (!decode_attr(f, p, avail, &a))
		return fail_at(f, offset, "a perf_event_attr of %u bytes does not fit in the %zu "
			       "bytes here (at least %d expected)", avail >= 8 ? pd_u32(f, p + 4) : 0,
			       avail, ATTR_VER0_BYTES);
	pc_grow(&f->attrs, &f->attrs_cap, f->nattrs + 1, sizeof(*f->attrs));
	f->attrs[f->nattrs++] = a;
	*attr_bytes = a.size;
	return 0;
}

/*
 * The ids sections' sizes added up (each attr's could point at the same
 * bytes); one larger than the file alone gets its own error later.
 */
static uint64_t ids_bytes(const struct pd_file *f, const uint8_t *section, size_t entry)
{
	uint64_t total = 0;

	for (size_t i = 0; i < f->attrs_size / entry; i++) {
		uint64_t size = pd_u64(f, section + i * entry + entry - 8);

		if (size <= f->in->size)
			total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
	}
	return total;
}

/* File mode: the attrs section, each attr followed by the {offset, size} of its ids. */
static int read_attrs(struct pd_file *f)
{
	uint8_t *section;
	size_t entry = (size_t)f->attr_size;

	if (f->attr_size < ATTR_VER0_BYTES + 16 || f->attr_size > 4096)
		return fail_at(f, 16, "attr_size %llu: expected a perf_event_attr and an ids section "
			       "(80 to 4096 bytes)", (unsigned long long)f->attr_size);
	if (f->attrs_size % entry || f->attrs_size / entry > PD_MAX_ATTRS)
		return fail_at(f, 24, "attrs section of %llu bytes: expected a multiple of attr_size "
			       "%zu, at most %d events", (unsigned long long)f->attrs_size, entry,
			       PD_MAX_ATTRS);
	section = read_section(f, 24, f->attrs_offset, f->attrs_size, "attrs section");
	if (!section)
		return -1;
	if (ids_bytes(f, section, entry) > f->in->size) {
		free(section);
		return fail_at(f, f->attrs_offset, "the attrs' ids sections add up to more bytes than "
			       "the file's %llu (sections that overlap)",
			       (unsigned long long)f->in->size);
	}
	for (size_t i = 0; i < f->attrs_size / entry; i++) {
		const uint8_t *p = section + i * entry;
		uint64_t at = f->attrs_offset + i * entry, ids_offset, ids_size;
		size_t used;
		uint8_t *ids;

		if (add_attr(f, at, p, entry - 16, &used))
			goto fail;
		ids_offset = pd_u64(f, p + entry - 16);
		ids_size = pd_u64(f, p + entry - 8);
		if (ids_size % 8 || ids_size > ((uint64_t)1 << 24)) {
			fail_at(f, at + entry - 8, "an ids section of %llu bytes: expected a multiple "
				"of 8, at most 16 MiB", (unsigned long long)ids_size);
			goto fail;
		}
		if (!ids_size)
			continue; /* perf reads nothing there, wherever it points */
		ids = read_section(f, at + entry - 16, ids_offset, ids_size, "ids section");
		if (!ids)
			goto fail;
		add_ids(f, f->nattrs - 1, ids, (size_t)(ids_size / 8));
		free(ids);
	}
	free(section);
	return 0;
fail:
	free(section);
	return -1;
}

/* ---- features ---- */

/* A perf_header_string {u32 len; char str[len]} at *at; false when it overruns. */
static bool take_string(const struct pd_file *f, const uint8_t *p, size_t len, size_t *at,
			char **out)
{
	uint32_t n;

	if (len - *at < 4)
		return false;
	n = pd_u32(f, p + *at);
	*at += 4;
	if (n > len - *at)
		return false;
	*out = copy_string((const char *)p + *at, strnlen((const char *)p + *at, n));
	*at += n;
	return true;
}

static void set_string_feature(const struct pd_file *f, const uint8_t *p, size_t len,
			       char **field)
{
	size_t at = 0;
	char *text;

	if (take_string(f, p, len, &at, &text)) {
		free(*field);
		*field = text;
	}
}

static void read_cmdline(struct pd_file *f, const uint8_t *p, size_t len)
{
	size_t at = 4, used = 0, cap = 0;
	char *line = NULL, *arg;
	uint32_t n;

	if (len < 4)
		return;
	n = pd_u32(f, p);
	for (uint32_t i = 0; i < n && take_string(f, p, len, &at, &arg); i++) {
		size_t arg_len = strlen(arg);

		pc_grow(&line, &cap, used + arg_len + 2, 1);
		if (used)
			line[used++] = ' ';
		memcpy(line + used, arg, arg_len);
		used += arg_len;
		line[used] = '\0';
		free(arg);
	}
	if (line) {
		free(f->feat.cmdline);
		f->feat.cmdline = line;
	}
}

/* EVENT_DESC: {u32 nr, attr_size; per event: attr, u32 nr_ids, string name, u64 ids[]}. */
static void read_event_desc(struct pd_file *f, const uint8_t *p, size_t len)
{
	size_t at = 8;
	uint32_t nr, attr_size;

	if (len < 8)
		return;
	nr = pd_u32(f, p);
	attr_size = pd_u32(f, p + 4);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t nids;
		char *name;
		int attr = -1;

		if (attr_size > len - at || len - at - attr_size < 4)
			return;
		at += attr_size;
		nids = pd_u32(f, p + at);
		at += 4;
		if (!take_string(f, p, len, &at, &name))
			return;
		if (nids > (len - at) / 8) {
			free(name);
			return;
		}
		if (nids)
			attr = attr_of_id(f, pd_u64(f, p + at));
		if (attr < 0 && i < f->nattrs)
			attr = (int)i;
		at += 8 * (size_t)nids;
		if (attr < 0) {
			free(name);
			continue;
		}
		free(f->attrs[attr].name);
		f->attrs[attr].name = name;
	}
}

/* BUILD_ID: {perf_event_header; s32 pid; u8 build_id[24]; char filename[]}... */
static void read_build_ids(struct pd_file *f, const uint8_t *p, size_t len)
{
	for (size_t at = 0; len - at >= 8 + 4 + 24;) {
		uint16_t misc = pd_u16(f, p + at + 4), size = pd_u16(f, p + at + 6);
		const uint8_t *id = p + at + 12;
		size_t id_len = MAX_BUILD_ID_BYTES;
		struct pd_build_id b = { .pid = (int32_t)pd_u32(f, p + at + 8), .misc = misc };

		if (size < 8 + 4 + 24 || size > len - at)
			return;
		if (misc & MISC_BUILD_ID_SIZE && id[20] <= MAX_BUILD_ID_BYTES)
			id_len = id[20];
		for (size_t i = 0; i < id_len; i++)
			snprintf(b.hex + 2 * i, 3, "%02x", id[i]);
		b.path = copy_string((const char *)p + at + 36,
				     strnlen((const char *)p + at + 36, size - 36u));
		pc_grow(&f->feat.build_ids, &f->feat.build_ids_cap, f->feat.nbuild_ids + 1,
			sizeof(*f->feat.build_ids));
		f->feat.build_ids[f->feat.nbuild_ids++] = b;
		at += size;
	}
}

static void read_feature(struct pd_file *f, unsigned bit, const uint8_t *p, size_t len)
{
	struct pd_features *ft = &f->feat;

	f->feature_bits[bit / 64] |= 1ULL << (bit % 64);
	switch (bit) {
	case PD_FEAT_BUILD_ID:
		read_build_ids(f, p, len);
		break;
	case PD_FEAT_HOSTNAME:
		set_string_feature(f, p, len, &ft->hostname);
		break;
	case PD_FEAT_OSRELEASE:
		set_string_feature(f, p, len, &ft->osrelease);
		break;
	case PD_FEAT_VERSION:
		set_string_feature(f, p, len, &ft->version);
		break;
	case PD_FEAT_ARCH:
		set_string_feature(f, p, len, &ft->arch);
		break;
	case PD_FEAT_CPUDESC:
		set_string_feature(f, p, len, &ft->cpudesc);
		break;
	case PD_FEAT_CMDLINE:
		read_cmdline(f, p, len);
		break;
	case PD_FEAT_EVENT_DESC:
		read_event_desc(f, p, len);
		break;
	case PD_FEAT_NRCPUS:
		if (len >= 8) {
			ft->nr_cpus_avail = pd_u32(f, p);
			ft->nr_cpus_online = pd_u32(f, p + 4);
			ft->has_nrcpus = true;
		}
		break;
	case PD_FEAT_SAMPLE_TIME:
		if (len >= 16) {
			ft->first_sample_time = pd_u64(f, p);
			ft->last_sample_time = pd_u64(f, p + 8);
			ft->has_sample_time = true;
		}
		break;
	case PD_FEAT_COMPRESSED:
		if (len >= 12) {
			ft->compressed_type = pd_u32(f, p + 4);
			ft->compressed_level = pd_u32(f, p + 8);
			ft->has_compressed = true;
		}
		break;
	default:
		break;
	}
}

static bool reads_feature(unsigned bit)
{
	return bit == PD_FEAT_BUILD_ID || (bit >= PD_FEAT_HOSTNAME && bit <= PD_FEAT_CPUDESC) ||
	       bit == PD_FEAT_CMDLINE || bit == PD_FEAT_EVENT_DESC || bit == PD_FEAT_SAMPLE_TIME ||
	       bit == PD_FEAT_COMPRESSED;
}

/* File mode: after the data section, one {offset, size} per feature bit set, in bit order. */
static int read_features(struct pd_file *f)
{
	unsigned count = 0, index = 0;
	uint64_t table_at = f->data_end;
	uint8_t *table;
	int ret = 0;

	for (unsigned bit = 0; bit < PD_FEAT_BITS; bit++)
		count += (unsigned)(f->feature_bits[bit / 64] >> (bit % 64) & 1);
	if (!count)
		return 0;
	table = read_section(f, 40, table_at, 16ULL * count, "feature section table");
	if (!table)
		return -1;
	for (unsigned bit = 0; bit < PD_FEAT_BITS && !ret; bit++) {
		uint64_t offset, size;
		uint8_t *payload;

		if (!(f->feature_bits[bit / 64] >> (bit % 64) & 1))
			continue;
		offset = pd_u64(f, table + 16 * index);
		size = pd_u64(f, table + 16 * index + 8);
		index++;
		if (!reads_feature(bit))
			continue;
		if (size > MAX_FEATURE_BYTES) {
			ret = pc_warn(f->ctx, PD_FORMAT, "feature %u: %llu bytes, more than %llu: skipped",
				      bit, (unsigned long long)size,
				      (unsigned long long)MAX_FEATURE_BYTES);
			continue;
		}
		payload = read_section(f, table_at + 16 * (index - 1), offset, size, "feature section");
		if (!payload) {
			ret = -1;
			break;
		}
		read_feature(f, bit, payload, (size_t)size);
		free(payload);
	}
	free(table);
	return ret;
}

/* ---- the header ---- */

struct pd_file *pd_file_new(struct pc_ctx *ctx, struct pc_input *in)
{
	struct pd_file *f = pc_xcalloc(1, sizeof(*f));

	f->ctx = ctx;
	f->in = in;
	pc_index_init(&f->id_index);
	return f;
}

void pd_file_free(struct pd_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nattrs; i++) {
		free(f->attrs[i].name);
		free(f->attrs[i].ids);
	}
	free(f->attrs);
	pc_index_release(&f->id_index);
	free(f->id_keys);
	free(f->id_attrs);
	free(f->feat.hostname);
	free(f->feat.osrelease);
	free(f->feat.version);
	free(f->feat.arch);
	free(f->feat.cpudesc);
	free(f->feat.cmdline);
	for (size_t i = 0; i < f->feat.nbuild_ids; i++)
		free(f->feat.build_ids[i].path);
	free(f->feat.build_ids);
	free(f->queue);
	free(f->spare);
	free(f->pending);
	if (f->zstd)
		ZSTD_freeDStream(f->zstd);
	free(f->zout);
	free(f);
}

static bool magic_order(const uint8_t *p, bool *big_endian)
{
	if (pc_le64(p) == PD_MAGIC)
		*big_endian = false;
	else if (((uint64_t)pc_be32(p) << 32 | pc_be32(p + 4)) == PD_MAGIC)
		*big_endian = true;
	else
		return false;
	return true;
}

static int read_file_header(struct pd_file *f, const uint8_t *p)
{
	f->attr_size = pd_u64(f, p + 16);
	f->attrs_offset = pd_u64(f, p + 24);
	f->attrs_size = pd_u64(f, p + 32);
	f->data_offset = pd_u64(f, p + 40);
	f->data_size = pd_u64(f, p + 48);
	for (int i = 0; i < 4; i++)
		f->feature_bits[i] = pd_u64(f, p + 72 + 8 * i);
	if (f->in->size == PC_SIZE_UNKNOWN)
		return fail_at(f, 0, "a perf.data file read from a pipe: its attrs and features "
			       "need random access (give its path, or record with perf record "
			       "-o - for pipe mode)");
	if (f->data_offset < FILE_HEADER_BYTES || f->data_offset > f->in->size ||
	    f->data_size > f->in->size - f->data_offset)
		return fail_at(f, 40, "data section [0x%llx, +0x%llx) does not lie within the "
			       "file's %llu bytes", (unsigned long long)f->data_offset,
			       (unsigned long long)f->data_size, (unsigned long long)f->in->size);
	f->data_end = f->data_offset + f->data_size;
	if (read_attrs(f) || read_features(f))
		return -1;
	if (!f->nattrs)
		return fail_at(f, 24, "no events in the attrs section");
	if (!pc_input_skip_to(f->in, f->data_offset))
		return fail_at(f, f->data_offset, "the data section starts past the end of the file");
	return 0;
}

int pd_file_open(struct pd_file *f)
{
	const uint8_t *p;
	size_t got = pc_input_fill(f->in, FILE_HEADER_BYTES, &p);
	uint64_t size;

	if (got < 8 || !magic_order(p, &f->big_endian))
		return fail_at(f, 0, "expected the perf.data magic \"PERFILE2\" (%zu bytes read)",
			       got);
	if (got < PIPE_HEADER_BYTES)
		return fail_at(f, 8, "the header is cut after %zu bytes: expected its size field "
			       "(16 bytes for pipe mode, 104 for a file)", got);
	size = pd_u64(f, p + 8);
	if (size == PIPE_HEADER_BYTES) {
		f->pipe = true;
		f->data_offset = PIPE_HEADER_BYTES;
		f->data_end = UINT64_MAX;
		pc_input_consume(f->in, PIPE_HEADER_BYTES);
		return 0;
	}
	if (size != FILE_HEADER_BYTES || got < FILE_HEADER_BYTES)
		return fail_at(f, 8, "header size %llu: expected 104 (a file) or 16 (pipe mode), "
			       "with the whole header (%zu bytes read)", (unsigned long long)size,
			       got);
	return read_file_header(f, p);
}

/* ---- sample fields ---- */

struct cursor {
	const struct pd_file *f;
	const uint8_t *p;
	size_t at, end;
	bool overrun;
	const char *field;     /* the field being read, for the message */
	uint64_t count;        /* its count, when it has one */
};

static const uint8_t *take(struct cursor *c, uint64_t n)
{
	const uint8_t *at = c->p + c->at;

	if (c->overrun)
		return NULL;
	if (n > c->end - c->at) {
		c->overrun = true;
		c->count = n;
		return NULL;
	}
	c->at += (size_t)n;
	return at;
}

static uint64_t take_u64(struct cursor *c)
{
	const uint8_t *p = take(c, 8);

	return p ? pd_u64(c->f, p) : 0;
}

static size_t read_format_bytes(uint64_t format, uint64_t nr)
{
	size_t per = 8 + ((format & PERF_FORMAT_ID) ? 8 : 0) + ((format & (1u << 4)) ? 8 : 0);
	size_t head = ((format & PERF_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
		      ((format & PERF_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);

	if (!(format & PERF_FORMAT_GROUP))
		return head + per;
	return nr > (SIZE_MAX - 8 - head) / per ? SIZE_MAX : 8 + head + (size_t)nr * per;
}

static void take_read(struct cursor *c, uint64_t format)
{
	uint64_t nr = 0;

	if (format & PERF_FORMAT_GROUP) {
		if (c->end - c->at < 8) {
			take(c, 8); /* the overrun, with its count */
			return;
		}
		nr = pd_u64(c->f, c->p + c->at);
	}
	take(c, read_format_bytes(format, nr));
}

/* An array of n items of size bytes each, its count read from the record. */
static const uint8_t *take_array(struct cursor *c, uint64_t n, size_t size)
{
	if (c->overrun)
		return NULL;
	if (n > (c->end - c->at) / size) {
		c->overrun = true;
		c->count = n;
		return NULL;
	}
	return take(c, n * size);
}

static unsigned popcount64(uint64_t x)
{
	unsigned n = 0;

	for (; x; x &= x - 1)
		n++;
	return n;
}

static void take_branches(struct cursor *c, const struct pd_attr *a, struct pd_sample *s)
{
	s->nr_branches = take_u64(c);
	if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
		take_u64(c);
	s->branches = take_array(c, s->nr_branches, 24);
	if (a->branch_sample_type & BRANCH_COUNTERS)
		take_array(c, s->nr_branches, 8);
}

static void take_regs(struct cursor *c, uint64_t mask, uint64_t *abi, unsigned *n,
		      const uint8_t **regs)
{
	*abi = take_u64(c);
	if (!*abi)
		return;
	*n = popcount64(mask);
	*regs = take_array(c, *n, 8);
}

static void take_stack(struct cursor *c, struct pd_sample *s)
{
	s->stack_size = take_u64(c);
	if (!s->stack_size)
		return;
	s->stack = take(c, s->stack_size);
	s->stack_dyn_size = take_u64(c);
	if (s->stack_dyn_size > s->stack_size)
		s->stack_dyn_size = s->stack_size;
}

/* Names the field read next, for the message of an overrun. */
static struct cursor *field(struct cursor *c, const char *name)
{
	if (!c->overrun)
		c->field = name;
	return c;
}

/* The fields up to PERIOD, which locate the record's attr and time too. */
static void take_head(struct cursor *c, uint64_t type, struct pd_sample *s)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		s->id = take_u64(c);
	if (type & PERF_SAMPLE_IP)
		s->ip = take_u64(c);
	if (type & PERF_SAMPLE_TID) {
		const uint8_t *p = take(c, 8);

		if (p) {
			s->pid = pd_u32(c->f, p);
			s->tid = pd_u32(c->f, p + 4);
		}
	}
	if (type & PERF_SAMPLE_TIME)
		s->time = take_u64(c);
	if (type & PERF_SAMPLE_ADDR)
		s->addr = take_u64(c);
	if (type & PERF_SAMPLE_ID)
		s->id = take_u64(c);
	if (type & PERF_SAMPLE_STREAM_ID)
		take_u64(c);
	if (type & PERF_SAMPLE_CPU) {
		const uint8_t *p = take(c, 8);

		if (p)
			s->cpu = pd_u32(c->f, p);
	}
	if (type & PERF_SAMPLE_PERIOD)
		s->period = take_u64(c);
}

/* The fields after WEIGHT, checked though not kept: DATA_SRC ... AUX. */
static void take_tail(struct cursor *c, const struct pd_attr *a, uint64_t type)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} words[] = {
		{ PERF_SAMPLE_DATA_SRC, "data source" },
		{ PERF_SAMPLE_TRANSACTION, "transaction" },
	}, later[] = {
		{ PERF_SAMPLE_PHYS_ADDR, "physical address" },
		{ PERF_SAMPLE_CGROUP, "cgroup" },
		{ PERF_SAMPLE_DATA_PAGE_SIZE, "data page size" },
		{ PERF_SAMPLE_CODE_PAGE_SIZE, "code page size" },
	};
	uint64_t abi = 0;
	unsigned n = 0;
	const uint8_t *regs = NULL;

	for (size_t i = 0; i < PC_ARRAY_SIZE(words); i++)
		if (type & words[i].bit)
			take_u64(field(c, words[i].name));
	if (type & PERF_SAMPLE_REGS_INTR)
		take_regs(field(c, "interrupt registers"), a->sample_regs_intr, &abi, &n, &regs);
	for (size_t i = 0; i < PC_ARRAY_SIZE(later); i++)
		if (type & later[i].bit)
			take_u64(field(c, later[i].name));
	if (type & PERF_SAMPLE_AUX)
		take(field(c, "aux data"), take_u64(field(c, "aux size")));
}

int pd_parse_sample(struct pd_file *f, const struct pd_record *rec, struct pd_sample *s)
{
	const struct pd_attr *a = &f->attrs[rec->attr];
	uint64_t type = a->sample_type;
	struct cursor c = { .f = f, .p = rec->body, .end = rec->size - 8u, .field = "fields" };

	memset(s, 0, sizeof(*s));
	s->cpumode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	take_head(field(&c, "fields up to PERIOD"), type, s);
	if (!(type & PERF_SAMPLE_PERIOD))
		s->period = a->freq ? 1 : a->sample_period;
	if (type & PERF_SAMPLE_READ)
		take_read(field(&c, "read values"), a->read_format);
	if (type & PERF_SAMPLE_CALLCHAIN) {
		s->nr_callchain = take_u64(field(&c, "callchain nr"));
		s->callchain = take_array(field(&c, "callchain entries"), s->nr_callchain, 8);
	}
	if (type & PERF_SAMPLE_RAW) {
		const uint8_t *p = take(field(&c, "raw size"), 4);

		if (p)
			take(field(&c, "raw data"), pd_u32(f, p));
	}
	if (type & PERF_SAMPLE_BRANCH_STACK)
		take_branches(field(&c, "branch stack"), a, s);
	if (type & PERF_SAMPLE_REGS_USER)
		take_regs(field(&c, "user registers"), a->sample_regs_user, &s->regs_abi, &s->nregs,
			  &s->regs);
	if (type & PERF_SAMPLE_STACK_USER)
		take_stack(field(&c, "user stack"), s);
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		s->weight = take_u64(field(&c, "weight"));
	take_tail(&c, a, type);
	if (c.overrun)
		return pd_fail_record(f, rec, "its %s (%llu %s) passes the record's end: %zu of "
				      "its %u bytes were left (sample_type 0x%llx)", c.field,
				      (unsigned long long)c.count,
				      strstr(c.field, "entries") ? "entries" : "bytes wanted",
				      c.end - c.at, rec->size, (unsigned long long)type);
	return 0;
}

/* ---- which attr, and when ---- */

/* The u64 index of the ID field in a sample of this layout, or -1. */
static int sample_id_index(uint64_t type)
{
	int n = 0;

	if (type & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	n += (type & PERF_SAMPLE_IP) ? 1 : 0;
	n += (type & PERF_SAMPLE_TID) ? 1 : 0;
	n += (type & PERF_SAMPLE_TIME) ? 1 : 0;
	n += (type & PERF_SAMPLE_ADDR) ? 1 : 0;
	return n;
}

/* The u64 index of ID counted back from a trailer's end (1 = last), or 0. */
static int trailer_id_index(uint64_t type)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(type & PERF_SAMPLE_ID))
		return 0;
	return 1 + ((type & PERF_SAMPLE_STREAM_ID) ? 1 : 0) + ((type & PERF_SAMPLE_CPU) ? 1 : 0);
}

static int record_attr(struct pd_file *f, const struct pd_record *rec)
{
	uint64_t type = f->attrs[0].sample_type;
	size_t body = rec->size - 8u;
	int index;
	uint64_t id;

	if (f->nattrs == 1)
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		index = sample_id_index(type);
		if (index < 0 || body < 8 * (size_t)(index + 1))
			return -1;
		id = pd_u64(f, rec->body + 8 * index);
	} else {
		index = trailer_id_index(type);
		if (!index || !f->attrs[0].sample_id_all || body < 8 * (size_t)index)
			return -1;
		id = pd_u64(f, rec->body + body - 8 * (size_t)index);
	}
	return attr_of_id(f, id);
}

/* A sample whose id is none of the attrs', or that is too short to hold it. */
static int fail_sample_id(struct pd_file *f, const struct pd_record *rec)
{
	int index = sample_id_index(f->attrs[0].sample_type);

	if (index < 0)
		return pd_fail_record(f, rec, "no IDENTIFIER or ID field tells which of the %zu "
				      "events it is", f->nattrs);
	if (rec->size - 8u < 8 * (size_t)(index + 1))
		return pd_fail_record(f, rec, "%u bytes: too short for its sample id", rec->size);
	return pd_fail_record(f, rec, "sample id %llu names none of the %zu events",
			      (unsigned long long)pd_u64(f, rec->body + 8 * index), f->nattrs);
}

static uint64_t record_time(const struct pd_file *f, const struct pd_record *rec)
{
	const struct pd_attr *a = &f->attrs[rec->attr];
	struct cursor c = { .f = f, .p = rec->body, .end = rec->size - 8u };
	struct pd_sample s = { 0 };

	if (!(a->sample_type & PERF_SAMPLE_TIME))
		return 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		take_head(&c, a->sample_type & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
						 PERF_SAMPLE_TID | PERF_SAMPLE_TIME), &s);
		return c.overrun ? 0 : s.time;
	}
	if (!a->sample_id_all || c.end < a->trailer_bytes)
		return 0;
	c.at = c.end - a->trailer_bytes;
	take_head(&c, a->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME), &s);
	return s.time;
}

/* ---- the queue (perf's ordered_events) ---- */

static int compare_pending(const void *x, const void *y)
{
	const struct pending *a = x, *b = y;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void enqueue(struct pd_file *f, const struct pd_record *rec)
{
	pc_grow(&f->queue, &f->queue_cap, f->queue_len + rec->size, 1);
	memcpy(f->queue + f->queue_len, rec->body - 8, rec->size);
	pc_grow(&f->pending, &f->pending_cap, f->npending + 1, sizeof(*f->pending));
	f->pending[f->npending++] = (struct pending){
		.time = rec->time, .seq = f->seq++, .at = f->queue_len, .size = rec->size,
		.offset = rec->offset, .compressed = rec->compressed, .attr = rec->attr,
	};
	f->queue_len += rec->size;
	if (rec->time > f->max_time)
		f->max_time = rec->time;
}

static int deliver_pending(struct pd_file *f, const struct pending *p, const uint8_t *bytes)
{
	struct pd_record rec = {
		.type = pd_u32(f, bytes), .misc = pd_u16(f, bytes + 4), .size = p->size,
		.body = bytes + 8, .offset = p->offset, .compressed = p->compressed,
		.time = p->time, .attr = p->attr,
	};

	return f->fn(f->fn_data, &rec);
}

/* Hands on the queued records of time <= limit, oldest first; keeps the rest. */
static int flush_queue(struct pd_file *f, uint64_t limit)
{
	size_t kept = 0, kept_len = 0, i;

	if (!f->npending)
		return 0;
	qsort(f->pending, f->npending, sizeof(*f->pending), compare_pending);
	for (i = 0; i < f->npending && f->pending[i].time <= limit; i++)
		if (deliver_pending(f, &f->pending[i], f->queue + f->pending[i].at))
			return -1;
	pc_grow(&f->spare, &f->spare_cap, f->queue_len ? f->queue_len : 1, 1);
	for (; i < f->npending; i++) {
		struct pending p = f->pending[i];

		memcpy(f->spare + kept_len, f->queue + p.at, p.size);
		p.at = kept_len;
		kept_len += p.size;
		f->pending[kept++] = p;
	}
	f->npending = kept;
	f->queue_len = kept_len;
	{
		uint8_t *swap = f->queue;
		size_t cap = f->queue_cap;

		f->queue = f->spare;
		f->queue_cap = f->spare_cap;
		f->spare = swap;
		f->spare_cap = cap;
	}
	return 0;
}

/* A queue grown past its bound (no FINISHED_ROUND for long): the older half goes. */
static int flush_half(struct pd_file *f)
{
	uint64_t oldest = UINT64_MAX;

	for (size_t i = 0; i < f->npending; i++)
		if (f->pending[i].time < oldest)
			oldest = f->pending[i].time;
	return flush_queue(f, oldest + (f->max_time - oldest) / 2); /* the time midpoint */
}

/* ---- records ---- */

static void count(struct pd_file *f, uint32_t type)
{
	f->census[type < PD_RECORD_TYPES ? type : PD_RECORD_TYPES]++;
}

static int handle_record(struct pd_file *f, struct pd_record *rec);

/* The pipe's HEADER_ATTR: an attr, then its ids. */
static int header_attr(struct pd_file *f, const struct pd_record *rec)
{
	size_t body = rec->size - 8u, used;

	if (add_attr(f, rec->offset, rec->body, body, &used))
		return -1;
	add_ids(f, f->nattrs - 1, rec->body + used, (body - used) / 8);
	return 0;
}

/* EVENT_UPDATE {u64 type, id; payload}: type 2 names the event (when nothing else does). */
static void event_update(struct pd_file *f, const struct pd_record *rec)
{
	size_t body = rec->size - 8u;
	int attr;

	if (body < 16 || pd_u64(f, rec->body) != 2)
		return;
	attr = attr_of_id(f, pd_u64(f, rec->body + 8));
	if (attr < 0 || f->attrs[attr].name)
		return;
	f->attrs[attr].name = copy_string((const char *)rec->body + 16,
					  strnlen((const char *)rec->body + 16, body - 16));
}

static int decompress(struct pd_file *f, const struct pd_record *rec);

/* Records of the container itself; false when rec is for the consumer. */
static bool container_record(struct pd_file *f, struct pd_record *rec, int *ret)
{
	size_t body = rec->size - 8u;

	*ret = 0;
	switch (rec->type) {
	case PD_HEADER_ATTR:
		*ret = header_attr(f, rec);
		return true;
	case PD_HEADER_FEATURE:
		if (body >= 8 && pd_u64(f, rec->body) < PD_FEAT_BITS)
			read_feature(f, (unsigned)pd_u64(f, rec->body), rec->body + 8, body - 8);
		return true;
	case PD_HEADER_BUILD_ID:
		read_build_ids(f, rec->body - 8, rec->size);
		return true;
	case PD_EVENT_UPDATE:
		event_update(f, rec);
		return true;
	case PD_COMPRESSED:
	case PD_COMPRESSED2:
		*ret = decompress(f, rec);
		return true;
	case PD_FINISHED_ROUND:
		*ret = flush_queue(f, f->flush_limit);
		f->flush_limit = f->max_time;
		return true;
	default:
		return false;
	}
}

static int handle_record(struct pd_file *f, struct pd_record *rec)
{
	int ret;

	count(f, rec->type);
	if (container_record(f, rec, &ret))
		return ret;
	rec->attr = -1;
	rec->time = 0;
	if (rec->type < PD_HEADER_ATTR && f->nattrs) {
		rec->attr = record_attr(f, rec);
		if (rec->attr < 0 && rec->type == PERF_RECORD_SAMPLE)
			return fail_sample_id(f, rec);
		if (rec->attr >= 0)
			rec->time = record_time(f, rec);
	} else if (rec->type == PERF_RECORD_SAMPLE) {
		return pd_fail_record(f, rec, "a sample before any event's attr");
	}
	if (!rec->time) /* perf hands these on at once */
		return f->fn(f->fn_data, rec);
	enqueue(f, rec);
	return f->queue_len > QUEUE_MAX_BYTES ? flush_half(f) : 0;
}

/* ---- zstd ---- */

/* Hands on the whole records in zout; keeps a record cut by the piece's end. */
static int drain_decompressed(struct pd_file *f, const struct pd_record *outer)
{
	size_t at = 0;

	while (f->zlen - at >= 8) {
		uint16_t size = pd_u16(f, f->zout + at + 6);
		struct pd_record rec = {
			.type = pd_u32(f, f->zout + at), .misc = pd_u16(f, f->zout + at + 4),
			.size = size, .body = f->zout + at + 8, .offset = outer->offset,
			.compressed = true,
		};

		if (size < 8)
			return pd_fail_record(f, outer, "holds a record of %u bytes, less than its "
					      "8-byte header", size);
		if (size > f->zlen - at)
			break;
		if (rec.type == PD_COMPRESSED || rec.type == PD_COMPRESSED2)
			return pd_fail_record(f, outer, "holds another compressed record");
		if (handle_record(f, &rec))
			return -1;
		at += size;
	}
	memmove(f->zout, f->zout + at, f->zlen - at);
	f->zlen -= at;
	return 0;
}

static int decompress(struct pd_file *f, const struct pd_record *rec)
{
	ZSTD_inBuffer input = { rec->body, rec->size - 8u, 0 };
	size_t chunk = ZSTD_DStreamOutSize();

	if (rec->type == PD_COMPRESSED2) {
		uint64_t data_size = input.size >= 8 ? pd_u64(f, rec->body) : UINT64_MAX;

		if (data_size > input.size - 8)
			return pd_fail_record(f, rec, "data_size %llu passes the record's %zu bytes",
					      (unsigned long long)data_size, input.size);
		input.src = rec->body + 8;
		input.size = (size_t)data_size;
	}
	if (!f->zstd) {
		f->zstd = ZSTD_createDStream();
		if (!f->zstd || ZSTD_isError(ZSTD_initDStream(f->zstd)))
			return pd_fail_record(f, rec, "cannot start a zstd decompressor");
	}
	for (bool full = true; input.pos < input.size || full;) {
		ZSTD_outBuffer output;
		size_t ret, before = input.pos;

		pc_grow(&f->zout, &f->zcap, f->zlen + chunk, 1);
		output = (ZSTD_outBuffer){ f->zout + f->zlen, f->zcap - f->zlen, 0 };
		ret = ZSTD_decompressStream(f->zstd, &output, &input);
		if (ZSTD_isError(ret))
			return pd_fail_record(f, rec, "zstd: %s", ZSTD_getErrorName(ret));
		f->zlen += output.pos;
		f->zbytes += output.pos;
		full = output.pos == output.size; /* zstd may hold more output */
		if (drain_decompressed(f, rec))
			return -1;
		if (!output.pos && input.pos == before && input.pos < input.size)
			return pd_fail_record(f, rec, "zstd: no progress");
	}
	return 0;
}

/* ---- the record stream ---- */

/* Reads the next record of the data into *rec; *done at its end. */
static int next_record(struct pd_file *f, struct pd_record *rec, bool *done)
{
	const uint8_t *p;
	uint64_t offset = pc_input_offset(f->in);
	size_t got;
	uint16_t size;

	*done = false;
	if (offset >= f->data_end) {
		*done = true;
		return 0;
	}
	got = pc_input_fill(f->in, 8, &p);
	if (!got && f->pipe) {
		*done = true;
		return 0;
	}
	if (got < 8)
		return fail_at(f, offset, "a record header cut by the end of the %s (%zu of 8 bytes)",
			       f->pipe ? "input" : "file", got);
	size = pd_u16(f, p + 6);
	if (size < 8)
		return fail_at(f, offset, "record size %u (type %u): less than its 8-byte header",
			       size, pd_u32(f, p));
	if (size > f->data_end - offset)
		return fail_at(f, offset, "a record of %u bytes (type %u) passes the end of the data "
			       "section at 0x%llx", size, pd_u32(f, p),
			       (unsigned long long)f->data_end);
	got = pc_input_fill(f->in, size, &p);
	if (got < size)
		return fail_at(f, offset, "a record of %u bytes (type %u) cut by the end of the "
			       "input after %zu bytes", size, pd_u32(f, p), got);
	*rec = (struct pd_record){
		.type = pd_u32(f, p), .misc = pd_u16(f, p + 4), .size = size, .body = p + 8,
		.offset = offset, .attr = -1,
	};
	return 0;
}

/* Bytes that follow a record outside its size: AUXTRACE data, pipe TRACING_DATA. */
static uint64_t trailing_bytes(const struct pd_file *f, const struct pd_record *rec)
{
	if (rec->type == PD_AUXTRACE && rec->size >= 16)
		return pd_u64(f, rec->body);
	if (rec->type == PD_HEADER_TRACING_DATA && rec->size >= 12)
		return pd_u32(f, rec->body);
	return 0;
}

int pd_file_records(struct pd_file *f, pd_record_fn fn, void *data)
{
	f->fn = fn;
	f->fn_data = data;
	for (;;) {
		struct pd_record rec;
		bool done;
		uint64_t extra, next;

		if (next_record(f, &rec, &done))
			return -1;
		if (done)
			break;
		extra = trailing_bytes(f, &rec);
		next = rec.offset + rec.size;
		if (handle_record(f, &rec))
			return -1;
		if (extra > f->data_end - next)
			return fail_at(f, rec.offset, "%s record: its %llu bytes of data pass the end "
				       "of the data section", pd_record_name(rec.type),
				       (unsigned long long)extra);
		if (!pc_input_skip_to(f->in, next + extra))
			return fail_at(f, rec.offset, "%s record: its %llu bytes of data pass the end "
				       "of the input", pd_record_name(rec.type),
				       (unsigned long long)extra);
	}
	if (f->zlen)
		return fail_at(f, f->data_end == UINT64_MAX ? pc_input_offset(f->in) : f->data_end,
			       "the compressed records end inside a record (%zu bytes left over)",
			       f->zlen);
	if (!f->nattrs)
		return fail_at(f, f->data_offset, "no event attrs (HEADER_ATTR records) in the input");
	return flush_queue(f, UINT64_MAX);
}

/* ---- accessors ---- */

bool pd_file_is_pipe(const struct pd_file *f)
{
	return f->pipe;
}

bool pd_file_is_swapped(const struct pd_file *f)
{
	return f->big_endian;
}

size_t pd_file_nattrs(const struct pd_file *f)
{
	return f->nattrs;
}

const struct pd_attr *pd_file_attr(const struct pd_file *f, size_t i)
{
	return &f->attrs[i];
}

const char *pd_file_event_name(struct pd_file *f, size_t i)
{
	if (!f->attrs[i].name)
		f->attrs[i].name = made_up_name(&f->attrs[i]);
	return f->attrs[i].name;
}

const struct pd_features *pd_file_features(const struct pd_file *f)
{
	return &f->feat;
}

bool pd_file_has_feature(const struct pd_file *f, unsigned bit)
{
	return bit < PD_FEAT_BITS && (f->feature_bits[bit / 64] >> (bit % 64) & 1);
}

const uint64_t *pd_file_census(const struct pd_file *f)
{
	return f->census;
}

uint64_t pd_file_data_offset(const struct pd_file *f)
{
	return f->data_offset;
}

uint64_t pd_file_data_size(const struct pd_file *f)
{
	return f->pipe ? pc_input_offset(f->in) - f->data_offset : f->data_size;
}

uint64_t pd_file_decompressed_bytes(const struct pd_file *f)
{
	return f->zbytes;
}
