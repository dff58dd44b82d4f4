/* priv_perf_event_open - perf_event_open(2) must fail: kernel attack surface and a side channel. */
#include "probe.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>

int main(void)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.size = sizeof(attr);
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	expect_refused(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0),
		       "perf_event_open(task clock of self)");
}
