/*
 * sort.c - stable sorts of indices: merge sort by a comparison, radix sort
 * by keys; and a natural merge sort of items from nearly sorted streams.
 */
#include "base/sort.h"

#include "base/threads.h"

void pc_sort_indices(const void *ctx, uint32_t *order, size_t n, pc_index_compare_fn compare)
{
	uint32_t *scratch = pc_xmalloc((n ? n : 1) * sizeof(*scratch));
	uint32_t *from = order, *to = scratch;

	for (size_t width = 1; width < n; width *= 2) {
		for (size_t lo = 0; lo < n; lo += 2 * width) {
			size_t mid = lo + width < n ? lo + width : n;
			size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
			size_t i = lo, j = mid, k = lo;

			while (i < mid && j < hi)
				to[k++] = compare(ctx, from[j], from[i]) < 0 ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		uint32_t *swap = from;
		from = to;
		to = swap;
	}
	if (from != order)
		memcpy(order, from, n * sizeof(*order));
	free(scratch);
}

/* Radix digits of a byte (measured faster than 11 bits here: the scatter stays in cache). */
#define DIGIT_BITS 8
#define DIGITS ((size_t)1 << DIGIT_BITS)
#define DIGIT_MASK (DIGITS - 1)

/* Below this many keys one thread sorts: a thread costs more than it saves. */
#define THREADED_SORT_MIN ((size_t)1 << 18)

/*
 * One radix pass over part of the keys: counting the digits of
 * [begin, end), then moving them to the places at[] gives.
 */
struct radix_part {
	const uint32_t *order_from;
	const uint64_t *keys_from;
	uint32_t *order_to;
	uint64_t *keys_to;
	size_t begin, end;
	unsigned shift;
	size_t at[DIGITS];
};

static void *count_digits(void *arg)
{
	struct radix_part *part = arg;

	memset(part->at, 0, sizeof(part->at));
	for (size_t i = part->begin; i < part->end; i++)
		part->at[(part->keys_from[i] >> part->shift) & DIGIT_MASK]++;
	return NULL;
}

static void *move_digits(void *arg)
{
	struct radix_part *part = arg;

	for (size_t i = part->begin; i < part->end; i++) {
		size_t to = part->at[(part->keys_from[i] >> part->shift) & DIGIT_MASK]++;

		part->order_to[to] = part->order_from[i];
		part->keys_to[to] = part->keys_from[i];
	}
	return NULL;
}

/* fn on each of the nparts parts, the last ones on threads of their own if to be had. */
static void run_parts(void *(*fn)(void *), struct radix_part *parts, unsigned nparts)
{
	void *args[2] = { &parts[1], NULL };
	struct pc_threads *others;

	if (nparts == 1) { /* the usual small sort: no thread group at all */
		fn(&parts[0]);
		return;
	}
	others = pc_threads_start(nparts - 1, fn, args, false);

	fn(&parts[0]);
	for (unsigned i = 1 + pc_threads_count(others); i < nparts; i++)
		fn(&parts[i]);
	pc_threads_join(others);
}

/*
 * Where each part's keys of each digit go: a digit's keys of the first
 * part before those of the second, which keeps the sort stable.
 */
static void place_digits(struct radix_part *parts, unsigned nparts)
{
	size_t sum = 0;

	for (size_t digit = 0; digit < DIGITS; digit++) {
		for (unsigned p = 0; p < nparts; p++) {
			size_t here = parts[p].at[digit];

			parts[p].at[digit] = sum;
			sum += here;
		}
	}
}

void pc_sort_by_keys_on(uint32_t *order, uint64_t *keys, size_t n, unsigned threads)
{
	uint32_t *order_spare, *order_from = order, *order_to;
	uint64_t *keys_spare, *keys_from = keys, *keys_to, differ = 0;
	struct radix_part parts[2];
	unsigned nparts = threads >= 2 && n >= THREADED_SORT_MIN ? 2 : 1;

	for (size_t i = 1; i < n; i++)
		differ |= keys[i] ^ keys[0];
	if (!differ)
		return;
	order_spare = order_to = pc_xmalloc(n * sizeof(*order));
	keys_spare = keys_to = pc_xmalloc(n * sizeof(*keys));
	for (unsigned shift = 0; shift < 64; shift += DIGIT_BITS) {
		if (!((differ >> shift) & DIGIT_MASK))
			continue;
		for (unsigned p = 0; p < nparts; p++)
			parts[p] = (struct radix_part){
				.order_from = order_from, .keys_from = keys_from,
				.order_to = order_to, .keys_to = keys_to,
				.begin = n / nparts * p, .end = p + 1 < nparts ? n / nparts * (p + 1) : n,
				.shift = shift,
			};
		run_parts(count_digits, parts, nparts);
		place_digits(parts, nparts);
		run_parts(move_digits, parts, nparts);
		uint32_t *order_swap = order_from;
		uint64_t *keys_swap = keys_from;

		order_from = order_to;
		order_to = order_swap;
		keys_from = keys_to;
		keys_to = keys_swap;
	}
	if (order_from != order) {
		memcpy(order, order_from, n * sizeof(*order));
		memcpy(keys, keys_from, n * sizeof(*keys));
	}
	free(order_spare);
	free(keys_spare);
}

void pc_sort_by_keys(uint32_t *order, uint64_t *keys, size_t n)
{
	pc_sort_by_keys_on(order, keys, n, 1);
}

/* ---- items from nearly sorted streams ---- */

struct item_array {
	const uint8_t *base;
	size_t size;
	int (*compare)(const void *, const void *);
};

static int compare_items(const struct item_array *items, uint32_t a, uint32_t b)
{
	return items->compare(items->base + (size_t)a * items->size,
			      items->base + (size_t)b * items->size);
}

/* Ascending runs of item indexes, merged through a heap of their next items, least first. */
struct run {
	const uint32_t *next, *end;
};

struct run_heap {
	const struct item_array *items;
	struct run *runs;             /* in the order of the gathered indexes */
	size_t nruns, runs_cap;
	uint32_t *heap;               /* run numbers */
	size_t n;
};

/* Heap entry a's next item before b's: equal ones in run order, which keeps them stable. */
static bool run_before(const struct run_heap *h, size_t a, size_t b)
{
	uint32_t ra = h->heap[a], rb = h->heap[b];
	int diff = compare_items(h->items, *h->runs[ra].next, *h->runs[rb].next);

	return diff < 0 || (diff == 0 && ra < rb);
}

static void run_heap_down(struct run_heap *h, size_t at)
{
	for (;;) {
		size_t least = at, left = 2 * at + 1, right = left + 1;
		uint32_t swap;

		if (left < h->n && run_before(h, left, least))
			least = left;
		if (right < h->n && run_before(h, right, least))
			least = right;
		if (least == at)
			return;
		swap = h->heap[at];
		h->heap[at] = h->heap[least];
		h->heap[least] = swap;
		at = least;
	}
}

/* Cuts indexes[0, n) into ascending runs, a new one also where each stream begins. */
static void cut_runs(struct run_heap *h, const uint32_t *indexes, size_t n,
		     const size_t *stream_end, size_t stream_at)
{
	const struct item_array *items = h->items;

	for (size_t i = 0, block_end = 0; i < n; i++) {
		if (i == block_end || compare_items(items, indexes[i - 1], indexes[i]) > 0) {
			pc_grow(&h->runs, &h->runs_cap, h->nruns + 1, sizeof(*h->runs));
			if (h->nruns)
				h->runs[h->nruns - 1].end = indexes + i;
			h->runs[h->nruns++].next = indexes + i;
		}
		if (i == block_end)
			block_end = stream_end[items->base[(size_t)indexes[i] * items->size +
							   stream_at]];
	}
	h->runs[h->nruns - 1].end = indexes + n;
}

/* Moves item order[i] to place i, cycle by cycle (order is used up). */
static void permute(uint8_t *base, size_t size, uint32_t *order, size_t n)
{
	uint8_t *held = pc_xmalloc(size);

	for (size_t i = 0; i < n; i++) {
		size_t at = i;

		if (order[i] == i)
			continue;
		memcpy(held, base + i * size, size);
		while (order[at] != i) {
			size_t from = order[at];

			memcpy(base + at * size, base + from * size, size);
			order[at] = (uint32_t)at;
			at = from;
		}
		memcpy(base + at * size, held, size);
		order[at] = (uint32_t)at;
	}
	free(held);
}

void pc_sort_streams(void *items, size_t n, size_t size, size_t stream_at,
		     int (*compare)(const void *, const void *))
{
	struct item_array array = { .base = items, .size = size, .compare = compare };
	struct run_heap h = { .items = &array };
	size_t at[257] = { 0 };
	uint32_t *by_stream, *order;

	if (n < 2)
		return;
	if (n > UINT32_MAX) {
		qsort(items, n, size, compare);
		return;
	}
	by_stream = pc_xmalloc(n * sizeof(*by_stream));
	order = pc_xmalloc(n * sizeof(*order));
	for (size_t i = 0; i < n; i++)
		at[array.base[i * size + stream_at] + 1]++;
	for (size_t s = 0; s < 256; s++)
		at[s + 1] += at[s];
	for (size_t i = 0; i < n; i++) /* at[s] becomes the end of stream s's indexes */
		by_stream[at[array.base[i * size + stream_at]]++] = (uint32_t)i;
	cut_runs(&h, by_stream, n, at, stream_at);
	h.heap = pc_xmalloc(h.nruns * sizeof(*h.heap));
	for (h.n = 0; h.n < h.nruns; h.n++)
		h.heap[h.n] = (uint32_t)h.n;
	for (size_t i = h.n / 2; i-- > 0;)
		run_heap_down(&h, i);
	for (size_t i = 0; i < n; i++) {
		struct run *run = &h.runs[h.heap[0]];

		order[i] = *run->next++;
		if (run->next == run->end)
			h.heap[0] = h.heap[--h.n];
		run_heap_down(&h, 0);
	}
	free(h.runs);
	free(h.heap);
	free(by_stream);
	permute(items, size, order, n);
	free(order);
}
