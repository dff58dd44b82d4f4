"""phases.py - where one start-up's time goes, for `make bench`.

Two views of `sbx run -q -- /bin/true`:

- the phases sbx logs itself with `-v`: the wall-clock time between the
  landmark lines below, as medians over many runs (breakdown());
- strace's landmarks and syscall summary (timeline(), strace_summary()),
  which perturb the run, so read their proportions, not their times.

`-v` lines carry two clocks: the supervisor's ("sbx: supervise +T", and the
notify thread's, which copies it) starts in supervise_run(); the jail's
("sbx: +T", from jail_spawn() and the init) starts in jail_spawn(), right
after the supervisor logs its cgroup line.  The breakdown puts the jail's
times on the supervisor's clock by adding that line's time (too small by
the few microseconds between the line and jail_spawn()'s clock read).
"""

import os
import re
import statistics
import subprocess
import time

# Only calls made a few times per run: every traced call is a ptrace stop, and
# tracing prctl (sbx makes ~130 of them dropping capabilities) would add ~2 ms.
STRACE_SET = "clone,clone3,fork,vfork,unshare,mount,umount2,pivot_root,seccomp,execve,exit_group"

LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")


def parse_strace(path):
    """[(pid, t, name, args, ret)] from `strace -f -ttt -T -o`, merging resumed calls."""
    events, pending = [], {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError:
        return events
    for line in lines:
        m = LINE.match(line)
        if not m:
            continue
        pid, t, rest = int(m.group(1)), float(m.group(2)), m.group(3)
        if rest.startswith("<..."):
            ev = pending.pop(pid, None)
            if ev:
                ev[4] = rest.rsplit("=", 1)[-1].strip() if "=" in rest else ""
                ev[5] = syscall_ms(rest)
            continue
        mm = re.match(r"^(\w+)\((.*)$", rest)
        if not mm:
            continue
        ev = [pid, t, mm.group(1), mm.group(2), "", syscall_ms(rest)]
        if rest.endswith("<unfinished ...>"):
            pending[pid] = ev
        elif "=" in rest:
            ev[4] = rest.rsplit(") =", 1)[-1].strip()
        events.append(ev)
    return events


def syscall_ms(rest):
    """The time strace -T says the call took, in ms (None when not shown)."""
    m = re.search(r"<(\d+\.\d+)>$", rest)
    return round(float(m.group(1)) * 1e3, 3) if m else None


def timeline(events):
    """Landmarks of one start-up and the phases between them, in ms from sbx's exec."""
    if not events:
        return None
    t0, sup = events[0][1], events[0][0]
    marks = []

    def mark(name, pred, after=0.0):
        for ev in events:
            if ev[1] >= after and pred(ev):
                marks.append((name, ev[1]))
                return ev[1]
        return after

    ns_clone = lambda e: e[0] == sup and e[2] in ("clone", "clone3", "unshare") and "CLONE_NEW" in e[3]
    t = mark("jail clone", ns_clone)
    t = mark("first mount in jail", lambda e: e[2] == "mount" and e[0] != sup, t)
    t = mark("pivot_root", lambda e: e[2] == "pivot_root", t)
    mounts = [e for e in events if e[2] in ("mount", "umount2") and e[0] != sup]
    if mounts:
        marks.append(("last mount/umount", mounts[-1][1]))
    t = mark("target fork (waits for GO)", lambda e: e[0] != sup and e[2] in ("clone", "clone3", "fork", "vfork")
             and "CLONE_NEW" not in e[3], t)
    t = mark("seccomp filter load", lambda e: (e[2] == "seccomp" and "SET_MODE_FILTER" in e[3])
             or (e[2] == "prctl" and "PR_SET_SECCOMP" in e[3]), t)
    target = [e for e in events if e[2] in ("execve", "execveat") and e[0] != sup]
    if target:
        marks.append(("target execve", target[-1][1]))
        tp = target[-1][0]
        ex = [e for e in events if e[0] == tp and e[2] == "exit_group"]
        if ex:
            marks.append(("target exit_group", ex[-1][1]))
    end = [e for e in events if e[0] == sup]
    marks.append(("sbx exits", end[-1][1]))
    marks.sort(key=lambda x: x[1])
    out, prev = [], ("sbx execve", t0)
    for name, tm in marks:
        out.append({"from": prev[0], "to": name, "ms": round((tm - prev[1]) * 1e3, 3)})
        prev = (name, tm)
    mounts_n = len([e for e in events if e[2] == "mount"])
    clones = [e for e in events if ns_clone(e)]
    return {"total_ms": round((events[-1][1] - t0) * 1e3, 3), "mount_calls": mounts_n,
            "jail_clone_syscall_ms": clones[0][5] if clones else None,
            "mount_syscalls_ms": round(sum(e[5] or 0 for e in events if e[2] == "mount"), 3),
            "phases": out, "note": "strace --seccomp-bpf stops only on the traced syscalls; each stop "
            "adds tens of microseconds, so read proportions, not absolute times"}




def strace_timeline(strace, sbx, tmp):
    """Best of 5 traced runs (least perturbed) as landmark times in ms."""
    best = None
    for _ in range(5):
        out = os.path.join(tmp, "strace.txt")
        subprocess.run([strace, "-f", "-ttt", "-T", "--seccomp-bpf", "-o", out,
                        "-e", "trace=" + STRACE_SET, sbx, "run", "-q", "--", "/bin/true"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        tl = timeline(parse_strace(out))
        if tl and (best is None or tl["total_ms"] < best["total_ms"]):
            best = tl
    return best


def strace_summary(strace, sbx, tmp):
    """The 12 syscalls that took longest in one `strace -f -c -w` run."""
    out = os.path.join(tmp, "strace-c.txt")
    subprocess.run([strace, "-f", "-c", "-w", "-o", out, sbx, "run", "-q", "--",
                    "/bin/true"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = []
    with open(out) as f:
        for line in f:
            p = line.split()
            if len(p) >= 5 and re.match(r"^\d+\.\d+$", p[0]) and p[-1] != "total":
                rows.append({"syscall": p[-1], "pct_time": float(p[0]), "seconds": float(p[1]),
                             "calls": int(p[3])})
    waits = {"epoll_wait", "epoll_pwait", "poll", "ppoll", "wait4", "waitid", "read", "recvmsg",
             "recvfrom", "select", "pselect6"}
    for r in rows:
        r["may_block"] = r["syscall"] in waits
    return sorted(rows, key=lambda r: -r["seconds"])[:12]


# ----- sbx run -v ------------------------------------------------------------

VERBOSE = re.compile(r"sbx: (supervise |notify )?\+(\d+(?:\.\d+)?)ms (.*?)(?=sbx: |\n|$)")

# (phase, whose clock logs its end, the lines that may end it (re.match), and
# whether the first or the last of them does); a phase runs from the end of
# the one before, the first from sbx's clock start.  "clone + maps" ends at
# the parent's line or the init's first one, whichever is first: both come
# after the parent wakes the init, and either may be descheduled then.
# CTL_READY has no line of its own: the init sends it after pivot_root, and
# the supervisor logs "workspace ready" once it has it and has filled the
# workspace.  A mark earlier than the one before (lines of two processes)
# counts as that one: phases are never negative and add up to the total.
PHASES = [
    ("pre-clone", "jail", r"seccomp refusals|binds cloned", "last"),
    ("clone + maps", "jail", r"clone \+ uid/gid maps|root tmpfs", "first"),
    ("mounts", "jail", r"mount ", "last"),
    ("/etc", "jail", r"synthesized /etc", "last"),
    ("pivot_root", "jail", r"pivot_root done", "last"),
    ("pivot_root -> workspace ready", "supervise", r"workspace ready", "last"),
    ("workspace ready -> GO", "supervise", r"CTL_GO sent", "last"),
    ("GO -> target", "jail", r"target started", "last"),
    ("target -> reaped", "supervise", r"init reaped", "last"),
    ("reaped -> report", "supervise", r"\d+ notifications answered", "last"),
]
OPTIONAL = {"reaped -> report"}  # no such line under --no-syscall-report
# Beside the chain: the init finishes the jail (hostname, quotas) after
# READY while the supervisor fills the workspace; it waits for GO after.
BESIDE = [("beside: init pivot_root -> jail ready", r"pivot_root done", r"jail ready")]


def parse_verbose(text):
    """Steps of `sbx run -v` as [{t_ms, who, step}] in the order printed; who is
    "supervise" (the supervisor's clock, notify included) or "jail".  Lines
    from the supervisor and the jail's init may interleave mid-line."""
    steps = [{"t_ms": float(m.group(2)), "who": "supervise" if m.group(1) else "jail",
              "step": m.group(3).strip()} for m in VERBOSE.finditer(text)]
    orphans = [ln.strip() for ln in text.splitlines() if ln.strip() and "sbx: " not in ln]
    for st in steps:
        if not st["step"] and orphans:
            st["step"] = orphans.pop(0)
    return steps


def phase_times(steps):
    """({phase: ms}, end of the last phase in ms, [phases with no line]) of one run,
    on the supervisor's clock (see the module comment)."""
    cg = [s["t_ms"] for s in steps if s["who"] == "supervise" and "cgroup" in s["step"]]
    offset = cg[0] if cg else 0.0
    at = lambda who, line: [s["t_ms"] + (offset if who == "jail" else 0.0) for s in steps
                            if s["who"] == who and re.match(line, s["step"])]
    out, missing, prev = {}, [], 0.0
    for name, who, line, which in PHASES:
        hits = at(who, line)
        if not hits:
            out[name] = None
            missing += [] if name in OPTIONAL else [name]
            continue
        t = max(prev, min(hits) if which == "first" else hits[-1])
        out[name] = round(t - prev, 4)
        prev = t
    for name, a, b in BESIDE:
        ta, tb = at("jail", a), at("jail", b)
        out[name] = round(tb[-1] - ta[-1], 4) if ta and tb else None
    return out, prev, missing + ([] if cg else ["(no cgroup line: the clocks are not aligned)"])


def wall_ms(argv):
    """(wall ms of one run of ARGV, its stderr)."""
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return (time.perf_counter() - t0) * 1e3, p.stderr


def breakdown(sbx, runs):
    """Medians over RUNS of `sbx run -v -q -- /bin/true`'s phases, and of the time
    outside the log (exec, link and parse before sbx's clock starts, and the exit
    after the init is reaped), beyond a bare /bin/true started the same way."""
    names = [n for n, *_ in PHASES] + [n for n, *_ in BESIDE]
    per, ends, walls, bare, missing, raw = {n: [] for n in names}, [], [], [], set(), ""
    for _ in range(runs):
        bare.append(wall_ms(["/bin/true"])[0])
        wall, err = wall_ms([sbx, "run", "-v", "-q", "--", "/bin/true"])
        times, end, miss = phase_times(parse_verbose(err))
        missing.update(miss)
        raw = raw or err
        for name, v in times.items():
            if v is not None:
                per[name].append(v)
        ends.append(end)
        walls.append(wall - end)
    med = lambda xs: round(statistics.median(xs), 4) if xs else None
    rows = [{"phase": n, "median_ms": med(per[n]), "min_ms": round(min(per[n]), 4) if per[n] else None}
            for n in names]
    outside = med(walls)
    rows.append({"phase": "outside the log, beyond a bare /bin/true", "median_ms":
                 round(outside - statistics.median(bare), 4), "min_ms": None})
    return {"runs": runs, "phases": rows, "logged_total_median_ms": med(ends),
            "wall_median_ms": round(statistics.median(w + e for w, e in zip(walls, ends)), 4),
            "bare_wall_median_ms": med(bare), "missing": sorted(missing),
            "raw": raw.strip().splitlines()[:60],
            "how": "medians over runs of `sbx run -v -q -- /bin/true`, each phase the time "
                   "between two -v lines (bench/phases.py PHASES); -v's own writes are included"}
