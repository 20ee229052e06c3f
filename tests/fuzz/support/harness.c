/* harness.c - shared pieces of the fuzz targets (see harness.h). */
#include "harness.h"
#include "support/read_memory.h"
#include "base/utf8.h"

#include <libxml/parser.h>

extern const struct pc_writer pc_report_writer;

void fuzz_text_add(struct fuzz_text *t, const void *bytes, size_t len)
{
	pc_grow(&t->buf, &t->cap, t->len + len + 1, 1);
	memcpy(t->buf + t->len, bytes, len);
	t->len += len;
	t->buf[t->len] = '\0';
}

FILE *fuzz_null_output(void)
{
	static FILE *devnull;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return devnull;
}

int fuzz_read(struct pc_ctx *ctx, const struct pc_reader *reader, const char *name,
	      const uint8_t *data, size_t size, bool unknown_size, struct pc_model *m)
{
	int rc = pct_read_memory(ctx, m, reader, name, data, size, unknown_size);

	if (rc && (ctx->err.status == PC_STATUS_OK || !ctx->err.message[0]))
		abort(); /* a failure must say why */
	return rc;
}

int fuzz_report(struct pc_ctx *ctx, const struct pc_model *m)
{
	struct pc_output out = { .fp = fuzz_null_output() };

	pc_ctx_set(ctx, "tree", NULL);
	pc_ctx_set(ctx, "top", "5");
	return pc_report_writer.write(ctx, m, &out);
}

void fuzz_write(struct pc_ctx *ctx, const struct pc_writer *writer, const struct pc_model *m)
{
	struct pc_output out;
	char *text = NULL;
	size_t size = 0;

	if (pc_output_to_memory(&out, &text, &size, &ctx->err))
		abort();
	if (writer->write(ctx, m, &out)) {
		pc_output_abort(&out);
		if (!ctx->err.message[0])
			abort();
		pc_error_clear(&ctx->err);
		return;
	}
	if (pc_output_commit(&out, &ctx->err))
		abort();
	free(text);
}

void fuzz_check_json(const char *text, size_t size)
{
	const unsigned char *bytes = (const unsigned char *)text;
	size_t depth = 0;
	bool in_string = false;

	for (size_t i = 0; i < size;) {
		unsigned char c = bytes[i];
		size_t n = pc_utf8_char_len(bytes + i, size - i);

		if (!n || (c < 0x20 && c != '\n') || (in_string && c == '\n'))
			abort();
		if (in_string && c == '\\')
			n = 2; /* the escaped character: ASCII */
		else if (c == '"')
			in_string = !in_string;
		else if (!in_string && (c == '{' || c == '['))
			depth++;
		else if (!in_string && (c == '}' || c == ']') && !depth--)
			abort();
		i += n;
	}
	if (in_string || depth)
		abort();
}

void fuzz_write_json(const struct pc_ctx *ctx, const struct pc_writer *writer,
		     const struct pc_model *m)
{
	struct pc_ctx run;
	struct pc_output out;
	char *text = NULL;
	size_t size = 0;

	pc_ctx_init(&run);
	run.opt = ctx->opt;
	pc_ctx_set(&run, "max-samples", "4096");
	if (pc_output_to_memory(&out, &text, &size, &run.err))
		abort();
	if (writer->write(&run, m, &out)) {
		pc_output_abort(&out);
		if (!run.err.message[0])
			abort();
		return;
	}
	if (pc_output_commit(&out, &run.err))
		abort();
	fuzz_check_json(text, size);
	free(text);
}

void fuzz_check_xml(const char *text, size_t size)
{
	xmlDocPtr doc;

	if (size > INT32_MAX)
		abort();
	doc = xmlReadMemory(text, (int)size, "fuzz.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		abort(); /* not well-formed */
	xmlFreeDoc(doc);
}
