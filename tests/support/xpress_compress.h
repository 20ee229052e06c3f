/*
 * xpress_compress.h - a small MS-XCA plain LZ77 compressor for tests and
 * the fuzz target (header only: the fuzz targets link no test support).
 *
 * The encoder follows [MS-XCA] 2.3 (Plain LZ77 Compression): a 32-bit
 * flag word reserved ahead of every 32 items, bit 31 first, 1 = match;
 * a match is the u16 (distance - 1) << 3 | min(length - 3, 7), then for
 * length - 3 >= 7 a half-byte (the low half of a new byte, or the high
 * half of the byte the previous such match opened), for >= 22 a byte,
 * for >= 277 a u16 of length - 3, or for >= 65536 a u16 of 0 and a u32.
 * The last flag word is padded with 1 bits: the end marker.
 *
 * xpc_compress is greedy: at each position the longest match among the
 * last XPC_CHAIN_DEPTH positions with the same 3 bytes (a hash chain),
 * within max_distance (<= 8192); no lazy matching. It aims at correct
 * and simple, not small or fast. xpc_literal / xpc_match / xpc_finish
 * let a test write any item, including ones a decoder must reject.
 */
#ifndef TESTS_XPRESS_COMPRESS_H
#define TESTS_XPRESS_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XPC_MAX_DISTANCE 8192
#define XPC_CHAIN_DEPTH 32
#define XPC_HASH_BITS 12

struct xpc {
	uint8_t *out;
	size_t cap, pos;
	uint32_t flags;
	unsigned nflags;
	size_t flag_pos;  /* where the current flag word goes */
	size_t half_byte; /* the byte whose high half is free; 0: none */
};

static void xpc_reserve(struct xpc *c, size_t more)
{
	if (c->cap - c->pos >= more)
		return;
	while (c->cap - c->pos < more)
		c->cap = c->cap ? c->cap * 2 : 64;
	c->out = realloc(c->out, c->cap);
	if (!c->out)
		abort();
}

static void xpc_put(struct xpc *c, uint32_t value, size_t bytes)
{
	xpc_reserve(c, bytes);
	for (size_t i = 0; i < bytes; i++)
		c->out[c->pos++] = (uint8_t)(value >> (8 * i));
}

static void xpc_put_flags(struct xpc *c)
{
	for (size_t i = 0; i < 4; i++)
		c->out[c->flag_pos + i] = (uint8_t)(c->flags >> (8 * i));
}

static void xpc_init(struct xpc *c)
{
	memset(c, 0, sizeof(*c));
	xpc_put(c, 0, 4); /* the first flag word */
}

static void xpc_flag(struct xpc *c, unsigned bit)
{
	c->flags = c->flags << 1 | bit;
	if (++c->nflags < 32)
		return;
	xpc_put_flags(c);
	c->flags = 0;
	c->nflags = 0;
	c->flag_pos = c->pos;
	xpc_put(c, 0, 4);
}

static void xpc_literal(struct xpc *c, uint8_t byte)
{
	xpc_put(c, byte, 1);
	xpc_flag(c, 0);
}

/* Any distance 1..8192 and length >= 3 (the length up to 2^32 + 2). */
static void xpc_match(struct xpc *c, size_t distance, uint64_t length)
{
	uint64_t rest = length - 3;

	xpc_put(c, (uint32_t)((distance - 1) << 3 | (rest < 7 ? rest : 7)), 2);
	if (rest >= 7) {
		uint64_t half = rest - 7 < 15 ? rest - 7 : 15;

		if (!c->half_byte) {
			c->half_byte = c->pos;
			xpc_put(c, (uint32_t)half, 1);
		} else {
			c->out[c->half_byte] |= (uint8_t)(half << 4);
			c->half_byte = 0;
		}
		if (half == 15) {
			if (rest - 22 < 255) {
				xpc_put(c, (uint32_t)(rest - 22), 1);
			} else {
				xpc_put(c, 255, 1);
				if (rest < 65536) {
					xpc_put(c, (uint32_t)rest, 2);
				} else {
					xpc_put(c, 0, 2);
					xpc_put(c, (uint32_t)rest, 4);
				}
			}
		}
	}
	xpc_flag(c, 1);
}

/* Pads the last flag word with 1 bits; returns the bytes (c->pos of them), to free. */
static uint8_t *xpc_finish(struct xpc *c, size_t *size)
{
	unsigned free_bits = 32 - c->nflags;

	c->flags = free_bits == 32 ? 0xffffffffu :
				     c->flags << free_bits | ((1u << free_bits) - 1);
	xpc_put_flags(c);
	*size = c->pos;
	return c->out;
}

static uint32_t xpc_hash(const uint8_t *p)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;

	return (v * 2654435761u) >> (32 - XPC_HASH_BITS);
}

/* The longest match for in[at, len) among earlier positions with its hash. */
static size_t xpc_longest(const uint8_t *in, size_t len, size_t at, const size_t *head,
			  const size_t *prev, size_t max_distance, size_t *distance)
{
	size_t best = 0, candidate = head[xpc_hash(in + at)];

	for (int depth = 0; depth < XPC_CHAIN_DEPTH && candidate != SIZE_MAX; depth++) {
		size_t n = 0;

		if (at - candidate > max_distance)
			break;
		while (at + n < len && in[candidate + n] == in[at + n])
			n++;
		if (n > best) {
			best = n;
			*distance = at - candidate;
		}
		candidate = prev[candidate];
	}
	return best >= 3 ? best : 0;
}

/* Compresses in[0, len) (max_distance 1..8192); returns malloc'ed bytes and *size. */
static uint8_t *xpc_compress(const uint8_t *in, size_t len, size_t max_distance, size_t *size)
{
	size_t *head = malloc(sizeof(*head) << XPC_HASH_BITS);
	size_t *prev = malloc(sizeof(*prev) * (len ? len : 1));
	struct xpc c;

	if (!head || !prev)
		abort();
	for (size_t i = 0; i < (size_t)1 << XPC_HASH_BITS; i++)
		head[i] = SIZE_MAX;
	xpc_init(&c);
	for (size_t at = 0; at < len;) {
		size_t distance = 0, length = 0, next;

		if (len - at >= 3)
			length = xpc_longest(in, len, at, head, prev, max_distance, &distance);
		if (length)
			xpc_match(&c, distance, length);
		else
			xpc_literal(&c, in[at]);
		next = at + (length ? length : 1);
		for (; at < next; at++) {
			if (len - at >= 3) {
				uint32_t h = xpc_hash(in + at);

				prev[at] = head[h];
				head[h] = at;
			}
		}
	}
	free(head);
	free(prev);
	return xpc_finish(&c, size);
}

#endif
