/*
 * gzip_blocks.c - blocks of bytes compressed into gzip members by worker
 * threads, written in order (see gzip_blocks.h).
 *
 * Blocks live in a ring, each known by its sequence number s (slot s %
 * nblocks). The caller's thread fills block `filling`; a full block is
 * queued; a worker takes the oldest queued block, compresses it and marks
 * it done; before a slot is filled again its previous block is written.
 * With one thread there are no workers: each block is compressed and
 * written as it fills.
 */
#include "base/gzip_blocks.h"
#include "base/threads.h"

#include <libdeflate.h>
#include <pthread.h>

#define GZIP_HEADER_BYTES 10
#define GZIP_TRAILER_BYTES 8
#define GZIP_LEVEL 1

enum block_state { BLOCK_FREE, BLOCK_QUEUED, BLOCK_DONE };

struct gzip_block {
	uint8_t *in;
	size_t len;
	uint8_t *out; /* one whole gzip member */
	size_t out_len, out_cap;
	enum block_state state;
};

struct pc_gzip {
	FILE *fp;
	bool failed;
	struct gzip_block *blocks;
	size_t nblocks;
	size_t filling, taken, written; /* sequence numbers: see above */
	struct libdeflate_compressor *compressor; /* without workers */

	struct pc_threads *workers; /* NULL: compressed by the writing thread */
	unsigned nworkers;
	pthread_mutex_t lock;
	pthread_cond_t queued, done;
	bool closing;
};

/* Makes b->out one gzip member holding b->in. */
static void compress_block(struct libdeflate_compressor *c, struct gzip_block *b)
{
	/* deflate, no flags, mtime 0, XFL 4 (fastest), OS 3 (Unix) */
	static const uint8_t header[GZIP_HEADER_BYTES] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };
	size_t need = GZIP_HEADER_BYTES + libdeflate_deflate_compress_bound(c, b->len) +
		      GZIP_TRAILER_BYTES;
	size_t body;

	pc_grow(&b->out, &b->out_cap, need, 1);
	memcpy(b->out, header, GZIP_HEADER_BYTES);
	body = libdeflate_deflate_compress(c, b->in, b->len, b->out + GZIP_HEADER_BYTES,
					   need - GZIP_HEADER_BYTES - GZIP_TRAILER_BYTES);
	if (!body) /* cannot happen: the bound fits */
		pc_die_oom(need);
	pc_put_le(b->out + GZIP_HEADER_BYTES + body, libdeflate_crc32(0, b->in, b->len), 4);
	pc_put_le(b->out + GZIP_HEADER_BYTES + body + 4, (uint32_t)b->len, 4);
	b->out_len = GZIP_HEADER_BYTES + body + GZIP_TRAILER_BYTES;
}

static struct libdeflate_compressor *new_compressor(void)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(GZIP_LEVEL);

	if (!c)
		pc_die_oom(sizeof(void *));
	return c;
}

static void *worker_main(void *arg)
{
	struct pc_gzip *gz = arg;
	struct libdeflate_compressor *c = new_compressor();

	pthread_mutex_lock(&gz->lock);
	for (;;) {
		struct gzip_block *b;

		while (gz->taken == gz->filling && !gz->closing)
			pthread_cond_wait(&gz->queued, &gz->lock);
		if (gz->taken == gz->filling)
			break;
		b = &gz->blocks[gz->taken++ % gz->nblocks];
		pthread_mutex_unlock(&gz->lock);
		compress_block(c, b);
		pthread_mutex_lock(&gz->lock);
		b->state = BLOCK_DONE;
		pthread_cond_broadcast(&gz->done);
	}
	pthread_mutex_unlock(&gz->lock);
	libdeflate_free_compressor(c);
	return NULL;
}

struct pc_gzip *pc_gzip_open(FILE *fp, unsigned threads)
{
	struct pc_gzip *gz = pc_xcalloc(1, sizeof(*gz));

	gz->fp = fp;
	gz->nblocks = threads > 1 ? 2 * (size_t)threads : 1;
	gz->blocks = pc_xcalloc(gz->nblocks, sizeof(*gz->blocks));
	for (size_t i = 0; i < gz->nblocks; i++)
		gz->blocks[i].in = pc_xmalloc(PC_GZIP_BLOCK_BYTES);
	if (threads < 2) {
		gz->compressor = new_compressor();
		return gz;
	}
	pthread_mutex_init(&gz->lock, NULL);
	pthread_cond_init(&gz->queued, NULL);
	pthread_cond_init(&gz->done, NULL);
	gz->workers = pc_threads_start(threads, worker_main, (void *const[]){ gz }, true);
	gz->nworkers = pc_threads_count(gz->workers);
	if (!gz->nworkers) /* no thread to be had: compress here */
		gz->compressor = new_compressor();
	return gz;
}

/* Writes block seq once it is compressed (its turn has come). */
static void write_block(struct pc_gzip *gz, size_t seq)
{
	struct gzip_block *b = &gz->blocks[seq % gz->nblocks];

	if (gz->nworkers) {
		pthread_mutex_lock(&gz->lock);
		while (b->state != BLOCK_DONE)
			pthread_cond_wait(&gz->done, &gz->lock);
		pthread_mutex_unlock(&gz->lock);
	}
	if (!gz->failed && fwrite(b->out, 1, b->out_len, gz->fp) != b->out_len)
		gz->failed = true;
	b->state = BLOCK_FREE;
	b->len = 0;
	gz->written = seq + 1;
}

/* Hands the block being filled over to be compressed, and starts the next one. */
static void queue_block(struct pc_gzip *gz)
{
	struct gzip_block *b = &gz->blocks[gz->filling % gz->nblocks];

	if (!gz->nworkers) {
		compress_block(gz->compressor, b);
		b->state = BLOCK_DONE;
		gz->filling++;
		write_block(gz, gz->filling - 1);
		return;
	}
	pthread_mutex_lock(&gz->lock);
	b->state = BLOCK_QUEUED;
	gz->filling++;
	pthread_cond_signal(&gz->queued);
	pthread_mutex_unlock(&gz->lock);
	/* the next block's slot must be free: write the block that held it */
	if (gz->filling - gz->written == gz->nblocks)
		write_block(gz, gz->written);
}

void pc_gzip_write(struct pc_gzip *gz, const void *data, size_t len)
{
	const uint8_t *bytes = data;

	while (len) {
		struct gzip_block *b = &gz->blocks[gz->filling % gz->nblocks];
		size_t part = PC_GZIP_BLOCK_BYTES - b->len;

		if (part > len)
			part = len;
		memcpy(b->in + b->len, bytes, part);
		b->len += part;
		bytes += part;
		len -= part;
		if (b->len == PC_GZIP_BLOCK_BYTES)
			queue_block(gz);
	}
}

int pc_gzip_close(struct pc_gzip *gz)
{
	int ret;

	/* the last, partial block; an empty stream is one empty member */
	if (gz->blocks[gz->filling % gz->nblocks].len || !gz->filling)
		queue_block(gz);
	while (gz->written < gz->filling)
		write_block(gz, gz->written);
	if (gz->nworkers) {
		pthread_mutex_lock(&gz->lock);
		gz->closing = true;
		pthread_cond_broadcast(&gz->queued);
		pthread_mutex_unlock(&gz->lock);
	}
	if (gz->workers) {
		pc_threads_join(gz->workers);
		pthread_mutex_destroy(&gz->lock);
		pthread_cond_destroy(&gz->queued);
		pthread_cond_destroy(&gz->done);
	}
	ret = gz->failed ? -1 : 0;
	for (size_t i = 0; i < gz->nblocks; i++) {
		free(gz->blocks[i].in);
		free(gz->blocks[i].out);
	}
	if (gz->compressor)
		libdeflate_free_compressor(gz->compressor);
	free(gz->blocks);
	free(gz);
	return ret;
}
