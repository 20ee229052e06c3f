/* ctx.c - counted warnings of one run, and what it may use. */
#define _DEFAULT_SOURCE 1 /* _SC_NPROCESSORS_ONLN */
#include "base/ctx.h"

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

static struct pc_warning *find_or_add(struct pc_ctx *ctx, const char *key)
{
	for (size_t i = 0; i < ctx->nwarnings; i++)
		if (ctx->warnings[i].key == key)
			return &ctx->warnings[i];
	if (ctx->nwarnings == PC_MAX_WARNINGS)
		return NULL;
	ctx->warnings[ctx->nwarnings].key = key;
	return &ctx->warnings[ctx->nwarnings++];
}

int pc_warn(struct pc_ctx *ctx, const char *format, const char *fmt, ...)
{
	struct pc_warning *warning = find_or_add(ctx, fmt);
	char text[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (!warning) {
		ctx->dropped_warnings++;
	} else if (warning->count++ == 0) {
		snprintf(warning->text, sizeof(warning->text), "%s%s%s",
			 format ? format : "", format ? ": " : "", text);
	}
	if (ctx->opt.strict) {
		pc_fail(&ctx->err, PC_STATUS_INPUT, "%s (an error with --strict)", text);
		ctx->err.format = format;
		return -1;
	}
	return 0;
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
		if (!to->count)
			memcpy(to->text, w->text, sizeof(to->text));
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
