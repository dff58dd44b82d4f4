/* priv_process_vm_readv - reading another process's memory (pid 1, then our own child) must fail. */
#include "probe.h"

#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>

static char secret[16] = "sbx-vm-secret";

int main(void)
{
	char buf[16] = "";
	struct iovec local = { buf, sizeof(buf) }, remote = { secret, sizeof(secret) };

	if (process_vm_readv(1, &local, 1, &remote, 1, 0) > 0)
		escaped("read pid 1's memory");
	int e1 = errno;
	pid_t pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	int e2 = errno;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (n > 0)
		escaped("read our child's memory: \"%s\"", buf);
	blocked("process_vm_readv failed: pid 1: %s; own child: %s", errname(e1), strerrorname_np(e2));
}
