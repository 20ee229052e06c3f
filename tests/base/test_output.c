/* test_output.c - temp file + rename: success replaces, failure keeps. */
#include "base/output.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/pc-test-output.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/out.pb.gz", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *entry;
	size_t n = 0;

	while ((entry = readdir(d)))
		n += entry->d_name[0] != '.' || (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."));
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	static char text[256];
	FILE *fp = fopen(path, "rb");
	size_t n = fread(text, 1, sizeof(text) - 1, fp);

	fclose(fp);
	text[n] = '\0';
	return text;
}

static void test_commit_renames(void **state)
{
	struct fixture *f = *state;
	struct pc_error err = { 0 };
	struct pc_output out;
	struct stat st;

	assert_int_equal(pc_output_open(&out, f->path, &err), 0);
	fputs("new", out.fp);
	assert_int_equal(stat(f->path, &st), -1); /* nothing at the target yet */
	assert_int_equal(count_entries(f->dir), 1); /* only the temp file */
	assert_int_equal(pc_output_commit(&out, &err), 0);
	assert_string_equal(slurp(f->path), "new");
	assert_int_equal(count_entries(f->dir), 1);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_not_equal(st.st_mode & 0044, 0); /* not left 0600 */
}

static void test_abort_keeps_old_target(void **state)
{
	struct fixture *f = *state;
	struct pc_error err = { 0 };
	struct pc_output out;
	FILE *fp = fopen(f->path, "w");

	fputs("old", fp);
	fclose(fp);
	assert_int_equal(pc_output_open(&out, f->path, &err), 0);
	fputs("partial", out.fp);
	pc_output_abort(&out);
	assert_string_equal(slurp(f->path), "old");
	assert_int_equal(count_entries(f->dir), 1);
}

static void test_unwritable_directory(void **state)
{
	struct pc_error err = { 0 };
	struct pc_output out;

	(void)state;
	assert_int_equal(pc_output_open(&out, "/nonexistent-dir/x.pb.gz", &err), -1);
	assert_string_equal(err.path, "/nonexistent-dir/x.pb.gz");
	assert_string_equal(err.message, "cannot create output: No such file or directory");
}

static void test_memory_output(void **state)
{
	struct pc_error err = { 0 };
	struct pc_output out;
	char *buf = NULL;
	size_t size = 0;

	(void)state;
	assert_int_equal(pc_output_to_memory(&out, &buf, &size, &err), 0);
	fputs("hello", out.fp);
	assert_int_equal(pc_output_commit(&out, &err), 0);
	assert_int_equal(size, 5);
	assert_memory_equal(buf, "hello", 5);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_commit_renames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_keeps_old_target, setup, teardown),
		cmocka_unit_test(test_unwritable_directory),
		cmocka_unit_test(test_memory_output),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
