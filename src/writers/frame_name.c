/* frame_name.c - names of frames without a function (frame_name.h). */
#include "writers/frame_name.h"

const char *pc_module_base_name(const struct pc_model *m, uint32_t module)
{
	const char *name = pc_str(m, pc_model_module(m, module)->name);
	const char *base = name;

	for (const char *p = name; *p; p++)
		if (*p == '/' || *p == '\\')
			base = p + 1;
	return base;
}

size_t pc_frame_fallback_name(const struct pc_model *m, const struct pc_frame *frame, char *buf,
			      size_t size)
{
	const char *module = frame->module ? pc_module_base_name(m, frame->module) : NULL;
	unsigned long long address = frame->address;
	int len;

	if (!(frame->flags & PC_FRAME_HAS_ADDRESS))
		len = snprintf(buf, size, "[%s]", module ? module : "unknown");
	else if (!module)
		len = snprintf(buf, size, "0x%llx", address);
	else
		len = snprintf(buf, size, "%s%c0x%llx", module,
			       frame->flags & PC_FRAME_ABSOLUTE ? '@' : '+', address);
	if (len < 0) {
		buf[0] = '\0';
		len = 0;
	}
	if ((size_t)len >= size)
		len = (int)size - 1;
	return (size_t)len;
}
