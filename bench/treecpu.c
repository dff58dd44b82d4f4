/*
 * treecpu.c - the CPU a command's whole process tree uses, per run (for
 * `make bench`).
 *
 * hyperfine reads getrusage(RUSAGE_CHILDREN) of the command it waited
 * for, which holds only descendants that were themselves waited for.
 * bwrap's parent takes its child's status through a pipe and exits
 * without reaping it, so hyperfine counted 3 ms of bwrap's 8 ms per run.
 * Here the runner is a child subreaper: every descendant that outlives
 * its parent is reparented to it and reaped by it, so all of their CPU
 * lands in its RUSAGE_CHILDREN.
 *
 *   treecpu N CMD [ARG...]   runs CMD N times, one after another, and
 *                            prints one JSON object: user, system and
 *                            total CPU per run in ms, and the runs that
 *                            did not exit 0; CMD's stdio is /dev/null
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double ms(struct timeval tv)
{
	return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int n, failed = 0, st;
	pid_t pid, got;

	if (argc < 3 || (n = atoi(argv[1])) <= 0) {
		fprintf(stderr, "usage: treecpu N CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
		perror("treecpu: PR_SET_CHILD_SUBREAPER");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("treecpu: fork");
			return 1;
		}
		if (pid == 0) {
			/* the command's output would mix with ours */
			int null = open("/dev/null", O_RDWR);

			if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
				_exit(126);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		/* the command, then whatever it left behind */
		while ((got = wait(&st)) > 0 || (got < 0 && errno == EINTR))
			if (got == pid && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
				failed++;
	}
	getrusage(RUSAGE_CHILDREN, &ru);
	printf("{\"runs\": %d, \"failed\": %d, \"cpu_user_ms\": %.4f, \"cpu_sys_ms\": %.4f, "
	       "\"cpu_ms\": %.4f}\n", n, failed, ms(ru.ru_utime) / n, ms(ru.ru_stime) / n,
	       (ms(ru.ru_utime) + ms(ru.ru_stime)) / n);
	return 0;
}
