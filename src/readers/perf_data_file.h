/*
 * perf_data_file.h - the perf.data container of Linux `perf record`, file
 * and pipe modes, either byte order: the header, the attrs with their ids
 * and names, the feature sections, and the records of the data section in
 * the order perf itself processes them (its ordered_events queue: records
 * with a time are held and handed out sorted by time, each
 * FINISHED_ROUND releasing those up to the newest time of the round
 * before), with zstd-compressed records (perf record -z) decompressed as
 * the one stream they are. Sample fields and sample_id trailers are decoded
 * here; nothing here touches the model (perf_data_reader.c maps the
 * records onto it).
 *
 * Source: the kernel's include/uapi/linux/perf_event.h,
 * tools/perf/Documentation/perf.data-file-format.txt and perf's
 * util/session.c, util/header.c, util/ordered-events.c, as summarized in
 * ../shared/research/perfdata.md sections 1-5.
 */
#ifndef PC_PERF_DATA_FILE_H
#define PC_PERF_DATA_FILE_H

#include "base/ctx.h"
#include "base/input.h"

#define PD_FORMAT "perf-data"
#define PD_MAGIC 0x32454c4946524550ULL /* "PERFILE2" read little-endian */
#define PD_MAX_ATTRS 4096

/* Record types perf itself writes (tools/lib/perf/include/perf/event.h). */
enum pd_user_type {
	PD_HEADER_ATTR = 64,
	PD_HEADER_EVENT_TYPE = 65,
	PD_HEADER_TRACING_DATA = 66,
	PD_HEADER_BUILD_ID = 67,
	PD_FINISHED_ROUND = 68,
	PD_ID_INDEX = 69,
	PD_AUXTRACE_INFO = 70,
	PD_AUXTRACE = 71,
	PD_AUXTRACE_ERROR = 72,
	PD_THREAD_MAP = 73,
	PD_CPU_MAP = 74,
	PD_STAT_CONFIG = 75,
	PD_STAT = 76,
	PD_STAT_ROUND = 77,
	PD_EVENT_UPDATE = 78,
	PD_TIME_CONV = 79,
	PD_HEADER_FEATURE = 80,
	PD_COMPRESSED = 81,
	PD_FINISHED_INIT = 82,
	PD_COMPRESSED2 = 83,
	PD_RECORD_TYPES = 96, /* census slots; later types count as "other" */
};

/* Feature bits of the header (util/header.h). */
enum pd_feature {
	PD_FEAT_TRACING_DATA = 1,
	PD_FEAT_BUILD_ID = 2,
	PD_FEAT_HOSTNAME = 3,
	PD_FEAT_OSRELEASE = 4,
	PD_FEAT_VERSION = 5,
	PD_FEAT_ARCH = 6,
	PD_FEAT_NRCPUS = 7,
	PD_FEAT_CPUDESC = 8,
	PD_FEAT_CPUID = 9,
	PD_FEAT_TOTAL_MEM = 10,
	PD_FEAT_CMDLINE = 11,
	PD_FEAT_EVENT_DESC = 12,
	PD_FEAT_SAMPLE_TIME = 21,
	PD_FEAT_COMPRESSED = 27,
	PD_FEAT_LAST = 32, /* HEADER_LAST_FEATURE: closes the pipe's feature records */
	PD_FEAT_BITS = 256,
};

/* One event of the file: its perf_event_attr, ids and name. */
struct pd_attr {
	uint32_t type, size;
	uint64_t config, sample_period, sample_type, read_format, flags;
	uint64_t branch_sample_type, sample_regs_user, sample_regs_intr;
	uint32_t sample_stack_user;
	bool freq, sample_id_all, exclude_callchain_user;
	char *name;             /* from EVENT_DESC or EVENT_UPDATE, else made up */
	uint64_t *ids;
	size_t nids;
	size_t trailer_bytes;   /* the sample_id trailer of its non-sample records */
};

/* A build id of the BUILD_ID feature (or a HEADER_BUILD_ID record). */
struct pd_build_id {
	int32_t pid;
	uint16_t misc;          /* the cpumode the file was hit in */
	char hex[41];           /* lowercase, without padding */
	char *path;
};

struct pd_features {
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cmdline;
	uint32_t nr_cpus_online, nr_cpus_avail;
	bool has_nrcpus, has_sample_time, has_compressed;
	uint64_t first_sample_time, last_sample_time;
	uint32_t compressed_type, compressed_level;
	struct pd_build_id *build_ids;
	size_t nbuild_ids, build_ids_cap;
};

/* A record as handed to the consumer: type, misc, and its bytes after the header. */
struct pd_record {
	uint32_t type;
	uint16_t misc;
	uint32_t size;           /* with the 8-byte header */
	const uint8_t *body;     /* size - 8 bytes; fields may be unaligned */
	uint64_t offset;         /* in the file (of the COMPRESSED record holding it) */
	bool compressed;         /* decompressed from a COMPRESSED record */
	uint64_t time;           /* 0 when it has none */
	int attr;                /* index into the attrs, -1 when unknown */
};

/* The fields of a PERF_RECORD_SAMPLE, as its attr's sample_type lays them out. */
struct pd_sample {
	uint64_t ip, time, addr, id, period, weight;
	uint32_t pid, tid, cpu;
	uint64_t nr_callchain;
	const uint8_t *callchain;   /* nr_callchain u64 */
	uint64_t nr_branches;
	const uint8_t *branches;    /* nr_branches {from, to, flags} u64 triples */
	uint64_t regs_abi;
	unsigned nregs;
	const uint8_t *regs;        /* nregs u64, in sample_regs_user bit order */
	uint64_t stack_size, stack_dyn_size;
	const uint8_t *stack;
	uint16_t cpumode;           /* misc & PERF_RECORD_MISC_CPUMODE_MASK */
};

struct pd_file;
typedef int (*pd_record_fn)(void *data, const struct pd_record *rec);

struct pd_file *pd_file_new(struct pc_ctx *ctx, struct pc_input *in);
void pd_file_free(struct pd_file *f);

/*
 * Reads the header, the attrs and (file mode) the feature sections; in
 * pipe mode those arrive as records, read by pd_file_records. 0, or -1
 * with ctx->err set.
 */
int pd_file_open(struct pd_file *f);
/*
 * Hands every record of the data to fn in perf's processing order (the
 * container's own records - attrs, features, COMPRESSED - are read here,
 * not handed on). 0, or -1 with ctx->err set (or fn's -1).
 */
int pd_file_records(struct pd_file *f, pd_record_fn fn, void *data);

bool pd_file_is_pipe(const struct pd_file *f);
bool pd_file_is_swapped(const struct pd_file *f);
size_t pd_file_nattrs(const struct pd_file *f);
const struct pd_attr *pd_file_attr(const struct pd_file *f, size_t i);
/* The event's name: EVENT_DESC's, else EVENT_UPDATE's, else perf's generic one. */
const char *pd_file_event_name(struct pd_file *f, size_t i);
const struct pd_features *pd_file_features(const struct pd_file *f);
/* The header's feature bitmap (file mode; the features seen, in pipe mode). */
bool pd_file_has_feature(const struct pd_file *f, unsigned bit);
/* Records by type (index PD_RECORD_TYPES: other types), compressed ones included. */
const uint64_t *pd_file_census(const struct pd_file *f);
uint64_t pd_file_data_offset(const struct pd_file *f);
uint64_t pd_file_data_size(const struct pd_file *f);
/* Bytes decompressed from COMPRESSED records. */
uint64_t pd_file_decompressed_bytes(const struct pd_file *f);

/* Field loads in the file's byte order; p may be unaligned. */
uint16_t pd_u16(const struct pd_file *f, const uint8_t *p);
uint32_t pd_u32(const struct pd_file *f, const uint8_t *p);
uint64_t pd_u64(const struct pd_file *f, const uint8_t *p);

/* Decodes a SAMPLE record; -1 with ctx->err set when a field overruns it. */
int pd_parse_sample(struct pd_file *f, const struct pd_record *rec, struct pd_sample *s);
/* Fails at the record's offset, naming its type. */
int pd_fail_record(struct pd_file *f, const struct pd_record *rec, const char *fmt, ...)
	PC_PRINTF(3, 4);
/* A record type's name ("MMAP2", "COMPRESSED"), or NULL when unknown. */
const char *pd_record_name(uint32_t type);

#endif
