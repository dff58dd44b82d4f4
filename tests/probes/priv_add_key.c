/* priv_add_key - add_key(2) must fail: keyrings are not namespaced (secrets shared with the host uid). */
#include "probe.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>

int main(void)
{
	expect_refused(syscall(SYS_add_key, "user", "sbx-probe", "x", 1, KEY_SPEC_PROCESS_KEYRING),
		       "add_key(\"user\")");
}
