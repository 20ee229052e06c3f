/*
 * fixture.h - the cmocka fixture most reader and writer tests start from:
 * a run context, an empty model, and the text a writer rendered.
 */
#ifndef TESTS_FIXTURE_H
#define TESTS_FIXTURE_H

#include "model/format.h"

struct fixture {
	struct pc_ctx ctx;
	struct pc_model *m;
	char *text;  /* a writer's output (pct_write_model), freed by teardown */
	size_t size;
};

/* cmocka setup/teardown: *state is a fresh struct fixture. */
int pct_setup(void **state);
int pct_teardown(void **state);

#endif
