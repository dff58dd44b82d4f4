/*
 * test_probes_priv.c - privilege probes: no capability, NoNewPrivs, and
 * every dangerous syscall of the
 * default filter refused -- one test per rule, so that a policy edit that
 * silently permits one is caught by name.
 */
#include "test_probes_common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

TestSuite(probes_priv, .init = probes_require_jail);

/* A syscall the seccomp filter denies: EPERM (deny list) or ENOSYS (default action). */
#define DENIED_TEST(name, probe) \
	Test(probes_priv, name) { expect_denied(probe, "EPERM", "ENOSYS"); }

/* Attack: any leftover capability (CAP_SYS_ADMIN in the jail's userns opens most of the kernel). */
Test(probes_priv, capabilities_are_exactly_zero_with_no_new_privs_and_seccomp)
{
	expect_denied("priv_caps", "no capabilities", NULL);
}

/* Attack: nested userns: full caps over a new namespace. */
DENIED_TEST(unshare_newuser_fails, "priv_unshare_userns")
/* Attack: a private mount table to build an escape on. */
DENIED_TEST(unshare_newns_fails, "priv_unshare_mntns")
/* Attack: nested userns via clone flags. */
DENIED_TEST(clone_newuser_fails, "priv_clone_userns")
/* Attack: joining another namespace. */
DENIED_TEST(setns_fails, "priv_setns")
/* Attack: reading or injecting into pid 1 and neighbours. */
DENIED_TEST(ptrace_attach_fails, "priv_ptrace_attach")
/* Attack: ptrace the other way round. */
DENIED_TEST(ptrace_traceme_fails, "priv_ptrace_traceme")
/* Attack: reading another process's memory. */
DENIED_TEST(process_vm_readv_fails, "priv_process_vm_readv")
/* Attack: keyrings are not namespaced. */
DENIED_TEST(add_key_fails, "priv_add_key")
/* Attack: the host uid's keyring. */
DENIED_TEST(keyctl_fails, "priv_keyctl")
/* Attack: verifier bugs and spectre gadgets. */
DENIED_TEST(bpf_fails, "priv_bpf")
/* Attack: kernel attack surface and side channels. */
DENIED_TEST(perf_event_open_fails, "priv_perf_event_open")
/* Attack: stalling the kernel to win races. */
DENIED_TEST(userfaultfd_fails, "priv_userfaultfd")
/* Attack: io_uring operations bypass seccomp. */
DENIED_TEST(io_uring_setup_fails, "priv_io_uring")
/* Attack: loading kernel code. */
DENIED_TEST(init_module_fails, "priv_init_module")
/* Attack: loading kernel code from a file. */
DENIED_TEST(finit_module_fails, "priv_finit_module")
/* Attack: booting another kernel. */
DENIED_TEST(kexec_load_fails, "priv_kexec_load")
/* Attack: rebooting the host. */
DENIED_TEST(reboot_fails, "priv_reboot")
/* Attack: host memory management. */
DENIED_TEST(swapon_fails, "priv_swapon")
/* Attack: process accounting to a file of our choice. */
DENIED_TEST(acct_fails, "priv_acct")
/* Attack: the clock is not namespaced. */
DENIED_TEST(settimeofday_fails, "priv_settimeofday")
/* Attack: the clock is not namespaced. */
DENIED_TEST(clock_settime_fails, "priv_clock_settime")
/* Attack: READ_IMPLIES_EXEC and 32-bit layouts. */
DENIED_TEST(personality_other_than_default_fails, "priv_personality")
/* Attack: console paste injection. */
DENIED_TEST(tioclinux_is_filtered, "priv_tioclinux")

/* Attack: clone3 hides its flags from seccomp; ENOSYS makes libc fall back to filterable clone. */
Test(probes_priv, clone3_returns_enosys)
{
	expect_denied("priv_clone3", "ENOSYS", NULL);
}

/* A foreign-ABI call must never succeed: the probe says BLOCKED, or the filter killed it. */
static void expect_abi_refused(const char *probe)
{
	struct sbx_result r;
	const char *status;

	run_probe(&r, NULL, NULL, probe, NULL);
	status = rec_str(&r, "status");
	cr_assert(!r.timed_out, "sbx hung: " PROBE_REPORT(&r));
	cr_assert(!strstr(r.out, "ESCAPED:"), "probe ESCAPED: " PROBE_REPORT(&r));
	cr_assert(strstr(r.out, "BLOCKED:") || (status && !strcmp(status, "seccomp")),
		  "neither BLOCKED nor killed by seccomp: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}

/* Attack: i386 syscall numbers (int 0x80) slip past a filter written for x86_64 numbers. */
Test(probes_priv, int80_i386_syscall_never_succeeds)
{
#ifndef __x86_64__
	cr_skip_test("SKIP: x86_64 only: this architecture has no i386 ABI (its foreign "
		     "ABI's arch value is killed the same way: unit test foreign_abis_are_killed)");
#endif
	expect_abi_refused("priv_int80");
}

/*
 * Attack: x32 numbers (nr | 0x40000000) slip past a filter that ignores the
 * x32 bit.  The filter sees the number before the kernel dispatches it,
 * whether or not this kernel runs x32 at all, and kills the call there
 * (sbx.policy(5)): a denial of the number by the allowlist (BLOCKED) would
 * mean the x32 check is gone and only the allowlist's numbering guards it.
 */
Test(probes_priv, x32_syscall_never_succeeds)
{
	struct sbx_result r;
	const char *status;

#ifndef __x86_64__
	cr_skip_test("SKIP: x86_64 only: x32 is an x86_64 ABI");
#endif
	run_probe(&r, NULL, NULL, "priv_x32", NULL);
	status = rec_str(&r, "status");
	cr_assert(!strstr(r.out, "ESCAPED:"), "probe ESCAPED: " PROBE_REPORT(&r));
	cr_assert(status && !strcmp(status, "seccomp") && !strstr(r.out, "BLOCKED:"),
		  "an x32 call was not killed by the filter: " PROBE_REPORT(&r));
	sbx_result_free(&r);
}

#define INJECTED "sbx-tiocsti-injected"

/* Read what is waiting on FD (non-blocking) and append it to BUF. */
static void drain(int fd, char *buf, size_t cap)
{
	size_t len = strlen(buf);
	ssize_t n;

	while (len + 1 < cap && (n = read(fd, buf + len, cap - len - 1)) > 0)
		len += n;
	buf[len] = '\0';
}

/*
 * Run ARGV with a pty as controlling terminal and stdio; return what the
 * pty shows (output + echo) followed by whatever sits in its input queue.
 */
static char *run_on_pty(const char *const argv[], int *status)
{
	int master, slave;
	char *seen = calloc(1, 65536);

	if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
		cr_skip_test("SKIP: openpty: %s (no /dev/ptmx here)", strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		ioctl(slave, TIOCSCTTY, 0);
		dup2(slave, 0);
		dup2(slave, 1);
		dup2(slave, 2);
		close(master);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	fcntl(master, F_SETFL, O_NONBLOCK);
	double end = 20;
	while (waitpid(pid, status, WNOHANG) == 0 && end > 0) {
		struct pollfd p = { master, POLLIN, 0 };
		poll(&p, 1, 50);
		drain(master, seen, 65536);
		end -= 0.05;
	}
	if (end <= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
	}
	drain(master, seen, 65536);
	/* Whatever was pushed into the input queue is readable on the slave. */
	fcntl(slave, F_SETFL, O_NONBLOCK);
	strcat(seen, "\n--- input queue:\n");
	drain(slave, seen, 65536);
	close(master);
	close(slave);
	return seen;
}

/*
 * Attack: TIOCSTI pushes keystrokes into the caller's terminal
 * (CVE-2017-5226).  sbx runs on a pty; the injected text must appear
 * neither as echo nor in the pty's input queue.  A bare run of the probe
 * on the same kind of pty first proves the detection works (when the
 * kernel allows TIOCSTI at all).
 */
Test(probes_priv, tiocsti_cannot_inject_into_the_callers_terminal)
{
	const char *dir = getenv("SBX_PROBES");
	char *bind = xasprintf("%s:/probes", dir ? dir : "build/probes");
	int status;
	char *bare = run_on_pty(SBX_ARGV(probe_path("priv_tiocsti")), &status);
	bool detection_works = strstr(bare, INJECTED) != NULL;
	char *jailed = run_on_pty(SBX_ARGV(sbx_path(), "run", "-b", bind, "--",
					   "/probes/priv_tiocsti"), &status);

	if (!detection_works)
		cr_log_warn("bare TIOCSTI was refused by this kernel (%.200s): the jailed check below "
			    "still runs but cannot be told apart from a kernel refusal", bare);
	cr_assert(!strstr(jailed, INJECTED), "text was injected into the caller's pty:\n%s", jailed);
	cr_assert(strstr(jailed, "BLOCKED:"), "no BLOCKED verdict on the pty:\n%s", jailed);
	free(bare);
	free(jailed);
	free(bind);
}
