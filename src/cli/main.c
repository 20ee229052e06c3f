/*
 * main.c - the profconv command line: convert, report, info, formats, on
 * the public library API (profconv.h) alone. Its parser and each command's
 * --help are built from the options the formats declare.
 * Exit status: 0 success, 1 bad input or impossible conversion, 2 usage.
 */
#define _POSIX_C_SOURCE 200809L
#include "profconv.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__)
#define PRINTF_LIKE(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define PRINTF_LIKE(fmt, args)
#endif

enum exit_status { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

#define MAX_GIVEN 32        /* pipeline and format options on one command line */
#define MAX_LONG_OPTIONS 96

static const char usage_text[] =
	"usage: profconv convert [-f FMT] [-t FMT] -o OUT|- [options] INPUT|-...\n"
	"       profconv report [-f FMT] [-t report|svg] [-o OUT] [--top N] [--tree]\n"
	"                       [--event NAME] INPUT|-...\n"
	"       profconv info [-f FMT] [--header|--progid|--strtab|--events|--all] INPUT|-\n"
	"       profconv diff [-f FMT] [-t report|folded|svg] [-o OUT] [--top N]\n"
	"                     [--no-normalize] BASE NEW\n"
	"       profconv formats\n"
	"       profconv COMMAND --help | profconv --help | --version\n";

#define FROM_HELP "  -f, --from FMT    input format (default: detected from the content)\n"
#define QUIET_HELP "  -q, --quiet       print nothing but errors\n"

static const char convert_help[] =
	FROM_HELP
	"  -t, --to FMT      output format (default: from the output name:\n"
	"                    .pb.gz/.pprof = pprof, .spt = spt,\n"
	"                    .folded/.collapsed = folded, .afdo.txt/.afdotext =\n"
	"                    autofdo, .afdo = gcc-afdo, .prof.txt = llvm-sample,\n"
	"                    .trace = sampler, .svg = svg, .speedscope.json =\n"
	"                    speedscope, .cpuprofile = cpuprofile, .dump = dump)\n"
	"  -o, --output OUT  output file, written only when the whole conversion\n"
	"                    succeeds; - for standard output\n"
	QUIET_HELP
	"  -v, --verbose     print a one-line summary\n";

static const char report_help[] =
	FROM_HELP
	"  -t, --to FMT      report (default: top functions, call tree) or svg (the\n"
	"                    flame graph of convert -t svg, with its options:\n"
	"                    --title, --width, --minwidth, --inverted, --pid, ...)\n"
	"  -o, --output OUT  output file, written only when the whole run succeeds\n"
	"                    (default: standard output; -t svg needs -o, - for\n"
	"                    standard output)\n"
	QUIET_HELP
	"  -v, --verbose     print a one-line summary\n";

static const char diff_help[] =
	FROM_HELP
	"  -t, --to FMT      report (default: the functions whose count changed most),\n"
	"                    folded (difffolded.pl's \"STACK BASE NEW\" lines) or svg\n"
	"                    (a differential flame graph: boxes as wide as NEW's\n"
	"                    counts, red where a frame grew, blue where it shrank)\n"
	"  -o, --output OUT  output file, written only when the whole diff succeeds\n"
	"                    (default: standard output; -t svg needs -o, - for\n"
	"                    standard output)\n"
	"      --top N       functions in the report (default 20)\n"
	"      --no-normalize  svg: compare the counts as they are (default: BASE's\n"
	"                    scaled to NEW's total)\n"
	QUIET_HELP
	"Both inputs are folded as the folded writer folds them: its options\n"
	"and --event apply (see 'profconv convert --help'); with -t svg, the svg\n"
	"writer's instead (--title, --width, --minwidth, --inverted, --pid, --tid,\n"
	"--addrs).\n";

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

static int usage_error(const char *fmt, ...) PRINTF_LIKE(1, 2);

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("profconv: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\ntry 'profconv --help'\n", stderr);
	return EXIT_USAGE;
}

/* Prints a library error (and frees it); returns exit status 1. */
static int input_error(char *error)
{
	fprintf(stderr, "profconv: %s\n", error ? error : "out of memory");
	profconv_free(error);
	return EXIT_INPUT;
}

/* Options of the command line itself (not the pipeline's or a format's). */
enum cli_option {
	OPT_HELP = 'h', OPT_FROM = 'f', OPT_TO = 't', OPT_OUTPUT = 'o', OPT_QUIET = 'q',
	OPT_VERBOSE = 'v', OPT_VIEW = 256, /* info's views: --header, --progid, ... */
	OPT_SPEC, /* a pipeline or format option: getopt's longindex says which */
	OPT_NO_NORMALIZE, /* diff -t svg's own */
};

static const struct option cli_options[] = {
	{ "help", no_argument, NULL, OPT_HELP },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "header", no_argument, NULL, OPT_VIEW },
	{ "progid", no_argument, NULL, OPT_VIEW },
	{ "strtab", no_argument, NULL, OPT_VIEW },
	{ "events", no_argument, NULL, OPT_VIEW },
	{ "all", no_argument, NULL, OPT_VIEW },
	{ "no-normalize", no_argument, NULL, OPT_NO_NORMALIZE },
};

/* A pipeline, format or view option as given: "name" or "name=value". */
struct cli {
	const char *command;
	const char *from, *to, *output;
	bool quiet, verbose, help;
	bool no_normalize; /* diff -t svg */
	char *given[MAX_GIVEN];
	size_t ngiven;
	/* NULL-ended; writes may take one more option of the command's own (diff's no-normalize) */
	const char *read_options[MAX_GIVEN + 1], *write_options[MAX_GIVEN + 2];
};

static void cli_release(struct cli *cli)
{
	for (size_t i = 0; i < cli->ngiven; i++)
		free(cli->given[i]);
}

static bool has_long_option(const struct option *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return true;
	return false;
}

/* Adds a format's (or, format NULL, the pipeline's) options to getopt's table. */
static void add_format_options(struct option *table, size_t *n, const char *format, int writing)
{
	const char *name, *value;

	for (size_t i = 0; (name = profconv_option(format, writing, i, &value, NULL)); i++) {
		if (*n == MAX_LONG_OPTIONS || has_long_option(table, *n, name))
			continue;
		table[(*n)++] = (struct option){
			name, value ? required_argument : no_argument, NULL, OPT_SPEC,
		};
	}
}

/* getopt_long's table: the CLI's options, the pipeline's, then every format's. */
static void build_long_options(struct option table[MAX_LONG_OPTIONS + 1])
{
	size_t n = sizeof(cli_options) / sizeof(cli_options[0]);
	const char *format;
	int can_read, can_write;

	memcpy(table, cli_options, sizeof(cli_options));
	add_format_options(table, &n, NULL, 0);
	for (size_t i = 0; (format = profconv_format(i, &can_read, &can_write)); i++) {
		if (can_read)
			add_format_options(table, &n, format, 0);
		if (can_write)
			add_format_options(table, &n, format, 1);
	}
	table[n] = (struct option){ NULL, 0, NULL, 0 };
}

static int note_option(struct cli *cli, const char *name, const char *value)
{
	size_t size = strlen(name) + (value ? strlen(value) + 1 : 0) + 1;
	char *text;

	if (cli->ngiven == MAX_GIVEN)
		return usage_error("more than %d options given", MAX_GIVEN);
	if (!(text = malloc(size)))
		return input_error(NULL);
	snprintf(text, size, "%s%s%s", name, value ? "=" : "", value ? value : "");
	cli->given[cli->ngiven++] = text;
	return 0;
}

static int parse_options(int argc, char **argv, const char *short_opts, struct cli *cli)
{
	struct option table[MAX_LONG_OPTIONS + 1];
	int c, index, status;

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
		case OPT_NO_NORMALIZE: cli->no_normalize = true; break;
		case OPT_VIEW:
		case OPT_SPEC:
			if ((status = note_option(cli, table[index].name, optarg)))
				return status;
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			if (!strncmp(argv[optind - 1], "--", 2) && strchr(argv[optind - 1], '='))
				return usage_error("option '%.*s' takes no value",
						   (int)strcspn(argv[optind - 1], "="),
						   argv[optind - 1]);
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (cli->no_normalize && strcmp(cli->command, "diff"))
		return usage_error("%s: --no-normalize is diff's (with -t svg)", cli->command);
	return 0;
}

/* Whether format's reader (writing 0) or writer declares option name. */
static bool declares(const char *format, int writing, const char *name)
{
	const char *option;

	for (size_t i = 0; (option = profconv_option(format, writing, i, NULL, NULL)); i++)
		if (!strcmp(option, name))
			return true;
	return false;
}

static bool is_view(const char *name)
{
	return !strcmp(name, "header") || !strcmp(name, "progid") || !strcmp(name, "strtab") ||
	       !strcmp(name, "events") || !strcmp(name, "all");
}

/*
 * Checks the given options for reading with cli->from and writing with
 * writer (NULL: no write), then splits them: the pipeline's go to both
 * lists, the writer's to the write list, the rest to the read list.
 */
static int split_options(struct cli *cli, const char *writer)
{
	const char *checked[MAX_GIVEN + 1];
	size_t nread = 0, nwrite = 0, nchecked = 0;
	char *error = NULL;

	for (size_t i = 0; i < cli->ngiven; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(cli->given[i], "="),
			 cli->given[i]);
		if (!writer && is_view(name)) {
			cli->read_options[nread++] = cli->given[i];
			continue;
		}
		checked[nchecked++] = cli->given[i];
		if (declares(NULL, 0, name) || !writer || !declares(writer, 1, name))
			cli->read_options[nread++] = cli->given[i];
		if (writer && (declares(NULL, 0, name) || declares(writer, 1, name)))
			cli->write_options[nwrite++] = cli->given[i];
	}
	checked[nchecked] = NULL;
	cli->read_options[nread] = cli->write_options[nwrite] = NULL;
	if (profconv_check_options(cli->from, writer, checked, &error)) {
		usage_error("%s", error);
		profconv_free(error);
		return EXIT_USAGE;
	}
	return 0;
}

static void print_specs(const char *format, int writing)
{
	const char *name, *value, *help;

	for (size_t i = 0; (name = profconv_option(format, writing, i, &value, &help)); i++) {
		char left[40];

		snprintf(left, sizeof(left), "--%s%s%s", name, value ? " " : "", value ? value : "");
		printf("      %-13s %s\n", left, help);
	}
}

/* Whether two writers declare the same options (names and help texts, in order). */
static bool same_options(const char *a, const char *b)
{
	for (size_t i = 0;; i++) {
		const char *help_a, *help_b, *name_a = profconv_option(a, 1, i, NULL, &help_a);
		const char *name_b = profconv_option(b, 1, i, NULL, &help_b);

		if (!name_a || !name_b)
			return !name_a && !name_b;
		if (strcmp(name_a, name_b) || strcmp(help_a, help_b))
			return false;
	}
}

/* Whether writer's options equal an earlier writer's (printed under it). */
static bool options_shown(const char *writer, const char *const *shown, size_t nshown)
{
	for (size_t i = 0; i < nshown; i++)
		if (same_options(shown[i], writer))
			return true;
	return false;
}

/* Each writer's options ("autofdo, llvm-unsymbolized output:"), or only's. */
static void print_writer_options(const char *only)
{
	const char *shown[64], *format, *other;
	size_t nshown = 0;
	int can_write;

	for (size_t i = 0; (format = profconv_format(i, NULL, &can_write)) && nshown < 64; i++) {
		if (!can_write || !profconv_option(format, 1, 0, NULL, NULL) ||
		    (only && strcmp(format, only)) || options_shown(format, shown, nshown))
			continue;
		shown[nshown++] = format;
		printf("\n%s", format);
		for (size_t j = i + 1; (other = profconv_format(j, NULL, &can_write)); j++)
			if (can_write && same_options(format, other))
				printf(", %s", other);
		printf(" output:\n");
		print_specs(format, 1);
	}
}

static void print_reader_options(void)
{
	const char *format;
	int can_read;

	for (size_t i = 0; (format = profconv_format(i, &can_read, NULL)); i++)
		if (can_read && profconv_option(format, 0, 0, NULL, NULL)) {
			printf("\n%s input:\n", format);
			print_specs(format, 0);
		}
}

static int print_help(const char *command)
{
	bool report = command && !strcmp(command, "report");

	fputs(usage_text, stdout);
	if (!command || !strcmp(command, "convert") || report) {
		printf("\n%s options:\n", command ? command : "convert");
		fputs(report ? report_help : convert_help, stdout);
		print_specs(NULL, 0);
		print_reader_options();
		print_writer_options(report ? "report" : NULL);
	} else if (!strcmp(command, "info")) {
		printf("\ninfo options:\n%s", info_help);
	} else if (!strcmp(command, "diff")) {
		printf("\ndiff options:\n%s", diff_help);
	}
	fputs(closing_help, stdout);
	return 0;
}

static int check_reader(const char *name)
{
	if (name && !profconv_format_summary(name, 0))
		return usage_error("unknown input format '%s' (see 'profconv formats')", name);
	return 0;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void print_summary(const profconv_profile *p, const struct cli *cli, double seconds)
{
	double megabytes = profconv_profile_stat(p, "read_bytes") / (1024.0 * 1024.0);
	double read_seconds = profconv_profile_stat(p, "read_seconds");
	unsigned threads = (unsigned)profconv_profile_stat(p, "threads");
	double symbolize_seconds = profconv_profile_stat(p, "symbolize_seconds");
	char on_threads[32] = "", symbolize[40] = "";

	if (threads > 1)
		snprintf(on_threads, sizeof(on_threads), " on %u threads", threads);
	if (symbolize_seconds > 0)
		snprintf(symbolize, sizeof(symbolize), "; symbolize %.3f s", symbolize_seconds);
	fprintf(stderr,
		"profconv: %.0f samples, %zu distinct stacks, %zu frames, %zu modules, %zu columns; "
		"wrote %s in %.3f s (read %.1f MB in %.3f s%s, %.0f MB/s; finalize %.3f s%s; "
		"write %.3f s)\n",
		profconv_profile_stat(p, "samples"), profconv_profile_stacks(p),
		profconv_profile_frames(p),
		profconv_profile_modules(p), profconv_profile_columns(p), cli->output, seconds,
		megabytes, read_seconds, on_threads,
		megabytes / (read_seconds > 1e-6 ? read_seconds : 1e-6),
		profconv_profile_stat(p, "finalize_seconds"), symbolize,
		profconv_profile_stat(p, "write_seconds"));
	for (size_t i = 0; profconv_note(p, i); i++)
		fprintf(stderr, "profconv: %s\n", profconv_note(p, i));
}

static void print_warnings(const profconv_profile *p)
{
	unsigned long long times;
	const char *text;

	for (size_t i = 0; (text = profconv_warning(p, i, &times)); i++)
		if (times > 1)
			fprintf(stderr, "profconv: warning: %s (%llu times)\n", text, times);
		else
			fprintf(stderr, "profconv: warning: %s\n", text);
}

/* Reads every input into one profile and writes it with writer. */
/* Whether a and b name the same file (through links too). */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) && !stat(b, &sb) &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Refuses an output that is one of the inputs, before anything is read. */
static int refuse_input_as_output(const char *output, char **inputs, size_t ninputs)
{
	for (size_t i = 0; output && i < ninputs; i++)
		if (same_file(output, inputs[i]))
			return usage_error("the output '%s' is the input '%s': it would be overwritten "
					   "(name another output)", output, inputs[i]);
	return 0;
}

static int run_convert(struct cli *cli, char **inputs, size_t ninputs, const char *writer)
{
	profconv_profile *p;
	struct timespec start;
	char *error = NULL;
	int status = 0;

	if ((status = refuse_input_as_output(cli->output, inputs, ninputs)))
		return status;
	if (!cli->quiet && isatty(STDERR_FILENO) && cli->ngiven < MAX_GIVEN &&
	    (status = note_option(cli, "progress", NULL)))
		return status;
	if (writer && !strcmp(writer, "cpuprofile") && cli->ngiven < MAX_GIVEN &&
	    (status = note_option(cli, "times", NULL))) /* the real time deltas */
		return status;
	if ((status = split_options(cli, writer)))
		return status;
	if (!(p = profconv_profile_new()))
		return input_error(NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (size_t i = 0; i < ninputs && !status; i++)
		if (profconv_read_more(p, inputs[i], cli->from, cli->read_options, &error))
			status = input_error(error);
	if (!status && profconv_write_file(p, cli->output, writer, cli->write_options, &error))
		status = input_error(error);
	if (!cli->quiet)
		print_warnings(p);
	if (!status && cli->verbose && !cli->quiet)
		print_summary(p, cli, seconds_since(&start));
	profconv_profile_free(p);
	return status;
}

static int cmd_convert(int argc, char **argv)
{
	struct cli cli = { .command = "convert" };
	const char *writer;
	int status;

	if ((status = parse_options(argc, argv, ":hf:t:o:qv", &cli)) || cli.help ||
	    (status = check_reader(cli.from)))
		goto done;
	if (!cli.output) {
		status = usage_error("%s: no output given (-o OUT, or -o - for standard output)",
				     "convert");
	} else if (optind >= argc) {
		status = usage_error("%s: no input given", "convert");
	} else if (cli.to && !profconv_format_summary(cli.to, 1)) {
		status = usage_error("unknown output format '%s' (see 'profconv formats')", cli.to);
	} else if (!(writer = cli.to ? cli.to : profconv_format_for_path(cli.output))) {
		status = usage_error("cannot tell the output format from '%s'; name it with -t",
				     cli.output);
	} else {
		status = run_convert(&cli, argv + optind, (size_t)(argc - optind), writer);
	}
done:
	if (cli.help && !status)
		status = print_help(cli.command);
	cli_release(&cli);
	return status;
}

/*
 * `report` is `convert -t report -o -`: the report writer, on stdout unless
 * -o names a file; or with -t svg (and -o) the flame graph.
 */
static int cmd_report(int argc, char **argv)
{
	struct cli cli = { .command = "report" };
	bool svg;
	int status;

	if ((status = parse_options(argc, argv, ":hf:t:o:qv", &cli)) || cli.help ||
	    (status = check_reader(cli.from)))
		goto done;
	svg = cli.to && !strcmp(cli.to, "svg");
	if (cli.to && !svg && strcmp(cli.to, "report"))
		status = usage_error("%s: writes report or svg, not '%s' (for other formats: "
				     "convert -t FMT)", "report", cli.to);
	else if (svg && !cli.output)
		status = usage_error("%s: -t svg needs an output (-o OUT, or -o - for standard "
				     "output)", "report");
	else if (optind >= argc)
		status = usage_error("%s: no input given", "report");
	else {
		cli.output = cli.output ? cli.output : "-";
		status = run_convert(&cli, argv + optind, (size_t)(argc - optind),
				     svg ? "svg" : "report");
	}
done:
	if (cli.help && !status)
		status = print_help(cli.command);
	cli_release(&cli);
	return status;
}

/* Takes --top N out of the given options (diff's own); 0 when absent. */
static size_t take_top(struct cli *cli)
{
	size_t top = 0, kept = 0;

	for (size_t i = 0; i < cli->ngiven; i++) {
		if (!strncmp(cli->given[i], "top=", 4)) {
			char *end;

			top = strtoul(cli->given[i] + 4, &end, 10);
			if (*end || !top || top > 1000000)
				top = SIZE_MAX; /* refused by the caller */
			free(cli->given[i]);
			continue;
		}
		cli->given[kept++] = cli->given[i];
	}
	cli->ngiven = kept;
	return top;
}

/* Reads one input into a profile of its own. */
static int read_one(struct cli *cli, const char *path, profconv_profile **p)
{
	char *error = NULL;

	if (!(*p = profconv_profile_new()))
		return input_error(NULL);
	if (profconv_read_more(*p, path, cli->from, cli->read_options, &error))
		return input_error(error);
	if (!cli->quiet) /* the reader's: folding for the comparison loses what it must */
		print_warnings(*p);
	return 0;
}

/*
 * `diff BASE NEW`: both folded as the folded writer folds them, then
 * compared; -t svg takes the svg writer's options instead of folded's.
 */
static int cmd_diff(int argc, char **argv)
{
	struct cli cli = { .command = "diff" };
	profconv_profile *sides[2] = { NULL, NULL };
	bool svg;
	char *error = NULL;
	size_t top, nwrite = 0;
	int status;

	if ((status = parse_options(argc, argv, ":hf:t:o:qv", &cli)) || cli.help ||
	    (status = check_reader(cli.from)))
		goto done;
	top = take_top(&cli);
	svg = cli.to && !strcmp(cli.to, "svg");
	if (top == SIZE_MAX)
		status = usage_error("%s: --top takes a number from 1 to 1000000", "diff");
	else if (argc - optind != 2)
		status = usage_error("%s: give two inputs, BASE and NEW", "diff");
	else if (cli.to && !svg && strcmp(cli.to, "report") && strcmp(cli.to, "folded"))
		status = usage_error("%s: writes report, folded or svg, not '%s'", "diff", cli.to);
	else if (svg && !cli.output)
		status = usage_error("%s: -t svg needs an output (-o OUT, or -o - for standard "
				     "output)", "diff");
	else if (cli.no_normalize && !svg)
		status = usage_error("%s: --no-normalize is for the flame graph (-t svg)", "diff");
	else if (!(status = refuse_input_as_output(cli.output, argv + optind, 2)))
		status = split_options(&cli, svg ? "svg" : "folded");
	if (status)
		goto done;
	while (cli.write_options[nwrite])
		nwrite++;
	if (cli.no_normalize) /* profconv_diff_file's own option, no writer's */
		cli.write_options[nwrite++] = "no-normalize";
	cli.write_options[nwrite] = NULL;
	if (!(status = read_one(&cli, argv[optind], &sides[0])) &&
	    !(status = read_one(&cli, argv[optind + 1], &sides[1])) &&
	    profconv_diff_file(sides[0], sides[1], (const char *const *)(argv + optind),
			       cli.output ? cli.output : "-", cli.to, cli.write_options, top, &error))
		status = input_error(error);
done:
	for (int i = 0; i < 2; i++)
		profconv_profile_free(sides[i]);
	if (cli.help && !status)
		status = print_help(cli.command);
	cli_release(&cli);
	return status;
}

static int cmd_info(int argc, char **argv)
{
	struct cli cli = { .command = "info" };
	char *error = NULL;
	int status;

	if ((status = parse_options(argc, argv, ":hf:", &cli)) || cli.help ||
	    (status = check_reader(cli.from)))
		goto done;
	if (cli.to || cli.output || cli.quiet || cli.verbose) {
		status = usage_error("%s: takes -f, the views and the input's options only", "info");
		goto done;
	}
	if (argc - optind != 1) {
		status = usage_error("%s: give exactly one input", "info");
		goto done;
	}
	if ((status = split_options(&cli, NULL)))
		goto done;
	if (profconv_info(argv[optind], cli.from, cli.read_options, stdout, stderr, &error))
		status = input_error(error);
done:
	if (cli.help && !status)
		status = print_help(cli.command);
	cli_release(&cli);
	return status;
}

/* The widths of the formats table's name and extensions columns. */
struct formats_table {
	int name, extensions;
};

/* A format's file name endings, ", "-separated ("-" when it has none). */
static void extensions_of(const char *name, int writing, char *buf, size_t size)
{
	const char *extension;
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; (extension = profconv_format_extension(name, writing, i)) &&
			   used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", extension);
	if (!used)
		snprintf(buf, size, "-");
}

/* Its options, wrapped under the summary: "--pid, --top N, ...". */
static void print_format_options(const char *name, int writing, int indent)
{
	const char *option, *value;
	int column = 0;

	for (size_t i = 0; (option = profconv_option(name, writing, i, &value, NULL)); i++) {
		int len = (int)strlen(option) + 2 + (value ? (int)strlen(value) + 1 : 0);

		if (!i || column + len + 2 > 79 - indent) {
			printf(i ? ",\n%*s" : "%*soptions: ", i ? indent + 9 : indent, "");
			column = 0;
		} else {
			fputs(", ", stdout);
			column += 2;
		}
		printf("--%s%s%s", option, value ? " " : "", value ? value : "");
		column += len;
	}
	if (column)
		putchar('\n');
}

static void print_format(const char *name, const struct formats_table *t, int writing)
{
	char extensions[160];

	extensions_of(name, writing, extensions, sizeof(extensions));
	printf("%-*s  %-5s  %-*s  %s\n", t->name, name, writing ? "write" : "read",
	       t->extensions, extensions, profconv_format_summary(name, writing));
	print_format_options(name, writing, t->name + 2 + 5 + 2);
}

/* formats: every reader, then every writer, in aligned columns, with their options. */
static int cmd_formats(void)
{
	struct formats_table t = { (int)strlen("FORMAT"), (int)strlen("EXTENSIONS") };
	const char *name;
	char extensions[160];
	int can[2];

	for (size_t i = 0; (name = profconv_format(i, &can[0], &can[1])); i++)
		for (int writing = 0; writing < 2; writing++) {
			if (!can[writing])
				continue;
			extensions_of(name, writing, extensions, sizeof(extensions));
			t.name = (int)strlen(name) > t.name ? (int)strlen(name) : t.name;
			t.extensions = (int)strlen(extensions) > t.extensions ? (int)strlen(extensions)
									      : t.extensions;
		}
	printf("%-*s  %-5s  %-*s  %s\n", t.name, "FORMAT", "", t.extensions, "EXTENSIONS",
	       "WHAT");
	for (int writing = 0; writing < 2; writing++)
		for (size_t i = 0; (name = profconv_format(i, &can[0], &can[1])); i++)
			if (can[writing])
				print_format(name, &t, writing);
	puts("\nEvery read and write also takes the options of 'profconv convert --help'\n"
	     "(--event, --strict, the filters, --symbols, ...).");
	return 0;
}

static const char commands_text[] = "convert, report, info, diff, formats, help";

/* help [TOPIC]: the usage, or a command's options; an unknown topic is a usage error. */
static int cmd_help(int argc, char **argv)
{
	static const char *const topics[] = { "convert", "report", "info", "diff", "formats" };
	const char *topic = argc > 2 ? argv[2] : NULL;

	if (argc > 3)
		return usage_error("help: takes at most one topic (%s)", commands_text);
	for (size_t i = 0; topic && i < sizeof(topics) / sizeof(topics[0]); i++)
		if (!strcmp(topic, topics[i]))
			return print_help(!strcmp(topic, "formats") ? NULL : topic);
	if (topic)
		return usage_error("help: no topic '%s' (topics: convert, report, info, diff, "
				   "formats)", topic);
	return print_help(NULL);
}

static int run_command(int argc, char **argv)
{
	const char *command = argc > 1 ? argv[1] : NULL;

	if (!command)
		return usage_error("no command given (%s)", commands_text);
	if (!strcmp(command, "--help") || !strcmp(command, "-h"))
		return print_help(NULL);
	if (!strcmp(command, "help"))
		return cmd_help(argc, argv);
	if (!strcmp(command, "--version")) {
		printf("profconv %s\n", profconv_version());
		return 0;
	}
	if (!strcmp(command, "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(command, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(command, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(command, "diff"))
		return cmd_diff(argc - 1, argv + 1);
	if (!strcmp(command, "formats"))
		return argc == 2 ? cmd_formats() : usage_error("%s: takes no arguments", "formats");
	return usage_error("unknown command '%s' (commands: %s)", command, commands_text);
}

/*
 * A signal ends the run: the temporary files of the outputs being written
 * go, and the exit status is 128 + the signal's number, as a shell says.
 */
static void on_signal(int sig)
{
	profconv_remove_temporaries();
	_exit(128 + sig);
}

static void catch_signals(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction action;

	memset(&action, 0, sizeof(action));
	action.sa_handler = on_signal;
	sigemptyset(&action.sa_mask);
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		struct sigaction old;

		/* a signal ignored by who started us (nohup) stays ignored */
		if (!sigaction(signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(signals[i], &action, NULL);
	}
}

/*
 * Standard output is checked at the end of every command: a write that
 * failed (a full disk, a closed stdout) makes the run fail, even when
 * what failed was --help or formats.
 */
static int check_stdout(int status)
{
	bool failed = ferror(stdout) != 0; /* an earlier write failed */
	int err = 0;

	if (fflush(stdout)) {
		failed = true;
		err = errno;
	}
	/* a closed stdout that nothing was written to is no failure */
	if (fclose(stdout) && errno != EBADF) {
		failed = true;
		err = err ? err : errno;
	}
	if (!failed || status) /* a failed run has said why */
		return status;
	fprintf(stderr, "profconv: cannot write standard output: %s\n",
		err ? strerror(err) : "a write failed");
	return EXIT_INPUT;
}

int main(int argc, char **argv)
{
	catch_signals();
	return check_stdout(run_command(argc, argv));
}
