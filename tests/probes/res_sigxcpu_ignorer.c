/*
 * res_sigxcpu_ignorer [SECONDS] - ignoring SIGXCPU (the soft RLIMIT_CPU
 * warning) and burning SECONDS (default 5) of CPU must still be stopped:
 * the hard limit or sbx's own accounting must catch it.
 */
#include "cpu_common.h"

#include <signal.h>

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 5;

	signal(SIGXCPU, SIG_IGN);
	burn(s);
	escaped("ignored SIGXCPU and used %.1f s of CPU", cpu_s());
}
