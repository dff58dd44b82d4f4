/* priv_unshare_mntns - unshare(CLONE_NEWNS) (a private mount table to build on) must fail. */
#include "child_common.h"

#include <sched.h>

static int attempt(void)
{
	return unshare(CLONE_NEWNS) == 0 ? 0 : errno;
}

int main(void)
{
	attempt_in_child(attempt, "unshare(CLONE_NEWNS)");
}
