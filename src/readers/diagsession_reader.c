/*
 * diagsession_reader.c - reads a Visual Studio Diagnostics Hub package
 * (.diagsession): a ZIP whose metadata.xml lists its resources; every
 * DiagnosticsHub.Resource.EtlFile resource (member PREFIX/NAME, PREFIX its
 * ResourcePackageUriPrefix) is read as an ETW trace (etl_reader.c) into
 * one profile.
 *
 * Source: ../shared/research/etl.md section 7 (PerfView's
 * DiagSessionPerfViewFile, snail-server's diagsession reader). The ZIP is
 * opened with libzip (random access by member name; from memory, so that
 * standard input works), metadata.xml parsed with libxml2 without network,
 * entities or DTDs. Not read: the older OLE compound-file container
 * (refused with a message), symbol caches, GC dumps and minidumps in the
 * package.
 */
#include "readers/etl_reader.h"

#include "model/format.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <zip.h>

#define FORMAT "diagsession"
#define ETL_RESOURCE "DiagnosticsHub.Resource.EtlFile"
#define MAX_INPUT_BYTES ((uint64_t)16 << 30)

static const uint8_t zip_magic[4] = { 'P', 'K', 3, 4 };
static const uint8_t ole_magic[8] = { 0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1 };

struct package {
	struct pc_ctx *ctx;
	const char *name;       /* of the input, for messages */
	uint8_t *data;          /* the whole input */
	size_t size;
	zip_t *zip;
};

/* The whole input in memory: libzip reads a ZIP from its end. */
static int slurp(struct pc_ctx *ctx, struct pc_input *in, uint8_t **data, size_t *size)
{
	size_t cap = 0;

	*data = NULL;
	*size = 0;
	for (;;) {
		const uint8_t *p;
		size_t got = pc_input_fill(in, (size_t)1 << 20, &p);

		if (!got)
			break;
		if (*size + got > MAX_INPUT_BYTES) {
			free(*data);
			return pc_fail_at(&ctx->err, FORMAT, *size, "more than %llu bytes: too large "
					  "a package", (unsigned long long)MAX_INPUT_BYTES);
		}
		pc_grow(data, &cap, *size + got, 1);
		memcpy(*data + *size, p, got);
		*size += got;
		pc_input_consume(in, got);
	}
	return pc_input_check_io(in, &ctx->err);
}

static int open_zip(struct package *pk)
{
	zip_error_t error;
	zip_source_t *src;

	if (pk->size >= sizeof(ole_magic) && !memcmp(pk->data, ole_magic, sizeof(ole_magic)))
		return pc_fail_at(&pk->ctx->err, FORMAT, 0, "an OLE compound-file package (the "
				  "container of older Visual Studio versions): only the ZIP container "
				  "is read; save the session again with a current Visual Studio");
	if (pk->size < sizeof(zip_magic) || memcmp(pk->data, zip_magic, sizeof(zip_magic)))
		return pc_fail_at(&pk->ctx->err, FORMAT, 0, "expected a ZIP file (PK\\3\\4)");
	zip_error_init(&error);
	src = zip_source_buffer_create(pk->data, pk->size, 0, &error);
	if (src)
		pk->zip = zip_open_from_source(src, ZIP_RDONLY, &error);
	if (!pk->zip) {
		int ret = pc_fail_at(&pk->ctx->err, FORMAT, 0, "not a readable ZIP: %s",
				     zip_error_strerror(&error));

		if (src)
			zip_source_free(src);
		zip_error_fini(&error);
		return ret;
	}
	zip_error_fini(&error);
	return 0;
}

/* Reads member name whole into *data (malloc'ed). */
static int read_member(struct package *pk, const char *name, uint8_t **data, size_t *size)
{
	zip_stat_t st;
	zip_file_t *f;
	zip_int64_t got;

	zip_stat_init(&st);
	if (zip_stat(pk->zip, name, 0, &st) || !(st.valid & ZIP_STAT_SIZE))
		return pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: member '%s' is not in the "
			       "package", pk->name, FORMAT, name);
	if (st.size > MAX_INPUT_BYTES)
		return pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: member '%s' claims %llu "
			       "bytes: too large", pk->name, FORMAT, name, (unsigned long long)st.size);
	f = zip_fopen(pk->zip, name, 0);
	if (!f)
		return pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: cannot open member '%s': %s",
			       pk->name, FORMAT, name, zip_strerror(pk->zip));
	*size = (size_t)st.size;
	*data = pc_xmalloc(*size ? *size : 1);
	got = zip_fread(f, *data, st.size);
	zip_fclose(f);
	if (got < 0 || (zip_uint64_t)got != st.size) {
		free(*data);
		return pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: member '%s' does not read "
			       "whole (%lld of %llu bytes): a damaged package", pk->name, FORMAT, name,
			       (long long)got, (unsigned long long)st.size);
	}
	return 0;
}

static const char *attribute(xmlNode *node, const char *name)
{
	for (xmlAttr *a = node->properties; a; a = a->next)
		if (!strcmp((const char *)a->name, name) && a->children &&
		    a->children->type == XML_TEXT_NODE)
			return (const char *)a->children->content;
	return NULL;
}

/* Reads one ETW trace of the package into m. */
static int read_trace(struct package *pk, xmlNode *node, struct pc_model *m, size_t *traces)
{
	const char *name = attribute(node, "Name"), *prefix = attribute(node, "ResourcePackageUriPrefix");
	char member[1024], where[1200];
	uint8_t *data;
	size_t size;
	struct pc_input in;
	int ret;

	if (!name)
		return 0;
	snprintf(member, sizeof(member), "%s%s%s", prefix ? prefix : "", prefix ? "/" : "", name);
	if (read_member(pk, member, &data, &size))
		return -1;
	snprintf(where, sizeof(where), "%s:%s", pk->name, member);
	pc_input_from_memory(&in, where, data, size);
	ret = etl_read(pk->ctx, &in, m);
	if (ret)
		pc_error_set_path(&pk->ctx->err, in.name);
	pc_input_close(&in);
	free(data);
	(*traces)++;
	return ret;
}

/* Every <Resource Type="DiagnosticsHub.Resource.EtlFile"> of metadata.xml, in order. */
static int read_resources(struct package *pk, xmlNode *node, struct pc_model *m, size_t *traces)
{
	for (; node; node = node->next) {
		const char *type;

		if (node->type != XML_ELEMENT_NODE)
			continue;
		type = attribute(node, "Type");
		if (!strcmp((const char *)node->name, "Resource") && type && !strcmp(type, ETL_RESOURCE)) {
			if (read_trace(pk, node, m, traces))
				return -1;
		} else if (read_resources(pk, node->children, m, traces)) {
			return -1;
		}
	}
	return 0;
}

static int read_package(struct package *pk, struct pc_model *m)
{
	uint8_t *xml;
	size_t len, traces = 0;
	xmlDoc *doc;
	int ret;

	if (read_member(pk, "metadata.xml", &xml, &len))
		return -1;
	xmlInitParser();
	doc = xmlReadMemory((const char *)xml, len > INT32_MAX ? INT32_MAX : (int)len, "metadata.xml",
			    NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	free(xml);
	if (!doc)
		return pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: metadata.xml is not "
			       "well-formed XML", pk->name, FORMAT);
	ret = read_resources(pk, xmlDocGetRootElement(doc), m, &traces);
	xmlFreeDoc(doc);
	if (!ret && !traces)
		ret = pc_fail(&pk->ctx->err, PC_STATUS_INPUT, "%s: %s: metadata.xml lists no %s "
			      "resource: no ETW trace in the package", pk->name, FORMAT, ETL_RESOURCE);
	return ret;
}

static int diagsession_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m)
{
	struct package pk = { .ctx = ctx, .name = in->name };
	int ret = slurp(ctx, in, &pk.data, &pk.size);

	if (!ret)
		ret = open_zip(&pk);
	if (!ret)
		ret = read_package(&pk, m);
	if (pk.zip)
		zip_discard(pk.zip);
	free(pk.data);
	return ret;
}

/* A ZIP whose first member is metadata.xml or an .etl (a package lists its traces first). */
static int diagsession_probe(const uint8_t *head, size_t len)
{
	static const char metadata[] = "metadata.xml";
	size_t name_len;
	const char *name;

	if (len < 30 || memcmp(head, zip_magic, sizeof(zip_magic)))
		return PC_PROBE_NO;
	name_len = pc_le16(head + 26);
	name = (const char *)head + 30;
	if (name_len > len - 30)
		return PC_PROBE_NO;
	if ((name_len == sizeof(metadata) - 1 && !memcmp(name, metadata, name_len)) ||
	    (name_len > 4 && !memcmp(name + name_len - 4, ".etl", 4)))
		return PC_PROBE_STRONG;
	return PC_PROBE_NO;
}

static const char *const diagsession_extensions[] = { ".diagsession", NULL };

const struct pc_reader pc_diagsession_reader = {
	.name = "diagsession",
	.extensions = diagsession_extensions,
	.summary = "Visual Studio Diagnostics Hub package (.diagsession, ZIP): its ETW traces",
	.provides = PC_PART_ADDRESSES | PC_PART_STACKS,
	.probe = diagsession_probe,
	.read = diagsession_read,
};
