/*
 * dump_writer.c - the canonical text dump of the model, for golden tests
 * and for eyes (`profconv convert -t dump`). It is profconv's own format:
 * it loses nothing the model holds, and prints it in the order finalize
 * gives (by content), so two models dump the same exactly when they are
 * the same profile. Strings are quoted with C escapes; values are decimal,
 * addresses hex. Layout, one item per line:
 *
 *   profconv-dump 1
 *   source spt
 *   comment "..."
 *   fact "key" "value"
 *   time_nanos N / duration_nanos N / period N "type" "unit"   (when set)
 *   column INDEX "type" "unit" [default]
 *   module ID "name" build_id "..." [space N] [pdb {GUID} age N]
 *          [range 0xSTART-0xLIMIT offset 0xOFF] [stated [FN][FL][LN][IN]]
 *   sample COLUMN=VALUE ...            (non-zero values only)
 *     frame FRAME                      (leaf first)
 *     label "key" = "str" | label "key" = NUM ["unit"]
 *     branch FRAME -> FRAME            (newest first)
 *   arc call|branch FRAME -> FRAME COUNT
 *
 * where FRAME is MODULE+0xRVA (module-relative), MODULE@0xADDR (absolute)
 * with MODULE = "name" or ?, then "function" file:line, start LINE (the
 * function's first line), system "name" (pprof's system_name when it
 * differs), "inline" and "folded" (pprof's is_folded) when known.
 */
#include "model/format.h"

static void put_string(FILE *out, const struct pc_model *m, pc_str_id id)
{
	const unsigned char *text = (const unsigned char *)pc_str(m, id);
	uint32_t len = pc_str_len(m, id);

	fputc('"', out);
	for (uint32_t i = 0; i < len; i++) {
		unsigned char c = text[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void put_frame(FILE *out, const struct pc_model *m, uint32_t id)
{
	const struct pc_frame *frame = pc_model_frame(m, id);
	pc_str_id system_name;

	if (frame->module)
		put_string(out, m, pc_model_module(m, frame->module)->name);
	else
		fputc('?', out);
	if (frame->flags & PC_FRAME_HAS_ADDRESS)
		fprintf(out, "%c0x%llx", frame->flags & PC_FRAME_ABSOLUTE ? '@' : '+',
			(unsigned long long)frame->address);
	if (frame->function) {
		fputc(' ', out);
		put_string(out, m, frame->function);
	}
	if (frame->file || frame->line) {
		fputc(' ', out);
		put_string(out, m, frame->file);
		fprintf(out, ":%u", frame->line);
	}
	if (frame->start_line)
		fprintf(out, " start %u", frame->start_line);
	if (pc_model_system_name(m, id, &system_name)) {
		fputs(" system ", out);
		put_string(out, m, system_name);
	}
	if (frame->flags & PC_FRAME_INLINE)
		fputs(" inline", out);
	if (frame->flags & PC_FRAME_FOLDED)
		fputs(" folded", out);
}

static void put_header(FILE *out, const struct pc_model *m)
{
	fputs("profconv-dump 1\n", out);
	for (size_t i = 0; i < pc_model_nsources(m); i++)
		fprintf(out, "source %s\n", pc_str(m, pc_model_source(m, i)));
	for (size_t i = 0; i < pc_model_ncomments(m); i++) {
		fputs("comment ", out);
		put_string(out, m, pc_model_comment(m, i));
		fputc('\n', out);
	}
	for (size_t i = 0; i < pc_model_nfacts(m); i++) {
		fputs("fact ", out);
		put_string(out, m, pc_model_fact(m, i)->key);
		fputc(' ', out);
		put_string(out, m, pc_model_fact(m, i)->value);
		fputc('\n', out);
	}
	if (pc_model_time_nanos(m))
		fprintf(out, "time_nanos %lld\n", (long long)pc_model_time_nanos(m));
	if (pc_model_duration_nanos(m))
		fprintf(out, "duration_nanos %lld\n", (long long)pc_model_duration_nanos(m));
	if (pc_model_period(m) || pc_model_period_type(m)->type) {
		fprintf(out, "period %lld ", (long long)pc_model_period(m));
		put_string(out, m, pc_model_period_type(m)->type);
		fputc(' ', out);
		put_string(out, m, pc_model_period_type(m)->unit);
		fputc('\n', out);
	}
}

static void put_columns_and_modules(FILE *out, const struct pc_model *m)
{
	for (size_t i = 0; i < pc_model_ncolumns(m); i++) {
		fprintf(out, "column %zu ", i);
		put_string(out, m, pc_model_column(m, i)->type);
		fputc(' ', out);
		put_string(out, m, pc_model_column(m, i)->unit);
		fputs((int)i == pc_model_default_column(m) ? " default\n" : "\n", out);
	}
	for (size_t i = 0; i < pc_model_nmodules(m); i++) {
		const struct pc_module *module = pc_model_module(m, i + 1);

		fprintf(out, "module %zu ", i + 1);
		put_string(out, m, module->name);
		fputs(" build_id ", out);
		put_string(out, m, module->build_id);
		if (module->space)
			fprintf(out, " space %u", module->space);
		if (module->has_pdb)
			fprintf(out, " pdb {%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X} age %u",
				module->pdb.data1, module->pdb.data2, module->pdb.data3,
				module->pdb.data4[0], module->pdb.data4[1], module->pdb.data4[2],
				module->pdb.data4[3], module->pdb.data4[4], module->pdb.data4[5],
				module->pdb.data4[6], module->pdb.data4[7], module->pdb.age);
		if (module->has_range)
			fprintf(out, " range 0x%llx-0x%llx offset 0x%llx",
				(unsigned long long)module->start,
				(unsigned long long)module->limit,
				(unsigned long long)module->file_offset);
		if (module->stated)
			fprintf(out, " stated %s%s%s%s",
				module->stated & PC_MODULE_HAS_FUNCTIONS ? "[FN]" : "",
				module->stated & PC_MODULE_HAS_FILENAMES ? "[FL]" : "",
				module->stated & PC_MODULE_HAS_LINE_NUMBERS ? "[LN]" : "",
				module->stated & PC_MODULE_HAS_INLINE_FRAMES ? "[IN]" : "");
		fputc('\n', out);
	}
}

static void put_label(FILE *out, const struct pc_model *m, uint32_t id)
{
	const struct pc_label *label = pc_model_label(m, id);

	fputs("  label ", out);
	put_string(out, m, label->key);
	fputs(" = ", out);
	if (label->str) {
		put_string(out, m, label->str);
	} else {
		fprintf(out, "%lld", (long long)label->num);
		if (label->unit) {
			fputc(' ', out);
			put_string(out, m, label->unit);
		}
	}
	fputc('\n', out);
}

static void put_sample(FILE *out, const struct pc_model *m, size_t index)
{
	const struct pc_sample *sample = pc_model_sample(m, index);
	const uint64_t *values = pc_model_values(m, index);
	const uint32_t *items;
	size_t n;

	fputs("sample", out);
	for (size_t c = 0; c < pc_model_ncolumns(m); c++)
		if (values[c])
			fprintf(out, " %s=%llu", pc_str(m, pc_model_column(m, c)->type),
				(unsigned long long)values[c]);
	fputc('\n', out);
	items = pc_model_stack(m, sample->stack, &n);
	for (size_t i = 0; i < n; i++) {
		fputs("  frame ", out);
		put_frame(out, m, items[i]);
		fputc('\n', out);
	}
	items = pc_model_labelset(m, sample->labels, &n);
	for (size_t i = 0; i < n; i++)
		put_label(out, m, items[i]);
	items = pc_model_branch_stack(m, sample->branches, &n);
	for (size_t i = 0; i < n; i++) {
		fputs("  branch ", out);
		put_frame(out, m, items[2 * i]);
		fputs(" -> ", out);
		put_frame(out, m, items[2 * i + 1]);
		fputc('\n', out);
	}
}

static int dump_write(struct pc_ctx *ctx, const struct pc_model *m, struct pc_output *out)
{
	(void)ctx;
	put_header(out->fp, m);
	put_columns_and_modules(out->fp, m);
	for (size_t i = 0; i < pc_model_nsamples(m); i++)
		put_sample(out->fp, m, i);
	for (size_t i = 0; i < pc_model_narcs(m); i++) {
		const struct pc_arc *arc = pc_model_arc(m, i);

		fprintf(out->fp, "arc %s ", arc->kind == PC_ARC_CALL ? "call" : "branch");
		put_frame(out->fp, m, arc->from);
		fputs(" -> ", out->fp);
		put_frame(out->fp, m, arc->to);
		fprintf(out->fp, " %llu\n", (unsigned long long)arc->count);
	}
	return 0;
}

static const char *const dump_extensions[] = { ".dump", NULL };

const struct pc_writer pc_dump_writer = {
	.name = "dump",
	.extensions = dump_extensions,
	.summary = "profconv's canonical text dump of the model (for tests and reading)",
	.needs = 0,
	.keeps = PC_PART_ADDRESSES | PC_PART_SYMBOLS | PC_PART_STACKS | PC_PART_BRANCHES |
		 PC_PART_ARCS,
	.write = dump_write,
};
