/* input.c - buffered forward-only input over files, stdin and memory. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW_BYTES (1u << 20)

static void input_reset(struct pc_input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	snprintf(in->name, sizeof(in->name), "%s", name);
}

int pc_input_open(struct pc_input *in, const char *path, struct pc_error *err)
{
	struct stat st;
	bool is_stdin = !strcmp(path, "-");

	input_reset(in, is_stdin ? "<stdin>" : path);
	in->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0) {
		pc_error_set_path(err, path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot open: %s", strerror(errno));
	}
	in->owns_fd = !is_stdin;
	in->size = PC_SIZE_UNKNOWN;
	if (fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode))
		in->size = (uint64_t)st.st_size;
	if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		pc_input_close(in);
		pc_error_set_path(err, path);
		return pc_fail(err, PC_STATUS_INPUT, "is a directory");
	}
	in->cap = WINDOW_BYTES;
	in->buf = pc_xmalloc(in->cap);
	in->data = in->buf;
	return 0;
}

void pc_input_from_memory(struct pc_input *in, const char *name,
			  const void *data, size_t size)
{
	input_reset(in, name);
	in->size = size;
	in->data = data;
	in->cap = in->end = size;
	in->eof = true;
}

void pc_input_close(struct pc_input *in)
{
	if (in->owns_fd && in->fd >= 0)
		close(in->fd);
	free(in->buf);
	in->buf = NULL;
	in->data = NULL;
	in->fd = -1;
}

static void make_room(struct pc_input *in, size_t want)
{
	size_t unread = in->end - in->pos;

	if (in->pos > 0) {
		memmove(in->buf, in->buf + in->pos, unread);
		in->data_offset += in->pos;
		in->pos = 0;
		in->end = unread;
	}
	if (want > in->cap) {
		in->cap = want + WINDOW_BYTES;
		in->buf = pc_xrealloc(in->buf, in->cap);
	}
	in->data = in->buf;
}

size_t pc_input_fill(struct pc_input *in, size_t want, const uint8_t **data)
{
	if (in->end - in->pos < want && !in->eof) {
		make_room(in, want);
		while (in->end < want && !in->eof) {
			ssize_t got = read(in->fd, in->buf + in->end, in->cap - in->end);

			if (got > 0) {
				in->end += (size_t)got;
				if (in->progress)
					pc_progress_update(in->progress, in->data_offset + in->end);
			} else if (got == 0) {
				in->eof = true;
			} else if (errno != EINTR) {
				in->io_errno = errno;
				in->eof = true;
			}
		}
	}
	*data = in->data + in->pos;
	return in->end - in->pos;
}

void pc_input_consume(struct pc_input *in, size_t n)
{
	in->pos += n <= in->end - in->pos ? n : in->end - in->pos;
}

uint64_t pc_input_offset(const struct pc_input *in)
{
	return in->data_offset + in->pos;
}

bool pc_input_skip_to(struct pc_input *in, uint64_t offset)
{
	while (pc_input_offset(in) < offset) {
		const uint8_t *data;
		uint64_t left = offset - pc_input_offset(in);
		size_t have = pc_input_fill(in, 1, &data);

		if (!have)
			return false;
		pc_input_consume(in, have < left ? have : (size_t)left);
	}
	return pc_input_offset(in) == offset;
}

int pc_input_check_io(const struct pc_input *in, struct pc_error *err)
{
	if (!in->io_errno)
		return 0;
	pc_error_set_path(err, in->name);
	return pc_fail(err, PC_STATUS_INPUT, "read error: %s", strerror(in->io_errno));
}
