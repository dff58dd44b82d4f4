/*
 * priv_settimeofday - setting the clock (time is not namespaced) must
 * fail.  settimeofday(NULL, NULL) checks CAP_SYS_TIME and then changes
 * nothing, so it is harmless bare.
 */
#include "probe.h"

#include <sys/syscall.h>

int main(void)
{
	expect_refused(syscall(SYS_settimeofday, NULL, NULL), "settimeofday(NULL, NULL)");
}
