/* res_busy_loop [SECONDS] - burning SECONDS (default 5) of CPU must be stopped by the CPU limit. */
#include "cpu_common.h"

int main(int argc, char **argv)
{
	double s = argc > 1 ? atof(argv[1]) : 5;

	burn(s);
	escaped("used %.1f s of CPU", cpu_s());
}
