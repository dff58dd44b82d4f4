/*
 * res_short_children [N] [MS] - N children (default 3000) one after
 * another, each spinning MS ms (default 4) of its own CPU and reaped by
 * waitpid before the next: no sample of the meter sees most of them alive,
 * only their parent's cutime shows their time.  Prints the count reaped so
 * far after each.  The parent's own CPU per child is a fork and a wait of a
 * small static program, so the budget is spent by the children: a meter
 * that drops reaped children lets nearly all N run.
 */
#include "cpu_common.h"

#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3000;
	double ms = argc > 2 ? atof(argv[2]) : 4;

	for (long i = 1; i <= n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			blocked("fork failed after %ld children: %s", i - 1, errname(errno));
		if (pid == 0) {
			burn(cpu_s() + ms / 1000);
			_exit(0);
		}
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		printf("%ld\n", i);
		fflush(stdout);
	}
	escaped("%ld children of %.0f ms each ran", n, ms);
}
