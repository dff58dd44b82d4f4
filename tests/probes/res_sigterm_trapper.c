/*
 * res_sigterm_trapper [SECONDS] - a program that ignores SIGTERM and
 * sleeps SECONDS (default 30) must still end at the wall limit (+ kill
 * grace): sbx must follow up with SIGKILL.  It prints "ready" once the
 * trap is set, so a test can tell "killed early" from "never trapped".
 */
#include "probe.h"

#include <signal.h>

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 30, end = mono_s() + s;

	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	printf("ready\n");
	fflush(stdout);
	while (mono_s() < end)
		usleep(50000);
	escaped("ignored SIGTERM and ran %.1f s", s);
}
