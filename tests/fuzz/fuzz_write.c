/*
 * fuzz_write.c - libFuzzer target for one writer, compiled once for each
 * writer of pipeline/registry.c with -DFUZZ_WRITER=pc_NAME_writer into
 * build/fuzz/fuzz_write_NAME (built by `make fuzz-build`, run by
 * `make fuzz`; seeds in tests/fuzz/corpus/write/, shared by every writer:
 * small files of the reader corpora behind a header, made by
 * tests/fuzz/seeds/write_seeds.sh).
 *
 * An input is a 4-byte header, then a profile:
 *   byte 0  the reader (pipeline/registry.c's order; one past the last:
 *           detected, as the command line does without --from)
 *   byte 1  bits: 1 read as a pipe, 2 --strict, 4 --skip-bad, 8 --event
 *           (the column byte 3 picks, by its name), 16 --threads 1,
 *           32 --times
 *   byte 2  the writer's options (its descriptor's first eight) to give
 *   byte 3  where their values start in fixed tables (fuzz_set_writer_options)
 * The profile is read into a model and written by the writer as the
 * pipeline writes (pc_write_model: the parts the writer needs, stacks
 * rebuilt from Visual Studio caller/callee data for folded and Sampler).
 *
 * Besides the sanitizers, it checks that every failure says why, on one
 * line; that writing twice gives the same bytes; that speedscope and
 * cpuprofile outputs are JSON text (UTF-8, strings escaped, brackets
 * balanced) and the svg output well-formed XML; and, for the writers whose
 * format profconv also reads (pprof, folded, sampler, spt), that the
 * output reads back with the totals written (check_same_totals; unless
 * the write warned of a loss) and that a second round is a fixed point: what was
 * read, written without options, read and written again gives the same
 * bytes. An empty output (folded, of no sample) is not read back (a
 * 0-byte input is an error), and a model read back without samples (the
 * writer kept none of them, and said so) need not write again.
 *
 * --max-samples is 4096 unless byte 2 sets it, and the Sampler writer
 * (one line per sample) gets only models of at most LINES_MAX counts per
 * column: both write as many records as the counts say.
 * (A control byte in a name once made folded output that did not read
 * back: tests/fuzz/regressions/write_folded.)
 */
#include "support/convert.h"
#include "support/harness.h"
#include "pipeline/options.h"
#include "model/reconstruct.h"
#include "writers/folded_names.h"
#include "pipeline/registry.h"

#ifndef FUZZ_WRITER
#error "build with -DFUZZ_WRITER=pc_NAME_writer (see the Makefile's fuzz-build)"
#endif

extern const struct pc_writer FUZZ_WRITER;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEADER_BYTES 4
#define LINES_MAX 100000

enum read_flags {
	READ_PIPE = 1u << 0,
	READ_STRICT = 1u << 1,
	READ_SKIP_BAD = 1u << 2,
	READ_EVENT = 1u << 3,
	READ_ONE_THREAD = 1u << 4,
	READ_TIMES = 1u << 5,
};

static const struct pc_writer *the_writer(void)
{
	return &FUZZ_WRITER;
}

static void set_flag(struct pc_ctx *ctx, const char *name, const char *value)
{
	if (pc_option_apply(ctx, NULL, the_writer(), name, value))
		abort(); /* the pipeline's own options are always valid */
}

static void set_pipeline_options(struct pc_ctx *ctx, uint8_t flags)
{
	if (flags & READ_STRICT)
		set_flag(ctx, "strict", NULL);
	if (flags & READ_SKIP_BAD)
		set_flag(ctx, "skip-bad", NULL);
	if (flags & READ_ONE_THREAD)
		set_flag(ctx, "threads", "1");
	if (flags & READ_TIMES)
		set_flag(ctx, "times", NULL);
}

/* --event NAME, NAME the choice-th column's, as the command line would give it. */
static void set_event(struct pc_ctx *ctx, const struct pc_model *m, uint8_t choice)
{
	const char *name;

	if (!pc_model_ncolumns(m))
		return;
	name = pc_str(m, pc_model_column(m, choice % pc_model_ncolumns(m))->type);
	if (*name)
		set_flag(ctx, "event", name);
}

/* Writes m twice with copies of ctx: the same outcome and bytes. Returns the first. */
static int write_twice(struct pc_ctx *ctx, const struct pc_model *m, char **text, size_t *size)
{
	struct pc_ctx again = *ctx;
	char *second;
	size_t second_size;
	int rc = fuzz_write_model(ctx, the_writer(), m, text, size);

	if (fuzz_write_model(&again, the_writer(), m, &second, &second_size) != rc)
		abort();
	if (!rc && (second_size != *size || memcmp(second, *text, *size)))
		abort(); /* output is byte-for-byte deterministic */
	if (rc && strcmp(again.err.message, ctx->err.message))
		abort();
	free(second);
	return rc;
}

/*
 * text read back (it must read), then written again without options into
 * *again (NULL when the model read holds no sample and the writer cannot
 * write it: then a warning said what the first write lost). Returns the
 * model read.
 */
static struct pc_model *round_trip(const struct pc_reader *reader, const char *text, size_t size,
				   char **again, size_t *again_size)
{
	struct pc_model *model;
	struct pc_ctx ctx;

	pc_ctx_init(&ctx);
	model = fuzz_read_model(&ctx, reader, (const uint8_t *)text, size, false);
	if (!model) {
		fprintf(stderr, "fuzz_write: %s output does not read back: %s\n", the_writer()->name,
			ctx.err.message);
		abort();
	}
	pc_ctx_init(&ctx);
	fuzz_set_writer_options(&ctx, the_writer(), 0, 0);
	if (fuzz_write_model(&ctx, the_writer(), model, again, again_size) &&
	    pc_model_nsamples(model)) {
		fprintf(stderr, "fuzz_write: %s output read back does not write: %s\n",
			the_writer()->name, ctx.err.message);
		abort();
	}
	return model;
}

/*
 * The column a one-value writer (folded, sampler) counts, as it picks it;
 * false for the others, or when it picks none.
 */
static bool counted_column(const struct pc_ctx *ctx, const struct pc_model *m, size_t *column)
{
	struct pc_ctx run = *ctx;
	int picked;

	if (!strcmp(the_writer()->name, "folded"))
		return !pc_folded_pick_column(&run, m, column) && *column < pc_model_ncolumns(m);
	if (strcmp(the_writer()->name, "sampler"))
		return false;
	picked = ctx->opt.event ? pc_model_pick_column(m, ctx->opt.event, PC_ROLE_SAMPLES)
				: (int)pc_model_default_count_column(m);
	*column = (size_t)picked;
	return picked >= 0 && *column < pc_model_ncolumns(m);
}

static void total_differs(size_t column, const char *name)
{
	fprintf(stderr, "fuzz_write: column %zu ('%s') has another total read back\n", column, name);
	abort();
}

/*
 * The totals read back are those written (unless the write warned of a
 * loss): pprof keeps every column, in order (its conventions may rename
 * them, "cycles_event" is "cycles"; caller/callee arcs add one after
 * them, and a profile without columns gets one); folded and Sampler keep
 * the column they count, of stacks written as they are (not rebuilt from
 * caller/callee data).
 */
static void check_same_totals(const struct pc_ctx *ctx, const struct pc_model *m,
			      const struct pc_model *again)
{
	size_t column;

	if (!strcmp(the_writer()->name, "pprof")) {
		if (pc_model_ncolumns(again) < pc_model_ncolumns(m)) {
			fprintf(stderr, "fuzz_write: %zu columns written, %zu read back\n",
				pc_model_ncolumns(m), pc_model_ncolumns(again));
			abort();
		}
		for (size_t c = 0; c < pc_model_ncolumns(m); c++)
			if (fuzz_column_total(m, c) != fuzz_column_total(again, c))
				total_differs(c, pc_str(m, pc_model_column(m, c)->type));
	} else if (counted_column(ctx, m, &column) && !pc_model_has_arc_data(m) &&
		   pc_model_ncolumns(again) &&
		   fuzz_column_total(m, column) != fuzz_column_total(again, 0)) {
		total_differs(column, pc_str(m, pc_model_column(m, column)->type));
	}
}

/*
 * The output read back and written again, twice: the second round gives
 * the bytes of the first. An empty output (folded, of no sample) is not
 * an input ("empty input"): it is not read.
 */
static void check_read_back(const struct pc_ctx *ctx, const struct pc_model *m, bool warned,
			    const char *text, size_t size)
{
	const struct pc_reader *reader = pc_reader_find(the_writer()->name);
	struct pc_model *first, *second = NULL;
	char *second_text, *third_text = NULL;
	size_t second_size, third_size;

	if (!reader || !size)
		return;
	first = round_trip(reader, text, size, &second_text, &second_size);
	if (!first)
		return;
	if (!warned)
		check_same_totals(ctx, m, first);
	if (second_text && second_size &&
	    !(second = round_trip(reader, second_text, second_size, &third_text, &third_size)))
		abort(); /* the first round read; the second must */
	if (third_text && (third_size != second_size || memcmp(third_text, second_text, second_size))) {
		fprintf(stderr, "fuzz_write: %s output is not a fixed point of reading and writing\n",
			the_writer()->name);
		abort();
	}
	pc_model_free(first);
	pc_model_free(second);
	free(second_text);
	free(third_text);
}

static void check_output(const struct pc_ctx *ctx, const struct pc_model *m, bool warned,
			 const char *text, size_t size)
{
	const char *name = the_writer()->name;

	if (!strcmp(name, "speedscope") || !strcmp(name, "cpuprofile"))
		fuzz_check_json(text, size);
	else if (!strcmp(name, "svg"))
		fuzz_check_xml(text, size);
	check_read_back(ctx, m, warned, text, size);
}

/*
 * Whether m's counts are small enough for the writer: a Sampler trace has
 * one line per sample (a count of 2^40 would be terabytes), so that
 * writer gets models of at most LINES_MAX counts in every column.
 */
static bool small_enough(const struct pc_model *m)
{
	if (strcmp(the_writer()->name, "sampler"))
		return true;
	for (size_t c = 0; c < pc_model_ncolumns(m); c++)
		if (fuzz_column_total(m, c) > LINES_MAX)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pc_reader *reader;
	struct pc_model *m;
	struct pc_ctx ctx;
	char *text;
	size_t text_size, warnings;

	if (size < HEADER_BYTES)
		return 0;
	reader = fuzz_pick_reader(data[0]);
	pc_ctx_init(&ctx);
	set_pipeline_options(&ctx, data[1]);
	m = fuzz_read_model(&ctx, reader, data + HEADER_BYTES, size - HEADER_BYTES,
			    data[1] & READ_PIPE);
	if (!m)
		return 0;
	if (!small_enough(m)) {
		pc_model_free(m);
		return 0;
	}
	if (data[1] & READ_EVENT)
		set_event(&ctx, m, data[3]);
	fuzz_set_writer_options(&ctx, the_writer(), data[2], data[3]);
	warnings = ctx.nwarnings + ctx.dropped_warnings;
	if (!write_twice(&ctx, m, &text, &text_size)) {
		check_output(&ctx, m, ctx.nwarnings + ctx.dropped_warnings > warnings, text,
			     text_size);
		free(text);
	}
	pc_model_free(m);
	return 0;
}
