/* priv_clock_settime - clock_settime(CLOCK_REALTIME) (the host's clock) must fail; it sets the current time, so bare it only jitters. */
#include "probe.h"

#include <sys/syscall.h>

int main(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	expect_refused(syscall(SYS_clock_settime, CLOCK_REALTIME, &now), "clock_settime(CLOCK_REALTIME)");
}
