/*
 * fs_proc_view - /proc must show only the jail's processes: a handful of
 * pids, ourselves with a small pid, pid 1 the jail's init (parent pid 0),
 * and every other process descending from it -- so neither host
 * processes nor the supervisor outside are visible.
 */
#include "probe.h"

#include <ctype.h>
#include <dirent.h>

#define MAX_JAIL_PIDS 10

static int ppid_of(int pid)
{
	char path[64], line[256];
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			break;
	fclose(f);
	return ppid;
}

static void comm_of(int pid, char *buf, size_t n)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, n, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

int main(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int count = 0;
	char list[1024] = "", comm[64];

	if (!d)
		probe_error("opendir /proc: %s", errname(errno));
	while ((e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		int pid = atoi(e->d_name), ppid = ppid_of(pid);
		comm_of(pid, comm, sizeof(comm));
		count++;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%d(%s,ppid %d) ",
			 pid, comm, ppid);
		/* A process whose parent is outside the namespace shows PPid 0. */
		if (pid != 1 && ppid == 0)
			escaped("pid %d (%s) has a parent outside the jail: %s", pid, comm, list);
	}
	closedir(d);
	if (count > MAX_JAIL_PIDS)
		escaped("%d processes visible: %s", count, list);
	if (getpid() > MAX_JAIL_PIDS)
		escaped("our pid is %d: not a fresh pid namespace", (int)getpid());
	if (ppid_of(1) != 0)
		escaped("pid 1 has a parent: not the namespace's init");
	blocked("%d processes, all the jail's: %s", count, list);
}
