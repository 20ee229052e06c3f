/* test_registry.c - lookups and probe-based detection. */
#include "pipeline/registry.h"

#include <stdarg.h>
#include <setjmp.h>
#include <cmocka.h>

static void test_lookup_by_name_and_extension(void **state)
{
	(void)state;
	assert_non_null(pc_reader_find("spt"));
	assert_null(pc_reader_find("nope"));
	assert_string_equal(pc_writer_find("pprof")->name, "pprof");
	assert_string_equal(pc_writer_for_path("out/x.pb.gz")->name, "pprof");
	assert_string_equal(pc_writer_for_path("x.pprof")->name, "pprof");
	assert_string_equal(pc_writer_for_path("x.dump")->name, "dump");
	assert_null(pc_writer_for_path("x.gz"));
	assert_null(pc_writer_for_path(".pb.gz"));
}

static void test_every_descriptor_is_complete(void **state)
{
	(void)state;
	for (size_t i = 0; pc_readers[i]; i++) {
		assert_non_null(pc_readers[i]->name);
		assert_non_null(pc_readers[i]->summary);
		assert_non_null(pc_readers[i]->probe);
		assert_non_null(pc_readers[i]->read);
	}
	for (size_t i = 0; pc_writers[i]; i++) {
		assert_non_null(pc_writers[i]->name);
		assert_non_null(pc_writers[i]->summary);
		assert_non_null(pc_writers[i]->write);
	}
}

static void test_spt_signature_detected(void **state)
{
	uint8_t head[32] = { 0x3a, 0x54, 0x50, 0x53, 1 };
	struct pc_error err = { 0 };
	struct pc_input in;

	(void)state;
	pc_input_from_memory(&in, "x", head, sizeof(head));
	assert_ptr_equal(pc_detect(&in, &err), pc_reader_find("spt"));
	pc_input_close(&in);
}

/* Random bytes are claimed by no format (FFmpeg's probe test). */
static void test_random_bytes_claimed_by_no_format(void **state)
{
	uint8_t head[PC_PROBE_BYTES];
	uint64_t seed = 0x1234567;

	(void)state;
	for (int round = 0; round < 2000; round++) {
		for (size_t i = 0; i < sizeof(head); i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			head[i] = (uint8_t)(seed >> 56);
		}
		for (size_t r = 0; pc_readers[r]; r++)
			assert_true(pc_readers[r]->probe(head, sizeof(head)) < PC_PROBE_WEAK);
	}
}

static void test_unknown_input_error_names_from(void **state)
{
	struct pc_error err = { 0 };
	struct pc_input in;

	(void)state;
	pc_input_from_memory(&in, "junk.bin", "hello world", 11);
	assert_null(pc_detect(&in, &err));
	assert_string_equal(err.path, "junk.bin");
	assert_non_null(strstr(err.message, "--from"));
	pc_input_close(&in);
}

static void test_extension_alone_is_weak(void **state)
{
	struct pc_error err = { 0 };
	struct pc_input in;

	(void)state;
	pc_input_from_memory(&in, "trace.spt", "garbage!", 8);
	assert_null(pc_detect(&in, &err));
	assert_non_null(strstr(err.message, "weak guess: spt"));
	pc_input_close(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_by_name_and_extension),
		cmocka_unit_test(test_every_descriptor_is_complete),
		cmocka_unit_test(test_spt_signature_detected),
		cmocka_unit_test(test_random_bytes_claimed_by_no_format),
		cmocka_unit_test(test_unknown_input_error_names_from),
		cmocka_unit_test(test_extension_alone_is_weak),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
