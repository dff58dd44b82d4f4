/*
 * withfds.c - open files on given descriptors, then exec a command.
 *
 * bwrap takes its seccomp filter (`--seccomp FD`) and the files it copies
 * into its root (`--file FD DEST`) as open descriptors.  A shell could open
 * them, but hyperfine does not take a shell's CPU off the measured command;
 * this static helper is cheaper, and make bench times it alone (`withfds
 * ... -- /bin/true`) and takes that off the bwrap rows it launches.
 *
 * usage: withfds FD=FILE... -- COMMAND [ARG...]     (exit 127 on error)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Open FILE read-only on descriptor FD; 0, or -1 with a message. */
static int open_on(const char *spec)
{
	char *end;
	long fd = strtol(spec, &end, 10);
	int got;

	if (end == spec || *end != '=' || fd < 3 || fd > 1023) {
		fprintf(stderr, "withfds: %s: expected FD=FILE with FD 3..1023\n", spec);
		return -1;
	}
	got = open(end + 1, O_RDONLY);
	if (got < 0) {
		fprintf(stderr, "withfds: %s: %s\n", end + 1, strerror(errno));
		return -1;
	}
	if (got != fd && (dup2(got, (int)fd) < 0 || close(got) < 0)) {
		fprintf(stderr, "withfds: dup2 to %ld: %s\n", fd, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (open_on(argv[i]) < 0)
			return 127;
	if (i + 1 >= argc) {
		fprintf(stderr, "usage: withfds FD=FILE... -- COMMAND [ARG...]\n");
		return 127;
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "withfds: %s: %s\n", argv[i + 1], strerror(errno));
	return 127;
}
