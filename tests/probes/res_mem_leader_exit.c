/*
 * res_mem_leader_exit [PROCS] [MIB] - PROCS processes (default 5) whose
 * main thread exits (pthread_exit) while a second thread touches MIB MiB
 * (default 20) and holds it: the leader is a zombie whose /proc/PID/stat
 * and smaps_rollup show no memory at all.  Holding it all for two seconds
 * unstopped is ESCAPED.
 */
#include "probe.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

static long mib = 20;

static void *holder(void *arg)
{
	char *p = mmap(NULL, mib << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	(void)arg;
	if (p == MAP_FAILED)
		_exit(1);
	memset(p, 1, mib << 20);
	pause();
	_exit(0);
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 5;
	pid_t kids[64];

	mib = argc > 2 ? atol(argv[2]) : 20;
	if (procs > 64)
		procs = 64;
	for (int i = 0; i < procs; i++) {
		if ((kids[i] = fork()) == 0) {
			pthread_t t;
			if (pthread_create(&t, NULL, holder, NULL) != 0)
				_exit(1);
			pthread_exit(NULL); /* the leader goes; the holder stays */
		}
	}
	sleep(2);
	for (int i = 0; i < procs; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	escaped("%d processes with an exited main thread held %ld MiB each for 2 s", procs,
		mib);
}
