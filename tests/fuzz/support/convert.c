/* convert.c - the conversion fuzz targets' shared pieces (see convert.h). */
#include "convert.h"
#include "pipeline/convert.h"
#include "pipeline/filter.h"
#include "pipeline/options.h"
#include "pipeline/registry.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#define TEMP_SLOTS 4

/* Values for the options that take one: what works, edges, and what must be refused. */
static const char *const text_values[] = {
	NULL, /* the binary (fuzz_binary_path) */
	"hotpath", "[kernel.kallsyms]", "0.5", "a;b <&\"'>\xc3\xbc", "",
};
static const char *const count_values[] = { "1", "2", "5", "4096", "0", "99999999999999999999",
					     "x" };
static const char *const address_values[] = { "0", "0x1000", "0x400000",
					       "0xffffffffffffffff", "-1" };

size_t fuzz_nreaders(void)
{
	size_t n = 0;

	while (pc_readers[n])
		n++;
	return n;
}

const struct pc_reader *fuzz_pick_reader(uint8_t byte)
{
	size_t n = fuzz_nreaders();

	return byte % (n + 1) < n ? pc_readers[byte % (n + 1)] : NULL;
}

const char *fuzz_binary_path(void)
{
	static char path[PATH_MAX];
	char self[PATH_MAX];
	ssize_t len;
	char *slash;

	if (path[0])
		return path;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len > 0)
		self[len] = '\0';
	if (len > 0 && (slash = strrchr(self, '/'))) {
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/hotpath", self);
	}
	if (!path[0] || access(path, R_OK))
		snprintf(path, sizeof(path), "/proc/self/exe");
	return path;
}

/* A failure says why: a status and a message on one line. */
static void check_failure(const struct pc_error *err)
{
	if (err->status == PC_STATUS_OK || !err->message[0] || strchr(err->message, '\n'))
		abort();
}

static const char *option_value(const struct pc_option_spec *spec, unsigned choice)
{
	const char *value;

	switch (spec->kind) {
	case PC_OPTION_TEXT:
		value = text_values[choice % PC_ARRAY_SIZE(text_values)];
		return value ? value : fuzz_binary_path();
	case PC_OPTION_COUNT:
		return count_values[choice % PC_ARRAY_SIZE(count_values)];
	case PC_OPTION_ADDRESS:
		return address_values[choice % PC_ARRAY_SIZE(address_values)];
	case PC_OPTION_FLAG:
		break;
	}
	return NULL;
}

void fuzz_set_writer_options(struct pc_ctx *ctx, const struct pc_writer *writer, uint8_t bits,
			     uint8_t choice)
{
	/* not the default ten million samples: a count of 2^63 would take minutes */
	if (pc_option_find("max-samples", NULL, writer) && pc_ctx_set(ctx, "max-samples", "4096"))
		abort();
	for (unsigned i = 0; i < 8 && writer->options && writer->options[i].name; i++) {
		const struct pc_option_spec *spec = &writer->options[i];

		if (!(bits & (1u << i)))
			continue;
		if (pc_option_apply(ctx, NULL, writer, spec->name, option_value(spec, choice + i))) {
			if (ctx->err.status != PC_STATUS_USAGE)
				abort();
			check_failure(&ctx->err);
			pc_error_clear(&ctx->err);
		}
	}
}

struct pc_model *fuzz_read_model(struct pc_ctx *ctx, const struct pc_reader *reader,
				 const uint8_t *data, size_t size, bool unknown_size)
{
	struct pc_model *m = pc_model_new();
	struct pc_input in;
	int rc;

	if (pc_option_flag(ctx, "times") || pc_filters_need_times(ctx))
		pc_model_keep_times(m);
	pc_input_from_memory(&in, "fuzz.in", data, size);
	if (unknown_size)
		in.size = PC_SIZE_UNKNOWN;
	rc = pc_read_opened(ctx, &in, reader, m);
	pc_input_close(&in);
	if (rc) {
		check_failure(&ctx->err);
		pc_model_free(m);
		return NULL;
	}
	pc_model_finalize(m);
	return m;
}

int fuzz_write_model(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m,
		     char **text, size_t *size)
{
	struct pc_output out;

	*text = NULL;
	*size = 0;
	if (pc_output_to_memory(&out, text, size, &ctx->err))
		abort();
	if (pc_write_model(ctx, writer, m, &out)) {
		pc_output_abort(&out);
		check_failure(&ctx->err);
		return -1;
	}
	if (pc_output_commit(&out, &ctx->err))
		abort();
	return 0;
}

uint64_t fuzz_column_total(const struct pc_model *m, size_t c)
{
	uint64_t total = 0;

	for (size_t i = 0; i < pc_model_nsamples(m); i++) {
		uint64_t value = pc_model_values(m, i)[c];

		total = total > UINT64_MAX - value ? UINT64_MAX : total + value;
	}
	return total;
}

const char *fuzz_temp_file(unsigned slot, const void *data, size_t size)
{
	static int fds[TEMP_SLOTS];
	static char paths[TEMP_SLOTS][32];
	const char *dir = getenv("TMPDIR");
	char name[PATH_MAX];
	size_t done = 0;

	if (slot >= TEMP_SLOTS)
		abort();
	if (!paths[slot][0]) {
		snprintf(name, sizeof(name), "%s/profconv-fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
		fds[slot] = mkstemp(name);
		if (fds[slot] < 0 || unlink(name))
			abort();
		snprintf(paths[slot], sizeof(paths[slot]), "/proc/self/fd/%d", fds[slot]);
	}
	if (ftruncate(fds[slot], 0))
		abort();
	while (done < size) {
		ssize_t n = pwrite(fds[slot], (const char *)data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	return paths[slot];
}
