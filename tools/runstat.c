/*
 * runstat - runs a command with its standard output sent to /dev/null and
 * prints "SECONDS MAXRSS_KIB EXIT" on stdout: wall-clock time, the peak
 * resident set of the command (from wait4's rusage) and its exit status.
 * Used by `make bench` so the benchmark needs nothing beyond libc.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec start, end;
	struct rusage usage;
	int status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: runstat COMMAND [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, STDOUT_FILENO);
		execvp(argv[1], argv + 1);
		perror("runstat: exec");
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) {
		perror("runstat");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("%.6f %ld %d\n",
	       (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9,
	       usage.ru_maxrss, WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return 0;
}
