/*
 * etl_reader.h - the ETL reader for the containers that hold ETW traces
 * (.diagsession, the ETL files a .vsp names), and its state for `profconv
 * info` (etl_info.c), which sees the events the reader sees, then prints
 * what the reader made of them (processes with their samples, the first
 * samples).
 */
#ifndef PC_ETL_READER_H
#define PC_ETL_READER_H

#include "readers/etl_file.h"
#include "model/model.h"

struct etl_reader;

/* Reads the CPU samples of the trace in into m (the reader's read; also for .diagsession and .vsp). */
int etl_read(struct pc_ctx *ctx, struct pc_input *in, struct pc_model *m);

/* A reader whose names go to m. */
struct etl_reader *etl_reader_new(struct pc_ctx *ctx, struct pc_model *m);
void etl_reader_free(struct etl_reader *r);
/* Takes one event (an etl_event_fn). */
int etl_reader_event(void *r, const struct etl_event *ev);
/*
 * After the last event: the processes (pid, image name, CPU samples) and
 * the first n samples in time order (milliseconds from the trace header,
 * pid, tid, IP), as PerfView's baselines list them.
 */
void etl_reader_print_summary(struct etl_reader *r, FILE *out, size_t n);

#endif
