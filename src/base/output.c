/*
 * output.c - temp file + rename, stdout, devices and pipes in place, or
 * memory. A file replaced keeps its mode, and a symlink is written through
 * to its target (the link stays). The temporary files being written are
 * listed so that a signal handler can remove them.
 */
#include "base/output.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINK_HOPS 32
#define MAX_LIVE_TEMPS 16

/* The temporary files being written: what pc_output_remove_temporaries removes. */
static char *volatile live_temps[MAX_LIVE_TEMPS];

static void live_add(char *tmp_path)
{
	for (size_t i = 0; i < MAX_LIVE_TEMPS; i++)
		if (!live_temps[i]) {
			live_temps[i] = tmp_path;
			return;
		}
}

static void live_remove(const char *tmp_path)
{
	for (size_t i = 0; i < MAX_LIVE_TEMPS; i++)
		if (live_temps[i] == tmp_path)
			live_temps[i] = NULL;
}

void pc_output_remove_temporaries(void)
{
	for (size_t i = 0; i < MAX_LIVE_TEMPS; i++) {
		char *tmp_path = live_temps[i];

		if (tmp_path && tmp_path[0])
			unlink(tmp_path); /* async-signal-safe */
	}
}

static void output_reset(struct pc_output *out, const char *path)
{
	memset(out, 0, sizeof(*out));
	snprintf(out->path, sizeof(out->path), "%s", path);
}

/*
 * The file a path names once its symlinks are followed (the last link's
 * target, relative to that link's directory), so that the link stays and
 * its target is replaced; the path itself when it is no link.
 */
static int follow_links(const char *path, char *target, size_t size, struct pc_error *err)
{
	char link[sizeof(((struct pc_output *)0)->path)];
	struct stat st;

	snprintf(target, size, "%s", path);
	for (int hops = 0; !lstat(target, &st) && S_ISLNK(st.st_mode); hops++) {
		ssize_t n = readlink(target, link, sizeof(link) - 1);
		const char *slash = strrchr(target, '/');
		int dir_len = slash && link[0] != '/' ? (int)(slash - target + 1) : 0;

		if (hops == MAX_LINK_HOPS || n < 0 || (size_t)n >= sizeof(link) - 1 ||
		    (size_t)dir_len + (size_t)n >= size) {
			pc_error_set_path(err, path);
			return pc_fail(err, PC_STATUS_INPUT, "cannot follow the output's symlink: %s",
				       n < 0 ? strerror(errno) : "too long or too many links");
		}
		link[n] = '\0';
		memmove(target + dir_len, link, (size_t)n + 1);
	}
	return 0;
}

/* The mode the output gets: the replaced file's, else 0666 less the umask. */
static mode_t output_mode(const char *target)
{
	struct stat st;
	mode_t mask = umask(0);

	umask(mask);
	if (!stat(target, &st) && S_ISREG(st.st_mode))
		return st.st_mode & 07777;
	return 0666 & ~mask;
}

/*
 * mkstemp, and the file listed for the signal handler, with signals held
 * in between: one that came after the file was made but before it was
 * listed would leave it behind.
 */
static int create_listed_temp(char *tmp_path)
{
	sigset_t all, old;
	int fd;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	fd = mkstemp(tmp_path);
	if (fd >= 0)
		live_add(tmp_path);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return fd;
}

static int open_temp_beside(struct pc_output *out, struct pc_error *err)
{
	const char *slash;
	int dir_len, fd;

	if (follow_links(out->path, out->target, sizeof(out->target), err))
		return -1;
	slash = strrchr(out->target, '/');
	dir_len = slash ? (int)(slash - out->target + 1) : 0;
	snprintf(out->tmp_path, sizeof(out->tmp_path), "%.*s.%s.XXXXXX", dir_len,
		 out->target, out->target + dir_len);
	fd = create_listed_temp(out->tmp_path);
	if (fd < 0) {
		out->tmp_path[0] = '\0';
		pc_error_set_path(err, out->path);
		return pc_fail(err, PC_STATUS_INPUT, "cannot create output: %s",
			       strerror(errno));
	}
	fchmod(fd, output_mode(out->target));
	out->fp = fdopen(fd, "wb");
	if (!out->fp) {
		close(fd);
		unlink(out->tmp_path);
		live_remove(out->tmp_path);
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

bool pc_output_is_terminal(const struct pc_output *out)
{
	return out->fp && !out->mem && isatty(fileno(out->fp));
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
	if (!failed && out->tmp_path[0] && rename(out->tmp_path, out->target) != 0)
		failed = true;
	live_remove(out->tmp_path);
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
	live_remove(out->tmp_path);
	out->tmp_path[0] = '\0';
	if (out->mem) {
		free(*out->mem);
		*out->mem = NULL;
		*out->mem_size = 0;
	}
}
