/*
 * perf_data_info.c - `profconv info` for perf.data: the header and its
 * features (header view), the events with their attrs (events view) and
 * the census of records by type, with what perf lost.
 */
#include "readers/perf_data_file.h"

#include "model/format.h"

#include <linux/perf_event.h>

struct census_counts {
	struct pd_file *file;
	uint64_t lost, lost_samples;
};

/* What perf lost: LOST {id, lost} and LOST_SAMPLES {lost} records. */
static int count_record(void *data, const struct pd_record *rec)
{
	struct census_counts *c = data;
	size_t body = rec->size - 8u;

	if (rec->type == PERF_RECORD_SAMPLE) {
		struct pd_sample sample;

		return pd_parse_sample(c->file, rec, &sample); /* the errors convert gives */
	}
	if (rec->type == PERF_RECORD_LOST && body >= 16)
		c->lost += pd_u64(c->file, rec->body + 8);
	else if (rec->type == PERF_RECORD_LOST_SAMPLES && body >= 8)
		c->lost_samples += pd_u64(c->file, rec->body);
	return 0;
}

static void print_text(FILE *out, const char *key, const char *value)
{
	if (value)
		fprintf(out, "  %-18s %s\n", key, value);
}

static void print_header(struct pd_file *f, FILE *out)
{
	const struct pd_features *ft = pd_file_features(f);

	fprintf(out, "header:\n");
	fprintf(out, "  %-18s %s, %s\n", "mode", pd_file_is_pipe(f) ? "pipe" : "file",
		pd_file_is_swapped(f) ? "big-endian" : "little-endian");
	fprintf(out, "  %-18s 0x%llx, %llu bytes\n", "data", (unsigned long long)pd_file_data_offset(f),
		(unsigned long long)pd_file_data_size(f));
	print_text(out, "hostname", ft->hostname);
	print_text(out, "os release", ft->osrelease);
	print_text(out, "perf version", ft->version);
	print_text(out, "arch", ft->arch);
	print_text(out, "cpudesc", ft->cpudesc);
	if (ft->has_nrcpus)
		fprintf(out, "  %-18s %u online, %u available\n", "cpus", ft->nr_cpus_online,
			ft->nr_cpus_avail);
	print_text(out, "cmdline", ft->cmdline);
	if (ft->has_sample_time && ft->last_sample_time) /* pipe mode writes zeros */
		fprintf(out, "  %-18s %llu.%09llu to %llu.%09llu s\n", "sample times",
			(unsigned long long)(ft->first_sample_time / 1000000000u),
			(unsigned long long)(ft->first_sample_time % 1000000000u),
			(unsigned long long)(ft->last_sample_time / 1000000000u),
			(unsigned long long)(ft->last_sample_time % 1000000000u));
	if (ft->has_compressed)
		fprintf(out, "  %-18s %s level %u\n", "compressed",
			ft->compressed_type == 1 ? "zstd" : "unknown", ft->compressed_level);
	fprintf(out, "build ids: %zu\n", ft->nbuild_ids);
	for (size_t i = 0; i < ft->nbuild_ids; i++)
		fprintf(out, "  %s %s\n", ft->build_ids[i].hex, ft->build_ids[i].path);
}

static void print_events(struct pd_file *f, FILE *out)
{
	fprintf(out, "events: %zu\n", pd_file_nattrs(f));
	for (size_t i = 0; i < pd_file_nattrs(f); i++) {
		const struct pd_attr *a = pd_file_attr(f, i);

		fprintf(out, "  [%zu] %s: type %u, config 0x%llx, %s %llu, sample_type 0x%llx, "
			"read_format 0x%llx, %zu id(s)%s\n", i, pd_file_event_name(f, i), a->type,
			(unsigned long long)a->config, a->freq ? "frequency" : "period",
			(unsigned long long)a->sample_period, (unsigned long long)a->sample_type,
			(unsigned long long)a->read_format, a->nids,
			a->sample_id_all ? ", sample_id_all" : "");
	}
}

static void print_census(struct pd_file *f, const struct census_counts *counts, FILE *out)
{
	const uint64_t *census = pd_file_census(f);

	fprintf(out, "records:\n");
	for (uint32_t type = 0; type <= PD_RECORD_TYPES; type++) {
		const char *name = type < PD_RECORD_TYPES ? pd_record_name(type) : NULL;

		if (!census[type])
			continue;
		if (name)
			fprintf(out, "  %-20s %llu\n", name, (unsigned long long)census[type]);
		else
			fprintf(out, "  %-20s %llu\n", type < PD_RECORD_TYPES ? "(unknown type)" :
				"(type >= 96)", (unsigned long long)census[type]);
	}
	if (pd_file_decompressed_bytes(f))
		fprintf(out, "  (%llu bytes decompressed)\n",
			(unsigned long long)pd_file_decompressed_bytes(f));
	fprintf(out, "lost: %llu events, %llu samples\n", (unsigned long long)counts->lost,
		(unsigned long long)counts->lost_samples);
}

int pd_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views);

int pd_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views)
{
	struct pd_file *f = pd_file_new(ctx, in);
	struct census_counts counts = { .file = f };
	int ret = pd_file_open(f);

	/* pipe mode: the attrs and features are records too */
	if (!ret && ((views & PC_INFO_EVENTS) || pd_file_is_pipe(f)))
		ret = pd_file_records(f, count_record, &counts);
	if (!ret) {
		if (views & PC_INFO_HEADER)
			print_header(f, out);
		if (views & (PC_INFO_HEADER | PC_INFO_EVENTS))
			print_events(f, out);
		if (views & PC_INFO_EVENTS)
			print_census(f, &counts, out);
	}
	pd_file_free(f);
	return ret;
}
