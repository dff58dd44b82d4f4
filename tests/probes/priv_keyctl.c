/* priv_keyctl - keyctl(2) must fail: it reaches the host uid's user keyring (not namespaced). */
#include "probe.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>

int main(void)
{
	expect_refused(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0),
		       "keyctl(KEYCTL_GET_KEYRING_ID, user keyring)");
}
