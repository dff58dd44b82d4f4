/*
 * scgroups.c - the @groups of syscalls a policy names, and why each is kept
 * apart from @default.  `sbx explain`, the man page, the tests and the
 * filter generator (seccomp.c) all read this one table.
 */
#include "jail/seccomp.h"

#include <string.h>

#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

static const char *const default_syscalls[] = {
	/* files and directories */
	"read", "write", "open", "openat", "openat2", "close", "close_range",
	"creat", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs",
	"fstatfs", "lseek", "pread64", "pwrite64", "readv", "writev",
	"preadv", "pwritev", "preadv2", "pwritev2", "access", "faccessat",
	"faccessat2", "dup", "dup2", "dup3", "fcntl", "flock", "fsync",
	"fdatasync", "syncfs", "sync", "sync_file_range", "truncate",
	"ftruncate", "fallocate", "fadvise64", "readahead", "getdents",
	"getdents64", "getcwd", "chdir", "fchdir", "rename", "renameat",
	"renameat2", "mkdir", "mkdirat", "rmdir", "link", "linkat", "unlink",
	"unlinkat", "symlink", "symlinkat", "readlink", "readlinkat", "chmod",
	"fchmod", "fchmodat", "chown", "fchown", "lchown", "fchownat",
	"umask", "utime", "utimes", "utimensat", "futimesat", "mknod",
	"mknodat", "sendfile", "splice", "tee", "vmsplice", "copy_file_range",
	"setxattr", "lsetxattr", "fsetxattr", "getxattr", "lgetxattr",
	"fgetxattr", "listxattr", "llistxattr", "flistxattr", "removexattr",
	"lremovexattr", "fremovexattr",
	/* memory */
	"brk", "mmap", "munmap", "mprotect", "mremap", "msync", "mincore",
	"madvise", "mlock", "mlock2", "munlock", "mlockall", "munlockall",
	"remap_file_pages", "membarrier", "get_mempolicy",
	"pkey_mprotect", "pkey_alloc", "pkey_free",
	/* processes and threads (clone's namespace flags are refused) */
	"clone", "fork", "vfork", "execve", "execveat", "exit", "exit_group",
	"wait4", "waitid", "kill", "tkill", "tgkill", "getpid", "getppid",
	"gettid", "getpgid", "setpgid", "getpgrp", "getsid", "setsid",
	"set_tid_address", "set_robust_list", "get_robust_list", "rseq",
	"futex", "futex_waitv", "arch_prctl", "prctl", "set_thread_area",
	"get_thread_area", "personality", "seccomp", "pidfd_open",
	"pidfd_send_signal", "process_mrelease", "restart_syscall",
	"landlock_create_ruleset", "landlock_add_rule",
	"landlock_restrict_self",
	/* credentials (changes need capabilities the jail does not have) */
	"getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
	"getgroups", "setuid", "setgid", "setreuid", "setregid", "setresuid",
	"setresgid", "setfsuid", "setfsgid", "setgroups", "capget", "capset",
	/* scheduling and limits (raising a hard limit fails with EPERM) */
	"sched_yield", "sched_setparam", "sched_getparam",
	"sched_setscheduler", "sched_getscheduler", "sched_get_priority_max",
	"sched_get_priority_min", "sched_rr_get_interval",
	"sched_setaffinity", "sched_getaffinity", "sched_setattr",
	"sched_getattr", "getpriority", "setpriority", "ioprio_get",
	"ioprio_set", "getrlimit", "setrlimit", "prlimit64", "getrusage",
	"getcpu",
	/* signals */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending",
	"rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
	"rt_sigsuspend", "sigaltstack", "pause", "alarm", "getitimer",
	"setitimer", "signalfd", "signalfd4",
	/* time */
	"time", "gettimeofday", "clock_gettime", "clock_getres",
	"clock_nanosleep", "nanosleep", "times", "timer_create",
	"timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete",
	"timerfd_create", "timerfd_settime", "timerfd_gettime",
	/* waiting and events */
	"poll", "ppoll", "select", "pselect6", "epoll_create",
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "eventfd", "eventfd2", "pipe", "pipe2",
	"io_setup", "io_destroy", "io_getevents", "io_pgetevents",
	"io_submit", "io_cancel",
	/* sockets: harmless in an empty network namespace; AF_UNIX is needed */
	"socket", "socketpair", "connect", "accept", "accept4", "bind",
	"listen", "shutdown", "getsockname", "getpeername", "setsockopt",
	"getsockopt", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg",
	"recvmmsg",
	/* POSIX message queues (RLIMIT_MSGQUEUE bounds them) */
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify",
	"mq_getsetattr",
	/* system information; ioctl minus TIOCSTI/TIOCLINUX (guard filter) */
	"uname", "sysinfo", "getrandom", "ioctl",
	NULL,
};

const struct sc_group sc_groups[] = {
	{ "@default", default_syscalls,
	  "what ordinary programs, interpreters and compilers need" },
	/* Not in @default (ENOSYS, so libraries fall back): memory held in
	 * System V segments, queues and semaphores, or in memfds, is not seen
	 * by the memory meter (no file, no process owns it), and an
	 * unprivileged jail cannot lower its ipc namespace's limits (shmall
	 * ~16 EiB): a 512M run held 1 GiB of shm.  POSIX shm and semaphores
	 * are files in /dev/shm, a tmpfs the meter counts. */
	{ "@shared-memory",
	  LIST("shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semctl",
	       "semtimedop", "msgget", "msgsnd", "msgrcv", "msgctl",
	       "memfd_create", "memfd_secret"),
	  "memory the memory meter cannot see: allow only where cgroups bound it" },
	/* Not in @default (ENOSYS: tail -f and file watchers fall back to
	 * polling): a watch on a file every jail and the host share shows
	 * the host's activity, such as an IN_OPEN on /usr/bin/sudo each time
	 * the host runs it, and carries events from one jail to another. */
	{ "@file-watch",
	  LIST("inotify_init", "inotify_init1", "inotify_add_watch", "inotify_rm_watch",
	       "fanotify_mark"),
	  "watches on shared files show the host's activity: allow only for a watcher that needs it" },
	{ "@mount",
	  LIST("mount", "umount2", "pivot_root", "chroot", "fsopen", "fsmount",
	       "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr"),
	  "changing the mount table could uncover host files" },
	{ "@debug",
	  LIST("ptrace", "process_vm_readv", "process_vm_writev",
	       "perf_event_open", "kcmp", "pidfd_getfd", "process_madvise",
	       "lookup_dcookie"),
	  "reading or steering other processes; perf leaks kernel state" },
	{ "@keyring", LIST("add_key", "keyctl", "request_key"),
	  "kernel keyrings are not namespaced" },
	{ "@module",
	  LIST("init_module", "finit_module", "delete_module", "create_module"),
	  "loading kernel code" },
	{ "@reboot", LIST("reboot", "kexec_load", "kexec_file_load"),
	  "restarting or replacing the kernel" },
	{ "@swap", LIST("swapon", "swapoff"), "host swap configuration" },
	{ "@clock",
	  LIST("settimeofday", "clock_settime", "clock_adjtime", "adjtimex"),
	  "the clock is not namespaced" },
	{ "@obsolete",
	  LIST("uselib", "ustat", "sysfs", "_sysctl", "get_kernel_syms",
	       "query_module", "getpmsg", "putpmsg", "afs_syscall", "tuxcall",
	       "security", "vserver", "epoll_ctl_old", "epoll_wait_old"),
	  "unused for decades; old attack surface" },
	{ "@privileged-ns",
	  LIST("unshare", "setns", "bpf", "userfaultfd", "acct", "quotactl",
	       "quotactl_fd", "open_by_handle_at", "name_to_handle_at",
	       "sethostname", "setdomainname", "syslog", "vhangup",
	       "fanotify_init", "nfsservctl"),
	  "new namespaces, bpf, userfaultfd and root-only kernel interfaces" },
	{ "@io-uring",
	  LIST("io_uring_setup", "io_uring_enter", "io_uring_register"),
	  "io_uring bypasses seccomp for the operations it submits" },
	{ "@raw-io", LIST("ioperm", "iopl"), "direct hardware port access" },
	{ "@cpu-emulation", LIST("modify_ldt", "vm86", "vm86old"),
	  "segment and vm86 tricks behind past kernel exploits" },
};

const size_t sc_groups_count = sizeof(sc_groups) / sizeof(sc_groups[0]);

const struct sc_group *sc_group_find(const char *name)
{
	for (size_t i = 0; i < sc_groups_count; i++)
		if (strcmp(sc_groups[i].name, name) == 0)
			return &sc_groups[i];
	return NULL;
}
