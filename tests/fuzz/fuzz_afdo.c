/*
 * fuzz_afdo.c - libFuzzer target for the writers of compiler profiles
 * (built by `make fuzz-build`, run by `make fuzz`; seeds in
 * tests/fuzz/corpus/afdo/, short hand-written perf script texts: IP
 * samples with and without a dso, brstack lines, an mmap event).
 *
 * Each input is read as perf script text into a model; what reads is
 * written by autofdo, llvm-unsymbolized, gcc-afdo (--afdo-version 2 and 1)
 * and llvm-sample, with --binary /proc/self/exe (this fuzz binary, built
 * with -g: it has DWARF, so source_profile.c and dwarf_source.c run on
 * real inline chains, line tables and call sites) and --base 0 (runtime
 * addresses without an mmap event are then the binary's vaddrs). The dso
 * of the seeds is "/proc/self/exe", which --binary matches by path; frames
 * without a dso are kept when no frame names the binary.
 *
 * Addresses are taken as they are, not mapped into the text segment: the
 * text of a sanitized fuzz binary spans megabytes of functions with DWARF,
 * so mutated addresses (and the seeds' addresses after a rebuild moves the
 * code) mostly still land in code, and the reader sees the input as typed.
 *
 * Opening this binary's DWARF costs tens of milliseconds (three opens per
 * input), so an input that gives autofdo no count of the binary goes on to
 * gcc-afdo and llvm-sample only when its hash says so (one in eight): they
 * would fail on it too, which is then checked.
 *
 * Besides the sanitizers, it checks that a failure says why; that the
 * writers agree on whether the binary has counts (llvm-unsymbolized's
 * address space keeps a subset of autofdo's; gcc-afdo's is autofdo's for
 * this binary, whose first PT_LOAD is at 0); that the two gcc-afdo
 * versions succeed or fail together, with the same message; that
 * gcc-afdo's output decodes (magic "adcg", the version word, the name
 * table with "" first, each section's length word, the function
 * instances: name indices inside the table, positions and call sites in
 * order and once each, histogram type 7, counts below 2^63, the module
 * and, for version 1, the working-set sections, nothing after them); that
 * llvm-sample's lines follow its grammar (`NAME:TOTAL:HEAD`, then
 * ` OFFSET[.D]: COUNT [NAME:COUNT...]` and ` OFFSET[.D]: NAME:TOTAL`,
 * indented one space per inline level) with each total the (capped) sum
 * of its body; and that the autofdo texts are counted sections of
 * `HEX-HEX:N`, `HEX:N` and `HEX->HEX:N` records.
 */
#include "model/format.h"
#include "support/harness.h"

#include <ctype.h>

extern const struct pc_reader pc_perf_script_reader;
extern const struct pc_writer pc_autofdo_writer;
extern const struct pc_writer pc_llvm_unsymbolized_writer;
extern const struct pc_writer pc_gcc_afdo_writer;
extern const struct pc_writer pc_llvm_sample_writer;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BINARY "/proc/self/exe"
#define COUNT_MAX ((uint64_t)INT64_MAX)

/* ---- running a writer into memory ---- */

struct written {
	int rc;
	char *text; /* the output (rc 0), else NULL */
	size_t size;
	char message[sizeof(((struct pc_error *)0)->message)];
};

/* Writes m with writer; a failure must say why. The caller frees w.text. */
static struct written write_once(struct pc_ctx *ctx, const struct pc_writer *writer,
				 const struct pc_model *m)
{
	struct written w = { 0 };
	struct pc_output out;

	if (pc_output_to_memory(&out, &w.text, &w.size, &ctx->err))
		abort();
	w.rc = writer->write(ctx, m, &out);
	if (w.rc) {
		pc_output_abort(&out);
		if (ctx->err.status == PC_STATUS_OK || !ctx->err.message[0])
			abort(); /* a failure must say why */
		memcpy(w.message, ctx->err.message, sizeof(w.message));
		pc_error_clear(&ctx->err);
		w.text = NULL;
		w.size = 0;
		return w;
	}
	if (pc_output_commit(&out, &ctx->err))
		abort();
	return w;
}

/* ---- gcc-afdo: a full decode ---- */

struct reader {
	const uint8_t *p;
	size_t len, at;
};

static uint32_t get_u32(struct reader *r)
{
	uint32_t v;

	if (r->len - r->at < 4)
		abort(); /* truncated */
	v = (uint32_t)r->p[r->at] | (uint32_t)r->p[r->at + 1] << 8 |
	    (uint32_t)r->p[r->at + 2] << 16 | (uint32_t)r->p[r->at + 3] << 24;
	r->at += 4;
	return v;
}

static uint64_t get_u64(struct reader *r)
{
	uint64_t low = get_u32(r);

	return low | (uint64_t)get_u32(r) << 32;
}

/* The name index of the instance at r (not consumed). */
static void peek_instance(const struct reader *r, uint32_t *name)
{
	struct reader copy = *r;

	*name = get_u32(&copy);
}

static void check_instance(struct reader *r, uint32_t nnames, unsigned depth)
{
	uint32_t name = get_u32(r), npositions, nchildren, last_loc = 0, last_name = 0;

	if (!name || name >= nnames || depth > 64)
		abort();
	npositions = get_u32(r);
	nchildren = get_u32(r);
	for (uint32_t i = 0; i < npositions; i++) {
		uint32_t ntargets, loc = get_u32(r);
		uint64_t names[64];

		if (i && loc <= last_loc)
			abort(); /* positions by loc, each once */
		last_loc = loc;
		ntargets = get_u32(r);
		if (get_u64(r) > COUNT_MAX)
			abort();
		for (uint32_t t = 0; t < ntargets; t++) {
			uint64_t target;

			if (get_u32(r) != 7) /* HIST_TYPE_INDIR_CALL_TOPN */
				abort();
			target = get_u64(r);
			if (!target || target >= nnames || get_u64(r) > COUNT_MAX)
				abort();
			for (uint32_t k = 0; k < t && k < 64; k++)
				if (names[k] == target)
					abort(); /* each target once */
			if (t < 64)
				names[t] = target;
		}
	}
	for (uint32_t i = 0; i < nchildren; i++) {
		uint32_t loc = get_u32(r), child;

		peek_instance(r, &child);
		if (i && (loc < last_loc || (loc == last_loc && child == last_name)))
			abort(); /* call sites by (loc, name), each once */
		last_loc = loc;
		last_name = child;
		check_instance(r, nnames, depth + 1);
	}
}

/* A section's tag and length word; the offset where its body starts. */
static size_t begin_section(struct reader *r, uint32_t tag, uint32_t *words)
{
	if (get_u32(r) != tag)
		abort();
	*words = get_u32(r);
	return r->at;
}

/* The length word counts the body's bytes in words, rounded up (v2 strings are unpadded). */
static void end_section(const struct reader *r, size_t start, uint32_t words)
{
	if ((r->at - start + 3) / 4 != words)
		abort();
}

static void check_gcc_afdo(const char *text, size_t size, unsigned version)
{
	struct reader r = { (const uint8_t *)text, size, 0 };
	uint32_t nnames, nfunctions, words, last_name = 0;
	size_t start;

	if (size < 12 || memcmp(text, "adcg", 4))
		abort(); /* magic 0x67636461, little-endian */
	r.at = 4;
	if (get_u32(&r) != version || get_u32(&r) != 0)
		abort();
	/* names: "" first, then non-empty names, each once */
	start = begin_section(&r, 0xaa000000u, &words);
	nnames = get_u32(&r);
	if (!nnames)
		abort();
	for (uint32_t i = 0; i < nnames; i++) {
		uint32_t len = get_u32(&r);
		size_t bytes = version >= 2 ? len : 4 * (size_t)len, slen;
		const char *s = text + r.at;

		if (!bytes || bytes > size - r.at)
			abort();
		if (s[bytes - 1] || (i && !s[0]) || (!i && s[0]))
			abort(); /* NUL-terminated; "" first and only first */
		slen = strlen(s);
		if (version >= 2 && slen != bytes - 1)
			abort(); /* no NUL inside a name */
		if (version == 1) {
			if (slen + 4 < bytes)
				abort(); /* padding of less than a word */
			for (size_t k = slen; k < bytes; k++)
				if (s[k])
					abort(); /* padded with NULs */
		}
		r.at += bytes;
	}
	end_section(&r, start, words);
	/* functions, by name, each once */
	start = begin_section(&r, 0xac000000u, &words);
	nfunctions = get_u32(&r);
	for (uint32_t i = 0; i < nfunctions; i++) {
		uint32_t name;

		if (get_u64(&r) > COUNT_MAX) /* head */
			abort();
		peek_instance(&r, &name);
		if (i && name == last_name)
			abort();
		last_name = name;
		check_instance(&r, nnames, 0);
	}
	end_section(&r, start, words);
	/* no module groups */
	if (get_u32(&r) != 0xae000000u || get_u32(&r) != 0 || get_u32(&r) != 0)
		abort();
	if (version == 1) {
		start = begin_section(&r, 0xaf000000u, &words);
		if (words != 384)
			abort();
		for (int i = 0; i < 384; i++)
			if (get_u32(&r))
				abort();
		end_section(&r, start, words);
	}
	if (r.at != size)
		abort();
}

/* ---- llvm-sample: the text grammar and the totals ---- */

/* Digits at *s (at least one), as a number; NULL when none or more than 2^64-1. */
static const char *get_number(const char *s, const char *end, uint64_t *value)
{
	const char *start = s;

	*value = 0;
	while (s < end && *s >= '0' && *s <= '9') {
		if (*value > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return NULL;
		*value = *value * 10 + (uint64_t)(*s - '0');
		s++;
	}
	return s > start ? s : NULL;
}

/* A name (no space, not empty) followed by ':N' up to end (or to a space when spaced). */
static const char *get_named_count(const char *s, const char *end, bool spaced, uint64_t *value)
{
	const char *stop = s, *colon = NULL, *after;

	while (stop < end && !(spaced && *stop == ' ')) {
		if (*stop == ' ')
			return NULL;
		if (*stop == ':')
			colon = stop;
		stop++;
	}
	if (!colon || colon == s)
		return NULL;
	after = get_number(colon + 1, stop, value);
	return after == stop && *value <= COUNT_MAX ? stop : NULL;
}

static uint64_t add_capped(uint64_t a, uint64_t b)
{
	return a > COUNT_MAX - b ? COUNT_MAX : a + b;
}

#define MAX_LEVELS 80

struct level {
	uint64_t total, sum; /* as written, and of its body */
};

static void check_llvm_sample(const char *text, size_t size)
{
	struct level levels[MAX_LEVELS];
	size_t depth = 0; /* open instances */
	const char *p = text, *end = text + size;

	if (size && text[size - 1] != '\n')
		abort();
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t indent = 0;
		uint64_t value, count;
		const char *s;

		while (p + indent < eol && p[indent] == ' ')
			indent++;
		if (!indent) { /* NAME:TOTAL:HEAD */
			const char *c2 = eol, *c1;

			while (c2 > p && c2[-1] != ':')
				c2--;
			if (c2 == p)
				abort();
			c1 = c2 - 1;
			while (c1 > p && c1[-1] != ':')
				c1--;
			if (c1 <= p + 1)
				abort(); /* an empty name */
			if (get_number(c1, c2 - 1, &value) != c2 - 1 ||
			    get_number(c2, eol, &count) != eol || value > COUNT_MAX || count > COUNT_MAX)
				abort();
			while (depth) { /* close what was open */
				depth--;
				if (levels[depth].sum != levels[depth].total)
					abort();
				if (depth)
					levels[depth - 1].sum = add_capped(levels[depth - 1].sum,
									   levels[depth].total);
			}
			levels[depth++] = (struct level){ value, 0 };
			p = eol + 1;
			continue;
		}
		if (!depth || indent > depth)
			abort(); /* a body line outside a function, or too deep */
		while (depth > indent) {
			depth--;
			if (levels[depth].sum != levels[depth].total)
				abort();
			levels[depth - 1].sum = add_capped(levels[depth - 1].sum, levels[depth].total);
		}
		s = get_number(p + indent, eol, &value); /* OFFSET */
		if (!s || value > 0xffff)
			abort();
		if (s < eol && *s == '.') {
			s = get_number(s + 1, eol, &value);
			if (!s || !value || value > 0xffff)
				abort();
		}
		if (eol - s < 3 || s[0] != ':' || s[1] != ' ')
			abort();
		s += 2;
		if (*s >= '0' && *s <= '9') { /* COUNT [NAME:COUNT ...] */
			s = get_number(s, eol, &count);
			if (!s || count > COUNT_MAX)
				abort();
			levels[depth - 1].sum = add_capped(levels[depth - 1].sum, count);
			while (s < eol) {
				if (*s != ' ')
					abort();
				s = get_named_count(s + 1, eol, true, &value);
				if (!s)
					abort();
			}
		} else { /* CALLEE:TOTAL, its body one space deeper */
			if (!get_named_count(s, eol, false, &value))
				abort();
			if (depth == MAX_LEVELS)
				abort();
			levels[depth++] = (struct level){ value, 0 };
		}
		p = eol + 1;
	}
	while (depth) {
		depth--;
		if (levels[depth].sum != levels[depth].total)
			abort();
		if (depth)
			levels[depth - 1].sum = add_capped(levels[depth - 1].sum, levels[depth].total);
	}
}

/* ---- autofdo and llvm-unsymbolized: counted sections of records ---- */

static bool get_hex(const char **s, const char *end)
{
	const char *start = *s;

	while (*s < end && isxdigit((unsigned char)**s) && !isupper((unsigned char)**s))
		(*s)++;
	return *s > start && *s - start <= 16;
}

static const char *check_section(const char *p, const char *end, const char *separator)
{
	const char *eol = memchr(p, '\n', (size_t)(end - p));
	uint64_t n, count;

	if (!eol || get_number(p, eol, &n) != eol)
		abort();
	p = eol + 1;
	for (uint64_t i = 0; i < n; i++) {
		const char *s = p;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol || !get_hex(&s, eol))
			abort();
		if (*separator) {
			size_t len = strlen(separator);

			if ((size_t)(eol - s) < len || memcmp(s, separator, len))
				abort();
			s += len;
			if (!get_hex(&s, eol))
				abort();
		}
		if (s == eol || *s != ':' || get_number(s + 1, eol, &count) != eol || !count ||
		    count > COUNT_MAX)
			abort();
		p = eol + 1;
	}
	return p;
}

static void check_autofdo_text(const char *text, size_t size, bool llvm)
{
	const char *p = text, *end = text + size;

	p = check_section(p, end, "-");
	if (!llvm)
		p = check_section(p, end, "");
	p = check_section(p, end, "->");
	if (p != end)
		abort();
}

/* ---- the target ---- */

/* FNV-1a of the input: picks the inputs without counts that still go through DWARF. */
static uint32_t input_hash(const uint8_t *data, size_t size)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct written w, v2, v1;
	struct pc_ctx ctx;
	struct pc_model *m = pc_model_new();
	bool counted;

	pc_ctx_init(&ctx);
	if (fuzz_read(&ctx, &pc_perf_script_reader, "fuzz.perf", data, size, false, m)) {
		pc_model_free(m);
		return 0;
	}
	pc_ctx_set(&ctx, "binary", BINARY);
	pc_ctx_set(&ctx, "base", "0");

	w = write_once(&ctx, &pc_autofdo_writer, m);
	counted = !w.rc;
	if (!w.rc)
		check_autofdo_text(w.text, w.size, false);
	free(w.text);
	w = write_once(&ctx, &pc_llvm_unsymbolized_writer, m);
	if (!w.rc)
		check_autofdo_text(w.text, w.size, true);
	if (!w.rc && !counted)
		abort(); /* its address space keeps a subset of autofdo's */
	free(w.text);
	/*
	 * Opening this binary's DWARF costs tens of milliseconds, three times
	 * below: without counts of the binary (autofdo failed) every writer
	 * below fails too, before or after that, so one such input in eight
	 * goes on, to keep those paths covered and that claim checked.
	 */
	if (!counted && input_hash(data, size) % 8) {
		pc_model_free(m);
		return 0;
	}

	v2 = write_once(&ctx, &pc_gcc_afdo_writer, m);
	if (!v2.rc)
		check_gcc_afdo(v2.text, v2.size, 2);
	if (!v2.rc && !counted)
		abort(); /* no counts of the binary, yet a profile */
	pc_ctx_set(&ctx, "afdo-version", "1");
	v1 = write_once(&ctx, &pc_gcc_afdo_writer, m);
	if (!v1.rc)
		check_gcc_afdo(v1.text, v1.size, 1);
	if (v1.rc != v2.rc || (v1.rc && strcmp(v1.message, v2.message)))
		abort(); /* the version changes the layout only */
	free(v1.text);
	free(v2.text);

	w = write_once(&ctx, &pc_llvm_sample_writer, m);
	if (!w.rc)
		check_llvm_sample(w.text, w.size);
	if (!w.rc && !counted)
		abort();
	free(w.text);

	pc_model_free(m);
	return 0;
}
