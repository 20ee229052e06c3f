/*
 * fail_read.c - an LD_PRELOAD library for tests/e2e/read_errors.sh: every
 * read(2) and pread(2) of the file FAIL_READ_FILE names (the same device
 * and inode) whose bytes cover offset FAIL_READ_AT fails with EIO, as a
 * failing disk or a network file system would. Other files read as usual.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Whether n bytes of fd at offset at cover the failing byte of the failing file. */
static bool covers_failing_byte(int fd, off_t at, size_t n)
{
	const char *path = getenv("FAIL_READ_FILE"), *offset = getenv("FAIL_READ_AT");
	struct stat want, got;
	off_t bad;

	if (!path || !offset || stat(path, &want) || fstat(fd, &got) || got.st_dev != want.st_dev ||
	    got.st_ino != want.st_ino)
		return false;
	bad = (off_t)atoll(offset);
	return at <= bad && bad - at < (off_t)n;
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t (*real)(int, void *, size_t) = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT,
											  "read");

	if (covers_failing_byte(fd, lseek(fd, 0, SEEK_CUR), n)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t at)
{
	ssize_t (*real)(int, void *, size_t, off_t) =
		(ssize_t (*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread64");

	if (covers_failing_byte(fd, at, n)) {
		errno = EIO;
		return -1;
	}
	return real(fd, buf, n, at);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t at)
{
	return pread(fd, buf, n, at);
}
