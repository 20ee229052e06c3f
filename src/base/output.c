/* output.c - temp file + rename, stdout, devices and pipes in place, or memory. */
#include "base/output.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static void output_reset(struct pc_output *out, const char *path)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
}

static int open_temp_beside(struct pc_output *out, struct pc_error *err)
{
	const char *slash = strrchr(out->path, '/');
	int dir_len = slash ? (int)(slash - out->path + 1) : 0;
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	snprintf(out->tmp_path, sizeof(out->tmp_path), "%.*s.%s.XXXXXX", dir_len,
		 out->path, out->path + dir_len);
	fd = mkstemp(out->tmp_path);
	if (fd < 0) {
		out->tmp_path[0] = '\0';
		pc_error_set_path(err, out->path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot create output: %s",
			       strerror(errno));
	}
	fchmod(fd, 0666 & ~mask);
	out->fp = fdopen(fd, "wb");
	if (!out->fp) {
		close(fd);
		unlink(out->tmp_path);
		out->tmp_path[0] = '\0';
		pc_error_set_path(err, out->path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot open output: %s",
			       strerror(errno));
	}
	return 0;
}

/*
 * A target that exists and is no regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming a temp file over it would
 * replace the device or pipe with a file.
 */
static bool is_special_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && !S_ISREG(st.st_mode);
}

static int open_in_place(struct pc_output *out, struct pc_error *err)
{
	out->fp = fopen(out->path, "wb");
	if (!out->fp) {
		pc_error_set_path(err, out->path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot open output: %s",
			       strerror(errno));
	}
	return 0;
}

int pc_output_open(struct pc_output *out, const char *path, struct pc_error *err)
{
	output_reset(out, path);
	if (!strcmp(path, "-")) {
		out->to_stdout = true;
		out->fp = stdout;
		return 0;
	}
	if (is_special_file(path))
		return open_in_place(out, err);
	return open_temp_beside(out, err);
}

int pc_output_to_memory(struct pc_output *out, char **buf, size_t *size,
			struct pc_error *err)
{
	output_reset(out, "<memory>");
	out->mem = buf;
	out->mem_size = size;
	out->fp = open_memstream(buf, size);
	if (!out->fp)
		return pc_fail(err, PC_STATUS_INPUT, "open_memstream: %s", strerror(errno));
	return 0;
}

int pc_output_commit(struct pc_output *out, struct pc_error *err)
{
	bool failed = ferror(out->fp) != 0;

	if (out->to_stdout)
		failed |= fflush(out->fp) != 0;
	else
		failed |= fclose(out->fp) != 0;
	out->fp = NULL;
	if (!failed && out->tmp_path[0] && rename(out->tmp_path, out->path) != 0)
		failed = true;
	if (failed) {
		int saved = errno;

		if (out->tmp_path[0])
			unlink(out->tmp_path);
		out->tmp_path[0] = '\0';
		pc_error_set_path(err, out->path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot write output: %s",
			       strerror(saved));
	}
	out->tmp_path[0] = '\0';
	return 0;
}

void pc_output_abort(struct pc_output *out)
{
	if (out->fp && !out->to_stdout)
		fclose(out->fp);
	else if (out->fp)
		fflush(out->fp);
	out->fp = NULL;
	if (out->tmp_path[0])
		unlink(out->tmp_path);
	out->tmp_path[0] = '\0';
	if (out->mem) {
		free(*out->mem);
		*out->mem = NULL;
		*out->mem_size = 0;
	}
}
