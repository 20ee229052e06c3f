/*
 * spt_reader.c - reads Microsoft SPGO Sample Profile Trace files (.spt),
 * and prints them for `profconv info` as SPTDump does.
 *
 * Source: the SPTDump page (seeds/000_*.txt), research/vsperf.md section 9
 * and DESIGN.md section 3.1, which decides where the page is unclear. No
 * public .spt file exists; the .sptspec files in samples/ describe the test inputs.
 *
 * Versions: version 1 only (any other version is an error). The signature
 * is accepted as the little-endian value 0x5350543A (bytes 3A 54 50 53, as
 * the page's number says) and as the text "SPT:" (as its comment says).
 *
 * What maps where:
 *   program id i       -> module: name = its string-table name, build id =
 *                         GUID Data1 %08x Data2 %04x Data3 %04x Data4 8 x
 *                         %02x then age %x, lowercase, no dashes
 *   IP records         -> one-frame samples (frame = module + RVA, flag
 *                         HAS_ADDRESS, module-relative) with count
 *                         1 + repeat per RVA, in columns unhalted_cycle
 *                         (0x01), retired_instr (0x02), retired_branch
 *                         (0x03), l1i_miss (0x04), l1d_miss (0x05), timer
 *                         (0x41); unit "count"
 *   LBR (0x10)         -> one sample per record: empty stack, branch stack
 *                         of its N (to, from) pairs in record order (taken
 *                         as newest first), column lbr_branch
 *   ETW call stack     -> one sample per record whose stack is the N RVAs,
 *   (0x42)                RVA[0] the leaf, column callstack
 *   header             -> source "spt", comment "SPT v1, N program ids",
 *                         one fact per header field ("spt.version", ...)
 * Columns are added in that fixed order, only for kinds present; the first
 * present is the default column (unless an earlier input set one).
 *
 * What is lost: RawDataId and TargetArch (reserved, kept only as facts),
 * the unused slots of the tables, and the record order: identical samples
 * are merged. The arcs SPGO derives from call stacks (consecutive pairs)
 * are not added: they follow from the stacks. Records with N = 0 add
 * nothing.
 *
 * Decoding streams through struct pc_input: memory grows with the distinct
 * (module, kind, RVA) keys and distinct LBR/stack records, not with the
 * file. IP hits are counted in small open-addressing tables per (module,
 * kind) (spt_ip_count.c); a total is checked against INT64_MAX at the
 * record that adds to it. A large file is decoded in two halves at once,
 * on two threads, with the same result (see decode_in_parallel). The hits
 * are pushed into the model once, at the end, by (module, RVA, kind), with
 * one-frame call stacks counted as hits of their RVA (they are the same
 * one-frame samples); into a model that holds nothing yet, in bulk
 * (pc_model_append_*: no hash lookup per RVA). LBR and call-stack records
 * are counted in one table of the shared index (base/index.h).
 */
#include "model/format.h"
#include "base/utf8.h"
#include "formats/spt.h"
#include "readers/spt_ip_count.h"
#include "readers/spt_decode.h"
#include "base/sort.h"
#include "base/threads.h"

#include <unistd.h>

#define FORMAT "spt"

/* --- read: aggregation, then the model --- */

/* An LBR or call-stack record: (module, kind, raw items) -> count. */
struct seq_entry {
	uint64_t hash, count;
	uint32_t module;
	enum spt_kind kind;
	size_t start; /* into seq_table.bytes */
	uint32_t len; /* bytes */
};

struct seq_table {
	struct seq_entry *entries;
	size_t nentries, entries_cap;
	uint8_t *bytes;
	size_t nbytes, bytes_cap;
	struct pc_index index; /* entry index + 1 */
};

/*
 * What decoding counts (one per range of the file, see decode_in_parallel).
 * IP hits go to an spt_ip_counter (spt_ip_count.c), keyed by model module
 * rather than program id: program ids that name the same module merge
 * there, where the record's offset is known, rather than in the model.
 */
struct spt_aggregate {
	struct pc_ctx *ctx;
	struct pc_model *m;      /* written only by flush_model */
	const uint32_t *modules; /* model module id of each program id */
	struct spt_ip_counter *ips;
	struct seq_table seqs;
	bool kind_seen[SPT_NKINDS];
	bool overflowed; /* stopped at a total past INT64_MAX */
};

/* Hands an IP record to the counter. */
static int add_ip_record(struct spt_aggregate *agg, const struct spt_record *rec)
{
	struct spt_ip_record ip = {
		.offset = rec->offset, .count = rec->count,
		.module = agg->modules[rec->progid], .kind = rec->kind,
		.n = rec->n, .items = rec->items,
	};

	if (!spt_ip_count(agg->ips, &ip, &agg->ctx->err))
		return 0;
	agg->overflowed = true;
	return -1;
}

struct seq_key {
	uint64_t hash;
	uint32_t module;
	enum spt_kind kind;
	const uint8_t *items;
	uint32_t len;
};

static bool seq_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct seq_table *t = ctx;
	const struct seq_entry *e = &t->entries[id - 1];
	const struct seq_key *key = key_ptr;

	return e->hash == key->hash && e->module == key->module && e->kind == key->kind &&
	       e->len == key->len && !memcmp(t->bytes + e->start, key->items, key->len);
}

/*
 * The entry of (module, kind, items), added with count 0 if new; NULL if
 * the table cannot take another.
 */
static struct seq_entry *seq_find_or_add(struct seq_table *t, uint64_t hash,
					 uint32_t module, enum spt_kind kind,
					 const uint8_t *items, uint32_t len)
{
	struct seq_key key = { .hash = hash, .module = module, .kind = kind,
			       .items = items, .len = len };
	uint32_t id = pc_index_find(&t->index, hash, seq_equal, t, &key);

	if (id)
		return &t->entries[id - 1];
	if (t->nentries >= UINT32_MAX - 1)
		return NULL;
	pc_grow(&t->entries, &t->entries_cap, t->nentries + 1, sizeof(*t->entries));
	pc_grow(&t->bytes, &t->bytes_cap, t->nbytes + len, 1);
	memcpy(t->bytes + t->nbytes, items, len);
	t->entries[t->nentries] = (struct seq_entry){
		.hash = hash, .module = module, .kind = kind, .start = t->nbytes, .len = len,
	};
	t->nbytes += len;
	pc_index_add(&t->index, hash, (uint32_t)++t->nentries);
	return &t->entries[t->nentries - 1];
}

static int add_seq_record(struct spt_aggregate *agg, const struct spt_record *rec)
{
	uint32_t module = agg->modules[rec->progid];
	uint32_t len = rec->n * spt_item_size(rec->op);
	uint64_t hash = pc_hash_bytes(rec->items, len,
				      (uint64_t)module << 8 | (uint64_t)rec->kind);
	struct seq_entry *entry = seq_find_or_add(&agg->seqs, hash, module, rec->kind,
						  rec->items, len);

	if (!entry)
		return pc_fail_at(&agg->ctx->err, FORMAT, rec->offset,
				  "too many distinct LBR and call-stack records");
	if (entry->count > PC_COUNT_MAX - rec->count) {
		agg->overflowed = true;
		return spt_fail_sum_overflow(&agg->ctx->err, rec->offset, rec->kind,
					     rec->count, entry->count);
	}
	entry->count += rec->count;
	return 0;
}

/*
 * Adds from's entries to into, new ones in from's order (so that into's
 * order is the order of first appearance). Returns -1 if a total would
 * pass INT64_MAX or into is full.
 */
static int seq_table_merge(struct seq_table *into, const struct seq_table *from)
{
	for (size_t i = 0; i < from->nentries; i++) {
		const struct seq_entry *e = &from->entries[i];
		struct seq_entry *to = seq_find_or_add(into, e->hash, e->module, e->kind,
						       from->bytes + e->start, e->len);

		if (!to || to->count > PC_COUNT_MAX - e->count)
			return -1;
		to->count += e->count;
	}
	return 0;
}

static int aggregate_record(void *data, const struct spt_record *rec)
{
	struct spt_aggregate *agg = data;

	if (rec->kind == SPT_KIND_NONE || !rec->n)
		return 0;
	agg->kind_seen[rec->kind] = true;
	if (rec->kind == SPT_KIND_LBR || rec->kind == SPT_KIND_ETW_CALLSTACK)
		return add_seq_record(agg, rec);
	return add_ip_record(agg, rec);
}

static uint32_t add_rva_frame(struct pc_model *m, uint32_t module, uint32_t rva)
{
	struct pc_frame frame = {
		.module = module,
		.flags = PC_FRAME_HAS_ADDRESS,
		.address = rva,
	};

	return pc_model_add_frame(m, &frame);
}

static int fail_model_overflow(struct spt_aggregate *agg, uint64_t offset)
{
	return pc_fail_at(&agg->ctx->err, FORMAT, offset,
			  "count overflow: a sample's total passes INT64_MAX");
}

/*
 * The frames in the model before the IP hits are flushed (those of the
 * LBR and call-stack records), by (module, RVA): a bulk flush finds them
 * here, in increasing order, rather than through the model's index.
 */
struct known_frames {
	uint32_t *ids;
	uint64_t *keys; /* module << 32 | RVA */
	size_t n, at;
};

static void known_frames_init(struct known_frames *k, const struct pc_model *m,
			      unsigned threads)
{
	k->n = pc_model_nframes(m);
	k->at = 0;
	k->ids = pc_xmalloc((k->n ? k->n : 1) * sizeof(*k->ids));
	k->keys = pc_xmalloc((k->n ? k->n : 1) * sizeof(*k->keys));
	for (size_t i = 0; i < k->n; i++) {
		k->ids[i] = (uint32_t)(i + 1);
		const struct pc_frame *frame = pc_model_frame(m, (uint32_t)i + 1);

		k->keys[i] = (uint64_t)frame->module << 32 | frame->address;
	}
	pc_sort_by_keys_on(k->ids, k->keys, k->n, threads);
}

/* The frame of (module, RVA) if known, else 0; asked in increasing order. */
static uint32_t known_frame(struct known_frames *k, uint32_t module, uint32_t rva)
{
	uint64_t key = (uint64_t)module << 32 | rva;

	while (k->at < k->n && k->keys[k->at] < key)
		k->at++;
	return k->at < k->n && k->keys[k->at] == key ? k->ids[k->at] : 0;
}

static void known_frames_release(struct known_frames *k)
{
	free(k->ids);
	free(k->keys);
}

/*
 * The hits of one RVA, into a model that held nothing before this file
 * but the frames in *known: its frame (new unless known), its one-frame
 * stack and its sample are new, so they are appended with no lookup, the
 * sample with all its counts at once.
 */
static void append_rva_sample(struct spt_aggregate *agg, uint32_t module,
			      const struct spt_ip_hit *hits, size_t n, const int *columns,
			      struct known_frames *known)
{
	struct pc_model *m = agg->m;
	uint32_t frame = known_frame(known, module, hits[0].rva);
	struct pc_sample sample = { 0 };
	uint64_t row[PC_MAX_COLUMNS];

	if (!frame)
		frame = pc_model_append_frame(m, &(struct pc_frame){
			.module = module, .flags = PC_FRAME_HAS_ADDRESS, .address = hits[0].rva,
		});
	sample.stack = pc_model_append_stack(m, &frame, 1);
	memset(row, 0, pc_model_ncolumns(m) * sizeof(*row));
	for (size_t i = 0; i < n; i++)
		row[columns[hits[i].kind]] = hits[i].count;
	pc_model_append_sample(m, &sample, row);
}

/* The hits of one RVA, into a model that may hold them already. */
static int add_rva_sample(struct spt_aggregate *agg, uint32_t module,
			  const struct spt_ip_hit *hits, size_t n, const int *columns,
			  uint64_t end)
{
	uint32_t frame = add_rva_frame(agg->m, module, hits[0].rva);
	struct pc_sample sample = { .stack = pc_model_add_stack(agg->m, &frame, 1) };

	for (size_t i = 0; i < n; i++)
		if (pc_model_add_sample(agg->m, &sample, (size_t)columns[hits[i].kind],
					hits[i].count))
			return fail_model_overflow(agg, end);
	return 0;
}

/*
 * A module's one-frame hits, sorted by RVA, made while the module before
 * them is added to the model (on a thread of its own when it may): the
 * module's counts are freed once they are made.
 */
struct module_hits {
	struct spt_ip_counter *ips;
	uint32_t module;
	struct spt_ip_hit *hits;
	size_t n;
	struct pc_threads *thread; /* making them, or NULL: made */
};

static void *make_module_hits(void *arg)
{
	struct module_hits *h = arg;

	h->hits = spt_ip_counter_module_hits(h->ips, h->module, &h->n);
	spt_ip_counter_release_module(h->ips, h->module);
	pc_release_free_memory();
	return NULL;
}

static void start_module_hits(struct module_hits *h, struct spt_aggregate *agg, uint32_t module)
{
	*h = (struct module_hits){ .ips = agg->ips, .module = module };
	h->thread = pc_threads_start(pc_ctx_threads(agg->ctx) >= 2, make_module_hits,
				     (void *const[]){ h }, false);
	if (!pc_threads_count(h->thread)) {
		pc_threads_join(h->thread);
		h->thread = NULL;
		make_module_hits(h);
	}
}

static void finish_module_hits(struct module_hits *h)
{
	if (h->thread)
		pc_threads_join(h->thread);
	h->thread = NULL;
}

/*
 * A module's one-frame hits (IP records and one-frame call stacks), by
 * RVA: one frame, one-frame stack and sample per RVA, with a value in the
 * column of each kind that hit it.
 */
static int flush_ip_module(struct spt_aggregate *agg, const struct module_hits *h,
			   const int *columns, uint64_t end, struct known_frames *known)
{
	const struct spt_ip_hit *hits = h->hits;
	size_t next;
	int ret = 0;

	for (size_t i = 0; i < h->n && !ret; i = next) {
		for (next = i + 1; next < h->n && hits[next].rva == hits[i].rva; next++)
			;
		if (known)
			append_rva_sample(agg, h->module, hits + i, next - i, columns, known);
		else
			ret = add_rva_sample(agg, h->module, hits + i, next - i, columns, end);
	}
	return ret;
}

/*
 * One-frame hits (keys of them in all), by (module, RVA): module m's in
 * hits[m % 2], module 1's already being made.
 * Into a model that held nothing before this file, they go in bulk
 * (append_rva_sample): millions of distinct RVAs then cost no index of
 * frames, stacks or samples.
 */
static int flush_ip(struct spt_aggregate *agg, const int *columns, uint64_t end, size_t keys,
		    bool bulk, struct module_hits *hits)
{
	uint32_t nmodules = (uint32_t)pc_model_nmodules(agg->m);
	struct known_frames known;
	int ret = 0;

	if (bulk) {
		known_frames_init(&known, agg->m, pc_ctx_threads(agg->ctx));
		pc_model_reserve(agg->m, keys, keys, keys, keys);
	}
	for (uint32_t module = 1; module <= nmodules; module++) {
		struct module_hits *h = &hits[module % 2];

		finish_module_hits(h);
		if (module < nmodules)
			start_module_hits(&hits[(module + 1) % 2], agg, module + 1);
		if (!ret)
			ret = flush_ip_module(agg, h, columns, end, bulk ? &known : NULL);
		free(h->hits);
	}
	if (bulk)
		known_frames_release(&known);
	return ret;
}

static bool one_frame_stack(const struct seq_entry *e)
{
	return e->kind == SPT_KIND_ETW_CALLSTACK && e->len == SPT_RVA_SIZE;
}

/* One-frame call stacks are counted with the IP hits of their RVA. */
static int count_one_frame_stacks(struct spt_aggregate *agg, uint64_t end)
{
	for (size_t i = 0; i < agg->seqs.nentries; i++) {
		const struct seq_entry *e = &agg->seqs.entries[i];

		if (one_frame_stack(e) &&
		    spt_ip_count_one(agg->ips, e->module, e->kind,
				     pc_le32(agg->seqs.bytes + e->start), e->count))
			return fail_model_overflow(agg, end);
	}
	return 0;
}

static void seq_sample(struct spt_aggregate *agg, const struct seq_entry *e,
		       struct pc_sample *sample)
{
	const uint8_t *items = agg->seqs.bytes + e->start;
	uint32_t frames[SPT_MAX_ITEMS];
	struct pc_branch branches[SPT_MAX_ITEMS];

	if (e->kind == SPT_KIND_LBR) {
		size_t n = e->len / SPT_LBR_PAIR_SIZE;

		for (size_t i = 0; i < n; i++) {
			const uint8_t *pair = items + i * SPT_LBR_PAIR_SIZE;

			branches[i].to = add_rva_frame(agg->m, e->module, pc_le32(pair));
			branches[i].from = add_rva_frame(agg->m, e->module,
							 pc_le32(pair + 4));
		}
		sample->branches = pc_model_add_branches(agg->m, branches, n);
	} else {
		size_t n = e->len / SPT_RVA_SIZE;

		for (size_t i = 0; i < n; i++)
			frames[i] = add_rva_frame(agg->m, e->module,
						  pc_le32(items + i * SPT_RVA_SIZE));
		sample->stack = pc_model_add_stack(agg->m, frames, n);
	}
}

/* LBR and call-stack records, by kind, each kind in first-seen order (but one-frame stacks). */
static int flush_seqs(struct spt_aggregate *agg, const int *columns, uint64_t end)
{
	static const enum spt_kind kinds[] = { SPT_KIND_LBR, SPT_KIND_ETW_CALLSTACK };

	for (size_t k = 0; k < PC_ARRAY_SIZE(kinds); k++) {
		for (size_t i = 0; i < agg->seqs.nentries; i++) {
			const struct seq_entry *e = &agg->seqs.entries[i];
			struct pc_sample sample = { 0 };

			if (e->kind != kinds[k] || one_frame_stack(e))
				continue;
			seq_sample(agg, e, &sample);
			if (pc_model_add_sample(agg->m, &sample, (size_t)columns[e->kind],
						e->count))
				return fail_model_overflow(agg, end);
		}
	}
	return 0;
}

/* What the column of a record kind counts (model.h's roles). */
static enum pc_column_role spt_kind_role(enum spt_kind kind)
{
	return kind == SPT_KIND_LBR ? PC_ROLE_BRANCHES :
	       kind == SPT_KIND_ETW_CALLSTACK ? PC_ROLE_STACKS : PC_ROLE_SAMPLES;
}

static int flush_model(struct spt_aggregate *agg, uint64_t end)
{
	struct module_hits hits[2]; /* module m's in hits[m % 2] */
	int columns[SPT_NKINDS];
	int first = -1, ret;
	size_t keys;
	/* nothing read before this file: its one-frame samples are all new */
	bool bulk = !pc_model_nframes(agg->m) && !pc_model_nstacks(agg->m) &&
		    !pc_model_nsamples(agg->m);

	for (int kind = 0; kind < SPT_NKINDS; kind++) {
		columns[kind] = -1;
		if (!agg->kind_seen[kind])
			continue;
		columns[kind] = pc_model_add_event_column(agg->m,
							  spt_kind_column((enum spt_kind)kind),
							  SPT_COLUMN_UNIT,
							  spt_kind_column((enum spt_kind)kind),
							  spt_kind_role((enum spt_kind)kind));
		if (columns[kind] < 0)
			return pc_fail_at(&agg->ctx->err, FORMAT, end,
					  "too many value columns (at most %d)",
					  PC_MAX_COLUMNS);
		if (first < 0)
			first = columns[kind];
	}
	if (first >= 0 && pc_model_default_column(agg->m) < 0)
		pc_model_set_default_column(agg->m, first);
	if (count_one_frame_stacks(agg, end))
		return -1;
	keys = spt_ip_counter_keys(agg->ips); /* before the counts are freed */
	if (pc_model_nmodules(agg->m))
		start_module_hits(&hits[1], agg, 1); /* while the sequences are added */
	ret = flush_seqs(agg, columns, end);
	if (!pc_model_nmodules(agg->m))
		return ret;
	if (ret) {
		finish_module_hits(&hits[1]);
		free(hits[1].hits);
		return ret;
	}
	return flush_ip(agg, columns, end, keys, bulk, hits);
}

static void add_fact_u64(struct pc_model *m, const char *key, bool hex,
			 uint64_t value)
{
	char text[32];

	if (hex)
		snprintf(text, sizeof(text), "0x%llx", (unsigned long long)value);
	else
		snprintf(text, sizeof(text), "%llu", (unsigned long long)value);
	pc_model_add_fact(m, key, text);
}

static void add_metadata(struct pc_model *m, const struct spt_header *hdr)
{
	pc_model_add_source(m, FORMAT);
	pc_model_add_comment(m, "SPT v%u, %u program ids", hdr->version,
			     hdr->progids_used);
	pc_model_add_fact(m, "spt.signature", hdr->text_signature ?
			  "\"SPT:\" (bytes 53 50 54 3a)" :
			  "0x5350543a (bytes 3a 54 50 53)");
	add_fact_u64(m, "spt.version", false, hdr->version);
	add_fact_u64(m, "spt.raw_data_id", true, hdr->raw_data_id);
	add_fact_u64(m, "spt.target_arch", true, hdr->target_arch);
	add_fact_u64(m, "spt.string_table_offset", true, hdr->strtab_offset);
	add_fact_u64(m, "spt.program_id_table_offset", true, hdr->progid_offset);
	add_fact_u64(m, "spt.string_table_used", false, hdr->strtab_used);
	add_fact_u64(m, "spt.string_table_capacity", false, hdr->strtab_capacity);
	add_fact_u64(m, "spt.program_ids_used", false, hdr->progids_used);
	add_fact_u64(m, "spt.program_id_capacity", false, hdr->progid_capacity);
	add_fact_u64(m, "spt.event_stream_offset", true, hdr->events_offset);
}

/* The model module of each program id, into *modules (malloc'ed). */
static int add_modules(struct pc_ctx *ctx, struct pc_model *m, const struct spt_file *file,
		       uint32_t **modules)
{
	*modules = pc_xcalloc(file->hdr.progids_used, sizeof(**modules));
	for (size_t i = 0; i < file->hdr.progids_used; i++) {
		const struct spt_progid *prog = &file->progids[i];
		char build_id[64];
		struct pc_module module = { 0 };

		module.name = pc_model_intern(m, prog->name, prog->name_len);
		module.has_pdb = true;
		module.pdb = (struct pc_pdb_id){
			.data1 = prog->data1, .data2 = prog->data2, .data3 = prog->data3,
			.age = prog->age,
		};
		memcpy(module.pdb.data4, prog->data4, sizeof(module.pdb.data4));
		pc_pdb_id_key(&module.pdb, build_id, sizeof(build_id));
		module.build_id = pc_model_intern_cstr(m, build_id);
		(*modules)[i] = pc_model_add_module(m, &module);
		if ((*modules)[i] > SPT_IP_MAX_MODULE)
			return pc_fail_at(&ctx->err, FORMAT, file->hdr.progid_offset,
					  "too many modules in one profile (at most %u)",
					  SPT_IP_MAX_MODULE);
	}
	return 0;
}

static void aggregate_init(struct spt_aggregate *agg, struct pc_ctx *ctx,
			   struct pc_model *m, const uint32_t *modules)
{
	*agg = (struct spt_aggregate){
		.ctx = ctx, .m = m, .modules = modules,
		.ips = spt_ip_counter_new((uint32_t)pc_model_nmodules(m)),
	};
}

static void aggregate_release(struct spt_aggregate *agg)
{
	spt_ip_counter_free(agg->ips);
	free(agg->seqs.entries);
	free(agg->seqs.bytes);
	pc_index_release(&agg->seqs.index);
	memset(agg, 0, sizeof(*agg));
}

/* Adds from's counts to into's; -1 if a total would pass INT64_MAX. */
static int aggregate_merge(struct spt_aggregate *into, const struct spt_aggregate *from)
{
	for (int kind = 0; kind < SPT_NKINDS; kind++)
		into->kind_seen[kind] |= from->kind_seen[kind];
	if (spt_ip_counter_merge(into->ips, from->ips) ||
	    seq_table_merge(&into->seqs, &from->seqs))
		return -1;
	return 0;
}

static int decode_sequentially(struct spt_aggregate *agg, const struct spt_file *file,
			       struct pc_input *in)
{
	struct spt_decoder d = {
		.ctx = agg->ctx, .in = in, .file = file,
		.emit = aggregate_record, .data = agg,
	};

	return spt_decode_events(&d);
}

/* --- parallel decoding ---
 *
 * A regular file of PARALLEL_MIN_BYTES or more is cut at the segment
 * boundary nearest after the middle of its events, found by hopping over
 * the BINARY_ID headers. The two ranges are decoded at once, each with its
 * own input, counts, warnings and error, and then merged, first range
 * first. The result is the sequential one: a segment holds all that its
 * records mean (a REPEAT does not cross it), so the second range decodes
 * as it would after the first. The error is the first range's, else the
 * second's; the warnings are the first range's, then, if it had no error,
 * the second's. What a range cannot know is the counts before it, so a
 * count overflow in the second range or in the merge means decoding the
 * file again, sequentially, to report the overflow where it happens.
 */
#define PARALLEL_MIN_BYTES ((uint64_t)4 << 20)
#define SPLIT_MAX_HOPS 16384 /* more segments than this before the middle: no split */

struct spt_range {
	struct pc_ctx ctx;
	struct pc_input in;
	struct spt_aggregate agg;
	struct spt_decoder d;
	int ret;
};

/*
 * The segment boundary at or after the middle of the events, or 0 if
 * there is none to cut at: a header that is not a well-formed BINARY_ID,
 * too many segments, or no boundary before the end.
 */
static uint64_t find_split(const struct pc_input *in, uint64_t events_offset)
{
	uint64_t at = events_offset;
	uint64_t middle = events_offset + (in->size - events_offset) / 2;

	for (unsigned hops = 0; at < middle; hops++) {
		uint8_t head[SPT_BINARY_ID_SIZE];
		uint32_t length;

		if (hops == SPLIT_MAX_HOPS ||
		    pread(in->fd, head, sizeof(head), (off_t)at) != (ssize_t)sizeof(head) ||
		    head[0] != SPT_OP_BINARY_ID)
			return 0;
		length = pc_le32(head + SPT_BINARY_ID_OFF_LENGTH);
		if (length < 4)
			return 0;
		at += SPT_BINARY_ID_OFF_LENGTH + (uint64_t)length;
	}
	return at < in->size ? at : 0;
}

/* Range [start, end) of in's events, decoded as if a segment ended at start. */
static void range_init(struct spt_range *r, const struct spt_aggregate *agg,
		       const struct spt_file *file, const struct pc_input *in,
		       uint64_t start, uint64_t end)
{
	pc_ctx_init(&r->ctx);
	r->ctx.opt = agg->ctx->opt;
	pc_input_open_range(&r->in, in, start, end);
	aggregate_init(&r->agg, &r->ctx, agg->m, agg->modules);
	r->d = (struct spt_decoder){
		.ctx = &r->ctx, .in = &r->in, .file = file,
		.emit = aggregate_record, .data = &r->agg,
		.had_segment = start > file->hdr.events_offset, .segment_end = start,
	};
}

static void range_release(struct spt_range *r)
{
	aggregate_release(&r->agg);
	pc_input_close(&r->in);
}

static void *decode_range(void *arg)
{
	struct spt_range *r = arg;

	r->ret = spt_decode_events(&r->d);
	return NULL;
}

/*
 * The two ranges' outcome, into agg and its ctx: 0 (agg has the counts),
 * -1 (the ctx has the error), or 1: decode sequentially instead.
 */
static int merge_ranges(struct spt_aggregate *agg, struct spt_range *first,
			struct spt_range *second)
{
	struct pc_ctx *ctx = agg->ctx;

	if (first->ret) {
		pc_ctx_add_warnings(ctx, &first->ctx);
		ctx->err = first->ctx.err;
		return -1;
	}
	if (second->agg.overflowed || aggregate_merge(&first->agg, &second->agg))
		return 1;
	pc_ctx_add_warnings(ctx, &first->ctx);
	pc_ctx_add_warnings(ctx, &second->ctx);
	if (second->ret) {
		ctx->err = second->ctx.err;
		return -1;
	}
	aggregate_release(agg);
	*agg = first->agg;
	agg->ctx = ctx;
	memset(&first->agg, 0, sizeof(first->agg));
	return 0;
}

/*
 * Decodes in's events in two ranges at once when that is worth it (see
 * above). Returns 0 or -1 as spt_decode_events does, or 1 when the events are
 * to be decoded sequentially (in is untouched then).
 */
static int decode_in_parallel(struct spt_aggregate *agg, const struct spt_file *file,
			      const struct pc_input *in)
{
	struct spt_range *ranges;
	struct pc_threads *second;
	uint64_t split;
	int ret = 1;

	if (pc_ctx_threads(agg->ctx) < 2 || !pc_input_is_whole_file(in) ||
	    in->size < PARALLEL_MIN_BYTES || !(split = find_split(in, file->hdr.events_offset)))
		return 1;
	ranges = pc_xcalloc(2, sizeof(*ranges));
	range_init(&ranges[0], agg, file, in, file->hdr.events_offset, split);
	range_init(&ranges[1], agg, file, in, split, in->size);
	ranges[0].in.progress = in->progress;
	ranges[0].in.progress_ranges = 2;
	second = pc_threads_start(1, decode_range, (void *const[]){ &ranges[1] }, false);
	if (pc_threads_count(second)) {
		if (agg->ctx->threads_used < 2)
			agg->ctx->threads_used = 2;
		decode_range(&ranges[0]);
		pc_threads_join(second);
		ret = merge_ranges(agg, &ranges[0], &ranges[1]);
	} else {
		pc_threads_join(second); /* no thread to be had: sequentially */
	}
	range_release(&ranges[0]);
	range_release(&ranges[1]);
	free(ranges);
	return ret;
}

static int spt_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct spt_file file = { 0 };
	struct spt_aggregate agg = { 0 };
	uint32_t *modules = NULL;
	int ret = -1, decoded;

	if (spt_read_header(ctx, in, &file.hdr) || spt_read_tables(ctx, in, &file))
		goto out;
	add_metadata(m, &file.hdr);
	if (add_modules(ctx, m, &file, &modules))
		goto out;
	aggregate_init(&agg, ctx, m, modules);
	decoded = decode_in_parallel(&agg, &file, in);
	if (decoded > 0)
		decoded = decode_sequentially(&agg, &file, in);
	else if (!decoded)
		pc_input_skip_to(in, in->size);
	pc_release_free_memory(); /* what merging the two ranges' counts freed */
	if (decoded || flush_model(&agg, pc_input_offset(in)))
		goto out;
	ret = 0;
out:
	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	aggregate_release(&agg);
	free(modules);
	spt_file_release(&file);
	return ret;
}

/* --- info: SPTDump's views ---
 *
 * `profconv info` prints, for the views asked (default all), in order:
 *
 *   header:
 *     0x00  signature                0x5350543a  (bytes 3a 54 50 53: the little-endian value)
 *     0x04  version                  1
 *     0x08  raw_data_id              0x00000000
 *     0x0c  target_arch              0x00000000
 *     0x10  string_table_offset      0x00000020
 *     0x14  program_id_table_offset  0x00004020
 *     0x18  string_table_used        0x0009  (9 bytes)
 *     0x1a  string_table_capacity    0x4000  (16384 bytes)
 *     0x1c  program_ids_used         0x0001  (1)
 *     0x1e  program_id_capacity      0x0100  (256)
 *           event_stream_offset      0x00005820
 *   program ids: 1 used of 256
 *     [0] {6D2A9F13-0C4B-4E8A-9F21-3B7C55D1E0A4} age 26 demo.exe
 *   string table: 9 of 16384 bytes used
 *     0x0000  "demo.exe"
 *   events:
 *     offset      record           repeat  data
 *     0x00005820  BINARY_ID        -       progid 0 length 0x1f6 end 0x00005a1a demo.exe
 *     0x00005828  REPEAT           -       3999
 *     0x00005832  UNHALT_CYCLE     3999    1 0x1a2c0
 *     0x0000583a  LBR              0       2 0x1a2c0<-0x1a2cc 0x1a2c0<-0x1b458
 *     0x00005850  ETW_CALLSTACK    29      3 0x1a2c4 0x1b440 0x10050
 *   end of events at 0x00005a1a: 40 records
 *
 * Event lines: offset (0x%08llx), record name, then for data records the
 * repeat in effect (the record counts 1 + repeat times) and N followed by
 * the N items in hex; an LBR item is TO<-FROM (disk order: to, then from).
 * BINARY_ID and REPEAT show "-" as repeat; REPEAT shows its value in
 * decimal. Names are printed as UTF-8 with control bytes, quotes,
 * backslashes and invalid UTF-8 as \xNN. The whole file is always decoded,
 * so malformed input fails as `convert` does, after what was printed.
 */

struct spt_printer {
	FILE *out;
	const struct spt_file *file;
	bool events;
};

static void print_text(FILE *out, const char *text, size_t len)
{
	const uint8_t *s = (const uint8_t *)text;

	for (size_t i = 0; i < len;) {
		size_t seq = pc_utf8_char_len(s + i, len - i);

		if (!seq || s[i] < 0x20 || s[i] == 0x7f || s[i] == '"' || s[i] == '\\') {
			fprintf(out, "\\x%02x", s[i]);
			i++;
		} else {
			fwrite(s + i, 1, seq, out);
			i += seq;
		}
	}
}

static void print_header(FILE *out, const struct spt_header *hdr)
{
	fprintf(out, "header:\n");
	fprintf(out, "  0x00  %-23s  0x%08x  (%s)\n", "signature", hdr->signature,
		hdr->text_signature ? "bytes 53 50 54 3a: the text \"SPT:\"" :
		"bytes 3a 54 50 53: the little-endian value");
	fprintf(out, "  0x04  %-23s  %u\n", "version", hdr->version);
	fprintf(out, "  0x08  %-23s  0x%08x\n", "raw_data_id", hdr->raw_data_id);
	fprintf(out, "  0x0c  %-23s  0x%08x\n", "target_arch", hdr->target_arch);
	fprintf(out, "  0x10  %-23s  0x%08x\n", "string_table_offset", hdr->strtab_offset);
	fprintf(out, "  0x14  %-23s  0x%08x\n", "program_id_table_offset",
		hdr->progid_offset);
	fprintf(out, "  0x18  %-23s  0x%04x  (%u bytes)\n", "string_table_used",
		hdr->strtab_used, hdr->strtab_used);
	fprintf(out, "  0x1a  %-23s  0x%04x  (%u bytes)\n", "string_table_capacity",
		hdr->strtab_capacity, hdr->strtab_capacity);
	fprintf(out, "  0x1c  %-23s  0x%04x  (%u)\n", "program_ids_used",
		hdr->progids_used, hdr->progids_used);
	fprintf(out, "  0x1e  %-23s  0x%04x  (%u)\n", "program_id_capacity",
		hdr->progid_capacity, hdr->progid_capacity);
	fprintf(out, "        %-23s  0x%08llx\n", "event_stream_offset",
		(unsigned long long)hdr->events_offset);
}

static void print_progids(FILE *out, const struct spt_file *file)
{
	fprintf(out, "program ids: %u used of %u\n", file->hdr.progids_used,
		file->hdr.progid_capacity);
	for (size_t i = 0; i < file->hdr.progids_used; i++) {
		const struct spt_progid *prog = &file->progids[i];
		const uint8_t *d4 = prog->data4;

		fprintf(out, "  [%zu] {%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}"
			" age %u ", i, prog->data1, prog->data2, prog->data3, d4[0],
			d4[1], d4[2], d4[3], d4[4], d4[5], d4[6], d4[7], prog->age);
		print_text(out, prog->name, prog->name_len);
		fputc('\n', out);
	}
}

static void print_strtab(FILE *out, const struct spt_file *file)
{
	size_t used = file->hdr.strtab_used;
	const char *table = (const char *)file->strtab;

	fprintf(out, "string table: %zu of %u bytes used\n", used,
		file->hdr.strtab_capacity);
	for (size_t at = 0; at < used;) {
		const char *nul = memchr(table + at, '\0', used - at);
		size_t len = nul ? (size_t)(nul - (table + at)) : used - at;

		fprintf(out, "  0x%04zx  \"", at);
		print_text(out, table + at, len);
		fprintf(out, "\"%s\n", nul ? "" : " (not NUL-terminated)");
		at += len + 1;
	}
}

static void print_items(FILE *out, const struct spt_record *rec)
{
	fprintf(out, "%-7llu %u", (unsigned long long)rec->repeat, rec->n);
	for (unsigned i = 0; i < rec->n; i++) {
		if (rec->op == SPT_OP_LBR) {
			const uint8_t *pair = rec->items + i * SPT_LBR_PAIR_SIZE;

			fprintf(out, " 0x%x<-0x%x", pc_le32(pair), pc_le32(pair + 4));
		} else {
			fprintf(out, " 0x%x", pc_le32(rec->items + i * SPT_RVA_SIZE));
		}
	}
}

static int print_record(void *data, const struct spt_record *rec)
{
	const struct spt_printer *printer = data;
	FILE *out = printer->out;

	if (!printer->events)
		return 0;
	fprintf(out, "  0x%08llx  %-15s  ", (unsigned long long)rec->offset,
		spt_op_name(rec->op));
	if (rec->op == SPT_OP_BINARY_ID) {
		const struct spt_progid *prog = &printer->file->progids[rec->progid];

		fprintf(out, "%-7s progid %u length 0x%x end 0x%08llx ", "-",
			rec->progid, rec->length, (unsigned long long)rec->end);
		print_text(out, prog->name, prog->name_len);
	} else if (rec->op == SPT_OP_REPEAT) {
		fprintf(out, "%-7s %llu", "-", (unsigned long long)rec->repeat);
	} else {
		print_items(out, rec);
	}
	fputc('\n', out);
	return 0;
}

static int spt_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out,
		    unsigned views)
{
	struct spt_file file = { 0 };
	struct spt_printer printer = {
		.out = out, .file = &file, .events = views & PC_INFO_EVENTS,
	};
	struct spt_decoder d = {
		.ctx = ctx, .in = in, .file = &file,
		.emit = print_record, .data = &printer,
	};
	int ret = -1;

	if (spt_read_header(ctx, in, &file.hdr))
		goto out;
	if (views & PC_INFO_HEADER)
		print_header(out, &file.hdr);
	if (spt_read_tables(ctx, in, &file))
		goto out;
	if (views & PC_INFO_PROGID)
		print_progids(out, &file);
	if (views & PC_INFO_STRTAB)
		print_strtab(out, &file);
	if (printer.events)
		fprintf(out, "events:\n  %-10s  %-15s  %-7s data\n", "offset", "record",
			"repeat");
	if (spt_decode_events(&d))
		goto out;
	if (printer.events)
		fprintf(out, "end of events at 0x%08llx: %llu records\n",
			(unsigned long long)pc_input_offset(in),
			(unsigned long long)d.records);
	ret = 0;
out:
	if (ret)
		pc_error_set_path(&ctx->err, in->name);
	spt_file_release(&file);
	return ret;
}

/* --- probe and descriptor --- */

/* Between WEAK and STRONG: the signature alone, without version 1. */
#define PROBE_SIGNATURE_ONLY ((PC_PROBE_WEAK + PC_PROBE_STRONG) / 2)

static int spt_probe(const uint8_t *head, size_t len)
{
	if (len < 4 || (!spt_signature_is_le(head) && !spt_signature_is_text(head)))
		return PC_PROBE_NO;
	if (len >= 8 && pc_le32(head + SPT_OFF_VERSION) == SPT_VERSION)
		return PC_PROBE_CERTAIN;
	return PROBE_SIGNATURE_ONLY;
}

static const char *const spt_extensions[] = { ".spt", NULL };

const struct pc_reader pc_spt_reader = {
	.name = "spt",
	.extensions = spt_extensions,
	.summary = "Microsoft SPGO sample profile trace (SPT v1)",
	.provides = PC_PART_ADDRESSES | PC_PART_STACKS | PC_PART_BRANCHES,
	.probe = spt_probe,
	.read = spt_read,
	.info = spt_info,
};
