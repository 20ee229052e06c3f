/*
 * fuzz_options.c - libFuzzer target for the options of a conversion as the
 * library takes them ("name=value" strings: profconv_check_options, then a
 * read and a write with them; the filters --pids, --tids, --comms,
 * --modules, --kernel-only, --user-only, --focus, --ignore, --hide, --time
 * among them). Built by `make fuzz-build`, run by `make fuzz`; seeds in
 * tests/fuzz/corpus/options/, made by tests/fuzz/seeds/write_seeds.sh.
 *
 * An input is two bytes, the options, one per line, ended by an empty
 * line (at most 16 are taken), then a profile:
 *   byte 0  the input format (fuzz_pick_reader: a reader's name, or none:
 *           detected)
 *   byte 1  the output format (pipeline/registry.c's order; one past the
 *           last: none, only the read)
 * The options are checked against both formats at once, and split as the
 * command line splits them: the pipeline's and the readers' for the read
 * (the pipeline's for the write too), the rest for the write (checked
 * without an output format when there is none). Besides the
 * sanitizers, it checks that every failure says why, on one line; that
 * the whole check fails exactly when the check of the read's or of the
 * write's options fails, and that the read and the write then fail with
 * that check's message; that each filter's note ("--pids 12: kept A of B
 * samples") keeps no more than it was given, and a filter given the
 * samples the one before it kept; and that a filtered profile, written as
 * pprof and read back, holds no more samples than the unfiltered one (an
 * --ignore that matches no frame, so that caller/callee data is made into
 * stacks alike).
 *
 * --symbols and --kallsyms are left out (they read the machine's files;
 * fuzz_symbols covers what they parse), and reads get --kallsyms a small
 * file of this process, as in fuzz_merge.c.
 */
#include "profconv.h"
#include "support/convert.h"
#include "pipeline/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OPTIONS 16
#define MAX_OPTION_BYTES 256
#define BASELINE "ignore=^profconv fuzz baseline: a regular expression that matches no frame$"

static const char *const filters[] = {
	"pids", "tids", "comms", "modules", "kernel-only", "user-only", "focus", "ignore", "hide",
	"time",
};

struct options {
	char text[MAX_OPTIONS][MAX_OPTION_BYTES];
	const char *all[MAX_OPTIONS + 1], *read[MAX_OPTIONS + 2], *write[MAX_OPTIONS + 1];
	const char *filters[MAX_OPTIONS + 1]; /* the write's filters only */
	size_t n, nread, nwrite, nfilters;
};

static const char *kallsyms_option(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T do_syscall_64\n";
	static char option[64];

	if (!option[0])
		snprintf(option, sizeof(option), "kallsyms=%s",
			 fuzz_temp_file(1, text, sizeof(text) - 1));
	return option;
}

/* Whether option (NAME or NAME=VALUE) is the name'd one. */
static bool named(const char *option, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(option, name, len) && (!option[len] || option[len] == '=');
}

/* Whether option is one of format's (reading), or of the pipeline's when format is NULL. */
static bool declared_by(const char *format, const char *option)
{
	const char *name;

	for (size_t i = 0; (name = profconv_option(format, 0, i, NULL, NULL)); i++)
		if (named(option, name))
			return true;
	return false;
}

/*
 * Whether the read takes option: the pipeline's or a reader's (that of
 * another reader than the input's is refused there, as the command line
 * does).
 */
static bool for_read(const char *option)
{
	const char *format;
	int can_read;

	if (declared_by(NULL, option))
		return true;
	for (size_t i = 0; (format = profconv_format(i, &can_read, NULL)); i++)
		if (can_read && declared_by(format, option))
			return true;
	return false;
}

static bool is_filter(const char *option)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(filters); i++)
		if (named(option, filters[i]))
			return true;
	return false;
}

/* The option lines at data, up to an empty line; returns where the profile starts. */
static size_t parse_options(const uint8_t *data, size_t size, struct options *o)
{
	size_t at = 0;

	while (at < size && data[at] != '\n') {
		size_t end = at;

		while (end < size && data[end] != '\n')
			end++;
		if (o->n < MAX_OPTIONS) {
			size_t len = end - at < MAX_OPTION_BYTES - 1 ? end - at : MAX_OPTION_BYTES - 1;

			memcpy(o->text[o->n], data + at, len);
			o->text[o->n][len] = '\0';
			if (!named(o->text[o->n], "symbols") && !named(o->text[o->n], "kallsyms"))
				o->n++;
		}
		at = end < size ? end + 1 : end;
	}
	return at < size ? at + 1 : at;
}

static void split_options(struct options *o)
{
	o->read[o->nread++] = kallsyms_option();
	for (size_t i = 0; i < o->n; i++) {
		const char *option = o->text[i];

		o->all[i] = option;
		if (for_read(option))
			o->read[o->nread++] = option;
		if (!for_read(option) || declared_by(NULL, option))
			o->write[o->nwrite++] = option;
		if (is_filter(option))
			o->filters[o->nfilters++] = option;
	}
}

/* A library error: given, and one line; returns it (the caller frees it). */
static char *checked(char *error)
{
	if (!error || !error[0] || strchr(error, '\n'))
		abort();
	return error;
}

/* Where fails must fail with expected (when not NULL), the check's message. */
static void expect_failure(int rc, char *error, const char *expected)
{
	if (expected && (!rc || strcmp(error, expected)))
		abort();
	if (rc)
		profconv_free(checked(error));
}

/* Each filter keeps no more than it is given, and is given what the one before kept. */
static void check_notes(const profconv_profile *p)
{
	unsigned long long last_kept = 0;
	const char *note;

	for (size_t i = 0; (note = profconv_note(p, i)); i++) {
		const char *kept = strstr(note, ": kept "), *next;
		unsigned long long count, of;

		while (kept && (next = strstr(kept + 1, ": kept ")))
			kept = next;
		if (!kept || sscanf(kept, ": kept %llu of %llu", &count, &of) != 2 || count > of)
			abort();
		if (i && strncmp(note, "--time", 6) && of != last_kept)
			abort();
		last_kept = count;
	}
}

/* The samples of p written as pprof with options and read back; SIZE_MAX when it does not write. */
static size_t samples_as_pprof(const profconv_profile *p, const char *const *options)
{
	profconv_profile *again;
	void *text;
	size_t size, samples;
	char *error = NULL;

	if (profconv_write_memory(p, "pprof", options, &text, &size, &error)) {
		profconv_free(checked(error));
		return SIZE_MAX;
	}
	if (profconv_read_memory(text, size, "again.pb.gz", "pprof", NULL, &again, &error))
		abort(); /* profconv reads the pprof it writes */
	samples = profconv_profile_samples(again);
	profconv_profile_free(again);
	profconv_free(text);
	return samples;
}

static void check_filtered(const profconv_profile *p, const struct options *o)
{
	const char *baseline[] = { BASELINE, NULL };
	size_t all, filtered;

	if (!o->nfilters)
		return;
	all = samples_as_pprof(p, baseline);
	filtered = samples_as_pprof(p, o->filters);
	if (all != SIZE_MAX && filtered != SIZE_MAX && filtered > all)
		abort();
}

static void convert(const uint8_t *data, size_t size, const char *reader, const char *writer,
		    const struct options *o, const char *read_error, const char *write_error)
{
	profconv_profile *p;
	void *text;
	size_t text_size;
	char *error = NULL;
	int rc;

	rc = profconv_read_memory(data, size, "fuzz.in", reader, o->read, &p, &error);
	expect_failure(rc, error, read_error);
	if (rc || !writer) {
		profconv_profile_free(p);
		return;
	}
	error = NULL;
	rc = profconv_write_memory(p, writer, o->write, &text, &text_size, &error);
	expect_failure(rc, error, write_error);
	if (!rc) {
		check_notes(p);
		profconv_free(text);
		check_filtered(p, o);
	}
	profconv_profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct options o;
	const struct pc_reader *picked;
	const char *reader, *writer = NULL;
	char *all_error = NULL, *read_error = NULL, *write_error = NULL;
	size_t nwriters = 0, start;
	int all, read, write;

	if (size < 2)
		return 0;
	while (pc_writers[nwriters])
		nwriters++;
	picked = fuzz_pick_reader(data[0]);
	reader = picked ? picked->name : NULL;
	if (data[1] % (nwriters + 1) < nwriters)
		writer = pc_writers[data[1] % (nwriters + 1)]->name;
	memset(&o, 0, sizeof(o));
	start = 2 + parse_options(data + 2, size - 2, &o);
	split_options(&o);
	all = profconv_check_options(reader, writer, o.all, &all_error);
	read = profconv_check_options(reader, NULL, o.read, &read_error);
	write = profconv_check_options(NULL, writer, o.write, &write_error);
	if (!all != (!read && !write))
		abort(); /* checking all at once is checking the read's and the write's */
	convert(data + start, size - start, reader, writer, &o, read ? checked(read_error) : NULL,
		write ? checked(write_error) : NULL);
	if (all)
		profconv_free(checked(all_error));
	profconv_free(read_error);
	profconv_free(write_error);
	return 0;
}
