/*
 * etl_info.c - `profconv info` for ETW traces: the trace header and its
 * buffers (header view), the census of events by kernel group and opcode
 * with PerfView's names ("Windows Kernel/Image/DCStart"), other providers
 * by GUID, and the CPU samples: all of them and those PerfView keeps (it
 * drops samples of idle threads, TID 0, outside a DPC or ISR) (events
 * view), and the PDB identity of every image, as KernelTraceControl's
 * DbgID_RSDS events give them (progid view).
 */
#include "readers/etl_reader.h"

#include "model/format.h"

#define GROUPS 256

struct opcode_name {
	uint16_t hook;
	const char *name;
};

/* PerfView's names of the kernel events (TraceEvent's KernelTraceEventParser). */
static const struct opcode_name kernel_names[] = {
	{ 0x0000, "EventTrace" }, { 0x0005, "EventTrace/Extension" },
	{ 0x0008, "EventTrace/RundownComplete" }, { 0x0020, "EventTrace/EndExtension" },
	{ 0x010a, "DiskIO/Read" }, { 0x010b, "DiskIO/Write" }, { 0x010c, "DiskIO/ReadInit" },
	{ 0x010d, "DiskIO/WriteInit" }, { 0x010e, "DiskIO/FlushBuffers" },
	{ 0x010f, "DiskIO/FlushInit" }, { 0x0220, "Memory/HardFault" },
	{ 0x0301, "Process/Start" }, { 0x0302, "Process/Stop" }, { 0x0303, "Process/DCStart" },
	{ 0x0304, "Process/DCStop" }, { 0x030a, "Image/Load" }, { 0x0320, "Process/PerfCtr" },
	{ 0x0321, "Process/PerfCtrRundown" }, { 0x0327, "Process/Defunct" },
	{ 0x0501, "Thread/Start" }, { 0x0502, "Thread/Stop" }, { 0x0503, "Thread/DCStart" },
	{ 0x0504, "Thread/DCStop" }, { 0x061a, "TcpIp/SendIPV6" }, { 0x061b, "TcpIp/RecvIPV6" },
	{ 0x080a, "UdpIp/Send" }, { 0x080b, "UdpIp/Recv" }, { 0x081a, "UdpIp/SendIPV6" },
	{ 0x081b, "UdpIp/RecvIPV6" }, { 0x0b0a, "SystemConfig/CPU" },
	{ 0x0b0b, "SystemConfig/PhyDisk" }, { 0x0b0c, "SystemConfig/LogDisk" },
	{ 0x0b0d, "SystemConfig/NIC" }, { 0x0b0f, "SystemConfig/Services" },
	{ 0x0b10, "SystemConfig/Power" }, { 0x0b11, "SystemConfig/Network" },
	{ 0x0b16, "SystemConfig/PnP" }, { 0x0b17, "SystemConfig/IDEChannel" },
	{ 0x0f2e, "PerfInfo/Sample" }, { 0x0f48, "PerfInfo/SetInterval" },
	{ 0x0f49, "PerfInfo/CollectionStart" }, { 0x0f4a, "PerfInfo/CollectionEnd" },
	{ 0x1402, "Image/Unload" }, { 0x1403, "Image/DCStart" }, { 0x1404, "Image/DCStop" },
	{ 0x1421, "Image/KernelBase" }, { 0x1422, "Image/HypercallPage" },
	{ 0x1820, "StackWalk/Stack" }, { 0x1822, "StackWalk/KeyCreate" },
	{ 0x1823, "StackWalk/KeyDelete" }, { 0x1824, "StackWalk/KeyRundown" },
	{ 0x1825, "StackWalk/StackKeyKernel" }, { 0x1826, "StackWalk/StackKeyUser" },
};

struct provider_count {
	uint8_t guid[16];
	uint64_t count;
};

struct census {
	FILE *out;
	unsigned views;
	uint64_t *hooks;            /* per hook (65536) */
	struct provider_count *providers;
	size_t nproviders, providers_cap;
	uint64_t samples, idle_outside_dpc;
	bool header_printed;
	struct etl_reader *reader;  /* for the processes and first samples */
};

static const char *hook_name(uint16_t hook)
{
	for (size_t i = 0; i < PC_ARRAY_SIZE(kernel_names); i++)
		if (kernel_names[i].hook == hook)
			return kernel_names[i].name;
	return NULL;
}

static void print_guid(FILE *out, const uint8_t *g)
{
	fprintf(out, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", pc_le32(g), pc_le16(g + 4),
		pc_le16(g + 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

static void print_trace_header(struct census *c, const struct etl_event *ev)
{
	size_t p = ev->pointer_size == 8 ? 8 : 0;
	uint32_t version = etl_u32(ev, 4);

	fprintf(c->out, "trace header (EventTrace, %u-bit header):\n", 8 * ev->pointer_size);
	fprintf(c->out, "  %-20s %u\n", "BufferSize", etl_u32(ev, 0));
	fprintf(c->out, "  %-20s %u.%u build %u\n", "Windows", version & 0xFF, version >> 8 & 0xFF,
		etl_u32(ev, 8));
	fprintf(c->out, "  %-20s %u\n", "NumberOfProcessors", etl_u32(ev, 12));
	fprintf(c->out, "  %-20s %u (100 ns)\n", "TimerResolution", etl_u32(ev, 24));
	fprintf(c->out, "  %-20s 0x%08x\n", "LogFileMode", etl_u32(ev, 32));
	fprintf(c->out, "  %-20s %u\n", "BuffersWritten", etl_u32(ev, 36));
	fprintf(c->out, "  %-20s %u\n", "PointerSize", etl_u32(ev, 44));
	fprintf(c->out, "  %-20s %u\n", "EventsLost", etl_u32(ev, 48));
	fprintf(c->out, "  %-20s %u\n", "CPUSpeed (MHz)", etl_u32(ev, 52));
	fprintf(c->out, "  %-20s %llu\n", "PerfFreq", (unsigned long long)etl_u64(ev, 248 + p));
	fprintf(c->out, "  %-20s %llu (FILETIME)\n", "StartTime",
		(unsigned long long)etl_u64(ev, 256 + p));
	fprintf(c->out, "  %-20s %u\n", "BuffersLost", etl_u32(ev, 268 + p));
	c->header_printed = true;
}

static void print_pdb(struct census *c, const struct etl_event *ev)
{
	size_t p = ev->pointer_size, end;
	const uint8_t *g;

	if (ev->payload_len < p + 24)
		return;
	g = ev->payload + p + 4;
	for (end = p + 24; end < ev->payload_len && ev->payload[end]; end++)
		;
	fprintf(c->out, "  pid %u base 0x%llx {", etl_u32(ev, p), (unsigned long long)etl_pointer(ev, 0));
	print_guid(c->out, g);
	fprintf(c->out, "} age %u %.*s\n", etl_u32(ev, p + 20), (int)(end - p - 24),
		(const char *)ev->payload + p + 24);
}

static void count_provider(struct census *c, const uint8_t *guid)
{
	for (size_t i = 0; i < c->nproviders; i++)
		if (!memcmp(c->providers[i].guid, guid, 16)) {
			c->providers[i].count++;
			return;
		}
	pc_grow(&c->providers, &c->providers_cap, c->nproviders + 1, sizeof(*c->providers));
	memcpy(c->providers[c->nproviders].guid, guid, 16);
	c->providers[c->nproviders++].count = 1;
}

static int on_event(void *data, const struct etl_event *ev)
{
	struct census *c = data;

	if (c->reader)
		etl_reader_event(c->reader, ev);
	if (ev->kind == ETL_CLASSIC || ev->kind == ETL_MODERN) {
		count_provider(c, ev->guid);
		if ((c->views & PC_INFO_PROGID) && ev->kind == ETL_CLASSIC && ev->opcode == 0x24 &&
		    pc_le32(ev->guid) == 0xb3e675d7)
			print_pdb(c, ev);
		return 0;
	}
	c->hooks[ev->hook]++;
	if (ev->hook == 0 && !c->header_printed && (c->views & PC_INFO_HEADER))
		print_trace_header(c, ev);
	if (ev->hook == 0x0F2E) {
		c->samples++;
		if (etl_u32(ev, ev->pointer_size) == 0 && !(etl_u16(ev, ev->pointer_size + 6) & 3))
			c->idle_outside_dpc++;
	}
	return 0;
}

static void print_census(struct census *c, const struct etl_file_stats *stats)
{
	fprintf(c->out, "buffers: %llu (%llu compressed), events: %llu\n",
		(unsigned long long)stats->buffers, (unsigned long long)stats->compressed_buffers,
		(unsigned long long)stats->events);
	fprintf(c->out, "kernel events:\n");
	for (unsigned hook = 0; hook < 65536; hook++) {
		const char *name = hook_name((uint16_t)hook);

		if (!c->hooks[hook])
			continue;
		if (name)
			fprintf(c->out, "  Windows Kernel/%s: %llu\n", name,
				(unsigned long long)c->hooks[hook]);
		else
			fprintf(c->out, "  Windows Kernel/group 0x%02x/opcode %u: %llu\n", hook >> 8,
				hook & 0xFF, (unsigned long long)c->hooks[hook]);
	}
	fprintf(c->out, "other providers: %zu\n", c->nproviders);
	for (size_t i = 0; i < c->nproviders; i++) {
		fprintf(c->out, "  {");
		print_guid(c->out, c->providers[i].guid);
		fprintf(c->out, "}: %llu\n", (unsigned long long)c->providers[i].count);
	}
	fprintf(c->out, "CPU samples: %llu, of which %llu on idle threads outside a DPC or ISR "
		"(PerfView keeps %llu)\n", (unsigned long long)c->samples,
		(unsigned long long)c->idle_outside_dpc,
		(unsigned long long)(c->samples - c->idle_outside_dpc));
	fprintf(c->out, "buffers reporting lost events: %llu\n",
		(unsigned long long)stats->lost_buffers);
}

int etl_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views);

int etl_info(struct pc_ctx *ctx, struct pc_input *in, FILE *out, unsigned views)
{
	struct census c = { .out = out, .views = views };
	struct etl_file_stats stats;
	struct pc_model *names = NULL;
	int ret;

	c.hooks = pc_xcalloc(65536, sizeof(*c.hooks));
	if (views & PC_INFO_EVENTS) {
		names = pc_model_new();
		c.reader = etl_reader_new(ctx, names);
	}
	if (views & PC_INFO_PROGID)
		fprintf(out, "images with PDB identities (KernelTraceControl DbgID_RSDS):\n");
	ret = etl_read_events(ctx, in, on_event, &c, &stats);
	if (!ret && (views & PC_INFO_EVENTS)) {
		print_census(&c, &stats);
		etl_reader_print_summary(c.reader, out, 5);
	}
	etl_reader_free(c.reader);
	if (names)
		pc_model_free(names);
	free(c.hooks);
	free(c.providers);
	return ret;
}
