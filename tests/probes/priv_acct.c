/*
 * priv_acct - acct(2) (process accounting to a file of our choosing) must
 * fail.  A nonexistent file keeps it harmless bare: EPERM means refused,
 * ENOENT that the privilege check passed.
 */
#include "probe.h"

int main(void)
{
	if (acct("/sbx-probe-nonexistent-acct") == 0)
		escaped("acct succeeded");
	if (errno == ENOENT)
		escaped("acct passed the privilege check (ENOENT for the path)");
	blocked("acct failed: %s", errname(errno));
}
