/*
 * main.c - the profconv command line: convert, info, formats.
 * Exit status: 0 success, 1 bad input or impossible conversion, 2 usage.
 */
#include "pipeline/convert.h"

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
	"       profconv --help | --version\n"
	"\n"
	"convert options:\n"
	"  -f, --from FMT    input format (default: detected from the content)\n"
	"  -t, --to FMT      output format (default: from the output name:\n"
	"                    .pb.gz/.pprof = pprof, .spt = spt,\n"
	"                    .folded/.collapsed = folded, .afdo.txt/.afdotext =\n"
	"                    autofdo, .trace = sampler, .dump = dump)\n"
	"  -o, --output OUT  output file, written only when the whole conversion\n"
	"                    succeeds; - for standard output\n"
	"  -q, --quiet       print nothing but errors\n"
	"  -v, --verbose     print a one-line summary\n"
	"      --strict      treat warnings about lost data as errors\n"
	"      --skip-bad    skip unparseable lines of text input (counted warning)\n"
	"      --event NAME  the event a one-value output (folded, report) counts\n"
	"      --binary NAME the binary (path or file name) a per-binary output keeps\n"
	"      --base ADDR   the load base to subtract from runtime addresses\n"
	"      --lbr-ranges  AutoFDO output: ranges from SPT LBR records too\n"
	"      --threads N   threads a reader may use (default: one per CPU)\n"
	"\n"
	"folded output (stackcollapse-perf.pl's options):\n"
	"      --pid         root frame comm-PID\n"
	"      --tid         root frame comm-PID/TID\n"
	"      --kernel      _[k] after kernel frames\n"
	"      --jit         _[j] after JIT frames\n"
	"      --addrs       addresses of unknown symbols\n"
	"\n"
	"report options:\n"
	"      --top N       functions in the top table (default 20)\n"
	"      --tree        print the call tree (root first) too\n"
	"\n"
	"Several inputs are merged into one profile. Exit status: 0 success,\n"
	"1 bad input or impossible conversion, 2 usage error. See profconv(1).\n";

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

enum long_only {
	OPT_STRICT = 256, OPT_HEADER, OPT_PROGID, OPT_STRTAB, OPT_EVENTS, OPT_ALL,
	OPT_SKIP_BAD, OPT_PID, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ADDRS, OPT_EVENT,
	OPT_TOP, OPT_TREE, OPT_BINARY, OPT_BASE, OPT_LBR_RANGES, OPT_THREADS,
};

static const struct option convert_options[] = {
	{ "from", required_argument, NULL, 'f' },
	{ "to", required_argument, NULL, 't' },
	{ "output", required_argument, NULL, 'o' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "header", no_argument, NULL, OPT_HEADER },
	{ "progid", no_argument, NULL, OPT_PROGID },
	{ "strtab", no_argument, NULL, OPT_STRTAB },
	{ "events", no_argument, NULL, OPT_EVENTS },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "skip-bad", no_argument, NULL, OPT_SKIP_BAD },
	{ "pid", no_argument, NULL, OPT_PID },
	{ "tid", no_argument, NULL, OPT_TID },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "jit", no_argument, NULL, OPT_JIT },
	{ "addrs", no_argument, NULL, OPT_ADDRS },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "tree", no_argument, NULL, OPT_TREE },
	{ "binary", required_argument, NULL, OPT_BINARY },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "lbr-ranges", no_argument, NULL, OPT_LBR_RANGES },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	const char *from, *to, *output;
	struct pc_options opt;
	unsigned views;
};

/* A decimal number from 1 to max into *value; -1 if optarg is not one. */
static int parse_count(const char *optarg_text, unsigned long max, unsigned *value)
{
	char *end;
	unsigned long n = strtoul(optarg_text, &end, 10);

	if (*end || !*optarg_text || *optarg_text == '-' || n == 0 || n > max)
		return -1;
	*value = (unsigned)n;
	return 0;
}

static int parse_options(int argc, char **argv, const char *short_opts, struct cli *cli)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, short_opts, convert_options, NULL)) != -1) {
		switch (c) {
		case 'f': cli->from = optarg; break;
		case 't': cli->to = optarg; break;
		case 'o': cli->output = optarg; break;
		case 'q': cli->opt.quiet = true; break;
		case 'v': cli->opt.verbose = true; break;
		case OPT_STRICT: cli->opt.strict = true; break;
		case OPT_HEADER: cli->views |= PC_INFO_HEADER; break;
		case OPT_PROGID: cli->views |= PC_INFO_PROGID; break;
		case OPT_STRTAB: cli->views |= PC_INFO_STRTAB; break;
		case OPT_EVENTS: cli->views |= PC_INFO_EVENTS; break;
		case OPT_ALL: cli->views |= PC_INFO_ALL; break;
		case OPT_SKIP_BAD: cli->opt.skip_bad = true; break;
		case OPT_PID: cli->opt.folded_pid = true; break;
		case OPT_TID: cli->opt.folded_tid = true; break;
		case OPT_KERNEL: cli->opt.folded_kernel = true; break;
		case OPT_JIT: cli->opt.folded_jit = true; break;
		case OPT_ADDRS: cli->opt.folded_addrs = true; break;
		case OPT_EVENT: cli->opt.event = optarg; break;
		case OPT_TREE: cli->opt.tree = true; break;
		case OPT_BINARY: cli->opt.binary = optarg; break;
		case OPT_LBR_RANGES: cli->opt.lbr_ranges = true; break;
		case OPT_BASE: {
			char *end;

			errno = 0;
			cli->opt.base = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || *optarg == '-')
				return usage_error("--base takes an address such as 0x400000, not '%s'",
						   optarg);
			cli->opt.has_base = true;
			break;
		}
		case OPT_TOP:
			if (parse_count(optarg, 1000000, &cli->opt.top))
				return usage_error("--top takes a number from 1 to 1000000, not '%s'",
						   optarg);
			break;
		case OPT_THREADS:
			if (parse_count(optarg, 64, &cli->opt.threads))
				return usage_error("--threads takes a number from 1 to 64, not '%s'",
						   optarg);
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
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
		m->nsamples, m->stacks.count - 1, m->nframes, m->nmodules, m->ncolumns,
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
	ctx.opt = cli->opt;
	ctx.opt.progress = !cli->opt.quiet && isatty(STDERR_FILENO);
	pc_model_init(&m);
	clock_gettime(CLOCK_MONOTONIC, &start);
	status = pc_convert(&ctx, req, &m) ? report_error(&ctx) : 0;
	clock_gettime(CLOCK_MONOTONIC, &end);
	if (!cli->opt.quiet)
		pc_ctx_print_warnings(&ctx, stderr);
	if (!status && cli->opt.verbose && !cli->opt.quiet)
		print_summary(&ctx, &m, cli, (double)(end.tv_sec - start.tv_sec) +
					       (double)(end.tv_nsec - start.tv_nsec) / 1e9,
			      &timing);
	pc_model_release(&m);
	return status;
}

static int cmd_convert(int argc, char **argv)
{
	struct cli cli = { 0 };
	struct pc_convert_request req = { 0 };
	int status;

	if ((status = parse_options(argc, argv, "+f:t:o:qv", &cli)) ||
	    (status = find_reader(cli.from, &req.from)))
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
	struct cli cli = { 0 };
	struct pc_convert_request req = { 0 };
	int status;

	if ((status = parse_options(argc, argv, "+f:qv", &cli)) ||
	    (status = find_reader(cli.from, &req.from)))
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
	struct cli cli = { 0 };
	const struct pc_reader *reader;
	struct pc_input in;
	struct pc_ctx ctx;
	int status;

	if ((status = parse_options(argc, argv, "+f:", &cli)) ||
	    (status = find_reader(cli.from, &reader)))
		return status;
	if (argc - optind != 1)
		return usage_error("%s: give exactly one input", "info");
	pc_ctx_init(&ctx);
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
	if (!strcmp(command, "--help") || !strcmp(command, "-h") || !strcmp(command, "help")) {
		fputs(usage_text, stdout);
		return 0;
	}
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
