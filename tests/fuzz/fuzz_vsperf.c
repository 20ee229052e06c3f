/*
 * fuzz_vsperf.c - libFuzzer target for the Visual Studio CSV report reader
 * and its row builder (built by `make fuzz-build`, run by `make fuzz`;
 * seeds in tests/fuzz/corpus/vsperf/).
 *
 * Each input is probed, then read into a fresh model twice, once with its
 * size known (a file) and once as from a pipe (size unknown): both must
 * succeed or fail alike, and then give the same canonical dump or the same
 * error. A failure must say why and where (line:column). When the input
 * is UTF-8 without NUL bytes, it is also converted to UTF-16LE with a
 * byte-order mark and read again: the reader decodes UTF-16 line by line,
 * so the dump (or the error, with its line:column) must be the same. A
 * model that reads is rendered by the dump writer.
 */
#include "support/harness.h"
#include "base/utf8.h"

extern const struct pc_reader pc_vsperf_reader;
extern const struct pc_writer pc_dump_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The outcome of one read: the dump, or the error as text. */
struct outcome {
	int rc;
	char *text;
	size_t size;
};

static void dump_model(const struct pc_model *m, struct outcome *o)
{
	struct pc_ctx ctx;
	struct pc_output out;

	pc_ctx_init(&ctx);
	if (pc_output_to_memory(&out, &o->text, &o->size, &ctx.err) ||
	    pc_dump_writer.write(&ctx, m, &out) || pc_output_commit(&out, &ctx.err))
		abort();
}

static void read_once(const uint8_t *data, size_t size, bool unknown_size, struct outcome *o)
{
	struct pc_ctx ctx;
	struct pc_model *m;
	char message[1200];

	pc_ctx_init(&ctx);
	m = pc_model_new();
	o->rc = fuzz_read(&ctx, &pc_vsperf_reader, "fuzz.csv", data, size, unknown_size, m);
	if (!o->rc) {
		dump_model(m, o);
	} else {
		if (ctx.err.where != PC_WHERE_LINE || !ctx.err.line || !ctx.err.column)
			abort(); /* a failure must say why and where */
		pc_error_format(&ctx.err, message, sizeof(message));
		o->size = strlen(message);
		o->text = pc_xmalloc(o->size + 1);
		memcpy(o->text, message, o->size + 1);
	}
	pc_model_free(m);
}

static bool same(const struct outcome *a, const struct outcome *b)
{
	return a->rc == b->rc && a->size == b->size && !memcmp(a->text, b->text, a->size);
}

/* UTF-8 (valid, no NUL) as UTF-16LE with a BOM; NULL when data is not such text. */
static uint8_t *to_utf16le(const uint8_t *data, size_t size, size_t *out_size)
{
	uint8_t *out = pc_xmalloc(2 + 2 * size + 2), *p = out;

	if (size >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		data += 3, size -= 3; /* the reader drops it; UTF-16 has its own */
	*p++ = 0xff;
	*p++ = 0xfe;
	for (size_t i = 0; i < size;) {
		size_t n = data[i] ? pc_utf8_char_len(data + i, size - i) : 0;
		uint32_t code;

		if (!n) {
			free(out);
			return NULL;
		}
		code = n == 1 ? data[i] : (uint32_t)(data[i] & (0x7f >> n));
		for (size_t k = 1; k < n; k++)
			code = code << 6 | (data[i + k] & 0x3f);
		i += n;
		if (code >= 0x10000) {
			code -= 0x10000;
			*p++ = (uint8_t)((0xd800 | code >> 10) & 0xff);
			*p++ = (uint8_t)((0xd800 | code >> 10) >> 8);
			code = 0xdc00 | (code & 0x3ff);
		}
		*p++ = (uint8_t)(code & 0xff);
		*p++ = (uint8_t)(code >> 8);
	}
	*out_size = (size_t)(p - out);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome known = { 0 }, piped = { 0 }, wide = { 0 };
	size_t wide_size = 0;
	uint8_t *utf16;

	pc_vsperf_reader.probe(data, size < PC_PROBE_BYTES ? size : PC_PROBE_BYTES);
	read_once(data, size, false, &known);
	read_once(data, size, true, &piped);
	if (!same(&known, &piped))
		abort();
	utf16 = to_utf16le(data, size, &wide_size);
	if (utf16) {
		pc_vsperf_reader.probe(utf16, wide_size < PC_PROBE_BYTES ? wide_size :
									 PC_PROBE_BYTES);
		read_once(utf16, wide_size, false, &wide);
		if (!same(&known, &wide))
			abort(); /* the same text in UTF-16 reads (or fails) the same */
		free(utf16);
	}
	free(known.text);
	free(piped.text);
	free(wide.text);
	return 0;
}
