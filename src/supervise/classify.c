/*
 * classify.c - turn what the kernel and sbx's own timers said into one
 * status, message and exit status (sbx(1), sbx-result(5)).
 *
 * Precedence when causes overlap: aborted > timeout > cpu-limit >
 * memory-limit > output-limit > seccomp > signaled > nonzero-exit > ok.
 * Nothing the program printed is consulted; memory-limit needs cgroup OOM
 * evidence and is never guessed from a bare SIGKILL (anyone may send one).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "base/fds.h"
#include "jail/ctl.h"
#include "jail/scnotify.h"
#include "record/denied.h"
#include "supervise/internal.h"

static void say(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(struct result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	text_mark_cut(r->message, sizeof(r->message),
		      vsnprintf(r->message, sizeof(r->message), fmt, ap));
	va_end(ap);
}

static double ms_between(int64_t a, int64_t b)
{
	return (double)(b - a) / 1e6;
}

/* Whole-tree CPU at settle: the meter's count of every process the jail
 * had (auto-reaped ones too), never less than the init's rusage, which
 * covers only the processes reaped by wait(). */
static void tree_cpu(const struct sup *s, double *user_ms, double *sys_ms)
{
	/* a cgroup's cpu.stat counts every process it ever held, exactly */
	if (s->cg.active && s->cg.user_us >= 0 && s->cg.sys_us >= 0) {
		*user_ms = (double)s->cg.user_us / 1000.0;
		*sys_ms = (double)s->cg.sys_us / 1000.0;
		return;
	}
	cputree_final_ms(&s->cpu, &s->init_ru, user_ms, sys_ms);
}

/* The most processes the jail held at once, as far as sbx saw: the
 * meter's samples and the init's count as the program ended (the init
 * itself is none of the program's, and no part of the processes limit). */
static void fill_processes(struct sup *s)
{
	int64_t most = (int64_t)s->cpu.max_procs;

	/* the init's figure is bounded: it came over the control socket */
	if (s->target_procs > most && s->target_procs <= (int64_t)1 << 22)
		most = s->target_procs;
	s->res->processes_peak = most > 0 ? most - 1 : -1;
}

static void fill_measurements(struct sup *s)
{
	struct result *r = s->res;

	if (!s->go_sent)
		return; /* nothing ran: every measurement stays null */
	r->wall_ms = ms_between(s->t_go, s->target_exited ? s->t_exit : s->t_init_dead);
	r->stopped_ms = (double)s->stopped_ns / 1e6;
	if (!s->rusage_ok)
		return;
	/* the tree's figures, the ones the CPU limit was judged by */
	tree_cpu(s, &r->cpu_user_ms, &r->cpu_sys_ms);
	/* the init's rusage covers only what it reaped; the meter saw the rest */
	r->max_rss_kib = s->init_ru.ru_maxrss;
	r->memory_peak_kib = s->cg.active ? s->cg.peak_kib : -1;
	r->forks_refused = s->cg.active ? s->cg.pids_refused : -1;
	fill_processes(s);
	if (cputree_max_rss_kib(&s->cpu) > r->max_rss_kib)
		r->max_rss_kib = cputree_max_rss_kib(&s->cpu);
}

static int append_marker(struct captured *c, uint64_t limit)
{
	char marker[96];
	int n = relay_marker(limit, marker, sizeof(marker));
	char *text = realloc(c->text, c->len + (size_t)n + 1);

	if (!text)
		return -1;
	memcpy(text + c->len, marker, (size_t)n + 1);
	c->text = text;
	c->len += (size_t)n;
	return 0;
}

static void fill_capture(struct sup *s)
{
	struct captured *dst[2] = { &s->res->out, &s->res->err };

	for (int i = 0; i < 2; i++) {
		const struct capbuf *b = &s->out[i].cap;
		if (utf8_sanitize(b->data, b->len, s->budget.truncated, dst[i]) != 0)
			continue; /* out of memory: the text stays empty */
		/* the marker comes last, after everything that was kept */
		if (s->out[i].crossed)
			(void)append_marker(dst[i], s->budget.limit);
	}
}

/* Where the program's output left fd 1 and 2 mid-line (result_emit_fd).
 * 2>&1 makes them one file: then either stream's open line is the file's
 * (at worst one empty line before the record). */
static void fill_open_lines(struct sup *s)
{
	struct result *r = s->res;

	for (int i = 0; i < 2; i++) {
		int fd = s->out[i].dest.fd;
		if (fd == 1 || fd == 2)
			r->line_open[fd] |= s->out[i].tail != '\n'; /* learn: both on fd 2 */
	}
	if (fds_same_file(STDOUT_FILENO, STDERR_FILENO))
		r->line_open[1] = r->line_open[2] = r->line_open[1] || r->line_open[2];
}

static void fill_output(struct sup *s)
{
	struct result *r = s->res;

	r->stdout_bytes = s->out[0].bytes;
	r->stderr_bytes = s->out[1].bytes;
	r->output_truncated = s->budget.truncated;
	fill_open_lines(s);
	if (s->req->capture)
		fill_capture(s);
}

static enum enforcement enforcement_of(const struct sup *s, enum limit_id id)
{
	if (policy_limit(s->pol, id) == LIMIT_UNLIMITED)
		return ENF_NONE;
	switch (id) {
	case LIM_WALL_TIME_MS:
	case LIM_OUTPUT_BYTES:
		return ENF_SUPERVISOR;
	case LIM_CPU_TIME_MS:
		return ENF_RLIMIT_SUPERVISOR;
	case LIM_MEMORY_MB:
		if (s->res->cgroup)
			return ENF_CGROUP; /* memory.max */
		/* the tree meter needs the jail's own /proc */
		return s->cpu.proc_fd >= 0 ? ENF_RLIMIT_DATA_SUPERVISOR : ENF_RLIMIT_DATA;
	case LIM_PROCESSES:
		return s->res->cgroup ? ENF_CGROUP : ENF_RLIMIT_NPROC; /* pids.max */
	case LIM_FILE_SIZE_MB:
	case LIM_OPEN_FILES:
	case LIM_STACK_MB:
		return ENF_RLIMIT;
	default:
		return ENF_NONE;
	}
}

static void fill_enforcement(struct sup *s)
{
	for (int id = 0; id < LIM_COUNT; id++)
		s->res->enforced_by[id] = enforcement_of(s, (enum limit_id)id);
}

/* The target's own wait status, when the init reported it. */
static void fill_target(struct sup *s)
{
	struct result *r = s->res;
	int st = s->target_status;

	if (s->target_exited && WIFEXITED(st)) {
		r->has_exit_code = true;
		r->exit_code = WEXITSTATUS(st);
	} else if (s->target_exited && WIFSIGNALED(st)) {
		r->term_signal = WTERMSIG(st);
		r->core_dumped = WCOREDUMP(st);
	} else if (s->go_sent && s->init_killed) {
		r->term_signal = SIGKILL; /* the jail died with its init */
	}
}

/* The tree's CPU at settle, less the init's setup before GO: sbx's own
 * work is not charged to the program's budget. */
static int64_t tree_cpu_ms(const struct sup *s)
{
	double user, sys;

	if (!s->rusage_ok)
		return s->cpu_sampled_ms;
	tree_cpu(s, &user, &sys);
	return (int64_t)(user + sys) - s->setup_cpu_ms;
}

/* The meter fired, the tree's CPU at settle reached the budget, or the
 * target died of SIGXCPU with its CPU at RLIMIT_CPU's soft limit as the
 * kernel counts it (ticks, which may run ahead of the precise times the
 * meter reads).  A SIGXCPU alone is no evidence: anyone may send it
 * (`kill -XCPU $$`). */
static bool kernel_xcpu(const struct sup *s)
{
	return s->target_exited && WIFSIGNALED(s->target_status) &&
	       WTERMSIG(s->target_status) == SIGXCPU && (s->target_evidence & CTL_EV_CPU_RLIMIT);
}

static bool cpu_exhausted(const struct sup *s)
{
	uint64_t budget = policy_limit(s->pol, LIM_CPU_TIME_MS);

	if (budget == LIMIT_UNLIMITED || !s->go_sent)
		return false;
	return s->cpu_exceeded || kernel_xcpu(s) || (uint64_t)tree_cpu_ms(s) >= budget;
}

static bool classify_setup(struct sup *s)
{
	struct result *r = s->res;
	int e = s->setup_errno;

	if (s->setup_failed) {
		r->status = ST_SETUP_ERROR;
		r->retryable = e == EAGAIN || e == ENOMEM || e == EBUSY;
		/* the jail's text already names the errno; add it only without one */
		/* out of descriptors is the caller's ulimit, not the host's support */
		say(r, "jail setup failed: %s%s%s; %s",
		    s->setup_text[0] ? s->setup_text : "(no detail from the jail)",
		    e && !s->setup_text[0] ? ": " : "", e && !s->setup_text[0] ? strerror(e) : "",
		    e == EMFILE ? "sbx's open-file limit (ulimit -n) is too low for this "
				  "jail's set-up: raise it, e.g. ulimit -n 1024"
				: "run `sbx doctor` to see what this host allows");
	} else if (s->setup_timed_out) {
		r->status = ST_SETUP_ERROR;
		r->retryable = true;
		say(r, "jail setup did not finish within 10 s; the host may be overloaded "
		       "(retry, or run with -v to see the slow step)");
	} else if (!s->go_sent) {
		r->status = ST_SETUP_ERROR;
		say(r, "the jail's init ended during setup without saying why "
		       "(waitid code %d, status %d); run with -v", s->init_code, s->init_status);
	} else {
		return false;
	}
	r->exit_status = 125;
	return true;
}

/* The PATH the program got ("PATH=..."), for a message. */
static const char *jail_path(const struct sup *s)
{
	for (size_t i = s->pol->env.n; i-- > 0;)
		if (!strncmp(s->pol->env.v[i], "PATH=", 5))
			return s->pol->env.v[i];
	return "PATH (none set)";
}

static void classify_exec(struct sup *s)
{
	struct result *r = s->res;
	int e = s->exec_errno;
	const char *cmd = s->req->argv && s->req->argv[0] ? s->req->argv[0] : "?";

	r->status = ST_EXEC_ERROR;
	r->has_exit_code = false;
	r->term_signal = 0;
	r->exit_status = (e == ENOENT || e == ENOTDIR) ? 127 : 126;
	if (e == ENOENT && !strchr(cmd, '/'))
		/* a tool the caller has (cargo in ~/.cargo/bin) is not in the jail */
		say(r, "exec failed: %s (%s): not in the jail's %s; the jail has the host's "
		       "/usr but not the caller's HOME or other directories: bind the tool's "
		       "directory (-b DIR) and give its path, or set -e PATH=...",
		    strerror(e), cmd, jail_path(s));
	else if (e == ENOENT)
		say(r, "exec failed: %s (%s): the jail has no such file: bind its directory "
		       "(-b DIR) or copy it in (-f FILE)", strerror(e), cmd);
	else
		say(r, "exec failed: %s (%s)", e ? strerror(e) : "unknown error", cmd);
}

static bool classify_limits(struct sup *s)
{
	struct result *r = s->res;

	if (s->timed_out || (s->target_evidence & CTL_EV_WALL_BOUND)) {
		r->status = ST_TIMEOUT;
		say(r, "wall-clock timeout (%" PRIu64 " ms)", policy_limit(s->pol, LIM_WALL_TIME_MS));
	} else if (cpu_exhausted(s)) {
		r->status = ST_CPU_LIMIT;
		if (kernel_xcpu(s) && s->target_cpu_ns >= 0)
			/* the record's figures are precise times; the kernel's ticks may run ahead */
			/* the applied limit: the caller's ulimit -t may be lower */
			say(r, "CPU time exhausted (%" PRIu64 " ms): the kernel's SIGXCPU at "
			       "RLIMIT_CPU, after %" PRId64 " ms by its tick count",
			    record_applied_limit(s->pol, LIM_CPU_TIME_MS), s->target_cpu_ns / 1000000);
		else
			say(r, "CPU time exhausted (%" PRIu64 " ms)",
			    policy_limit(s->pol, LIM_CPU_TIME_MS));
	} else if (r->cgroup_oom) {
		r->status = ST_MEMORY_LIMIT;
		say(r, "out of memory: killed by the kernel's OOM killer (memory_mb = %" PRIu64 ")",
		    policy_limit(s->pol, LIM_MEMORY_MB));
	} else if (s->memory_exceeded) {
		r->status = ST_MEMORY_LIMIT;
		say(r, "memory limit exceeded: the jail's processes and their page tables, tmpfs "
		       "files and socket buffers "
		       "together held %" PRId64 " MiB (memory_mb = %" PRIu64 ", measured by sbx)",
		    s->memory_seen_kib / 1024, policy_limit(s->pol, LIM_MEMORY_MB));
	} else if (s->output_limited) {
		r->status = ST_OUTPUT_LIMIT;
		say(r, "output limit exceeded: stdout+stderr passed %" PRIu64 " bytes",
		    s->budget.limit);
	} else {
		return false;
	}
	r->exit_status = 124;
	return true;
}

/*
 * The filter killed the target: in the kernel (SIGSYS, and the kernel's
 * mark on the dead task), which with a report can only be the ABI rule,
 * since a KILL rule's calls reach sbx, which ends the caller with SIGKILL
 * while the call is held (notify.c).  Either way 128+SIGSYS.
 */
static bool classify_seccomp(struct sup *s, int sig)
{
	struct result *r = s->res;
	int nr = notify_target_kill(&s->notify);
	char call[32];

	if (sig == SIGKILL && nr >= 0) {
		sc_syscall_name(nr, call, sizeof(call));
		say(r, "killed by the seccomp filter: %s (a KILL rule of the policy; sbx "
		       "ended the process with SIGKILL before the call ran)", call);
	} else if (sig == SIGSYS && (s->target_evidence & CTL_EV_SECCOMP_KILL)) {
		if (r->denied)
			say(r, "killed by the seccomp filter (SIGSYS): a system call of another "
			       "ABI (i386 int 0x80 or x32), which every sbx filter kills");
		else
			say(r, "killed by the seccomp filter (SIGSYS): a forbidden system call "
			       "(no report of which: %s)", s->notify.why_none);
	} else {
		return false;
	}
	r->status = ST_SECCOMP;
	r->exit_status = 128 + SIGSYS;
	return true;
}

static void classify_signal(struct sup *s)
{
	struct result *r = s->res;
	int sig = r->term_signal;
	char name[32];

	result_signal_name(sig, name, sizeof(name));
	r->exit_status = 128 + sig;
	/* seccomp only on the kernel's word: a SIGSYS from kill(2) is a signal */
	if (classify_seccomp(s, sig))
		return;
	r->status = ST_SIGNALED;
	if (sig == SIGSYS)
		say(r, "killed by SIGSYS, not by the seccomp filter (the kernel did not "
		       "mark the program's filter as the killer)");
	else if (sig == SIGXCPU && policy_limit(s->pol, LIM_CPU_TIME_MS) != LIMIT_UNLIMITED)
		say(r, "killed by SIGXCPU, not for CPU: the jail's CPU stayed below "
		       "cpu_time_ms (a signal anyone may send)");
	else if (sig == SIGXFSZ)
		say(r, "killed by SIGXFSZ, the signal the kernel sends for a write past "
		       "file_size_mb = %" PRIu64 " (anyone may send it too)",
		    policy_limit(s->pol, LIM_FILE_SIZE_MB));
	else
		say(r, "killed by %s%s", name, r->core_dumped ? " (core dumped)" : "");
}

static void classify_exit(struct sup *s)
{
	struct result *r = s->res;

	if (!s->target_exited) {
		r->status = ST_SETUP_ERROR;
		r->exit_status = 125;
		say(r, "the jail's init ended without reporting the program's exit "
		       "(waitid code %d, status %d)", s->init_code, s->init_status);
		return;
	}
	if (r->term_signal) {
		classify_signal(s);
		return;
	}
	r->status = r->exit_code == 0 ? ST_OK : ST_NONZERO_EXIT;
	r->exit_status = r->exit_code;
	say(r, "exited with code %d", r->exit_code);
}

/* Append FMT to the message, cut at its size. */
static void say_more(struct result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say_more(struct result *r, const char *fmt, ...)
{
	size_t len = strlen(r->message);
	va_list ap;
	int n;

	if (len >= sizeof(r->message) - 1)
		return; /* full: already marked when it was cut */
	va_start(ap, fmt);
	n = vsnprintf(r->message + len, sizeof(r->message) - len, fmt, ap);
	va_end(ap);
	text_mark_cut(r->message, sizeof(r->message), n < 0 ? n : (int)len + n);
}

/* clone3 and openat2 are always refused with ENOSYS and every libc falls
 * back to clone and openat: the refusal is no cause of a failure. */
static bool refused_with_fallback(const struct denied_call *c)
{
	return c->err == ENOSYS && (!strcmp(c->name, "clone3") || !strcmp(c->name, "openat2"));
}

/* The entry of D with the most calls not yet in TAKEN, fallbacks aside. */
static const struct denied_call *most_refused(const struct denied_report *d,
					      const bool taken[DENIED_MAX])
{
	const struct denied_call *best = NULL;

	for (size_t i = 0; i < d->n && i < DENIED_MAX; i++)
		if (!taken[i] && !refused_with_fallback(&d->v[i]) &&
		    (!best || d->v[i].count > best->count))
			best = &d->v[i];
	return best;
}

/* A failed program's refused calls are the likeliest cause, which the
 * message must not leave one key away (a bare "exited with code 1"):
 * the three most refused, the rest counted. */
static void note_denied(struct sup *s)
{
	enum { NAMED = 3 };
	const struct denied_report *d = s->res->denied;
	bool taken[DENIED_MAX] = { false };
	size_t named = 0, causes = 0;
	bool big_alloc = false;

	if (!d || (s->res->status != ST_NONZERO_EXIT && s->res->status != ST_SIGNALED))
		return;
	for (size_t i = 0; i < d->n && i < DENIED_MAX; i++)
		causes += !refused_with_fallback(&d->v[i]);
	if (causes == 0)
		return;
	say_more(s->res, "; refused by the seccomp filter: ");
	for (const struct denied_call *c; named < NAMED && (c = most_refused(d, taken));
	     named++) {
		char err[32] = "killed";

		taken[c - d->v] = true;
		if (c->err)
			denied_errno_name(c->err, err, sizeof(err));
		say_more(s->res, "%s%s (%" PRIu64 "x, %s%s%s)", named ? ", " : "", c->name,
			 c->count, err, c->arg_text[0] ? ", " : "", c->arg_text);
		big_alloc |= c->nr == __NR_mmap && c->err == ENOMEM;
	}
	/* an allocation past RLIMIT_DATA: Python's MemoryError, not a bug */
	if (big_alloc)
		say_more(s->res, " (mmap: more memory at once than one process may hold, "
			 "2 x memory_mb = %" PRIu64 " MiB)", 2 * policy_limit(s->pol, LIM_MEMORY_MB));
	if (causes > NAMED || d->omitted)
		say_more(s->res, " and %zu more (see denied_syscalls)",
			 causes - named + (d->omitted ? 1 : 0));
}

/* A failed program whose tree reached the process limit had forks
 * refused (EAGAIN): "sh: Cannot fork" said it only on the program's
 * stderr.  The cgroup counts the refusals; without one the peak is the
 * evidence. */
static void note_processes(struct sup *s)
{
	struct result *r = s->res;
	uint64_t limit = record_applied_limit(s->pol, LIM_PROCESSES);

	if ((r->status != ST_NONZERO_EXIT && r->status != ST_SIGNALED) ||
	    limit == LIMIT_UNLIMITED)
		return;
	if (r->forks_refused > 0)
		say_more(r, "; the jail reached its process limit (processes = %" PRIu64
			 "): pids.max refused %" PRId64 " fork%s", limit, r->forks_refused,
			 r->forks_refused == 1 ? "" : "s");
	else if (r->forks_refused < 0 && r->processes_peak >= 0 &&
		 (uint64_t)r->processes_peak >= limit)
		say_more(r, "; the jail reached its process limit (processes = %" PRIu64
			 "): forks past it fail (EAGAIN)", limit);
}

/* The refused-syscall report was asked for and could not be had: the
 * record's null says nothing of why, so the message does. */
static void note_no_report(struct sup *s)
{
	if (s->go_sent && !s->req->no_report && !s->res->denied && s->notify.why_none[0])
		say_more(s->res, "; no report of refused system calls (denied_syscalls is "
			 "null): %s", s->notify.why_none);
}

/* What the caller's stops did to the run, which its figures alone hide. */
static void note_stops(struct sup *s)
{
	struct result *r = s->res;

	if (!s->go_sent)
		return;
	if (s->stopped_ns > 0)
		say_more(r, "; held %.0f ms by the caller's stop (not counted against the "
			 "wall limit)", r->stopped_ms);
	if (s->sigstop_seen)
		say_more(r, "; sbx was stopped (SIGSTOP) while the jail ran on, bounded by "
			 "RLIMIT_CPU and %s", s->target_evidence & CTL_EV_WALL_BOUND
				 ? "ended by the jail's init at its own wall bound"
				 : "by the jail's init at the wall limit + kill_grace + 1 s");
}

static void note_copy_errors(struct sup *s)
{
	static const char *const opts[2] = { "--stdout", "--stderr" };

	for (int i = 0; i < 2; i++)
		if (s->out[i].copy_errno)
			say_more(s->res, "; %s %s: write failed: %s", opts[i],
				 i == 0 ? s->req->stdout_copy : s->req->stderr_copy,
				 strerror(s->out[i].copy_errno));
}

/* sbx's own stdout/stderr failed: the record says so (nothing is lost quietly). */
static void note_dest_errors(struct sup *s)
{
	struct result *r = s->res;

	for (int i = 0; i < 2; i++) {
		const struct out_stream *o = &s->out[i];

		if (!o->dest.dead || !o->dest.error)
			continue;
		if (o->reader_gone)
			say_more(r, "; sbx's %s: the reader went away (%s): the program's %s "
				 "was closed, as in a shell pipeline", o->name,
				 strerror(o->dest.error), o->name);
		else
			say_more(r, "; sbx's %s: write failed: %s (%" PRIu64 " of %" PRIu64
				 " bytes delivered)", o->name, strerror(o->dest.error),
				 o->delivered, o->bytes);
	}
}

void sup_classify(struct sup *s)
{
	struct result *r = s->res;
	char name[32];

	cgroup_finish(&s->cg);
	r->cgroup = s->cg.active;
	/* the kernel's own evidence for memory-limit, never a guess */
	r->cgroup_oom = s->cg.active && s->cg.oom_kills > 0;
	fill_measurements(s);
	fill_output(s);
	fill_enforcement(s);
	fill_target(s);
	if (s->abort_sig) {
		result_signal_name(s->abort_sig, name, sizeof(name));
		r->status = ST_ABORTED;
		r->exit_status = 128 + s->abort_sig; /* 130 SIGINT, 143 SIGTERM, 131 SIGQUIT... */
		say(r, "interrupted by %s; the jail was torn down%s", name,
		    s->go_sent ? "" : " before the program started");
	} else if (classify_setup(s)) {
		/* status set */
	} else if (s->exec_failed) {
		classify_exec(s);
	} else if (!classify_limits(s)) {
		classify_exit(s);
	}
	note_denied(s);
	note_no_report(s);
	note_processes(s);
	note_stops(s);
	note_copy_errors(s);
	note_dest_errors(s);
}
