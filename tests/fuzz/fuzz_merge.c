/*
 * fuzz_merge.c - libFuzzer target for merging several inputs through the
 * library (profconv.h; built by `make fuzz-build`, run by `make fuzz`;
 * seeds in tests/fuzz/corpus/merge/, made by tests/fuzz/seeds/write_seeds.sh).
 *
 * An input is a 5-byte header, then two or three profiles separated by
 * the line "--next-input--":
 *   byte 0     bits: 1 three profiles (else two), 2 --binary for the writer
 *              (the ELF file of fuzz_binary_path, when the writer takes one)
 *   bytes 1-3  each profile's format (fuzz_pick_reader: a reader's name,
 *              or none: detected)
 *   byte 4     the writer (pipeline/registry.c's order)
 * Each profile is read with profconv_read_memory and merged into an empty
 * one with profconv_merge, in order and in reverse order; the two merges
 * must hold as many samples, stacks, frames, modules and columns, no more
 * than the parts together. A merge that fails must say why and leave its
 * target as it was (all or nothing: the same dump); merging a profile into
 * itself must fail. The merged profile is written with the writer (a
 * failure must say why). The same profiles are also read into one, as
 * the command line merges its inputs (profconv_read_more, each from a
 * file), and written: once a read fails halfway, that profile refuses
 * everything but being freed.
 *
 * (A merge whose shape depended on the order was found here:
 * tests/fuzz/regressions/merge.)
 *
 * Reads give --kallsyms a small file of this process: perf.data inputs ask
 * for names, and the machine's /proc/kallsyms would cost milliseconds per
 * input.
 */
#include "profconv.h"
#include "support/convert.h"
#include "support/harness.h"
#include "pipeline/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER_BYTES 5
#define MAX_PARTS 3
#define SEPARATOR "\n--next-input--\n"

enum merge_flags {
	MERGE_THREE = 1u << 0,
	MERGE_BINARY = 1u << 1,
};

struct part {
	const uint8_t *data;
	size_t size;
	const char *format;
	profconv_profile *profile; /* NULL when it does not read */
};

static const char *kallsyms_option(void)
{
	static const char text[] = "ffffffff81000000 T _stext\n"
				   "ffffffff81000100 T do_syscall_64\n"
				   "ffffffff81000200 t schedule\n"
				   "ffffffffc0000000 t xfs_read [xfs]\n";
	static char option[64];

	if (!option[0])
		snprintf(option, sizeof(option), "kallsyms=%s",
			 fuzz_temp_file(1, text, sizeof(text) - 1));
	return option;
}

/* The next separator in [at, end), or end. */
static const uint8_t *find_separator(const uint8_t *at, const uint8_t *end)
{
	size_t len = sizeof(SEPARATOR) - 1;

	for (; (size_t)(end - at) >= len; at++)
		if (!memcmp(at, SEPARATOR, len))
			return at;
	return end;
}

static size_t split(const uint8_t *data, size_t size, size_t wanted, struct part *parts)
{
	const uint8_t *at = data, *end = data + size;
	size_t n = 0;

	while (n < wanted) {
		const uint8_t *stop = n + 1 < wanted ? find_separator(at, end) : end;

		parts[n++] = (struct part){ .data = at, .size = (size_t)(stop - at) };
		if (stop == end)
			break;
		at = stop + sizeof(SEPARATOR) - 1;
	}
	return n;
}

/* A library error: given, and one line. */
static void check_error(char *error)
{
	if (!error || !error[0] || strchr(error, '\n'))
		abort();
	profconv_free(error);
}

static void read_part(struct part *part)
{
	const char *options[] = { kallsyms_option(), NULL };
	char *error = NULL;

	if (profconv_read_memory(part->data, part->size, "fuzz.in", part->format, options,
				 &part->profile, &error)) {
		if (part->profile)
			abort();
		check_error(error);
	}
}

/* The profile's dump (NULL when it does not write); *size its length. */
static char *dump(const profconv_profile *p, size_t *size)
{
	void *text;
	char *error = NULL;

	if (profconv_write_memory(p, "dump", NULL, &text, size, &error)) {
		check_error(error);
		return NULL;
	}
	return text;
}

struct shape {
	size_t samples, stacks, frames, modules, columns;
};

static struct shape shape_of(const profconv_profile *p)
{
	return (struct shape){
		profconv_profile_samples(p), profconv_profile_stacks(p),
		profconv_profile_frames(p), profconv_profile_modules(p),
		profconv_profile_columns(p),
	};
}

/* Merges from into into: all or nothing, and no more than both hold. */
static void merge_one(profconv_profile *into, const profconv_profile *from)
{
	struct shape before = shape_of(into), added = shape_of(from), after;
	size_t before_size, after_size;
	char *before_dump = dump(into, &before_size), *after_dump, *error = NULL;

	if (profconv_merge(into, from, &error)) {
		check_error(error);
		after_dump = dump(into, &after_size);
		if (!before_dump != !after_dump ||
		    (before_dump && (before_size != after_size ||
				     memcmp(before_dump, after_dump, before_size))))
			abort(); /* a failed merge changed its target */
		free(after_dump);
	} else {
		after = shape_of(into);
		if (after.samples > before.samples + added.samples ||
		    after.stacks > before.stacks + added.stacks ||
		    after.frames > before.frames + added.frames ||
		    after.modules > before.modules + added.modules ||
		    after.columns > before.columns + added.columns)
			abort();
	}
	free(before_dump);
}

static profconv_profile *merge_all(const struct part *parts, size_t n, bool reverse)
{
	profconv_profile *into = profconv_profile_new();
	char *error = NULL;

	if (!into)
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct part *part = &parts[reverse ? n - 1 - i : i];

		if (part->profile)
			merge_one(into, part->profile);
	}
	if (!profconv_merge(into, into, &error))
		abort(); /* merging a profile into itself must be refused */
	check_error(error);
	return into;
}

static void write_profile(const profconv_profile *p, const char *writer, bool binary)
{
	char option[4200];
	const char *options[] = { option, NULL };
	void *text;
	size_t size;
	char *error = NULL;

	snprintf(option, sizeof(option), "binary=%s", fuzz_binary_path());
	if (!binary)
		options[0] = NULL;
	if (profconv_write_memory(p, writer, options, &text, &size, &error))
		check_error(error);
	else
		profconv_free(text);
	for (size_t i = 0; profconv_warning(p, i, NULL); i++)
		;
}

/* The parts read into one profile, each from a file, as the command line merges them. */
static void read_more_all(const struct part *parts, size_t n, const char *writer, bool binary)
{
	const char *options[] = { kallsyms_option(), NULL };
	profconv_profile *p = profconv_profile_new();
	bool broken = false;
	char *error = NULL;

	for (size_t i = 0; i < n && !broken; i++) {
		const char *path = fuzz_temp_file(2, parts[i].data, parts[i].size);

		if (profconv_read_more(p, path, parts[i].format, options, &error)) {
			check_error(error);
			error = NULL;
			broken = true;
		}
	}
	if (broken) {
		void *text;
		size_t size;

		if (!profconv_write_memory(p, "dump", NULL, &text, &size, &error))
			abort(); /* a profile whose read failed halfway is refused */
		check_error(error);
	} else {
		write_profile(p, writer, binary);
	}
	profconv_profile_free(p);
}

static bool same_shape(struct shape a, struct shape b)
{
	return a.samples == b.samples && a.stacks == b.stacks && a.frames == b.frames &&
	       a.modules == b.modules && a.columns == b.columns;
}

static void print_shape(const char *what, struct shape s)
{
	fprintf(stderr, "fuzz_merge: merged %s: %zu samples, %zu stacks, %zu frames, %zu modules, %zu columns\n",
		what, s.samples, s.stacks, s.frames, s.modules, s.columns);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct part parts[MAX_PARTS];
	profconv_profile *forward, *backward;
	const char *writer;
	size_t n, nwriters = 0;

	if (size < HEADER_BYTES)
		return 0;
	while (pc_writers[nwriters])
		nwriters++;
	writer = pc_writers[data[4] % nwriters]->name;
	n = split(data + HEADER_BYTES, size - HEADER_BYTES, data[0] & MERGE_THREE ? 3 : 2, parts);
	for (size_t i = 0; i < n; i++) {
		const struct pc_reader *reader = fuzz_pick_reader(data[1 + i]);

		parts[i].format = reader ? reader->name : NULL;
		read_part(&parts[i]);
	}
	forward = merge_all(parts, n, false);
	backward = merge_all(parts, n, true);
	if (!same_shape(shape_of(forward), shape_of(backward))) {
		print_shape("in order", shape_of(forward));
		print_shape("in reverse order", shape_of(backward));
		abort(); /* merging does not depend on the order */
	}
	write_profile(forward, writer, data[0] & MERGE_BINARY);
	profconv_profile_free(forward);
	profconv_profile_free(backward);
	for (size_t i = 0; i < n; i++)
		profconv_profile_free(parts[i].profile);
	read_more_all(parts, n, writer, data[0] & MERGE_BINARY);
	return 0;
}
