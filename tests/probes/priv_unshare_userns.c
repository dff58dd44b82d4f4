/* priv_unshare_userns - unshare(CLONE_NEWUSER) (full caps in a nested userns: the door to most kernel bugs) must fail. */
#include "child_common.h"

#include <sched.h>

static int attempt(void)
{
	return unshare(CLONE_NEWUSER) == 0 ? 0 : errno;
}

int main(void)
{
	attempt_in_child(attempt, "unshare(CLONE_NEWUSER)");
}
