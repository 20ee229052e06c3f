/* registry.c - the static tables of readers and writers, and detection. */
#include "pipeline/registry.h"

extern const struct pc_reader pc_spt_reader;
extern const struct pc_reader pc_perf_script_reader;
extern const struct pc_reader pc_perf_data_reader;
extern const struct pc_reader pc_etl_reader;
extern const struct pc_reader pc_diagsession_reader;
extern const struct pc_reader pc_folded_reader;
extern const struct pc_reader pc_sampler_reader;
extern const struct pc_reader pc_vsperf_reader;
extern const struct pc_reader pc_vsperf_xml_reader;
extern const struct pc_reader pc_vsp_reader;
extern const struct pc_reader pc_pprof_reader;
extern const struct pc_writer pc_pprof_writer;
extern const struct pc_writer pc_dump_writer;
extern const struct pc_writer pc_folded_writer;
extern const struct pc_writer pc_report_writer;
extern const struct pc_writer pc_spt_writer;
extern const struct pc_writer pc_sampler_writer;
extern const struct pc_writer pc_autofdo_writer;
extern const struct pc_writer pc_llvm_unsymbolized_writer;
extern const struct pc_writer pc_gcc_afdo_writer;
extern const struct pc_writer pc_llvm_sample_writer;
extern const struct pc_writer pc_speedscope_writer;
extern const struct pc_writer pc_cpuprofile_writer;
extern const struct pc_writer pc_flamegraph_svg_writer;

const struct pc_reader *const pc_readers[] = {
	&pc_spt_reader,
	&pc_perf_script_reader,
	&pc_perf_data_reader,
	&pc_etl_reader,
	&pc_diagsession_reader,
	&pc_folded_reader,
	&pc_sampler_reader,
	&pc_vsperf_reader,
	&pc_vsperf_xml_reader,
	&pc_vsp_reader,
	&pc_pprof_reader,
	NULL,
};

const struct pc_writer *const pc_writers[] = {
	&pc_pprof_writer,
	&pc_dump_writer,
	&pc_folded_writer,
	&pc_report_writer,
	&pc_spt_writer,
	&pc_sampler_writer,
	&pc_autofdo_writer,
	&pc_llvm_unsymbolized_writer,
	&pc_gcc_afdo_writer,
	&pc_llvm_sample_writer,
	&pc_speedscope_writer,
	&pc_cpuprofile_writer,
	&pc_flamegraph_svg_writer,
	NULL,
};

static bool name_matches(const char *name, const char *const *aliases,
			 const char *wanted)
{
	if (!strcmp(name, wanted))
		return true;
	for (size_t i = 0; aliases && aliases[i]; i++)
		if (!strcmp(aliases[i], wanted))
			return true;
	return false;
}

static bool has_extension(const char *path, const char *const *extensions)
{
	size_t path_len = strlen(path);

	for (size_t i = 0; extensions && extensions[i]; i++) {
		size_t ext_len = strlen(extensions[i]);

		if (path_len > ext_len && !strcmp(path + path_len - ext_len, extensions[i]))
			return true;
	}
	return false;
}

const struct pc_reader *pc_reader_find(const char *name)
{
	for (size_t i = 0; pc_readers[i]; i++)
		if (name_matches(pc_readers[i]->name, pc_readers[i]->aliases, name))
			return pc_readers[i];
	return NULL;
}

const struct pc_writer *pc_writer_find(const char *name)
{
	for (size_t i = 0; pc_writers[i]; i++)
		if (name_matches(pc_writers[i]->name, pc_writers[i]->aliases, name))
			return pc_writers[i];
	return NULL;
}

const struct pc_writer *pc_writer_for_path(const char *path)
{
	for (size_t i = 0; pc_writers[i]; i++)
		if (has_extension(path, pc_writers[i]->extensions))
			return pc_writers[i];
	return NULL;
}

static int reader_score(const struct pc_reader *reader, const char *path,
			const uint8_t *head, size_t len)
{
	int score = reader->probe ? reader->probe(head, len) : PC_PROBE_NO;

	if (score < PC_PROBE_EXTENSION && has_extension(path, reader->extensions))
		score = PC_PROBE_EXTENSION;
	return score;
}

const struct pc_reader *pc_detect(struct pc_input *in, struct pc_error *err)
{
	const struct pc_reader *best = NULL;
	const uint8_t *head;
	size_t len = pc_input_fill(in, PC_PROBE_BYTES, &head);
	int best_score = PC_PROBE_NO;
	char tied[256] = "";
	bool tie = false;

	if (pc_input_check_io(in, err))
		return NULL;
	for (size_t i = 0; pc_readers[i]; i++) {
		int score = reader_score(pc_readers[i], in->name, head, len);

		if (score > best_score) {
			best = pc_readers[i];
			best_score = score;
			tie = false;
		} else if (score == best_score && score > PC_PROBE_NO) {
			tie = true;
		}
	}
	if (tie) {
		size_t used = 0;

		for (size_t i = 0; pc_readers[i] && used < sizeof(tied); i++)
			if (reader_score(pc_readers[i], in->name, head, len) == best_score)
				used += (size_t)snprintf(tied + used, sizeof(tied) - used, "%s%s",
							 used ? ", " : "", pc_readers[i]->name);
		pc_error_set_path(err, in->name);
		pc_fail(err, PC_STATUS_INPUT,
			"cannot tell the input format: it could be %s; name it with --from", tied);
		return NULL;
	}
	if (!best || best_score < PC_PROBE_WEAK) {
		pc_error_set_path(err, in->name);
		if (best)
			pc_fail(err, PC_STATUS_INPUT,
				"cannot tell the input format (weak guess: %s); name it with --from",
				best->name);
		else
			pc_fail(err, PC_STATUS_INPUT,
				"unknown input format; name it with --from (see 'profconv formats')");
		return NULL;
	}
	return best;
}
