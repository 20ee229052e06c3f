/*
 * llvm_symbolizer.c - llvm-symbolizer as a subprocess (llvm_symbolizer.h).
 *
 * Queries go out as `"PATH" 0xADDRESS` lines (on a socket: a child that
 * dies gives EPIPE, not SIGPIPE) while the answers are read, through
 * poll(), so neither side blocks on a full buffer. The JSON of an
 * answer is read by a small parser that takes the "Symbol" array's
 * FunctionName, FileName and Line and skips every other value.
 */
#include "symbols/llvm_symbolizer.h"
#include "base/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The names Debian gives it: llvm's, then llvm-N's. */
static const char *const programs[] = {
	"llvm-symbolizer", "llvm-symbolizer-19", "llvm-symbolizer-18", "llvm-symbolizer-17",
	"llvm-symbolizer-16", "llvm-symbolizer-15", "llvm-symbolizer-14",
};

/* ---- JSON: just what an answer holds ---- */

struct json {
	const char *p, *end;
	struct pc_arena *arena;
};

static void skip_space(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

static bool take(struct json *j, char c)
{
	skip_space(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

/* An escape after its backslash, written at out[*len]; *len grows. */
static bool read_escape(struct json *j, char *out, size_t *len)
{
	static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
	const char *hit;
	unsigned cp = 0;

	if (j->p >= j->end)
		return false;
	if (*j->p != 'u') {
		if (!(hit = strchr(plain, *j->p)) || !*j->p)
			return false;
		out[(*len)++] = meant[hit - plain];
		j->p++;
		return true;
	}
	if (j->end - j->p < 5)
		return false;
	for (int i = 1; i <= 4; i++) {
		int d = pc_hex_digit((unsigned char)j->p[i]);

		if (d < 0)
			return false;
		cp = cp << 4 | (unsigned)d;
	}
	j->p += 5;
	if (cp >= 0xd800 && cp <= 0xdfff)
		cp = 0xfffd; /* a surrogate: llvm-symbolizer writes UTF-8, not pairs */
	*len += pc_utf8_put((uint8_t *)out + *len, cp);
	return true;
}

/* A string value into the arena (NULL out: skipped). */
static bool read_string(struct json *j, const char **out)
{
	const char *start;
	char *text;
	size_t len = 0;

	if (!take(j, '"'))
		return false;
	start = j->p;
	while (j->p < j->end && *j->p != '"')
		j->p += *j->p == '\\' && j->p + 1 < j->end ? 2 : 1;
	if (j->p >= j->end)
		return false;
	text = out ? pc_arena_alloc(j->arena, (size_t)(j->p - start) * 3 + 1) : NULL;
	for (j->p = start; *j->p != '"';) {
		if (*j->p != '\\') {
			if (text)
				text[len] = *j->p;
			len++;
			j->p++;
		} else {
			char scratch[4];
			size_t n = 0;

			j->p++;
			if (!read_escape(j, text ? text : scratch, text ? &len : &n))
				return false;
		}
	}
	j->p++;
	if (text) {
		text[len] = '\0';
		*out = text;
	}
	return true;
}

static bool skip_value(struct json *j, int depth);

/* { "key": value, ... }, each value through on_member (or skipped). */
static bool read_object(struct json *j, int depth,
			bool (*on_member)(struct json *, const char *, void *), void *data)
{
	if (!take(j, '{'))
		return false;
	if (take(j, '}'))
		return true;
	do {
		const char *key;

		if (!read_string(j, &key) || !take(j, ':'))
			return false;
		if (on_member ? !on_member(j, key, data) : !skip_value(j, depth + 1))
			return false;
	} while (take(j, ','));
	return take(j, '}');
}

static bool skip_value(struct json *j, int depth)
{
	skip_space(j);
	if (depth > 32 || j->p >= j->end)
		return false;
	if (*j->p == '"')
		return read_string(j, NULL);
	if (*j->p == '{')
		return read_object(j, depth, NULL, NULL);
	if (*j->p == '[') {
		j->p++;
		if (take(j, ']'))
			return true;
		do {
			if (!skip_value(j, depth + 1))
				return false;
		} while (take(j, ','));
		return take(j, ']');
	}
	while (j->p < j->end && (strchr("+-.eE", *j->p) || (*j->p >= '0' && *j->p <= '9') ||
				 (*j->p >= 'a' && *j->p <= 'z')))
		j->p++; /* a number, true, false or null */
	return true;
}

static bool read_line_number(struct json *j, uint32_t *line)
{
	uint64_t value = 0;

	skip_space(j);
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return skip_value(j, 0);
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		if ((value = value * 10 + (unsigned)(*j->p++ - '0')) > UINT32_MAX)
			return false;
	*line = (uint32_t)value;
	return true;
}

static bool frame_member(struct json *j, const char *key, void *data)
{
	struct pc_llvm_frame *frame = data;

	if (!strcmp(key, "FunctionName"))
		return read_string(j, &frame->function);
	if (!strcmp(key, "FileName"))
		return read_string(j, &frame->file);
	if (!strcmp(key, "Line"))
		return read_line_number(j, &frame->line);
	return skip_value(j, 1);
}

static bool answer_member(struct json *j, const char *key, void *data)
{
	struct pc_llvm_answers *answers = data;

	if (strcmp(key, "Symbol"))
		return skip_value(j, 1);
	if (!take(j, '['))
		return false;
	if (take(j, ']'))
		return true;
	do {
		struct pc_llvm_frame frame = { .function = "", .file = "" };

		if (!read_object(j, 1, frame_member, &frame))
			return false;
		if (!*frame.function || !strcmp(frame.function, "??"))
			continue; /* nothing known at this address */
		pc_grow(&answers->frames, &answers->frames_cap, answers->nframes + 1,
			sizeof(*answers->frames));
		answers->frames[answers->nframes++] = frame;
	} while (take(j, ','));
	return take(j, ']');
}

bool pc_llvm_parse_answer(struct pc_llvm_answers *answers, const char *line, size_t len)
{
	struct json j = { .p = line, .end = line + len, .arena = &answers->strings };
	size_t before = answers->nframes;

	if (!read_object(&j, 0, answer_member, answers)) {
		answers->nframes = before;
		return false;
	}
	skip_space(&j);
	if (j.p != j.end) {
		answers->nframes = before;
		return false;
	}
	answers->nqueries++;
	pc_grow(&answers->first, &answers->first_cap, answers->nqueries + 1, sizeof(*answers->first));
	answers->first[answers->nqueries] = answers->nframes;
	return true;
}

void pc_llvm_answers_release(struct pc_llvm_answers *answers)
{
	free(answers->frames);
	free(answers->first);
	pc_arena_release(&answers->strings);
	memset(answers, 0, sizeof(*answers));
}

/* ---- the subprocess ---- */

struct session {
	int to_child, from_child;
	pid_t pid;
	char *out;             /* queries not yet written */
	size_t out_len, out_at;
	char *in;              /* answer bytes not yet parsed */
	size_t in_len, in_cap;
};

static int spawn(struct session *s, bool inlines, bool demangle, char *err, size_t err_size)
{
	int to[2], from[2], null_fd;
	posix_spawn_file_actions_t actions;
	static char json[] = "--output-style=JSON", with_inlines[] = "--inlines",
		    no_inlines[] = "--no-inlines", with_demangle[] = "--demangle",
		    no_demangle[] = "--no-demangle";
	char *argv[] = { NULL, json, inlines ? with_inlines : no_inlines,
			 demangle ? with_demangle : no_demangle, NULL };
	int status = -1;

	/* a socket to write to, so that a dead child gives EPIPE, not SIGPIPE */
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, to))
		goto fail_errno;
	if (pipe(from)) {
		close(to[0]);
		close(to[1]);
		goto fail_errno;
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
	for (size_t i = 0; i < PC_ARRAY_SIZE(programs) && status; i++) {
		argv[0] = (char *)programs[i];
		status = posix_spawnp(&s->pid, programs[i], &actions, NULL, argv, environ);
	}
	posix_spawn_file_actions_destroy(&actions);
	if (null_fd >= 0)
		close(null_fd);
	close(to[0]);
	close(from[1]);
	if (status) {
		close(to[1]);
		close(from[0]);
		snprintf(err, err_size, "llvm-symbolizer not found on PATH (Debian package llvm)");
		return -1;
	}
	s->to_child = to[1];
	s->from_child = from[0];
	fcntl(s->to_child, F_SETFL, O_NONBLOCK);
	return 0;
fail_errno:
	snprintf(err, err_size, "cannot run llvm-symbolizer: %s", strerror(errno));
	return -1;
}

/* Parses the complete lines read so far. */
static bool parse_lines(struct session *s, struct pc_llvm_answers *answers)
{
	size_t at = 0;
	char *nl;

	while ((nl = memchr(s->in + at, '\n', s->in_len - at))) {
		size_t len = (size_t)(nl - (s->in + at));

		if (len && !pc_llvm_parse_answer(answers, s->in + at, len))
			return false;
		at += len + 1;
	}
	memmove(s->in, s->in + at, s->in_len - at);
	s->in_len -= at;
	return true;
}

/* Writes queries and reads answers until every query has one. */
static int exchange(struct session *s, size_t nqueries, struct pc_llvm_answers *answers,
		    char *err, size_t err_size)
{
	while (answers->nqueries < nqueries) {
		struct pollfd fds[2] = {
			{ .fd = s->from_child, .events = POLLIN },
			{ .fd = s->to_child, .events = POLLOUT },
		};
		nfds_t nfds = s->to_child >= 0 ? 2 : 1;
		ssize_t got;

		if (poll(fds, nfds, -1) < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, err_size, "llvm-symbolizer: poll: %s", strerror(errno));
			return -1;
		}
		if (nfds == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
			got = send(s->to_child, s->out + s->out_at, s->out_len - s->out_at,
				   MSG_NOSIGNAL);
			if (got > 0)
				s->out_at += (size_t)got;
			if ((got < 0 && errno != EAGAIN && errno != EINTR) || s->out_at == s->out_len) {
				close(s->to_child);
				s->to_child = -1;
			}
		}
		if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			pc_grow(&s->in, &s->in_cap, s->in_len + 65536, 1);
			got = read(s->from_child, s->in + s->in_len, 65536);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				snprintf(err, err_size, "llvm-symbolizer stopped after %zu of %zu answers",
					 answers->nqueries, nqueries);
				return -1;
			}
			s->in_len += (size_t)got;
			if (!parse_lines(s, answers)) {
				snprintf(err, err_size, "llvm-symbolizer: answer %zu is not the JSON expected",
					 answers->nqueries + 1);
				return -1;
			}
		}
	}
	return 0;
}

static void format_queries(struct session *s, const struct pc_llvm_query *queries, size_t n)
{
	size_t cap = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(queries[i].path);

		pc_grow(&s->out, &cap, s->out_len + len + 32, 1);
		s->out_len += (size_t)snprintf(s->out + s->out_len, len + 32, "\"%s\" 0x%llx\n",
					       queries[i].path,
					       (unsigned long long)queries[i].address);
	}
}

int pc_llvm_symbolize(const struct pc_llvm_query *queries, size_t n, bool inlines,
		      bool demangle, struct pc_llvm_answers *answers, char *err, size_t err_size)
{
	struct session s = { .to_child = -1, .from_child = -1 };
	int status, ret;

	memset(answers, 0, sizeof(*answers));
	pc_arena_init(&answers->strings);
	pc_grow(&answers->first, &answers->first_cap, 1, sizeof(*answers->first));
	answers->first[0] = 0;
	if (!n)
		return 0;
	if (spawn(&s, inlines, demangle, err, err_size))
		return -1;
	format_queries(&s, queries, n);
	ret = exchange(&s, n, answers, err, err_size);
	if (s.to_child >= 0)
		close(s.to_child);
	close(s.from_child);
	if (ret)
		kill(s.pid, SIGTERM);
	while (waitpid(s.pid, &status, 0) < 0 && errno == EINTR)
		;
	free(s.out);
	free(s.in);
	return ret;
}
