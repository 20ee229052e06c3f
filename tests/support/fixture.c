/* fixture.c - the shared cmocka fixture of reader and writer tests. */
#include "fixture.h"

int pct_setup(void **state)
{
	struct fixture *f = pc_xcalloc(1, sizeof(*f));

	pc_ctx_init(&f->ctx);
	f->m = pc_model_new();
	*state = f;
	return 0;
}

int pct_teardown(void **state)
{
	struct fixture *f = *state;

	pc_model_free(f->m);
	free(f->text);
	free(f);
	return 0;
}
