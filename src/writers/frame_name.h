/*
 * frame_name.h - the name of a frame without a function, as the report
 * and the viewer writers (speedscope, cpuprofile) show it: MODULE+0xRVA
 * (module-relative address), MODULE@0xADDR (absolute), 0xADDR (no
 * module), [MODULE] or [unknown] (no address), with MODULE the module's
 * file name without its directory.
 */
#ifndef PC_FRAME_NAME_H
#define PC_FRAME_NAME_H

#include "model/model.h"

/* The file name of module id (not 0) without its directory ('/' or '\\'). */
const char *pc_module_base_name(const struct pc_model *m, uint32_t module);

/*
 * Writes the name of frame (whose function is not used) into buf, cut to
 * size - 1 bytes and NUL-terminated; returns its length.
 */
size_t pc_frame_fallback_name(const struct pc_model *m, const struct pc_frame *frame, char *buf,
			      size_t size);

#endif
