/* test_input.c - windowed reading over files, pipes and memory. */
#include "base/input.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

static char *write_temp(const void *data, size_t size)
{
	char *path = pc_xmalloc(64);
	int fd;

	snprintf(path, 64, "/tmp/pc-test-input.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, size), (ssize_t)size);
	close(fd);
	return path;
}

static void test_memory_input(void **state)
{
	struct pc_input in;
	const uint8_t *data;

	(void)state;
	pc_input_from_memory(&in, "mem", "abcdef", 6);
	assert_int_equal(pc_input_fill(&in, 4, &data), 6);
	assert_memory_equal(data, "abcd", 4);
	pc_input_consume(&in, 4);
	assert_int_equal(pc_input_offset(&in), 4);
	assert_int_equal(pc_input_fill(&in, 10, &data), 2);
	assert_false(pc_input_skip_to(&in, 9));
	assert_int_equal(pc_input_offset(&in), 6);
	pc_input_close(&in);
}

/* A file larger than the window is read in pieces with exact offsets. */
static void test_file_larger_than_window(void **state)
{
	size_t size = (3u << 20) + 17;
	uint8_t *bytes = pc_xmalloc(size);
	struct pc_error err = { 0 };
	struct pc_input in;
	const uint8_t *data;
	char *path;

	(void)state;
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(i * 7 + (i >> 11));
	path = write_temp(bytes, size);
	assert_int_equal(pc_input_open(&in, path, &err), 0);
	assert_int_equal(in.size, size);
	assert_true(pc_input_skip_to(&in, (1u << 20) - 3));
	/* a fill across the window's end moves the rest to the front */
	assert_true(pc_input_fill(&in, 100, &data) >= 100);
	assert_memory_equal(data, bytes + (1u << 20) - 3, 100);
	assert_true(pc_input_skip_to(&in, size - 5));
	assert_int_equal(pc_input_fill(&in, 64, &data), 5);
	assert_memory_equal(data, bytes + size - 5, 5);
	/* a fill bigger than the window grows it */
	pc_input_close(&in);
	assert_int_equal(pc_input_open(&in, path, &err), 0);
	assert_true(pc_input_fill(&in, (2u << 20) + 1, &data) >= (2u << 20) + 1);
	assert_memory_equal(data, bytes, (2u << 20) + 1);
	pc_input_close(&in);
	unlink(path);
	free(path);
	free(bytes);
}

/*
 * Ranges of one file read at once, each through its own window: exact
 * bytes and offsets, the end at the range's end, the file's own reading
 * undisturbed; a skip past the window is a seek that lands right.
 */
static void test_ranges_of_one_file(void **state)
{
	size_t size = (3u << 20) + 5, cut = (1u << 20) + 333;
	uint8_t *bytes = pc_xmalloc(size);
	struct pc_error err = { 0 };
	struct pc_input in, first, second;
	const uint8_t *data;
	size_t have;
	char *path;

	(void)state;
	for (size_t i = 0; i < size; i++)
		bytes[i] = (uint8_t)(i * 13 + (i >> 9));
	path = write_temp(bytes, size);
	assert_int_equal(pc_input_open(&in, path, &err), 0);
	assert_int_equal(pc_input_fill(&in, 10, &data) >= 10, true);
	pc_input_consume(&in, 10);
	pc_input_open_range(&first, &in, 100, cut);
	pc_input_open_range(&second, &in, cut, size);
	assert_int_equal(first.size, size);
	assert_string_equal(first.name, path);
	assert_int_equal(pc_input_offset(&second), cut);
	have = pc_input_fill(&second, 64, &data);
	assert_true(have >= 64);
	assert_memory_equal(data, bytes + cut, 64);
	for (uint64_t at = 100; at < cut; at += have) {
		have = pc_input_fill(&first, 4096, &data);
		assert_true(have > 0 && at + have <= cut);
		assert_memory_equal(data, bytes + at, have);
		pc_input_consume(&first, have);
	}
	assert_int_equal(pc_input_fill(&first, 1, &data), 0);
	assert_int_equal(pc_input_offset(&first), cut);
	assert_true(pc_input_skip_to(&second, size - 3));
	assert_int_equal(pc_input_fill(&second, 16, &data), 3);
	assert_memory_equal(data, bytes + size - 3, 3);
	pc_input_close(&first);
	pc_input_close(&second);
	assert_int_equal(pc_input_offset(&in), 10);
	assert_int_equal(pc_input_fill(&in, 8, &data) >= 8, true);
	assert_memory_equal(data, bytes + 10, 8);
	assert_true(pc_input_skip_to(&in, size - 2));
	assert_int_equal(pc_input_offset(&in), size - 2);
	assert_int_equal(pc_input_fill(&in, 16, &data), 2);
	assert_memory_equal(data, bytes + size - 2, 2);
	assert_true(pc_input_skip_to(&in, size));
	assert_false(pc_input_skip_to(&in, size + 1));
	pc_input_close(&in);
	unlink(path);
	free(path);
	free(bytes);
}

/* Standard input (fd 0) made to read path from offset at (the saved fd 0 is returned). */
static int stdin_from(const char *path, off_t at)
{
	int saved = dup(STDIN_FILENO), fd = open(path, O_RDONLY);

	assert_true(saved >= 0 && fd >= 0);
	assert_int_equal(lseek(fd, at, SEEK_SET), at);
	assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
	close(fd);
	return saved;
}

static void stdin_restore(int saved)
{
	assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
	close(saved);
}

/* Ranges only of a whole regular file: by path, or stdin from its start. */
static void test_whole_file(void **state)
{
	static const char text[] = "0123456789abcdef";
	struct pc_error err = { 0 };
	struct pc_input in, range;
	const uint8_t *data;
	char *path = write_temp(text, sizeof(text) - 1);
	int saved;

	(void)state;
	assert_int_equal(pc_input_open(&in, path, &err), 0);
	assert_true(pc_input_is_whole_file(&in));
	assert_true(pc_input_fill(&in, 4, &data) >= 4);
	pc_input_consume(&in, 4);
	assert_true(pc_input_is_whole_file(&in));
	pc_input_open_range(&range, &in, 2, 8);
	assert_false(pc_input_is_whole_file(&range));
	pc_input_close(&range);
	pc_input_close(&in);
	saved = stdin_from(path, 0);
	assert_int_equal(pc_input_open(&in, "-", &err), 0);
	assert_true(pc_input_is_whole_file(&in));
	pc_input_close(&in);
	stdin_restore(saved);
	saved = stdin_from(path, 5); /* stdin inside the file: its offsets are not the file's */
	assert_int_equal(pc_input_open(&in, "-", &err), 0);
	assert_false(pc_input_is_whole_file(&in));
	assert_int_equal(pc_input_fill(&in, 16, &data), sizeof(text) - 1 - 5);
	assert_int_equal(data[0], '5');
	pc_input_close(&in);
	stdin_restore(saved);
	pc_input_from_memory(&in, "memory", text, sizeof(text) - 1);
	assert_false(pc_input_is_whole_file(&in));
	pc_input_close(&in);
	unlink(path);
	free(path);
}

/*
 * A limit ends the input there, even inside what the window holds, and
 * reading goes on from it once lifted; not before the unread bytes, nor
 * inside the window of memory input.
 */
static void test_limit_then_lift(void **state)
{
	static const char text[] = "0123456789abcdefghij";
	struct pc_error err = { 0 };
	struct pc_input in;
	const uint8_t *data;
	char *path = write_temp(text, sizeof(text) - 1);

	(void)state;
	assert_int_equal(pc_input_open(&in, path, &err), 0);
	assert_int_equal(pc_input_fill(&in, 4, &data), 20); /* the window holds it all */
	pc_input_consume(&in, 4);
	assert_false(pc_input_set_limit(&in, 3));
	assert_true(pc_input_set_limit(&in, 12));
	assert_int_equal(pc_input_fill(&in, 100, &data), 8);
	assert_memory_equal(data, "456789ab", 8);
	pc_input_consume(&in, 8);
	assert_int_equal(pc_input_fill(&in, 1, &data), 0);
	assert_true(pc_input_is_whole_file(&in));
	assert_true(pc_input_set_limit(&in, UINT64_MAX));
	assert_int_equal(pc_input_fill(&in, 100, &data), 8);
	assert_memory_equal(data, "cdefghij", 8);
	assert_int_equal(pc_input_offset(&in), 12);
	pc_input_close(&in);
	pc_input_from_memory(&in, "memory", text, sizeof(text) - 1);
	assert_false(pc_input_set_limit(&in, 12));
	pc_input_close(&in);
	unlink(path);
	free(path);
}

static void test_missing_file_is_located_error(void **state)
{
	struct pc_error err = { 0 };
	struct pc_input in;
	char message[600];

	(void)state;
	assert_int_equal(pc_input_open(&in, "/nonexistent/x.spt", &err), -1);
	assert_int_equal(err.status, PC_STATUS_INPUT);
	pc_error_format(&err, message, sizeof(message));
	assert_string_equal(message, "/nonexistent/x.spt: cannot open: No such file or directory");
}

static void test_directory_refused(void **state)
{
	struct pc_error err = { 0 };
	struct pc_input in;

	(void)state;
	assert_int_equal(pc_input_open(&in, "/tmp", &err), -1);
	assert_string_equal(err.message, "is a directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory_input),
		cmocka_unit_test(test_file_larger_than_window),
		cmocka_unit_test(test_ranges_of_one_file),
		cmocka_unit_test(test_whole_file),
		cmocka_unit_test(test_limit_then_lift),
		cmocka_unit_test(test_missing_file_is_located_error),
		cmocka_unit_test(test_directory_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
