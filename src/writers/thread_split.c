/* thread_split.c - the (comm, pid, tid) threads of a model's samples (thread_split.h). */
#include "writers/thread_split.h"
#include "base/sort.h"

static pc_str_id find_key(const struct pc_model *m, const char *key)
{
	return pc_model_find_string(m, key, strlen(key));
}

void pc_threads_init(struct pc_threads *threads, const struct pc_model *m)
{
	*threads = (struct pc_threads){
		.m = m,
		.key_comm = find_key(m, "comm"),
		.key_pid = find_key(m, "pid"),
		.key_tid = find_key(m, "tid"),
	};
	threads->of_set = pc_xcalloc(pc_model_nlabelsets(m) + 1, sizeof(*threads->of_set));
	pc_index_init(&threads->index);
}

void pc_threads_release(struct pc_threads *threads)
{
	free(threads->items);
	free(threads->of_set);
	pc_index_release(&threads->index);
}

static bool is_split_label(const struct pc_model *m, const struct pc_label *label)
{
	const char *key = pc_str(m, label->key);

	if (label->str)
		return !strcmp(key, "comm");
	return !strcmp(key, "pid") || !strcmp(key, "tid");
}

bool pc_threads_any(const struct pc_model *m)
{
	for (size_t set = 1; set <= pc_model_nlabelsets(m); set++) {
		size_t n;
		const uint32_t *ids = pc_model_labelset(m, (uint32_t)set, &n);

		for (size_t i = 0; i < n; i++)
			if (is_split_label(m, pc_model_label(m, ids[i])))
				return true;
	}
	return false;
}

static bool thread_equal(const void *ctx, uint32_t id, const void *key_ptr)
{
	const struct pc_threads *threads = ctx;
	const struct pc_thread *a = &threads->items[id - 1], *b = key_ptr;

	return a->comm == b->comm && a->has_pid == b->has_pid && a->has_tid == b->has_tid &&
	       a->pid == b->pid && a->tid == b->tid;
}

/* The thread of a label set's labels; notes labels that are not kept. */
static struct pc_thread thread_of_set(struct pc_threads *threads, uint32_t set)
{
	struct pc_thread thread = { 0 };
	size_t n;
	const uint32_t *ids = pc_model_labelset(threads->m, set, &n);

	for (size_t i = 0; i < n; i++) {
		const struct pc_label *label = pc_model_label(threads->m, ids[i]);

		if (label->key == threads->key_comm && label->str) {
			thread.comm = label->str;
		} else if (label->key == threads->key_pid && !label->str) {
			thread.has_pid = true;
			thread.pid = label->num;
		} else if (label->key == threads->key_tid && !label->str) {
			thread.has_tid = true;
			thread.tid = label->num;
		} else {
			threads->lost_labels = true;
		}
	}
	return thread;
}

uint32_t pc_threads_of(struct pc_threads *threads, uint32_t set)
{
	struct pc_thread key;
	uint64_t hash;
	uint32_t id;

	if (threads->of_set[set])
		return threads->of_set[set] - 1;
	key = thread_of_set(threads, set);
	hash = pc_hash_u64(key.comm ^ (uint64_t)key.has_pid << 32 ^ (uint64_t)key.has_tid << 33);
	hash = pc_hash_u64(hash ^ (uint64_t)key.pid);
	hash = pc_hash_u64(hash ^ (uint64_t)key.tid);
	id = pc_index_find(&threads->index, hash, thread_equal, threads, &key);
	if (!id) {
		pc_grow(&threads->items, &threads->cap, threads->count + 1, sizeof(*threads->items));
		threads->items[threads->count] = key;
		threads->any_pid |= key.has_pid;
		threads->any_tid |= key.has_tid;
		id = (uint32_t)++threads->count;
		pc_index_add(&threads->index, hash, id);
	}
	threads->of_set[set] = id;
	return id - 1;
}

static int put_id(char *buf, size_t size, bool has, int64_t id)
{
	return has ? snprintf(buf, size, "%lld", (long long)id) : snprintf(buf, size, "?");
}

size_t pc_threads_name(const struct pc_threads *threads, uint32_t index, char *buf, size_t size)
{
	const struct pc_thread *thread = &threads->items[index];
	const char *comm = thread->comm ? pc_str(threads->m, thread->comm) : "";
	char pid[24] = "", tid[24] = "";
	int len;

	if (threads->any_pid)
		put_id(pid, sizeof(pid), thread->has_pid, thread->pid);
	if (threads->any_tid) {
		tid[0] = '/';
		put_id(tid + 1, sizeof(tid) - 1, thread->has_tid, thread->tid);
	}
	if (!thread->comm && !thread->has_pid && !thread->has_tid)
		len = snprintf(buf, size, "(no thread)");
	else
		len = snprintf(buf, size, "%s%s%s%s", comm, *comm && (*pid || *tid) ? " " : "", pid,
			       *pid || !*tid ? tid : tid + 1);
	if (len < 0) {
		buf[0] = '\0';
		len = 0;
	}
	return (size_t)len < size ? (size_t)len : size - 1;
}

static int compare_ids(bool has_a, int64_t a, bool has_b, int64_t b)
{
	if (has_a != has_b)
		return has_a ? 1 : -1;
	return (a > b) - (a < b);
}

static int compare_threads(const void *ctx, uint32_t ia, uint32_t ib)
{
	const struct pc_threads *threads = ctx;
	const struct pc_thread *a = &threads->items[ia], *b = &threads->items[ib];
	int diff = compare_ids(a->has_pid, a->pid, b->has_pid, b->pid);

	if (!diff)
		diff = compare_ids(a->has_tid, a->tid, b->has_tid, b->tid);
	if (!diff && a->comm != b->comm)
		diff = !a->comm ? -1 : !b->comm ? 1 : strcmp(pc_str(threads->m, a->comm),
							     pc_str(threads->m, b->comm));
	return diff;
}

uint32_t *pc_threads_sorted(const struct pc_threads *threads)
{
	uint32_t *order = pc_xmalloc((threads->count ? threads->count : 1) * sizeof(*order));

	for (size_t i = 0; i < threads->count; i++)
		order[i] = (uint32_t)i;
	pc_sort_indices(threads, order, threads->count, compare_threads);
	return order;
}
