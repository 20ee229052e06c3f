/*
 * convert_memory.c - a program outside profconv's tree that uses only the
 * installed library (profconv.h, built with pkg-config): it reads a
 * profile file into memory, converts it in memory, merges it with itself,
 * writes a file, and checks the errors of bad calls.
 *
 *   convert_memory INPUT FORMAT OUT_FILE   (prints the FORMAT output, then counts)
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include <profconv.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *slurp(const char *path, size_t *size)
{
	FILE *fp = fopen(path, "rb");
	char *data = NULL;
	size_t cap = 0;

	*size = 0;
	if (!fp)
		return NULL;
	for (;;) {
		if (*size == cap) {
			char *bigger = realloc(data, cap = cap ? cap * 2 : 65536);

			if (!bigger)
				break;
			data = bigger;
		}
		size_t n = fread(data + *size, 1, cap - *size, fp);

		if (n == 0)
			break;
		*size += n;
	}
	fclose(fp);
	return data;
}

static int fail(const char *what, char *error)
{
	fprintf(stderr, "convert_memory: %s: %s\n", what, error ? error : "(no message)");
	profconv_free(error);
	return 1;
}

/* A call that must fail: prints its message as "error: MESSAGE". */
static int expect_error(int status, char **error)
{
	if (status == 0 || !*error) {
		fprintf(stderr, "convert_memory: a bad call succeeded\n");
		return 1;
	}
	printf("error: %s\n", *error);
	profconv_free(*error);
	*error = NULL;
	return 0;
}

/*
 * A read that fails halfway leaves its profile refusing further use; an
 * empty profile writes as a valid pprof.
 */
static int check_broken_and_empty(void)
{
	static const char text[] = "main;a 1\nmain;b not-a-count\n";
	char path[] = "/tmp/profconv-library-XXXXXX";
	profconv_profile *p = profconv_profile_new();
	char *error = NULL;
	void *out = NULL;
	size_t size;
	int fd = mkstemp(path), bad = 0;

	if (fd < 0 || !p || write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
		return 1;
	close(fd);
	bad |= profconv_write_memory(p, "pprof", NULL, &out, &size, &error) != 0 || size == 0;
	profconv_free(out);
	bad |= expect_error(profconv_read_more(p, path, "folded", NULL, &error), &error);
	bad |= expect_error(profconv_write_memory(p, "folded", NULL, &out, &size, &error), &error);
	bad |= expect_error(profconv_read_memory(NULL, 5, "null", NULL, NULL, &p, &error), &error);
	unlink(path);
	profconv_profile_free(p);
	return bad;
}

int main(int argc, char **argv)
{
	/* demo.spt's LBR-only samples have no stack: folded loses them */
	const char *const write_options[] = { "strict", "event=lbr_branch", NULL };
	const char *const bad_options[] = { "nosuch=1", NULL };
	profconv_profile *p = NULL, *twice = NULL, *none = NULL;
	char *error = NULL;
	void *out = NULL;
	size_t size, out_size;
	void *data;
	int bad = 0, status;

	if (argc != 4)
		return fprintf(stderr, "usage: convert_memory INPUT FORMAT OUT_FILE\n"), 2;
	if (!(data = slurp(argv[1], &size)))
		return fprintf(stderr, "convert_memory: cannot read %s\n", argv[1]), 1;
	if (profconv_read_memory(data, size, argv[1], NULL, NULL, &p, &error))
		return fail("read", error);
	if (profconv_write_memory(p, argv[2], NULL, &out, &out_size, &error))
		return fail("write", error);
	fwrite(out, 1, out_size, stdout);
	profconv_free(out);
	printf("samples %zu stacks %zu frames %zu modules %zu columns %zu\n",
	       profconv_profile_samples(p), profconv_profile_stacks(p),
	       profconv_profile_frames(p), profconv_profile_modules(p),
	       profconv_profile_columns(p));
	for (size_t i = 0; profconv_warning(p, i, NULL); i++)
		printf("warning: %s\n", profconv_warning(p, i, NULL));

	/* merged with itself: the same samples, every count doubled */
	if (profconv_read_file(argv[1], NULL, NULL, &twice, &error) ||
	    profconv_merge(twice, p, &error))
		return fail("merge", error);
	if (profconv_write_file(twice, argv[3], argv[2], NULL, &error))
		return fail("write file", error);
	printf("merged samples %zu\n", profconv_profile_samples(twice));

	status = profconv_read_memory(data, size, "x", "nosuch", NULL, &none, &error);
	bad |= expect_error(status, &error);
	status = profconv_read_memory(data, size, "x", NULL, bad_options, &none, &error);
	bad |= expect_error(status, &error);
	status = profconv_read_memory("junk\n", 5, "junk.bin", "spt", NULL, &none, &error);
	bad |= expect_error(status, &error);
	status = profconv_write_memory(p, "folded", write_options, &out, &out_size, &error);
	bad |= expect_error(status, &error);
	bad |= none != NULL;
	bad |= check_broken_and_empty();
	printf("version %s\n", profconv_version());
	profconv_profile_free(p);
	profconv_profile_free(twice);
	free(data);
	return bad;
}
