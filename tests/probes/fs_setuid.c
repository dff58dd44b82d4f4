/*
 * fs_setuid - a setuid-root binary (inside a user namespace its owner
 * may show as the overflow uid, so any setuid bit counts) reachable in the jail (/usr/bin/su,
 * passwd, ...) must not raise the effective uid: NoNewPrivs, nosuid and
 * the unmapped owner all say no.  The probe runs it with a silent stdin
 * pipe (su then waits for a password) and samples its effective uid in
 * /proc/PID/status until it exits (a zombie keeps its credentials).
 */
#include "probe.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static const char *const candidates[] = {
	"/usr/bin/su", "/usr/bin/passwd", "/usr/bin/newgrp", "/usr/bin/chsh",
	"/usr/bin/gpasswd", "/usr/bin/mount", "/bin/su", NULL
};

static const char *find_setuid(void)
{
	struct stat st;

	for (const char *const *c = candidates; *c; c++)
		if (stat(*c, &st) == 0 && (st.st_mode & S_ISUID))
			return *c;
	return NULL;
}

/* Effective uid of PID, -1 when gone; *zombie set when it has exited. */
static long euid_of(pid_t pid, int *zombie)
{
	char path[64], line[256];
	long r = -1, e = -1;
	char state = '?';

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "State: %c", &state);
		sscanf(line, "Uid: %ld %ld", &r, &e);
	}
	fclose(f);
	*zombie = state == 'Z';
	return e;
}

int main(void)
{
	const char *bin = find_setuid();
	int in[2], zombie = 0, status;
	long euid, max_euid = -1, mine = (long)geteuid();

	if (!bin)
		blocked("no setuid binary is reachable in /usr/bin");
	if (pipe(in) != 0)
		probe_error("pipe: %s", errname(errno));
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(null, 1);
		dup2(null, 2);
		execl(bin, bin, "root", (char *)NULL);
		_exit(127);
	}
	double end = mono_s() + 1.0;
	do {
		euid = euid_of(pid, &zombie);
		if (euid >= 0 && euid != mine && (max_euid < 0 || euid < max_euid))
			max_euid = euid;
	} while (!zombie && euid >= 0 && mono_s() < end);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	if (max_euid >= 0)
		escaped("%s ran with effective uid %ld (ours: %ld)", bin, max_euid, mine);
	if (mine == 0)
		blocked("%s: effective uid stayed 0, but we were root already: no gain to measure", bin);
	blocked("%s ran with effective uid %ld, no gain", bin, mine);
}
