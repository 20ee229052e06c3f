/*
 * subprocess.c - a helper program run as a filter (subprocess.h).
 */
#include "symbols/subprocess.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGS 16

struct filter {
	int to_child, from_child;
	pid_t pid;
	const char *program;
	const char *out;       /* input not yet written */
	size_t out_len, out_at;
	char *in;              /* output not yet handed on */
	size_t in_len, in_cap;
};

static void close_pair(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

static int spawn(struct filter *f, const char *const *programs, const char *package,
		 char *const *args, char *err, size_t err_size)
{
	int to[2], from[2], null_fd, status = -1;
	posix_spawn_file_actions_t actions;
	char *argv[MAX_ARGS + 2];
	size_t n = 0;

	while (args[n] && n < MAX_ARGS)
		n++;
	memcpy(argv + 1, args, n * sizeof(*argv));
	argv[n + 1] = NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, to)) {
		snprintf(err, err_size, "cannot run %s: %s", programs[0], strerror(errno));
		return -1;
	}
	if (pipe(from)) {
		close_pair(to);
		snprintf(err, err_size, "cannot run %s: %s", programs[0], strerror(errno));
		return -1;
	}
	/* none of the four may stay open in the child but as its stdin and stdout */
	for (int i = 0; i < 2; i++) {
		fcntl(to[i], F_SETFD, FD_CLOEXEC);
		fcntl(from[i], F_SETFD, FD_CLOEXEC);
	}
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, to[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&actions, from[1], STDOUT_FILENO);
	if (null_fd >= 0)
		posix_spawn_file_actions_adddup2(&actions, null_fd, STDERR_FILENO);
	for (size_t i = 0; programs[i] && status; i++) {
		argv[0] = (char *)programs[i];
		f->program = programs[i];
		status = posix_spawnp(&f->pid, programs[i], &actions, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&actions);
	if (null_fd >= 0)
		close(null_fd);
	close(to[0]);
	close(from[1]);
	if (status) {
		close(to[1]);
		close(from[0]);
		if (status == ENOENT)
			snprintf(err, err_size, "%s not found on PATH (Debian package %s)",
				 programs[0], package);
		else
			snprintf(err, err_size, "cannot run %s: %s", f->program, strerror(status));
		return -1;
	}
	f->to_child = to[1];
	f->from_child = from[0];
	fcntl(f->to_child, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Hands on the complete lines read so far. */
static bool hand_lines(struct filter *f, pc_line_fn fn, void *data)
{
	size_t at = 0;
	char *nl;

	while ((nl = memchr(f->in + at, '\n', f->in_len - at))) {
		size_t len = (size_t)(nl - (f->in + at));

		if (!fn(data, f->in + at, len))
			break; /* the line that failed stays first, for the message */
		at += len + 1;
	}
	memmove(f->in, f->in + at, f->in_len - at);
	f->in_len -= at;
	return !nl;
}

static void write_some(struct filter *f)
{
	ssize_t got = send(f->to_child, f->out + f->out_at, f->out_len - f->out_at, MSG_NOSIGNAL);

	if (got > 0)
		f->out_at += (size_t)got;
	if ((got < 0 && errno != EAGAIN && errno != EINTR) || f->out_at == f->out_len) {
		close(f->to_child); /* all written (or it stopped reading): end of its input */
		f->to_child = -1;
	}
}

/* The output line that was not what was expected: the first unread one. */
static int unexpected(const struct filter *f, char *err, size_t err_size)
{
	const char *nl = memchr(f->in, '\n', f->in_len);
	size_t len = nl ? (size_t)(nl - f->in) : f->in_len;

	snprintf(err, err_size, "%s printed something else than expected: '%.*s'", f->program,
		 (int)(len > 80 ? 80 : len), f->in);
	return -1;
}

/* Writes the input and reads the output until the child closes it. */
static int exchange(struct filter *f, pc_line_fn fn, void *data, char *err, size_t err_size)
{
	if (!f->out_len) {
		close(f->to_child);
		f->to_child = -1;
	}
	for (;;) {
		struct pollfd fds[2] = {
			{ .fd = f->from_child, .events = POLLIN },
			{ .fd = f->to_child, .events = POLLOUT },
		};
		nfds_t nfds = f->to_child >= 0 ? 2 : 1;
		ssize_t got;

		if (poll(fds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, err_size, "%s: poll: %s", f->program, strerror(errno));
			return -1;
		}
		if (nfds == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)))
			write_some(f);
		if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		pc_grow(&f->in, &f->in_cap, f->in_len + 65536, 1);
		got = read(f->from_child, f->in + f->in_len, 65536);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			snprintf(err, err_size, "%s: read: %s", f->program, strerror(errno));
			return -1;
		}
		if (!got)
			break;
		f->in_len += (size_t)got;
		if (!hand_lines(f, fn, data))
			return unexpected(f, err, err_size);
	}
	if (f->in_len && !fn(data, f->in, f->in_len)) /* a last line without its newline */
		return unexpected(f, err, err_size);
	return 0;
}

int pc_run_filter(const char *const *programs, const char *package, char *const *args,
		  const char *input, size_t len, pc_line_fn fn, void *data, char *err,
		  size_t err_size)
{
	struct filter f = { .to_child = -1, .from_child = -1, .out = input, .out_len = len };
	int status, ret;

	if (spawn(&f, programs, package, args, err, err_size))
		return -1;
	ret = exchange(&f, fn, data, err, err_size);
	if (f.to_child >= 0)
		close(f.to_child);
	close(f.from_child);
	if (ret)
		kill(f.pid, SIGTERM);
	while (waitpid(f.pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!ret && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		snprintf(err, err_size, "%s failed (%s %d)", f.program,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		ret = -1;
	}
	free(f.in);
	return ret;
}
