/*
 * deadlines.c - what the supervisor's timer enforces: the setup timeout,
 * the wall deadline, the CPU and memory meter's samples, the kill grace,
 * the exit grace and the output close deadline.  One timerfd is armed at
 * the earliest absolute CLOCK_MONOTONIC deadline (64-bit ns; every check is
 * now >= deadline, so a late wake-up never cancels an escalation).
 */
#include "supervise/internal.h"

#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

/* Drop what is still undelivered (the jail's pipes and the pending tails). */
void sup_give_up_output(struct sup *s)
{
	s->dl_close = 0;
	for (int i = 0; i < 2; i++) {
		out_stream_close_src(&s->out[i], s->epfd);
		relay_abandon(&s->out[i]);
	}
}

/*
 * RLIMIT_DATA bounds each process, not the tree: 64 children of 500 MiB
 * each would take 32 GiB.  The jail's processes together must stay within
 * memory_mb; past it the jail is killed at once.
 */
static void check_memory(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t limit_kib, kib;

	if (mb == LIMIT_UNLIMITED || s->memory_exceeded)
		return;
	limit_kib = (int64_t)mb * 1024;
	kib = cputree_memory_kib(&s->cpu, limit_kib);
	/* page tables grow with no RSS, as fast as a process faults: while
	 * its mappings could take the tree past the limit, sample fast */
	s->memory_near_limit = kib > limit_kib / 2 || s->cpu.tables_read;
	if (kib > limit_kib) {
		s->memory_exceeded = true;
		s->memory_seen_kib = kib;
		vlog_line(&s->vlog, "tree memory %lld KiB > limit %lld KiB",
			  (long long)kib, (long long)limit_kib);
		sup_kill_init(s);
	}
}

/*
 * The files a tree wrote outlive it in the tmpfs: a program that wrote past
 * memory_mb and exited between two samples still holds that memory, so
 * its run is a memory-limit too, however fast it was.
 */
void sup_check_files_at_end(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t kib;

	/* with a cgroup the kernel charged the files to memory.max as written */
	if (mb == LIMIT_UNLIMITED || s->memory_exceeded || s->cg.active || !s->go_sent)
		return;
	kib = cputree_tmpfs_kib(&s->cpu);
	if (kib > (int64_t)mb * 1024) {
		s->memory_exceeded = true;
		s->memory_seen_kib = kib;
		vlog_line(&s->vlog, "tmpfs files %lld KiB at the end > limit %lld KiB",
			  (long long)kib, (long long)mb * 1024);
	}
}

static int64_t own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Fast while the tree churns (short lives between samples go unseen), slow
 * while it is still, and bounded by what the last sample cost us. */
static void next_sample(struct sup *s, int64_t now, int64_t cost_ns)
{
	int64_t next;

	if (s->cpu.churn)
		s->t_churn = now;
	/* a child that dies after the last sample takes its tail with it */
	next = now - s->t_churn < SAMPLE_FAST_FOR_NS ? SAMPLE_MIN_NS : SAMPLE_MAX_NS;
	/* near memory_mb, fast too: a process growing past it must meet the
	 * meter (memory-limit) before its RLIMIT_DATA backstop (an ENOMEM the
	 * record could not attribute) */
	if (s->memory_near_limit)
		next = SAMPLE_MIN_NS;
	if (next < cost_ns * SAMPLE_COST_SHARE)
		next = cost_ns * SAMPLE_COST_SHARE;
	s->sample_ns = next;
	s->dl_cpu = now + next;
}

/*
 * The next sample before the tree, spending CPU as fast as since the last
 * one, could spend the REMAINING_MS left: a sample that cost much (many
 * processes, emulation) pushed the next one out, and 4 busy children under
 * --cpu 1s used 3.2 s in the VM before the meter looked again.  By the
 * rate seen, not by the CPU count: a tree idle near its budget would make
 * the meter spin.
 */
static void sample_before_budget(struct sup *s, int64_t now, int64_t used_ms,
				 int64_t remaining_ms)
{
	int64_t spent_ms = used_ms - s->cpu_sampled_ms, wall_ns = now - s->t_cpu_sampled;
	int64_t by;

	if (s->t_cpu_sampled == 0 || spent_ms <= 0 || wall_ns <= 0)
		return;
	/* at spent_ms per wall_ns, the rest lasts remaining_ms / spent_ms of it */
	by = (int64_t)((double)wall_ns * (double)remaining_ms / (double)spent_ms);
	if (by < SAMPLE_MIN_NS)
		by = SAMPLE_MIN_NS;
	if (now + by < s->dl_cpu)
		s->dl_cpu = now + by;
}

/*
 * With a cgroup the kernel holds the tree to memory.max, but Linux 6.1
 * charges it nothing for netlink replies left unread: 8 x 200 sockets
 * held them with memory.peak at 4.5 MiB under --memory 64M.  Those
 * queues and memory.current together must stay within memory_mb.
 */
static void check_uncharged(struct sup *s)
{
	uint64_t mb = policy_limit(s->pol, LIM_MEMORY_MB);
	int64_t limit_kib, nl, cur;

	if (mb == LIMIT_UNLIMITED || s->memory_exceeded)
		return;
	nl = cputree_uncharged_kib(&s->cpu);
	if (nl <= 0 || (cur = cgroup_memory_kib(&s->cg)) < 0)
		return;
	limit_kib = (int64_t)mb * 1024;
	if (cur + nl > limit_kib) {
		s->memory_exceeded = true;
		s->memory_seen_kib = cur + nl;
		vlog_line(&s->vlog, "cgroup memory %lld KiB + netlink queues %lld KiB > limit %lld KiB",
			  (long long)cur, (long long)nl, (long long)limit_kib);
		sup_kill_init(s);
	}
}

/* The tree's CPU so far: cpu.stat of its cgroup, else the meter's sample. */
int64_t sup_tree_cpu_ms(struct sup *s)
{
	return s->cg.active ? cgroup_cpu_ms(&s->cg) : cputree_sample_ms(&s->cpu);
}

static void check_meter(struct sup *s, int64_t now)
{
	uint64_t budget = policy_limit(s->pol, LIM_CPU_TIME_MS);
	int64_t t0 = own_cpu_ns();
	int64_t used = sup_tree_cpu_ms(s);

	/* with a cgroup the kernel holds the tree to memory.max itself */
	if (used >= 0 && !s->cg.active)
		check_memory(s);
	else if (s->cg.active)
		check_uncharged(s);
	/* the memory check's cost too: smaps_rollup of processes that share
	 * pages after fork() walks their page tables (sbx spun at 90 %) */
	next_sample(s, now, own_cpu_ns() - t0);
	if (used < 0)
		return;
	used -= s->setup_cpu_ms;
	if (budget != LIMIT_UNLIMITED && (uint64_t)used < budget)
		sample_before_budget(s, now, used, (int64_t)budget - used);
	s->cpu_sampled_ms = used;
	s->t_cpu_sampled = now;
	if (budget != LIMIT_UNLIMITED && (uint64_t)used >= budget && !s->cpu_exceeded) {
		s->cpu_exceeded = true;
		/* spent by the first look after a SIGCONT: sbx was stopped (loop.c) */
		if (s->t_cont_unexplained != 0 && now - s->t_cont_unexplained < STOPPED_CONT_NS)
			s->sigstop_seen = true;
		vlog_line(&s->vlog, "tree CPU %lld ms >= budget %llu ms",
			  (long long)used, (unsigned long long)budget);
		sup_term_jail(s, now);
	}
}

static bool due(int64_t deadline, int64_t now)
{
	return deadline != 0 && now >= deadline;
}

void sup_check_deadlines(struct sup *s)
{
	int64_t now = monotonic_ns();

	if (due(s->dl_setup, now)) {
		s->dl_setup = 0;
		s->setup_timed_out = true;
		sup_kill_init(s);
	}
	if (due(s->dl_wall, now)) {
		int64_t deadline = s->dl_wall;
		s->dl_wall = 0;
		sup_drain_ctl(s); /* an exit reported before the deadline wins the race */
		if (!s->target_exited && !s->init_reaped) {
			s->timed_out = true;
			sup_term_jail(s, deadline);
		}
	}
	if (due(s->dl_cpu, now))
		check_meter(s, now);
	if (due(s->dl_kill, now) || due(s->dl_exit_grace, now)) {
		s->dl_kill = s->dl_exit_grace = 0;
		sup_kill_init(s);
	}
	/* a reader that keeps taking bytes is slow, not stalled: it gets them
	 * all (finite: every writer died with the init) */
	bool moved = relay_progressed(&s->out[0]) | relay_progressed(&s->out[1]);
	if (s->dl_close != 0 && moved && s->dl_close < now + SETTLE_MARGIN_NS)
		s->dl_close = now + SETTLE_MARGIN_NS;
	/* a reader that takes nothing until the deadline loses the rest, not the run */
	if (due(s->dl_close, now))
		sup_give_up_output(s);
}

void sup_arm_timer(struct sup *s)
{
	const int64_t all[] = { s->dl_setup, s->dl_wall, s->dl_cpu, s->dl_kill,
				s->dl_exit_grace, s->dl_close, s->out[0].batch_until,
				s->out[1].batch_until };
	struct itimerspec its;
	int64_t next = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (all[i] != 0 && (next == 0 || all[i] < next))
			next = all[i];
	/* the relay loop passes here per chunk: skip a syscall that changes nothing */
	if (next == s->timer_armed)
		return;
	s->timer_armed = next;
	memset(&its, 0, sizeof(its));
	if (next != 0) {
		its.it_value.tv_sec = next / 1000000000;
		its.it_value.tv_nsec = next % 1000000000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	timerfd_settime(s->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}
