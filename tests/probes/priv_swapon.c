/*
 * priv_swapon - swapon(2) must fail.  A nonexistent file keeps it
 * harmless bare: EPERM means refused, ENOENT that the privilege check passed.
 */
#include "probe.h"

#include <sys/swap.h>

int main(void)
{
	if (swapon("/sbx-probe-nonexistent-swap", 0) == 0)
		escaped("swapon succeeded");
	if (errno == ENOENT)
		escaped("swapon passed the privilege check (ENOENT for the path)");
	blocked("swapon failed: %s", errname(errno));
}
