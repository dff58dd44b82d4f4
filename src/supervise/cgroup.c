/*
 * cgroup.c - the run's own cgroup v2: find a delegated parent, create the
 * run's child with its limits, read the kernel's evidence, kill, remove;
 * and reclaim the children of runs whose sbx died (see cgroup.h).
 *
 * cgroup v2 puts controllers only on cgroups without processes of their
 * own, so a parent must have memory and pids in its cgroup.subtree_control
 * and no processes.  A delegated cgroup that sbx itself sits in is made
 * so by moving sbx into a leaf, and only when sbx is alone in it: moving
 * other people's processes is not sbx's business.
 *
 * Each run's sbx holds a flock on its run cgroup for the run's life, and
 * its watchdog (at the end of this file) removes the cgroup if sbx dies first; a run
 * cgroup nobody holds is one whose sbx and watchdog both died, and the
 * next run that makes a cgroup in the same parent reclaims it.
 */
#include "supervise/cgroup.h"
#include "base/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "supervise/cgfile.h"

/* The watchdog, at the end of this file: once a run cgroup exists, a
 * process of its own removes it if sbx dies first; stopped before sbx
 * cleans up itself. */
static void cgwatch_start(struct cgroup_run *cg);
static void cgwatch_stop(struct cgroup_run *cg);

#define CG_TEXT_MAX 8192
#define SUPERVISOR_LEAF "sbx-supervisor"
#define ROOT_PARENT "sbx"
/* A run's cgroup empties within the kill grace of its init; past this,
 * sbx leaves it for the next run to reclaim rather than hang. */
#define EMPTY_WAIT_MS 5000

static unsigned run_seq;

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* Read DIR/NAME into BUF (NUL-terminated); its length, or -1. */
static ssize_t read_at(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX + 64];
	ssize_t n, total = 0;
	int fd cleanup_fd = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	buf[total] = '\0';
	return total;
}

static int write_at(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	size_t len = strlen(text);
	int fd cleanup_fd = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	return write(fd, text, len) == (ssize_t)len ? 0 : -1; /* errno kept by the close */
}

static int key_of(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char buf[CG_TEXT_MAX];
	ssize_t n = read_at(dir, file, buf, sizeof(buf));

	return n < 0 ? -1 : cgfile_key(buf, (size_t)n, key, v);
}

static bool has_word(const char *dir, const char *file, const char *word)
{
	char buf[CG_TEXT_MAX];
	ssize_t n = read_at(dir, file, buf, sizeof(buf));

	return n >= 0 && cgfile_has_word(buf, (size_t)n, word);
}

/* The cgroup2 mount: pure v2 at /sys/fs/cgroup, or hybrid's unified. */
static const char *cgroup2_mount(void)
{
	if (is_cgroup2("/sys/fs/cgroup"))
		return "/sys/fs/cgroup";
	if (is_cgroup2("/sys/fs/cgroup/unified"))
		return "/sys/fs/cgroup/unified";
	return NULL;
}

static int own_cgroup(const char *mnt, char *out, size_t size)
{
	char buf[CG_TEXT_MAX], rel[PATH_MAX];
	ssize_t n = read_at("/proc/self", "cgroup", buf, sizeof(buf));

	if (n < 0 || cgfile_own_path(buf, (size_t)n, rel, sizeof(rel)) != 0)
		return -1;
	/* "/" names the mount itself; the path never holds ".." (the kernel's) */
	if ((size_t)snprintf(out, size, "%s%s", mnt, strcmp(rel, "/") ? rel : "") >= size)
		return -1;
	return 0;
}

/*
 * Make DIR a parent for run cgroups: memory and pids (cpu when offered)
 * in its subtree_control.  0, or -1 with WHY.
 */
static const char *const controllers[] = { "memory", "pids", "cpu" };

static int enable_controllers(const char *dir, unsigned *added, char *why, size_t len)
{
	const char *const *need = controllers;

	for (size_t i = 0; i < 2; i++) {
		if (has_word(dir, "cgroup.subtree_control", need[i]))
			continue;
		if (!has_word(dir, "cgroup.controllers", need[i])) {
			snprintf(why, len, "the %.200s controller is not available in %.200s (its parent "
				 "does not pass it down)", need[i], dir);
			return -1;
		}
		char cmd[16];
		snprintf(cmd, sizeof(cmd), "+%s", need[i]);
		if (write_at(dir, "cgroup.subtree_control", cmd) != 0) {
			snprintf(why, len, "cannot enable %.200s in %.200s/cgroup.subtree_control: %.200s%.200s",
				 need[i], dir, strerror(errno), errno == EBUSY ?
				 " (it holds processes: cgroup v2 gives controllers only to "
				 "cgroups without processes of their own)" : "");
			return -1;
		}
		if (added)
			*added |= 1u << i;
	}
	if (!has_word(dir, "cgroup.subtree_control", "cpu") &&
	    has_word(dir, "cgroup.controllers", "cpu") &&
	    write_at(dir, "cgroup.subtree_control", "+cpu") == 0 && added) /* optional */
		*added |= 1u << 2;
	return 0;
}

/* DIR's FILE names both memory and pids. */
static bool offered(const char *dir, const char *file)
{
	return has_word(dir, file, "memory") && has_word(dir, file, "pids");
}

static bool writable(const char *dir, const char *file)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return access(path, W_OK) == 0;
}

/*
 * Whether the caller's cgroup DIR is delegated to it: it may create
 * children and move processes there, and (for root, who may write
 * anywhere) systemd marked it with Delegate=yes's xattr.
 */
static bool delegated(const char *dir, char *why, size_t len)
{
	char x[8] = { 0 };

	if (!writable(dir, "") || !writable(dir, "cgroup.procs") ||
	    !writable(dir, "cgroup.subtree_control")) {
		snprintf(why, len, "the caller's cgroup %.200s is not delegated to it (not writable)",
			 dir);
		return false;
	}
	/* root writes every cgroup: only a manager's Delegate=yes makes one ours */
	if (geteuid() == 0 && getxattr(dir, "trusted.delegate", x, sizeof(x) - 1) <= 0 &&
	    getxattr(dir, "user.delegate", x, sizeof(x) - 1) <= 0) {
		snprintf(why, len, "the caller's cgroup %.200s has no delegate xattr (systemd "
			 "Delegate=yes) and sbx runs as root", dir);
		return false;
	}
	return true;
}

/* DIR holds sbx alone (its processes, not its children's); ALSO (-1:
 * none) may be there too: doctor, whose probe asks from a child. */
static bool alone_in(const char *dir, long also, char *why, size_t len)
{
	char buf[CG_TEXT_MAX];
	ssize_t n = read_at(dir, "cgroup.procs", buf, sizeof(buf));
	size_t count;
	bool only;

	if (n < 0 || cgfile_procs(buf, (size_t)n, (long)getpid(), also, &count, &only) != 0 ||
	    !only) {
		snprintf(why, len, "the caller's cgroup %.200s holds other processes than sbx "
			 "(run sbx in a scope of its own: systemd-run --user --scope -p "
			 "Delegate=yes sbx run ..., or give --cgroup-parent)", dir);
		return false;
	}
	return true;
}

/*
 * sbx moved itself into PARENT/sbx-supervisor to give PARENT, the caller's
 * scope, controllers: put the scope back as it was, so that a scope that
 * outlives sbx holds nothing of it (the controllers sbx enabled off, sbx
 * back in the scope, the leaf removed).  A step that fails (another run
 * still uses the controllers) leaves the rest as it is: the leaf then
 * goes with the scope.
 */
static void restore_self(struct cgroup_run *cg)
{
	char leaf[PATH_MAX + 32], cmd[16];

	if (!cg->moved_self)
		return;
	cg->moved_self = false;
	for (size_t i = 3; i-- > 0;) {
		if (!(cg->added & (1u << i)))
			continue;
		snprintf(cmd, sizeof(cmd), "-%s", controllers[i]);
		if (write_at(cg->self_parent, "cgroup.subtree_control", cmd) != 0)
			return;
	}
	cg->added = 0;
	if (write_at(cg->self_parent, "cgroup.procs", "0") != 0)
		return;
	snprintf(leaf, sizeof(leaf), "%s/" SUPERVISOR_LEAF, cg->self_parent);
	(void)rmdir(leaf);
}

/* Move sbx into DIR/sbx-supervisor so that DIR can pass controllers on. */
static int claim_own(struct cgroup_run *cg, const char *dir)
{
	char leaf[PATH_MAX];

	if (!delegated(dir, cg->why, sizeof(cg->why)))
		return -1;
	if (enable_controllers(dir, NULL, cg->why, sizeof(cg->why)) == 0)
		return 0; /* sbx sits in a leaf below already: nothing to move */
	if (!alone_in(dir, -1, cg->why, sizeof(cg->why)))
		return -1;
	if ((size_t)snprintf(leaf, sizeof(leaf), "%s/" SUPERVISOR_LEAF, dir) >= sizeof(leaf) ||
	    (mkdir(leaf, 0755) != 0 && errno != EEXIST) ||
	    write_at(leaf, "cgroup.procs", "0") != 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot move sbx into %.200s: %.200s", leaf,
			 strerror(errno));
		rmdir(leaf);
		return -1;
	}
	cg->moved_self = true;
	snprintf(cg->self_parent, sizeof(cg->self_parent), "%s", dir);
	if (enable_controllers(dir, &cg->added, cg->why, sizeof(cg->why)) == 0)
		return 0;
	restore_self(cg); /* put things back as they were */
	return -1;
}

/*
 * Runs whose sbx died (kill -9) left their cgroup: kill what is in it and
 * remove it.  The only evidence of an owner is its lock: the sbx that made
 * a run cgroup holds flock(LOCK_EX) on it from mkdir to rmdir, the kernel
 * drops it when that sbx dies, and it means the same in every pid
 * namespace.  The pid in the name proves nothing: a caller in another pid
 * namespace (another container on the same delegated parent) cannot see
 * a live owner's pid, and a dead owner's pid may be reused.
 */
static void reclaim(const char *parent)
{
	DIR *d cleanup_dir = opendir(parent);
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (cgfile_run_owner(e->d_name) < 0)
			continue;
		int fd cleanup_fd = openat(dirfd(d), e->d_name,
					   O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		/* held (or unknowable): a live run, someone else's to end */
		if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) >= sizeof(path))
			continue;
		(void)write_at(path, "cgroup.kill", "1");
		(void)rmdir(path); /* still populated: the next run tries again */
	}
}

/* Write the policy's limits into the new cgroup DIR. */
static int write_limits(const char *dir, const struct policy *p, char *why, size_t len)
{
	uint64_t mb = policy_limit(p, LIM_MEMORY_MB), n = policy_limit(p, LIM_PROCESSES);
	char v[32];

	if (mb != LIMIT_UNLIMITED) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)mb << 20);
		if (write_at(dir, "memory.max", v) != 0)
			goto fail_mem;
		/* swap would hold what memory.max refuses: none (absent without swap) */
		if (write_at(dir, "memory.swap.max", "0") != 0 && errno != ENOENT)
			goto fail_mem;
	}
	/* an OOM kill ends the whole jail, as the meter's kill does */
	(void)write_at(dir, "memory.oom.group", "1");
	if (n != LIMIT_UNLIMITED) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)n + 1); /* +1: the init */
		if (write_at(dir, "pids.max", v) != 0) {
			snprintf(why, len, "cannot write %.200s/pids.max: %.200s", dir, strerror(errno));
			return -1;
		}
	}
	return 0;
fail_mem:
	snprintf(why, len, "cannot write the memory limit in %.200s: %.200s", dir, strerror(errno));
	return -1;
}

/* Create and lock the run's cgroup in PARENT, with P's limits. */
static int create_run(struct cgroup_run *cg, const char *parent, const struct policy *p)
{
	for (int tries = 0; tries < 100; tries++) {
		if ((size_t)snprintf(cg->path, sizeof(cg->path), "%s/sbx-run.%d.%u", parent,
				     (int)getpid(), run_seq++) >= sizeof(cg->path)) {
			snprintf(cg->why, sizeof(cg->why), "cgroup path too long under %.200s", parent);
			cg->path[0] = '\0';
			return -1;
		}
		if (mkdir(cg->path, 0755) == 0)
			break;
		if (errno != EEXIST || tries == 99) {
			snprintf(cg->why, sizeof(cg->why), "cannot create a cgroup in %.200s: %.200s",
				 parent, strerror(errno));
			cg->path[0] = '\0';
			return -1;
		}
	}
	cg->dir_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* the lock says "alive" to every other sbx's reclaim (reclaim()) */
	if (cg->dir_fd < 0 || flock(cg->dir_fd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(cg->why, sizeof(cg->why), "%s %.200s: %.200s", cg->dir_fd < 0 ? "open" :
			 "flock", cg->path, strerror(errno));
		cgroup_close(cg);
		return -1;
	}
	if (write_limits(cg->path, p, cg->why, sizeof(cg->why)) != 0) {
		cgroup_close(cg);
		return -1;
	}
	cg->active = true;
	return 0;
}

static int make_run(struct cgroup_run *cg, const char *parent, const struct policy *p)
{
	int parent_fd cleanup_fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	/* between mkdir and flock a new run cgroup is unlocked: the parent's
	 * lock keeps every reclaim out of that window (it is held for a few
	 * syscalls, never across a run) */
	if (parent_fd < 0 || flock(parent_fd, LOCK_EX) != 0) {
		snprintf(cg->why, sizeof(cg->why), "cannot lock %.200s: %.200s", parent,
			 strerror(errno));
		return -1;
	}
	reclaim(parent);
	return create_run(cg, parent, p);
}

/* The parent a run would use without --cgroup-parent; -1 with WHY. */
static int find_parent(struct cgroup_run *cg, char *out, size_t size, bool claim, long also)
{
	const char *mnt = cgroup2_mount();
	char own[PATH_MAX], first[sizeof(cg->why)] = "";

	if (!mnt) {
		snprintf(cg->why, sizeof(cg->why), "no cgroup2 file system is mounted");
		return -1;
	}
	if (own_cgroup(mnt, own, sizeof(own)) != 0) {
		snprintf(cg->why, sizeof(cg->why), "no 0:: line in /proc/self/cgroup");
		return -1;
	}
	/* an earlier run of this sbx (a compile stage) moved it already */
	char *leaf = strrchr(own, '/');
	if (leaf && !strcmp(leaf + 1, SUPERVISOR_LEAF)) {
		*leaf = '\0';
		if (offered(own, "cgroup.subtree_control")) {
			snprintf(out, size, "%s", own);
			return 0;
		}
		*leaf = '/';
	}
	if (claim ? claim_own(cg, own) == 0
		  : delegated(own, cg->why, sizeof(cg->why)) &&
		    (offered(own, "cgroup.subtree_control") ||
		     alone_in(own, also, cg->why, sizeof(cg->why)))) {
		snprintf(out, size, "%s", own);
		return 0;
	}
	snprintf(first, sizeof(first), "%s", cg->why);
	/* root may make its own parent on a pure v2 host (isolate does the same) */
	if (geteuid() == 0 && !strcmp(mnt, "/sys/fs/cgroup")) {
		snprintf(out, size, "%s/" ROOT_PARENT, mnt);
		if (!claim) {
			if (offered(mnt, "cgroup.controllers"))
				return 0;
			snprintf(cg->why, sizeof(cg->why), "%.200s offers no memory and pids "
				 "controllers", mnt);
			return -1;
		}
		if ((mkdir(out, 0755) == 0 || errno == EEXIST) &&
		    enable_controllers(mnt, NULL, cg->why, sizeof(cg->why)) == 0 &&
		    enable_controllers(out, NULL, cg->why, sizeof(cg->why)) == 0)
			return 0;
		return -1;
	}
	snprintf(cg->why, sizeof(cg->why), "%.200s", first);
	if (strcmp(mnt, "/sys/fs/cgroup"))
		snprintf(cg->why, sizeof(cg->why), "hybrid cgroup layout: the memory and pids "
			 "controllers are bound to cgroup v1 (%.200s has none)", mnt);
	return -1;
}

int cgroup_open(struct cgroup_run *cg, const struct policy *p, const char *parent_opt,
		struct sbx_err *err)
{
	char parent[PATH_MAX];

	memset(cg, 0, sizeof(*cg));
	cg->dir_fd = cg->watch_fd = -1;
	cg->peak_kib = cg->oom_kills = cg->pids_refused = cg->user_us = cg->sys_us = -1;
	if (!parent_opt) {
		if (find_parent(cg, parent, sizeof(parent), true, -1) == 0 &&
		    make_run(cg, parent, p) == 0)
			cgwatch_start(cg);
		return 0;
	}
	/* an explicit parent that cannot be used is the caller's mistake: say so */
	if (parent_opt[0] != '/' || !is_cgroup2(parent_opt)) {
		snprintf(cg->why, sizeof(cg->why), "not a directory of a cgroup2 file system");
	} else if (enable_controllers(parent_opt, NULL, cg->why, sizeof(cg->why)) == 0 &&
		   make_run(cg, parent_opt, p) == 0) {
		cgwatch_start(cg);
		return 0;
	}
	return err_set(err, ERR_USAGE, 0, "--cgroup-parent %s: %s; give a cgroup v2 directory "
		       "you may write, without processes of its own", parent_opt, cg->why);
}

int64_t cgroup_cpu_ms(const struct cgroup_run *cg)
{
	uint64_t us;

	if (!cg->active || key_of(cg->path, "cpu.stat", "usage_usec", &us) != 0)
		return -1;
	return (int64_t)(us / 1000);
}

int64_t cgroup_memory_kib(const struct cgroup_run *cg)
{
	char buf[64], line[80];
	uint64_t v;
	ssize_t n;

	if (!cg->active || (n = read_at(cg->path, "memory.current", buf, sizeof(buf))) <= 0)
		return -1;
	snprintf(line, sizeof(line), "current %s", buf);
	return cgfile_key(line, strlen(line), "current", &v) == 0 ? (int64_t)(v / 1024) : -1;
}

bool cgroup_kill(const struct cgroup_run *cg)
{
	return cg->active && write_at(cg->path, "cgroup.kill", "1") == 0;
}

bool cgroup_freeze(const struct cgroup_run *cg, bool on)
{
	return cg->active && write_at(cg->path, "cgroup.freeze", on ? "1" : "0") == 0;
}

void cgroup_finish(struct cgroup_run *cg)
{
	uint64_t v;

	if (!cg->active)
		return;
	if (key_of(cg->path, "cpu.stat", "user_usec", &v) == 0)
		cg->user_us = (int64_t)v;
	if (key_of(cg->path, "cpu.stat", "system_usec", &v) == 0)
		cg->sys_us = (int64_t)v;
	if (key_of(cg->path, "memory.events", "oom_kill", &v) == 0)
		cg->oom_kills = (int64_t)v;
	/* the kernel's count of refused forks: the process limit's evidence */
	if (key_of(cg->path, "pids.events", "max", &v) == 0)
		cg->pids_refused = (int64_t)v;
	char buf[64], line[80];
	ssize_t n = read_at(cg->path, "memory.peak", buf, sizeof(buf)); /* kernel >= 5.19 */
	snprintf(line, sizeof(line), "peak %s", n > 0 ? buf : "");
	if (cgfile_key(line, strlen(line), "peak", &v) == 0)
		cg->peak_kib = (int64_t)(v / 1024);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for cgroup.events "populated 0" (poll wakes with POLLPRI on change). */
static bool wait_empty(const char *dir)
{
	char path[PATH_MAX + 32];
	int64_t end = now_ms() + EMPTY_WAIT_MS;
	uint64_t populated = 1;
	int fd cleanup_fd = -1;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while (key_of(dir, "cgroup.events", "populated", &populated) == 0 && populated &&
	       now_ms() < end) {
		struct pollfd pfd = { .fd = fd, .events = POLLPRI };
		(void)poll(&pfd, 1, 50);
	}
	return populated == 0;
}

void cgroup_close(struct cgroup_run *cg)
{
	cgwatch_stop(cg); /* sbx cleans up itself: the watchdog is not needed */
	if (cg->path[0]) {
		/* nothing outlives the run: not a double-forked daemon, not a SIGTERM-proof one */
		(void)write_at(cg->path, "cgroup.kill", "1");
		(void)wait_empty(cg->path);
		for (int i = 0; i < 50 && rmdir(cg->path) != 0 && errno == EBUSY; i++)
			usleep(10000);
		cg->path[0] = '\0';
	}
	/* only now drop the lock: a cgroup left behind is then the next run's to reclaim */
	if (cg->dir_fd >= 0)
		close(cg->dir_fd);
	cg->dir_fd = -1;
	restore_self(cg);
}

int cgroup_probe(char *out, size_t outlen, long also, char *why, size_t whylen)
{
	struct cgroup_run cg;
	int rc;

	memset(&cg, 0, sizeof(cg));
	rc = find_parent(&cg, out, outlen, false, also);
	if (rc != 0)
		snprintf(why, whylen, "%.200s", cg.why);
	return rc;
}

/*
 * The run cgroup's watchdog: a small process of its own,
 * forked once sbx has made a run cgroup, that removes that cgroup (and
 * puts a caller's scope back as sbx found it) when sbx dies without doing
 * so itself (kill -9).  The jail's init ends the jail when sbx dies, but
 * nobody was left to remove the empty cgroup: in a scope that outlives sbx
 * it stayed until another run in the same parent reclaimed it.
 *
 * sbx and the watchdog share a pipe.  sbx writes one byte before it cleans
 * up itself (the watchdog then exits at once); end of file without that
 * byte means sbx is gone.  The watchdog keeps nothing of sbx's but the
 * pipe and the run cgroup's locked descriptor: holding a copy of, say, the
 * jail's control socket would hide sbx's death from the jail's init.  It
 * is in a session of its own and ignores the job-control signals, so that
 * the Ctrl-C or the hang-up meant for sbx does not end it first.
 */

#define WATCH_DONE 'd'

/* Every descriptor but KEEP_A and KEEP_B (moved to 3 and 4), stdio on /dev/null. */
static int keep_only(int *keep_a, int *keep_b)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct rlimit rl;

	if (null < 0)
		return -1;
	for (int fd = 0; fd < 3; fd++)
		if (dup2(null, fd) < 0)
			return -1;
	if (dup2(*keep_a, 3) < 0 || (*keep_b >= 0 && dup2(*keep_b, 4) < 0))
		return -1;
	*keep_a = 3;
	*keep_b = *keep_b >= 0 ? 4 : -1;
	if (syscall(SYS_close_range, 5, ~0U, 0) == 0)
		return 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	for (rlim_t fd = 5; fd < rl.rlim_cur && fd < 1048576; fd++)
		close((int)fd);
	return 0;
}

/*
 * The watchdog's command line reads as what it is, not as the copy of
 * sbx's it was forked with, which names the jail's command (whoever looks
 * for the jail's processes by it would count the watchdog): the arguments
 * area, whose bounds are fields 48 and 49 of /proc/self/stat, rewritten
 * in place.
 */
static void retitle(void)
{
	static const char title[] = "sbx: run cgroup watchdog";
	char buf[2048], *p, *save = NULL;
	unsigned long start = 0, end = 0;
	int fd cleanup_fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (n <= 0)
		return;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the comm before it may hold spaces */
	for (char *t = p ? strtok_r(p + 1, " ", &save) : NULL; t; t = strtok_r(NULL, " ", &save)) {
		if (++field == 48)
			start = strtoul(t, NULL, 10);
		else if (field == 49) {
			end = strtoul(t, NULL, 10);
			break;
		}
	}
	if (!start || end <= start)
		return;
	memset((void *)start, 0, end - start);
	memcpy((void *)start, title,
	       end - start - 1 < sizeof(title) - 1 ? end - start - 1 : sizeof(title) - 1);
}

__attribute__((noreturn)) static void watch(struct cgroup_run *cg, int rfd)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN,
				     SIGTTOU, SIGPIPE };
	char byte = 0;
	ssize_t n;

	setsid();
	retitle();
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	if (keep_only(&rfd, &cg->dir_fd) != 0)
		_exit(1);
	while ((n = read(rfd, &byte, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && byte == WATCH_DONE)
		_exit(0);
	/* sbx is gone: its cgroup_close, done here (the lock is this one's now) */
	cg->watch_fd = -1;
	cg->watch_pid = 0;
	cgroup_close(cg);
	_exit(0);
}

static void cgwatch_start(struct cgroup_run *cg)
{
	int p[2];
	pid_t pid;

	cg->watch_fd = -1;
	cg->watch_pid = 0;
	if (pipe2(p, O_CLOEXEC) != 0)
		return; /* the next run in this parent reclaims what sbx's death leaves */
	int rfd cleanup_fd = p[0], wfd cleanup_fd = p[1];
	pid = fork();
	if (pid == 0) {
		close(steal_fd(&wfd));
		watch(cg, steal_fd(&rfd));
	}
	if (pid < 0)
		return;
	cg->watch_fd = steal_fd(&wfd);
	cg->watch_pid = pid;
}

static void cgwatch_stop(struct cgroup_run *cg)
{
	const char done = WATCH_DONE;

	if (cg->watch_pid <= 0)
		return;
	while (write(cg->watch_fd, &done, 1) < 0 && errno == EINTR)
		;
	close(cg->watch_fd);
	cg->watch_fd = -1;
	while (cg->watch_pid > 0 && waitpid(cg->watch_pid, NULL, 0) < 0 && errno == EINTR)
		;
	cg->watch_pid = 0;
}
