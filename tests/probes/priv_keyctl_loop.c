/*
 * priv_keyctl_loop [N [personality]] - keyctl(2) N times (default 100000):
 * every call must be refused, however often the program asks.  The record
 * counts each refusal (denied_syscalls); bench/run.sh times it against the
 * same loop without the report.  With "personality", personality(2) with
 * N distinct refused personas instead: the record's table stays bounded
 * and its counts still add up to N.
 */
#include "probe.h"

#include <linux/keyctl.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 100000;
	int distinct = argc > 2 && strcmp(argv[2], "personality") == 0;

	if (n <= 0 || n > 0xffffff)
		probe_error("usage: priv_keyctl_loop [N (1..16777215) [personality]]");
	for (long i = 0; i < n; i++) {
		/* PER_LINUX with flag bits, each a persona of its own */
		long rc = distinct ? syscall(SYS_personality, (unsigned long)(i + 1) << 8)
				   : syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
		if (rc >= 0)
			escaped("%s succeeded at call %ld of %ld", distinct ? "personality" : "keyctl",
				i + 1, n);
	}
	blocked("%s refused %ld times (errno %d, %s)", distinct ? "personality" : "keyctl", n, errno,
		strerror(errno));
}
