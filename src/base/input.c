/* input.c - buffered forward-only input over files, stdin and memory. */
#include "base/input.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW_BYTES (1u << 20)

static void input_reset(struct pc_input *in, const char *name)
{
	memset(in, 0, sizeof(*in));
	in->fd = -1;
	in->limit = UINT64_MAX;
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

void pc_input_open_range(struct pc_input *in, const struct pc_input *file,
			 uint64_t start, uint64_t end)
{
	input_reset(in, file->name);
	in->fd = file->fd;
	in->size = file->size;
	in->data_offset = start;
	in->limit = end;
	in->positioned = true;
	in->range_start = start;
	in->progress_ranges = 1;
	in->cap = WINDOW_BYTES;
	in->buf = pc_xmalloc(in->cap);
	in->data = in->buf;
}

bool pc_input_is_whole_file(const struct pc_input *in)
{
	return in->fd >= 0 && in->size != PC_SIZE_UNKNOWN && !in->positioned &&
	       lseek(in->fd, 0, SEEK_CUR) == (off_t)(in->data_offset + in->end);
}

bool pc_input_set_limit(struct pc_input *in, uint64_t limit)
{
	uint64_t window_end = in->data_offset + in->end;

	if (limit < window_end) { /* the window holds bytes past it: read them again later */
		if (limit < in->data_offset + in->pos || in->positioned || in->fd < 0 ||
		    lseek(in->fd, (off_t)limit, SEEK_SET) != (off_t)limit)
			return false;
		in->end = (size_t)(limit - in->data_offset);
		window_end = limit;
	}
	in->limit = limit;
	in->eof = in->io_errno || window_end == limit ||
		  (in->size != PC_SIZE_UNKNOWN && window_end >= in->size);
	return true;
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

/* The bytes done, for the progress bar. */
static uint64_t progress_done(const struct pc_input *in)
{
	uint64_t at = in->data_offset + in->end;

	if (!in->positioned)
		return at;
	return in->range_start + (at - in->range_start) * in->progress_ranges;
}

/* Reads into the window's free room, up to the limit: read(2)'s result. */
static ssize_t read_more(struct pc_input *in)
{
	uint64_t at = in->data_offset + in->end;
	size_t room = in->cap - in->end;

	if (room > in->limit - at)
		room = (size_t)(in->limit - at);
	if (!room)
		return 0;
	if (in->positioned)
		return pread(in->fd, in->buf + in->end, room, (off_t)at);
	return read(in->fd, in->buf + in->end, room);
}

size_t pc_input_fill(struct pc_input *in, size_t want, const uint8_t **data)
{
	if (in->end - in->pos < want && !in->eof) {
		make_room(in, want);
		while (in->end < want && !in->eof) {
			ssize_t got = read_more(in);

			if (got > 0) {
				in->end += (size_t)got;
				if (in->progress)
					pc_progress_update(in->progress, progress_done(in));
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

/* Skips a regular file's bytes up to offset, past the window, with lseek(2). */
static bool seek_past_window(struct pc_input *in, uint64_t offset)
{
	if (in->fd < 0 || in->positioned || in->eof || in->size == PC_SIZE_UNKNOWN ||
	    offset <= in->data_offset + in->end || offset > in->size ||
	    lseek(in->fd, (off_t)offset, SEEK_SET) != (off_t)offset)
		return false;
	in->data_offset = offset;
	in->pos = in->end = 0;
	return true;
}

bool pc_input_skip_to(struct pc_input *in, uint64_t offset)
{
	if (seek_past_window(in, offset))
		return true;
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
