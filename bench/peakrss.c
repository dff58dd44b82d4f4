/*
 * peakrss.c - peak RSS of one process itself, not of its subtree.
 *
 * `/usr/bin/time -v` reports ru_maxrss from wait4(), which on Linux is the
 * maximum over the process AND every descendant it reaped (the jail's init
 * and, through it, the jailed program).  To see what the sbx supervisor
 * itself costs, this runs COMMAND under ptrace with only PTRACE_O_TRACEEXIT
 * (children are not traced), and at the exit stop - before the kernel frees
 * the address space - reads VmHWM from /proc/PID/status.
 *
 * usage: peakrss OUTFILE COMMAND [ARG...]
 * OUTFILE gets one JSON line: {"self_hwm_kib":N,"tree_maxrss_kib":N,"exit":N}
 * COMMAND's stdout/stderr pass through; exit status is COMMAND's (or 1).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* VmHWM of PID in KiB, or -1 when /proc does not say. */
static long read_hwm(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmHWM: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void run_child(char **argv)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0 || raise(SIGSTOP) != 0)
		_exit(127);
	execvp(argv[0], argv);
	fprintf(stderr, "peakrss: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Follow PID until it is gone; fills *hwm at the exit stop. Returns wait status. */
static int trace(pid_t pid, long *hwm, struct rusage *ru)
{
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return -1;
	long opts = PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)opts) < 0 ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL) < 0)
		return -1;
	for (;;) {
		if (wait4(pid, &st, 0, ru) < 0)
			return errno == EINTR ? trace(pid, hwm, ru) : -1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return st;
		int sig = WSTOPSIG(st);
		int event = st >> 16;
		if (event == PTRACE_EVENT_EXIT)
			*hwm = read_hwm(pid);
		if (event != 0 || sig == SIGTRAP)
			sig = 0; /* our own stops: deliver nothing */
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: peakrss OUTFILE COMMAND [ARG...]\n");
		return 1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("peakrss: fork");
		return 1;
	}
	if (pid == 0)
		run_child(argv + 2);
	long hwm = -1;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	int st = trace(pid, &hwm, &ru);
	FILE *out = fopen(argv[1], "we");
	if (!out) {
		fprintf(stderr, "peakrss: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	int code = st < 0 ? 1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	fprintf(out, "{\"self_hwm_kib\":%ld,\"tree_maxrss_kib\":%ld,\"exit\":%d}\n",
		hwm, ru.ru_maxrss, code);
	if (fclose(out) != 0)
		return 1;
	return code;
}
