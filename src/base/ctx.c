/* ctx.c - counted warnings and notices of one run, and what it may use. */
#define _DEFAULT_SOURCE 1 /* _SC_NPROCESSORS_ONLN */
#include "base/ctx.h"

#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

void pc_ctx_init(struct pc_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
}

unsigned pc_ctx_threads(const struct pc_ctx *ctx)
{
	long cpus;

	if (ctx->opt.threads)
		return ctx->opt.threads;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	return cpus > 1 ? (unsigned)(cpus < 64 ? cpus : 64) : 1;
}

int pc_ctx_set(struct pc_ctx *ctx, const char *name, const char *value)
{
	size_t i = 0;

	while (i < ctx->nsettings && strcmp(ctx->settings[i].name, name))
		i++;
	if (i == PC_MAX_SETTINGS)
		return -1;
	if (i == ctx->nsettings)
		ctx->nsettings++;
	ctx->settings[i].name = name;
	ctx->settings[i].value = value ? value : "";
	return 0;
}

const char *pc_option_text(const struct pc_ctx *ctx, const char *name)
{
	for (size_t i = 0; i < ctx->nsettings; i++)
		if (!strcmp(ctx->settings[i].name, name))
			return ctx->settings[i].value;
	return NULL;
}

bool pc_option_flag(const struct pc_ctx *ctx, const char *name)
{
	return pc_option_text(ctx, name) != NULL;
}

/* An unsigned number of the given base (0: C's prefixes) that is all of text. */
static bool parse_unsigned(const char *text, int base, unsigned long long *value)
{
	char *end;

	if (!*text || *text == '-' || *text == '+' || *text == ' ')
		return false;
	errno = 0;
	*value = strtoull(text, &end, base);
	return !errno && !*end;
}

unsigned long pc_option_count(const struct pc_ctx *ctx, const char *name)
{
	const char *text = pc_option_text(ctx, name);
	unsigned long long value;

	return text && parse_unsigned(text, 10, &value) ? (unsigned long)value : 0;
}

bool pc_option_address(const struct pc_ctx *ctx, const char *name, uint64_t *value)
{
	const char *text = pc_option_text(ctx, name);
	unsigned long long number;

	if (!text || !parse_unsigned(text, 0, &number))
		return false;
	*value = number;
	return true;
}

int pc_option_check(const struct pc_option_spec *spec, const char *value,
		    struct pc_error *err)
{
	unsigned long long number;

	switch (spec->kind) {
	case PC_OPTION_FLAG:
		if (value && *value)
			return pc_fail(err, PC_STATUS_USAGE, "--%s takes no value, not '%s'",
				       spec->name, value);
		return 0;
	case PC_OPTION_TEXT:
		if (!value || !*value)
			return pc_fail(err, PC_STATUS_USAGE, "option '--%s' needs a value",
				       spec->name);
		return 0;
	case PC_OPTION_COUNT:
		if (!value || !parse_unsigned(value, 10, &number) || number == 0 ||
		    number > spec->max)
			return pc_fail(err, PC_STATUS_USAGE,
				       "--%s takes a number from 1 to %lu, not '%s'", spec->name,
				       spec->max, value ? value : "");
		return 0;
	case PC_OPTION_ADDRESS:
		if (!value || !parse_unsigned(value, 0, &number))
			return pc_fail(err, PC_STATUS_USAGE,
				       "--%s takes an address such as 0x400000, not '%s'",
				       spec->name, value ? value : "");
		return 0;
	}
	return 0;
}

static struct pc_warning *find_or_add(struct pc_ctx *ctx, const char *key)
{
	for (size_t i = 0; i < ctx->nwarnings; i++)
		if (ctx->warnings[i].key == key)
			return &ctx->warnings[i];
	if (ctx->nwarnings == PC_MAX_WARNINGS)
		return NULL;
	/* a fresh slot: pc_ctx_clear_warnings leaves the old counts and texts */
	memset(&ctx->warnings[ctx->nwarnings], 0, sizeof(ctx->warnings[ctx->nwarnings]));
	ctx->warnings[ctx->nwarnings].key = key;
	return &ctx->warnings[ctx->nwarnings++];
}

/* Counts one message of the kind fmt, keeping the first text of each kind. */
static void record(struct pc_ctx *ctx, const char *format, const char *fmt, const char *text,
		   bool notice)
{
	struct pc_warning *warning = find_or_add(ctx, fmt);

	if (!warning) {
		ctx->dropped_warnings++;
	} else if (warning->count++ == 0) {
		snprintf(warning->text, sizeof(warning->text), "%s%s%s",
			 format ? format : "", format ? ": " : "", text);
		warning->notice = notice;
	}
}

int pc_warn(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
{
	char text[PC_WARNING_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (ctx->opt.strict) { /* the error says it: not a warning too */
		pc_fail(&ctx->err, PC_STATUS_INPUT, "%s (an error with --strict)", text);
		ctx->err.format = format;
		return -1;
	}
	record(ctx, format, fmt, text, false);
	return 0;
}

void pc_notice(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
{
	char text[PC_WARNING_TEXT];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	record(ctx, format, fmt, text, true);
}

void pc_ctx_clear_warnings(struct pc_ctx *ctx)
{
	ctx->nwarnings = 0;
	ctx->dropped_warnings = 0;
}

void pc_note(struct pc_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->nnotes == PC_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->notes[ctx->nnotes++], sizeof(ctx->notes[0]), fmt, ap);
	va_end(ap);
}

void pc_ctx_add_warnings(struct pc_ctx *ctx, const struct pc_ctx *from)
{
	ctx->dropped_warnings += from->dropped_warnings;
	for (size_t i = 0; i < from->nwarnings; i++) {
		const struct pc_warning *w = &from->warnings[i];
		struct pc_warning *to = find_or_add(ctx, w->key);

		if (!to) {
			ctx->dropped_warnings += w->count;
			continue;
		}
		if (!to->count) {
			memcpy(to->text, w->text, sizeof(to->text));
			to->notice = w->notice;
		}
		to->count += w->count;
	}
}

void pc_ctx_print_warnings(const struct pc_ctx *ctx, FILE *fp)
{
	for (size_t i = 0; i < ctx->nwarnings; i++) {
		const struct pc_warning *w = &ctx->warnings[i];

		if (w->count > 1)
			fprintf(fp, "profconv: warning: %s (%llu times)\n", w->text,
				(unsigned long long)w->count);
		else
			fprintf(fp, "profconv: warning: %s\n", w->text);
	}
	if (ctx->dropped_warnings)
		fprintf(fp, "profconv: warning: %llu more warnings of other kinds\n",
			(unsigned long long)ctx->dropped_warnings);
}
