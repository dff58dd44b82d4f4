/*
 * cputree_proc.c - what the meter reads of one process in /proc: its stat
 * (times in clock ticks, parent, start time, RSS), the exact runtime of
 * schedstat, and the memory of a live thread when the main thread exited.
 * The /proc is the jail's own or the host's (cputree.c says which).
 */
#include "supervise/cputree.h"
#include "base/cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cputree_parse_stat(const char *text, struct cpu_proc *out)
{
	/* comm may contain spaces and ')': the fields start after the last ')' */
	const char *p = strrchr(text, ')');
	unsigned long long ut, st, start, vsize;
	long long cut, cst, rss;
	char run;
	int pp;

	if (!p)
		return -1;
	/* 3 state, 4 ppid, 5..13 skipped, 14 utime 15 stime 16 cutime 17 cstime,
	 * 18..21 skipped, 22 starttime, 23 vsize (bytes), 24 rss (pages) */
	if (sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld"
		   " %*d %*d %*d %*d %llu %llu %lld",
		   &run, &pp, &ut, &st, &cut, &cst, &start, &vsize, &rss) != 9)
		return -1;
	if (cut < 0 || cst < 0 || rss < 0 || ut > INT64_MAX / 4 || st > INT64_MAX / 4 ||
	    cut > INT64_MAX / 4 || cst > INT64_MAX / 4)
		return -1;
	out->run = run;
	out->ppid = pp;
	out->start = start;
	out->own[0] = (int64_t)ut;
	out->own[1] = (int64_t)st;
	out->cc[0] = cut;
	out->cc[1] = cst;
	out->rss_pages = rss;
	out->vsize_kib = (int64_t)(vsize / 1024 > INT64_MAX / 8 ? INT64_MAX / 8 : vsize / 1024);
	return 0;
}

/* File PATH under DIRFD into TEXT (NUL-terminated); -1 if gone. */
static int read_path(int dirfd, const char *path, char *text, size_t size)
{
	int fd cleanup_fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1; /* vanished */
	n = read(fd, text, size - 1);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return 0;
}

/* PID's file NAME under DIRFD into TEXT (NUL-terminated); -1 if gone. */
static int read_small(int dirfd, pid_t pid, const char *name, char *text, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "%d/%s", (int)pid, name);
	return read_path(dirfd, path, text, size);
}

/*
 * A process whose main thread exited (pthread_exit) while others run: its
 * zombie leader's stat and smaps_rollup show no memory (no mm), so its
 * memory is read from its first live thread.  Times stay the leader's:
 * its stat sums the whole thread group.
 */
static void live_thread_memory(int dirfd, struct cpu_proc *out)
{
	char path[64], text[1024];
	struct cpu_proc th;
	struct dirent *d;
	int fd cleanup_fd = -1;
	DIR *dir cleanup_dir = NULL;

	snprintf(path, sizeof(path), "%d/task", (int)out->pid);
	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir)
		return;
	steal_fd(&fd); /* the stream's now */
	while ((d = readdir(dir)) != NULL) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0 || tid == out->pid)
			continue;
		snprintf(path, sizeof(path), "%d/task/%d/stat", (int)out->pid, (int)tid);
		if (read_path(dirfd, path, text, sizeof(text)) == 0 &&
		    cputree_parse_stat(text, &th) == 0 && th.run != 'Z' && th.run != 'X') {
			out->rss_pages = th.rss_pages;
			out->vsize_kib = th.vsize_kib;
			out->mem_tid = tid;
			break;
		}
	}
}

/* Fresh text of an fd kept open (seq_file regenerates at offset 0). */
static int read_again(int fd, char *text, size_t size)
{
	ssize_t n = pread(fd, text, size - 1, 0);

	if (n <= 0)
		return -1;
	text[n] = '\0';
	return 0;
}

/* NAME of PID through C's fd for it (opened on first use), or, with no C,
 * opened and closed now. */
static int read_pid_file(struct cpu_fds *c, int *slot, int dirfd, pid_t pid,
			 const char *name, char *text, size_t size)
{
	char path[64];

	if (!c)
		return read_small(dirfd, pid, name, text, size);
	if (*slot >= 0 && read_again(*slot, text, size) == 0)
		return 0;
	if (*slot >= 0)
		close(*slot); /* reaped: the pid may name a new process now */
	snprintf(path, sizeof(path), "%d/%s", (int)pid, name);
	*slot = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	return *slot >= 0 ? read_again(*slot, text, size) : -1;
}

/* T's cache entry for PID, made if there is room; NULL = read uncached. */
static struct cpu_fds *fds_of(struct cputree *t, pid_t pid)
{
	for (size_t i = 0; i < t->nfds; i++)
		if (t->fds[i].pid == pid)
			return &t->fds[i];
	if (!t->fds_ok || t->nfds == CPUTREE_FD_CACHE)
		return NULL;
	t->fds[t->nfds] = (struct cpu_fds){ .pid = pid, .stat = -1, .sched = -1 };
	return &t->fds[t->nfds++];
}

void cputree_fds_sweep(struct cputree *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->nfds; i++) {
		struct cpu_fds *c = &t->fds[i];

		if (!c->seen) {
			if (c->stat >= 0)
				close(c->stat);
			if (c->sched >= 0)
				close(c->sched);
			continue;
		}
		c->seen = false;
		t->fds[k++] = *c;
	}
	t->nfds = k;
}

void cputree_fds_close(struct cputree *t)
{
	for (size_t i = 0; i < t->nfds; i++)
		t->fds[i].seen = false;
	cputree_fds_sweep(t);
}

/*
 * One process, its times in ns.  stat's times are whole clock ticks (10 ms):
 * a child of 5 ms would read 0 however often it was sampled.  schedstat's
 * first field is the main thread's exact runtime: the part of it above
 * stat's user+system is charged as user time.  C: PID's kept fds, or NULL.
 */
static int read_stat(struct cpu_fds *c, int dirfd, pid_t pid, int64_t tick_ns,
		     struct cpu_proc *out)
{
	char text[1024];
	unsigned long long rt;
	int none = -1;

	if (c)
		c->seen = true;
	if (read_pid_file(c, c ? &c->stat : &none, dirfd, pid, "stat", text, sizeof(text)) != 0 ||
	    cputree_parse_stat(text, out) != 0)
		return -1;
	out->pid = pid;
	out->mem_tid = pid;
	out->state = 0;
	/* hiding memory behind a dead main thread must not pay */
	if (out->run == 'Z')
		live_thread_memory(dirfd, out);
	for (int k = 0; k < 2; k++) {
		out->own[k] *= tick_ns;
		out->cc[k] *= tick_ns;
	}
	if (read_pid_file(c, c ? &c->sched : &none, dirfd, pid, "schedstat", text,
			  sizeof(text)) == 0 &&
	    sscanf(text, "%llu", &rt) == 1 && rt < (unsigned long long)INT64_MAX / 4 &&
	    (int64_t)rt > out->own[0] + out->own[1])
		out->own[0] = (int64_t)rt - out->own[1];
	return 0;
}

int cputree_read_stat(int dirfd, pid_t pid, int64_t tick_ns, struct cpu_proc *out)
{
	return read_stat(NULL, dirfd, pid, tick_ns, out);
}

int cputree_read_stat_cached(struct cputree *t, int dirfd, pid_t pid, struct cpu_proc *out)
{
	int64_t tick_ns = 1000000000 / (t->ticks_per_s > 0 ? t->ticks_per_s : 100);

	return read_stat(dirfd == t->proc_fd ? fds_of(t, pid) : NULL, dirfd, pid, tick_ns, out);
}
