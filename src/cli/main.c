/*
 * main.c - the profconv command line: convert, info, formats.
 * Exit status: 0 success, 1 bad input or impossible conversion, 2 usage.
 */
#include "pipeline/convert.h"
#include "pipeline/options.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: profconv convert [-f FMT] [-t FMT] -o OUT|- [options] INPUT|-...\n"
	"       profconv report [-f FMT] [--top N] [--tree] [--event NAME] INPUT|-...\n"
	"       profconv info [-f FMT] [--header|--progid|--strtab|--events|--all] INPUT|-\n"
	"       profconv formats\n"
	"       profconv COMMAND --help | profconv --help | --version\n";

#define FROM_HELP "  -f, --from FMT    input format (default: detected from the content)\n"
#define QUIET_HELP "  -q, --quiet       print nothing but errors\n"

static const char convert_help[] =
	FROM_HELP
	"  -t, --to FMT      output format (default: from the output name:\n"
	"                    .pb.gz/.pprof = pprof, .spt = spt,\n"
	"                    .folded/.collapsed = folded, .afdo.txt/.afdotext =\n"
	"                    autofdo, .trace = sampler, .dump = dump)\n"
	"  -o, --output OUT  output file, written only when the whole conversion\n"
	"                    succeeds; - for standard output\n"
	QUIET_HELP
	"  -v, --verbose     print a one-line summary\n";

static const char report_help[] = FROM_HELP QUIET_HELP;

static const char info_help[] =
	FROM_HELP
	"      --header      the file header\n"
	"      --progid      the program ids (binaries and their PDB identities)\n"
	"      --strtab      the string table\n"
	"      --events      the events (columns)\n"
	"      --all         every view (the default)\n";

static const char closing_help[] =
	"\nOptions may come before or after the inputs; -- ends them. Several\n"
	"inputs are merged into one profile. Exit status: 0 success, 1 bad input\n"
	"or impossible conversion, 2 usage error. See profconv(1).\n";

static int usage_error(const char *fmt, ...) PC_PRINTF(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("profconv: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\ntry 'profconv --help'\n", stderr);
	return PC_STATUS_USAGE;
}

static int report_error(const struct pc_ctx *ctx)
{
	char message[1200];

	pc_error_format(&ctx->err, message, sizeof(message));
	fprintf(stderr, "profconv: %s\n", message);
	return ctx->err.status ? (int)ctx->err.status : PC_STATUS_INPUT;
}

/* Options of the command line itself (not the pipeline's or a format's). */
enum cli_option {
	OPT_HELP = 'h', OPT_FROM = 'f', OPT_TO = 't', OPT_OUTPUT = 'o', OPT_QUIET = 'q',
	OPT_VERBOSE = 'v', OPT_HEADER = 256, OPT_PROGID, OPT_STRTAB, OPT_EVENTS, OPT_ALL,
	OPT_SPEC, /* a pipeline or format option: getopt's longindex says which */
};

static const struct option cli_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "progid", no_argument, NULL, OPT_PROGID },
	{ "strtab", no_argument, NULL, OPT_STRTAB },
	{ "events", no_argument, NULL, OPT_EVENTS },
	{ "all", no_argument, NULL, OPT_ALL },
};

#define MAX_LONG_OPTIONS 96

/* A pipeline or format option as given, applied once the formats are known. */
struct given_option {
	const char *name, *value;
};

struct cli {
	const char *command;
	const char *from, *to, *output;
	bool quiet, verbose, help;
	unsigned views;
	struct given_option given[PC_MAX_SETTINGS];
	size_t ngiven;
};

static bool has_long_option(const struct option *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return true;
	return false;
}

static void add_specs(struct option *table, size_t *n, const struct pc_option_spec *specs)
{
	for (size_t i = 0; specs && specs[i].name && *n < MAX_LONG_OPTIONS; i++) {
		if (has_long_option(table, *n, specs[i].name))
			continue;
		table[*n] = (struct option){
			specs[i].name,
			specs[i].kind == PC_OPTION_FLAG ? no_argument : required_argument,
			NULL, OPT_SPEC,
		};
		(*n)++;
	}
}

/* getopt_long's table: the CLI's options, the pipeline's, then every format's. */
static void build_long_options(struct option table[MAX_LONG_OPTIONS + 1])
{
	size_t n = PC_ARRAY_SIZE(cli_options);

	memcpy(table, cli_options, sizeof(cli_options));
	add_specs(table, &n, pc_pipeline_options);
	for (size_t i = 0; pc_readers[i]; i++)
		add_specs(table, &n, pc_readers[i]->options);
	for (size_t i = 0; pc_writers[i]; i++)
		add_specs(table, &n, pc_writers[i]->options);
	table[n] = (struct option){ NULL, 0, NULL, 0 };
}

static int note_option(struct cli *cli, const char *name, const char *value)
{
	if (cli->ngiven == PC_ARRAY_SIZE(cli->given))
		return usage_error("more than %zu options given", PC_ARRAY_SIZE(cli->given));
	cli->given[cli->ngiven++] = (struct given_option){ name, value };
	return 0;
}

static int parse_options(int argc, char **argv, const char *short_opts, struct cli *cli)
{
	struct option table[MAX_LONG_OPTIONS + 1];
	int c, index;

	build_long_options(table);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, table, &index)) != -1) {
		switch (c) {
		case OPT_HELP: cli->help = true; break;
		case OPT_FROM: cli->from = optarg; break;
		case OPT_TO: cli->to = optarg; break;
		case OPT_OUTPUT: cli->output = optarg; break;
		case OPT_QUIET: cli->quiet = true; break;
		case OPT_VERBOSE: cli->verbose = true; break;
		case OPT_HEADER: cli->views |= PC_INFO_HEADER; break;
		case OPT_PROGID: cli->views |= PC_INFO_PROGID; break;
		case OPT_STRTAB: cli->views |= PC_INFO_STRTAB; break;
		case OPT_EVENTS: cli->views |= PC_INFO_EVENTS; break;
		case OPT_ALL: cli->views |= PC_INFO_ALL; break;
		case OPT_SPEC:
			if (note_option(cli, table[index].name, optarg))
				return PC_STATUS_USAGE;
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	return 0;
}

/* Checks and records the pipeline's and formats' options into ctx. */
static int apply_options(const struct cli *cli, struct pc_ctx *ctx,
			 const struct pc_reader *reader, const struct pc_writer *writer)
{
	for (size_t i = 0; i < cli->ngiven; i++)
		if (pc_option_apply(ctx, reader, writer, cli->given[i].name, cli->given[i].value))
			return usage_error("%s", ctx->err.message);
	return 0;
}

static void print_specs(const struct pc_option_spec *specs)
{
	for (size_t i = 0; specs && specs[i].name; i++) {
		char left[40];

		snprintf(left, sizeof(left), "--%s%s%s", specs[i].name, specs[i].arg ? " " : "",
			 specs[i].arg ? specs[i].arg : "");
		printf("      %-13s %s\n", left, specs[i].help);
	}
}

static bool writer_shown(size_t index)
{
	for (size_t i = 0; i < index; i++)
		if (pc_writers[i]->options == pc_writers[index]->options)
			return true;
	return false;
}

/* Each writer's options, once per table ("autofdo, llvm-unsymbolized output:"). */
static void print_writer_options(const struct pc_writer *only)
{
	for (size_t i = 0; pc_writers[i]; i++) {
		if (!pc_writers[i]->options || (only && pc_writers[i] != only) || writer_shown(i))
			continue;
		printf("\n%s", pc_writers[i]->name);
		for (size_t j = i + 1; pc_writers[j]; j++)
			if (pc_writers[j]->options == pc_writers[i]->options)
				printf(", %s", pc_writers[j]->name);
		printf(" output:\n");
		print_specs(pc_writers[i]->options);
	}
}

static int print_help(const char *command)
{
	fputs(usage_text, stdout);
	if (!command || !strcmp(command, "convert") || !strcmp(command, "report")) {
		printf("\n%s options:\n", command ? command : "convert");
		fputs(command && !strcmp(command, "report") ? report_help : convert_help, stdout);
		print_specs(pc_pipeline_options);
		for (size_t i = 0; pc_readers[i]; i++)
			if (pc_readers[i]->options) {
				printf("\n%s input:\n", pc_readers[i]->name);
				print_specs(pc_readers[i]->options);
			}
		print_writer_options(command && !strcmp(command, "report")
					     ? pc_writer_find("report") : NULL);
	} else if (!strcmp(command, "info")) {
		printf("\ninfo options:\n%s", info_help);
	}
	fputs(closing_help, stdout);
	return 0;
}

static int find_reader(const char *name, const struct pc_reader **reader)
{
	*reader = NULL;
	if (name && !(*reader = pc_reader_find(name)))
		return usage_error("unknown input format '%s' (see 'profconv formats')", name);
	return 0;
}

static const struct pc_writer *pick_writer(const struct cli *cli)
{
	if (cli->to)
		return pc_writer_find(cli->to);
	return pc_writer_for_path(cli->output);
}

static void print_summary(const struct pc_ctx *ctx, const struct pc_model *m,
			  const struct cli *cli, double seconds,
			  const struct pc_convert_timing *timing)
{
	double megabytes = (double)timing->read_bytes / (1024.0 * 1024.0);
	double read_seconds = timing->read_seconds > 1e-6 ? timing->read_seconds : 1e-6;
	char threads[32] = "";

	if (ctx->threads_used > 1)
		snprintf(threads, sizeof(threads), " on %u threads", ctx->threads_used);
	fprintf(stderr,
		"profconv: %zu samples, %zu stacks, %zu frames, %zu modules, %zu columns; "
		"wrote %s in %.3f s (read %.1f MB in %.3f s%s, %.0f MB/s; finalize %.3f s; "
		"write %.3f s)\n",
		pc_model_nsamples(m), (pc_model_nstacks(m) + 1) - 1, pc_model_nframes(m), pc_model_nmodules(m), pc_model_ncolumns(m),
		cli->output, seconds, megabytes, timing->read_seconds, threads,
		megabytes / read_seconds, timing->finalize_seconds, timing->write_seconds);
}

/* Runs a conversion that the command line has fully described. */
static int run_convert(struct cli *cli, struct pc_convert_request *req)
{
	struct pc_ctx ctx;
	struct pc_model m;
	struct pc_convert_timing timing = { 0 };
	struct timespec start, end;
	int status;

	req->timing = &timing;
	pc_ctx_init(&ctx);
	if ((status = apply_options(cli, &ctx, req->from, req->to)))
		return status;
	ctx.opt.quiet = cli->quiet;
	ctx.opt.verbose = cli->verbose;
	ctx.opt.progress = !cli->quiet && isatty(STDERR_FILENO);
	pc_model_init(&m);
	clock_gettime(CLOCK_MONOTONIC, &start);
	status = pc_convert(&ctx, req, &m) ? report_error(&ctx) : 0;
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (!cli->quiet)
		pc_ctx_print_warnings(&ctx, stderr);
	if (!status && cli->verbose && !cli->quiet)
		print_summary(&ctx, &m, cli, (double)(end.tv_sec - start.tv_sec) +
					       (double)(end.tv_nsec - start.tv_nsec) / 1e9,
			      &timing);
	pc_model_release(&m);
	return status;
}

static int cmd_convert(int argc, char **argv)
{
	struct cli cli = { .command = "convert" };
	struct pc_convert_request req = { 0 };
	int status;

	if ((status = parse_options(argc, argv, "hf:t:o:qv", &cli)))
		return status;
	if (cli.help)
		return print_help(cli.command);
	if ((status = find_reader(cli.from, &req.from)))
		return status;
	if (!cli.output)
		return usage_error("%s: no output given (-o OUT, or -o - for standard output)",
				   "convert");
	if (optind >= argc)
		return usage_error("%s: no input given", "convert");
	req.to = pick_writer(&cli);
	if (!req.to && cli.to)
		return usage_error("unknown output format '%s' (see 'profconv formats')", cli.to);
	if (!req.to)
		return usage_error("cannot tell the output format from '%s'; name it with -t",
				   cli.output);
	req.inputs = (const char *const *)argv + optind;
	req.ninputs = (size_t)(argc - optind);
	req.output = cli.output;
	return run_convert(&cli, &req);
}

/* `report` is `convert -t report -o -`: the report writer on stdout. */
static int cmd_report(int argc, char **argv)
{
	struct cli cli = { .command = "report" };
	struct pc_convert_request req = { 0 };
	int status;

	if ((status = parse_options(argc, argv, "hf:qv", &cli)))
		return status;
	if (cli.help)
		return print_help(cli.command);
	if ((status = find_reader(cli.from, &req.from)))
		return status;
	if (optind >= argc)
		return usage_error("%s: no input given", "report");
	req.to = pc_writer_find("report");
	if (!req.to)
		return usage_error("%s", "this build has no report writer");
	cli.output = "-";
	req.inputs = (const char *const *)argv + optind;
	req.ninputs = (size_t)(argc - optind);
	req.output = cli.output;
	return run_convert(&cli, &req);
}

static int cmd_info(int argc, char **argv)
{
	struct cli cli = { .command = "info" };
	const struct pc_reader *reader;
	struct pc_input in;
	struct pc_ctx ctx;
	int status;

	if ((status = parse_options(argc, argv, "hf:", &cli)))
		return status;
	if (cli.help)
		return print_help(cli.command);
	if ((status = find_reader(cli.from, &reader)))
		return status;
	if (argc - optind != 1)
		return usage_error("%s: give exactly one input", "info");
	pc_ctx_init(&ctx);
	if ((status = apply_options(&cli, &ctx, reader, NULL)))
		return status;
	if (pc_input_open(&in, argv[optind], &ctx.err))
		return report_error(&ctx);
	if (!reader)
		reader = pc_detect(&in, &ctx.err);
	if (reader && !reader->info) {
		pc_error_set_path(&ctx.err, in.name);
		pc_fail(&ctx.err, PC_STATUS_INPUT, "%s input has no info view", reader->name);
	} else if (reader) {
		status = reader->info(&ctx, &in, stdout, cli.views ? cli.views : PC_INFO_ALL);
		pc_error_set_path(&ctx.err, in.name);
	}
	pc_input_close(&in);
	fflush(stdout);
	pc_ctx_print_warnings(&ctx, stderr);
	return ctx.err.status ? report_error(&ctx) : status;
}

static void print_format(const char *name, const char *direction, const char *summary,
			 const char *const *extensions)
{
	printf("%-12s %-6s %s", name, direction, summary);
	for (size_t i = 0; extensions && extensions[i]; i++)
		printf("%s%s", i ? ", " : " (", extensions[i]);
	puts(extensions && extensions[0] ? ")" : "");
}

static int cmd_formats(void)
{
	for (size_t i = 0; pc_readers[i]; i++)
		print_format(pc_readers[i]->name, "read", pc_readers[i]->summary,
			     pc_readers[i]->extensions);
	for (size_t i = 0; pc_writers[i]; i++)
		print_format(pc_writers[i]->name, "write", pc_writers[i]->summary,
			     pc_writers[i]->extensions);
	return 0;
}

int main(int argc, char **argv)
{
	const char *command = argc > 1 ? argv[1] : NULL;

	if (!command)
		return usage_error("no command given");
	if (!strcmp(command, "--help") || !strcmp(command, "-h"))
		return print_help(NULL);
	if (!strcmp(command, "help"))
		return print_help(argc > 2 ? argv[2] : NULL);
	if (!strcmp(command, "--version")) {
		printf("profconv %s\n", PC_VERSION);
		return 0;
	}
	if (!strcmp(command, "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(command, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(command, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(command, "formats"))
		return argc == 2 ? cmd_formats() : usage_error("%s: takes no arguments", "formats");
	return usage_error("unknown command '%s'", command);
}
