/*
 * res_fork_bomb - forking must hit the process limit (EAGAIN) well before
 * 200 children.  When blocked, the probe prints its verdict and then keeps
 * the children alive forever, so the run ends by the wall-clock limit and
 * the test checks nothing survives.  200 successful forks are an ESCAPE
 * (the children are killed then, which keeps the probe safe bare).
 */
#include "probe.h"

#include <signal.h>
#include <sys/wait.h>

#define CEILING 200

int main(void)
{
	pid_t kids[CEILING];
	int n = 0;

	fflush(stdout);
	for (; n < CEILING; n++) {
		kids[n] = fork();
		if (kids[n] == 0) {
			for (;;)
				pause();
		}
		if (kids[n] < 0)
			break;
	}
	if (n == CEILING) {
		for (int i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
		while (wait(NULL) > 0)
			;
		escaped("%d forks succeeded", CEILING);
	}
	printf("BLOCKED: fork failed after %d children: %s\n", n, errname(errno));
	fflush(stdout);
	for (;;)
		pause();
}
