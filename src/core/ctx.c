/* ctx.c - counted warnings of one run. */
#include "ctx.h"

#include <stdarg.h>

void pc_ctx_init(struct pc_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
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
