/*
 * gzip_blocks.h - gzip output compressed in blocks, on several threads:
 * the one place where a writer's threads run.
 *
 * The bytes written are cut into blocks of PC_GZIP_BLOCK_BYTES; each
 * block becomes one gzip member (raw deflate by libdeflate at level 1,
 * a fixed 10-byte header: no name, mtime 0, XFL 4, OS 3 "Unix"), and the
 * members are written in order. A file of several members is one gzip
 * stream to every gzip reader (gzip -d, zcat, Go's compress/gzip and so
 * pprof, Python's gzip). The bytes depend only on the input, never on the
 * number of threads.
 *
 * Why, measured on pprof output of 94 MB (2.4 million distinct stacks),
 * 5.8 MB and 1.4 MB, one thread, 256 KiB blocks: zlib level 1 (what was
 * used) compressed at 66-80 MB/s, zlib 2 and up slower still; libdeflate
 * level 1 at 77-200 MB/s into 3-4% less; ISA-L level 2 at 300-375 MB/s
 * into the size of zlib's level 1 (-1% to +1.2%), and its level 1 was no
 * faster and larger. libdeflate is used: the issue names it, ISA-L it does
 * not (a project decision to take). Blocks of 256 KiB cost 0.3% of size
 * against one stream and let small outputs use two threads too.
 */
#ifndef PC_GZIP_BLOCKS_H
#define PC_GZIP_BLOCKS_H

#include "base/pc.h"

#define PC_GZIP_BLOCK_BYTES ((size_t)256 << 10)

struct pc_gzip;

/* A gzip stream to fp, compressed on up to threads threads (>= 1). */
struct pc_gzip *pc_gzip_open(FILE *fp, unsigned threads);
void pc_gzip_write(struct pc_gzip *gz, const void *data, size_t len);
/* Writes what is left and frees gz: 0, or -1 if a write failed. */
int pc_gzip_close(struct pc_gzip *gz);

#endif
