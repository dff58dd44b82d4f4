#!/usr/bin/env python3
"""bench.py - the measurements behind `make bench` (driven by bench/run.sh).

Runs every item of issue 8 on this machine, in this run: start-up latency
(sbx, bare, unshare, bwrap), language start-up, throughput of many runs,
output relay, supervisor memory, and a phase breakdown of one start-up;
and of issue 18: the cost of reporting refused syscalls (the notification
round trip, 1,000,000 refused calls with and without the report, peak RSS),
and start-up against another sbx (SBX_BASE, e.g. a build of main).
Prints a table and writes a JSON file.  A tool that is missing, or an sbx
that does not run yet, becomes a "skipped" item with a note: never silent.

usage: bench.py --sbx PATH --helpers DIR --out FILE [--quick]
       bench.py --markdown FILE      (render a results file as a README table)
"""

import argparse
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BWRAP_ARGS = ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
              "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
              "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
              "--tmpfs", "/tmp"]
GIB = 1 << 30
# Only calls made a few times per run: every traced call is a ptrace stop, and
# tracing prctl (sbx makes ~130 of them dropping capabilities) would add ~2 ms.
STRACE_SET = "clone,clone3,fork,vfork,unshare,mount,umount2,pivot_root,seccomp,execve,exit_group"


class Bench:
    """Holds the configuration and the growing results of one run."""

    def __init__(self, args):
        self.sbx = os.path.abspath(args.sbx)
        self.helpers = args.helpers
        self.quick = args.quick
        self.tmp = tempfile.mkdtemp(prefix="sbx-bench-")
        self.tools = {name: shutil.which(name) for name in
                      ("hyperfine", "bwrap", "unshare", "taskset", "strace", "seq", "xargs")}
        self.tools["time"] = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None
        self.bpf = os.path.join(self.helpers, "filter.bpf")
        if not os.path.exists(self.bpf):
            self.bpf = None
        self.base = os.path.abspath(args.base) if args.base else None
        self.res = {"meta": self.meta(), "skipped": [], "startup": {}, "language": {},
                    "throughput": {}, "relay": {}, "memory": {}, "meter": {}, "phases": {},
                    "denials": {}, "ratios": {}, "floors": {}}
        self.sbx_ok, self.sbx_note = self.probe_sbx()
        self.res["kernel_floor"] = self.kernel_floor()

    def kernel_floor(self):
        """clone()+waitpid() medians per namespace set, from the nsfloor helper."""
        try:
            with open(os.path.join(self.helpers, "nsfloor.json")) as f:
                return dict(json.load(f), unit="ms", how="C loop of clone()+waitpid(), 200 runs")
        except (OSError, ValueError):
            self.skip("kernel_floor", "nsfloor helper could not be built or run")
            return None

    # ----- environment -------------------------------------------------

    def meta(self):
        uid = os.getuid()
        try:
            import pwd
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            user = str(uid)
        return {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "user": user, "uid": uid,
                "root": uid == 0, "kernel": platform.release(), "cpus": os.cpu_count(),
                "sbx": self.sbx, "sbx_version": self.version([self.sbx, "--version"]),
                "bwrap_version": self.version(["bwrap", "--version"]),
                "hyperfine_version": self.version(["hyperfine", "--version"]),
                "quick": self.quick, "loadavg_start": os.getloadavg()[0],
                "command": "make bench  (= sh bench/run.sh)"}

    @staticmethod
    def version(argv):
        try:
            out = subprocess.run(argv, capture_output=True, text=True, timeout=10)
            return (out.stdout or out.stderr).strip().splitlines()[0] if out.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired, IndexError):
            return None

    def probe_sbx(self):
        """sbx counts only if `sbx run -q -- /bin/true` exits 0."""
        if not os.access(self.sbx, os.X_OK):
            return False, f"{self.sbx} is not an executable (run `make` first)"
        try:
            out = subprocess.run([self.sbx, "run", "-q", "--", "/bin/true"],
                                 capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            return False, "`sbx run -q -- /bin/true` did not finish in 30 s"
        if out.returncode != 0:
            err = out.stderr.strip().splitlines()
            return False, (f"`sbx run -q -- /bin/true` exited {out.returncode}: "
                           + (err[-1][:300] if err else "no message"))
        return True, None

    def skip(self, item, note):
        self.res["skipped"].append({"item": item, "note": note})
        print(f"  skipped {item}: {note}", file=sys.stderr)

    def need(self, item, *tools, sbx=False):
        """True when every tool (and sbx, if asked) is there; else record a skip."""
        for t in tools:
            if not self.tools.get(t):
                self.skip(item, f"{t} is not installed")
                return False
        if sbx and not self.sbx_ok:
            self.skip(item, "sbx does not run: " + self.sbx_note)
            return False
        return True

    def runs(self, n):
        return max(3, n // 10) if self.quick else n

    # ----- hyperfine ---------------------------------------------------

    def hyperfine(self, label, cmd, runs, warmup, shell=False, setup_check=True):
        """Time CMD (argv list, or a shell string with shell=True); stats in ms."""
        raw = self.hyperfine_raw(label, cmd, runs, warmup, shell, setup_check)
        return self.stats(*raw) if raw else None

    def hyperfine_raw(self, label, cmd, runs, warmup, shell=False, setup_check=True):
        """(times in s, mean user s, mean system s) of RUNS runs, or None (a skip)."""
        if setup_check and not self.check_runs(label, cmd, shell):
            return None
        out = os.path.join(self.tmp, "hf.json")
        argv = [self.tools["hyperfine"], "--style", "none", "--export-json", out,
                "--warmup", str(warmup), "--runs", str(runs)]
        if not shell:
            argv += ["-N", " ".join(shlex.quote(a) for a in cmd)]
        else:
            argv += [cmd]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            self.skip(label, "hyperfine failed: " + proc.stderr.strip()[-300:])
            return None
        with open(out) as f:
            r = json.load(f)["results"][0]
        return r["times"], r["user"], r["system"]

    def check_runs(self, label, cmd, shell):
        """Run CMD once; a command that fails is a skip with its message, not a number."""
        proc = subprocess.run(cmd, shell=shell, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            self.skip(label, f"exits {proc.returncode}: " + proc.stderr.strip()[-300:])
            return False
        return True

    @staticmethod
    def stats(times_s, user_s=None, system_s=None):
        ms = sorted(t * 1e3 for t in times_s)
        q = lambda p: ms[min(len(ms) - 1, int(p * len(ms)))]
        st = {"unit": "ms", "runs": len(ms), "median": round(statistics.median(ms), 4),
              "mean": round(statistics.fmean(ms), 4),
              "stddev": round(statistics.stdev(ms), 4) if len(ms) > 1 else 0.0,
              "min": round(ms[0], 4), "max": round(ms[-1], 4),
              "p10": round(q(0.10), 4), "p90": round(q(0.90), 4)}
        if user_s is not None:
            st["cpu_user_ms"], st["cpu_sys_ms"] = round(user_s * 1e3, 4), round(system_s * 1e3, 4)
        return st

    def interleaved(self, items, runs, warmup, rounds=4):
        """Time several commands in alternating rounds, so load that comes and goes
        (other jobs on a 2-CPU box) hits them all alike; {key: stats}."""
        acc = {key: ([], [], []) for key, _, _ in items}
        live = [(k, c, sh) for k, c, sh in items if self.check_runs("startup." + k, c, sh)]
        per = max(2, runs // rounds)
        for _ in range(rounds):
            for key, cmd, shell in list(live):
                raw = self.hyperfine_raw("startup." + key, cmd, per, warmup, shell, False)
                if raw is None:
                    live = [x for x in live if x[0] != key]
                    continue
                acc[key][0].extend(raw[0])
                acc[key][1].append(raw[1])
                acc[key][2].append(raw[2])
        return {k: self.stats(t, statistics.fmean(u), statistics.fmean(y))
                for k, (t, u, y) in acc.items() if t and k in [x[0] for x in live]}

    # ----- 1. start-up -------------------------------------------------

    def bwrap_cmd(self, argv, seccomp):
        base = [self.tools["bwrap"]] + BWRAP_ARGS
        if not seccomp:
            return base + argv
        words = base + ["--seccomp", "9"] + argv
        return " ".join(shlex.quote(w) for w in words) + " 9< " + shlex.quote(self.bpf)

    def startup(self):
        print("1. start-up latency", file=sys.stderr)
        items = [("bare", ["/bin/true"], False)]
        if self.need("startup.unshare", "unshare"):
            items.append(("unshare", [self.tools["unshare"], "-Urmpfiun", "--mount-proc", "/bin/true"], False))
        if self.need("startup.bwrap", "bwrap"):
            items.append(("bwrap", self.bwrap_cmd(["/bin/true"], False), False))
            if self.bpf:
                items.append(("bwrap_seccomp", self.bwrap_cmd(["/bin/true"], True), True))
            else:
                self.skip("startup.bwrap_seccomp", "no BPF filter (bpfgen could not be built)")
        if self.need("startup.sbx", sbx=True):
            items += [("sbx_version", [self.sbx, "--version"], False),
                      ("sbx", [self.sbx, "run", "-q", "--", "/bin/true"], False),
                      ("sbx_no_report", [self.sbx, "run", "-q", "--no-syscall-report", "--",
                                         "/bin/true"], False),
                      ("sbx_net_host", [self.sbx, "run", "-q", "--net", "host", "--", "/bin/true"], False)]
            if self.base:
                items.append(("sbx_base", [self.base, "run", "-q", "--", "/bin/true"], False))
            else:
                self.skip("startup.sbx_base", "no SBX_BASE given (a build of main to compare with)")
        rows = self.interleaved(items, self.runs(200), self.runs(20) if self.quick else 5)
        if rows.get("bwrap_seccomp"):
            rows["bwrap_seccomp"]["note"] = ("run through sh to open the filter fd; hyperfine "
                                             "subtracts the measured shell start-up")
        self.res["startup"] = rows

    # ----- 2. language start-up ------------------------------------------

    def language(self):
        print("2. language start-up", file=sys.stderr)
        hello = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hello.py")
        n, w = self.runs(50), self.runs(5)
        rows = self.res["language"]
        rows["bare_python3"] = self.hyperfine("language.bare_python3", ["/usr/bin/python3", hello], n, w)
        if self.need("language.sbx_py", sbx=True):
            rows["sbx_py"] = self.hyperfine("language.sbx_py", [
                self.sbx, "run", "-q", "--lang", "py", hello], n, w)

    # ----- 3. throughput -------------------------------------------------

    def throughput(self):
        print("3. throughput (200 runs)", file=sys.stderr)
        if not self.need("throughput", "seq", "xargs"):
            return
        cmds = {"bare": "/bin/true"}
        if self.tools["bwrap"]:
            cmds["bwrap"] = " ".join(shlex.quote(a) for a in self.bwrap_cmd(["/bin/true"], False))
            if self.bpf:
                cmds["bwrap_seccomp"] = "sh -c " + shlex.quote("exec " + self.bwrap_cmd(["/bin/true"], True))
        else:
            self.skip("throughput.bwrap", "bwrap is not installed")
        if self.need("throughput.sbx", sbx=True):
            cmds["sbx"] = shlex.quote(self.sbx) + " run -q -- /bin/true"
        for par in (2, 8):
            for name, cmd in cmds.items():
                self.throughput_one(f"p{par}", name, cmd, par)

    def throughput_one(self, key, name, cmd, par):
        total = 200
        line = f"seq {total} | xargs -P {par} -I{{}} {cmd}"
        st = self.hyperfine(f"throughput.{key}.{name}", line, self.runs(10) if not self.quick else 2,
                            1, shell=True)
        if st:
            st["runs_per_s"] = round(total / (st["median"] / 1e3), 1)
            st["parallel"], st["jobs"] = par, total
            if name == "bwrap_seccomp":
                st["note"] = "each run goes through `sh -c exec` to open the filter fd"
        self.res["throughput"].setdefault(key, {})[name] = st

    # ----- 4. output relay -----------------------------------------------

    def relay(self):
        print("4. output relay (1 GiB, pinned to CPU 0)", file=sys.stderr)
        if not self.need("relay", "taskset"):
            return
        n = self.runs(10) if not self.quick else 2
        rows = self.res["relay"]
        bare = [self.tools["taskset"], "-c", "0", "sh", "-c", "head -c 1G /dev/zero | cat"]
        rows["bare_pipe"] = self.mbps(self.hyperfine("relay.bare_pipe", bare, n, 1))
        if self.need("relay.sbx", sbx=True) and self.relay_valid():
            rows["sbx"] = self.mbps(self.hyperfine("relay.sbx", self.relay_cmd(), n, 1,
                                                   setup_check=False))

    def relay_cmd(self, result=None):
        cmd = [self.tools["taskset"], "-c", "0", self.sbx, "run", "-q", "--output", "2G",
               "--time", "120s"]
        if result:
            cmd += ["--result", result]
        return cmd + ["--", "head", "-c", "1G", "/dev/zero"]

    def relay_valid(self):
        """One run with a record: all 1 GiB must have been relayed, status ok."""
        rec = os.path.join(self.tmp, "relay-record.json")
        proc = subprocess.run(self.relay_cmd(rec), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        try:
            with open(rec) as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            self.skip("relay.sbx", f"exit {proc.returncode}, no readable record ({e}): "
                      + proc.stderr.strip()[-200:])
            return False
        if r.get("status") != "ok" or r.get("stdout_bytes") != GIB:
            self.skip("relay.sbx", f"status {r.get('status')}, stdout_bytes {r.get('stdout_bytes')}: "
                      + str(r.get("message")))
            return False
        return True

    @staticmethod
    def mbps(st):
        if st:
            st["MB_per_s"] = round(GIB / 1e6 / (st["median"] / 1e3), 1)
            st["bytes"] = GIB
        return st

    # ----- 5. supervisor memory ------------------------------------------

    def memory(self):
        print("5. supervisor peak RSS", file=sys.stderr)
        peak = os.path.join(self.helpers, "peakrss")
        if not os.access(peak, os.X_OK):
            self.skip("memory", "peakrss helper could not be built")
            return
        rows = self.res["memory"]
        rows["bare_true"] = self.peak(peak, ["/bin/true"])
        if self.tools["bwrap"]:
            rows["bwrap"] = self.peak(peak, self.bwrap_cmd(["/bin/true"], False))
        if self.need("memory.sbx", sbx=True):
            rows["sbx_true"] = self.peak(peak, [self.sbx, "run", "-q", "--", "/bin/true"])
            if self.tools["taskset"]:
                rows["sbx_relay_1g"] = self.peak(peak, self.relay_cmd(), runs=3)
            if self.tools["time"]:
                rows["sbx_true_time_v"] = self.time_v([self.sbx, "run", "-q", "--", "/bin/true"])
        if self.tools["time"]:
            rows["bare_true_time_v"] = self.time_v(["/bin/true"])
        else:
            self.skip("memory.time_v", "/usr/bin/time is not installed (Debian package `time`)")

    def peak(self, helper, cmd, runs=5):
        """Max over RUNS of the process's own VmHWM at exit, and of wait4's tree max."""
        out = os.path.join(self.tmp, "peak.json")
        selfs, trees = [], []
        for _ in range(runs):
            subprocess.run([helper, out] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(out) as f:
                r = json.load(f)
            if r["exit"] != 0:
                return {"unit": "KiB", "error": f"exited {r['exit']} under peakrss"}
            selfs.append(r["self_hwm_kib"])
            trees.append(r["tree_maxrss_kib"])
        return {"unit": "KiB", "self_peak_kib": max(selfs), "self_median_kib": statistics.median(selfs),
                "tree_maxrss_kib": max(trees), "runs": runs,
                "how": "VmHWM of this process at its exit (ptrace exit stop); tree = wait4 ru_maxrss"}

    def time_v(self, cmd):
        proc = subprocess.run([self.tools["time"], "-v"] + cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
        return {"unit": "KiB", "max_rss_kib": int(m.group(1)) if m else None,
                "how": "/usr/bin/time -v: max over the process and every descendant it reaped"}

    # ----- 6. phases -----------------------------------------------------

    def phases(self):
        print("6. where the time goes", file=sys.stderr)
        if not self.need("phases", sbx=True):
            return
        ph = self.res["phases"]
        ph["verbose_log"] = self.verbose_log()
        if self.need("phases.strace", "strace"):
            ph["strace_timeline"] = self.strace_timeline()
            ph["strace_summary"] = self.strace_summary()

    def verbose_log(self):
        """`sbx run -v` of the best of 5 runs: raw lines and the steps sorted by time."""
        best = None
        for _ in range(5):
            proc = subprocess.run([self.sbx, "run", "-v", "-q", "--", "/bin/true"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            steps = parse_verbose(proc.stderr)
            if best is None or (steps and steps[-1]["t_ms"] < best[1][-1]["t_ms"]):
                best = (proc.stderr, steps)
        return {"raw": best[0].strip().splitlines()[:80], "steps": best[1]}

    def strace_timeline(self):
        """Best of 5 traced runs (least perturbed) as landmark times in ms."""
        best = None
        for _ in range(5):
            out = os.path.join(self.tmp, "strace.txt")
            subprocess.run([self.tools["strace"], "-f", "-ttt", "-T", "--seccomp-bpf", "-o", out,
                            "-e", "trace=" + STRACE_SET, self.sbx, "run", "-q", "--", "/bin/true"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            tl = timeline(parse_strace(out))
            if tl and (best is None or tl["total_ms"] < best["total_ms"]):
                best = tl
        return best

    def strace_summary(self):
        out = os.path.join(self.tmp, "strace-c.txt")
        subprocess.run([self.tools["strace"], "-f", "-c", "-w", "-o", out, self.sbx, "run", "-q", "--",
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

    # ----- ratios and floors ----------------------------------------------

    def derive(self):
        s, t, r, m = (self.res[k] for k in ("startup", "throughput", "relay", "memory"))
        med = lambda row: row["median"] if row else None
        ratio = lambda a, b: round(a / b, 3) if a and b else None
        sbx = med(s.get("sbx"))
        self.res["ratios"] = {
            "startup_sbx_over_bwrap_seccomp": ratio(sbx, med(s.get("bwrap_seccomp"))),
            "startup_sbx_over_bwrap": ratio(sbx, med(s.get("bwrap"))),
            "startup_sbx_over_bare": ratio(sbx, med(s.get("bare"))),
            "startup_sbx_net_host_over_sbx": ratio(med(s.get("sbx_net_host")), sbx),
            "language_sbx_over_bare": ratio(med(self.res["language"].get("sbx_py")),
                                            med(self.res["language"].get("bare_python3"))),
            "relay_sbx_over_bare": ratio((r.get("sbx") or {}).get("MB_per_s"),
                                         (r.get("bare_pipe") or {}).get("MB_per_s")),
            "refusals_report_over_no_report": ratio(med(self.res["denials"].get("sbx_report")),
                                                    med(self.res["denials"].get("sbx_no_report"))),
        }
        # the bound of any design that sees every refused call: the round
        # trip's CPU alone against the kernel's answer, with no waiting at all
        rt = self.res["denials"].get("round_trip") or {}
        k, n = rt.get("in_kernel_cpu_ns"), rt.get("notify_sync_wake_cpu_ns")
        self.res["ratios"]["refusal_round_trip_cpu_over_in_kernel"] = (
            round((k + n) / k, 3) if isinstance(k, (int, float)) and k > 0 and n and n > 0 else None)
        for key, rows in t.items():
            self.res["ratios"][f"throughput_{key}_sbx_over_bwrap"] = ratio(
                (rows.get("sbx") or {}).get("runs_per_s"), (rows.get("bwrap_seccomp") or {}).get("runs_per_s"))
        self.floors(sbx, med(s.get("bwrap_seccomp")), m)

    def floors(self, sbx, bw, m):
        rel = self.res["ratios"]["relay_sbx_over_bare"]
        rss = [(m.get(k) or {}).get("self_peak_kib") for k in ("sbx_true", "sbx_relay_1g")]
        rss = [x for x in rss if x]
        verdict = lambda ok: None if ok is None else ("met" if ok else "missed")
        base = (self.res["startup"].get("sbx_base") or {}).get("median")
        hammer = self.res["ratios"]["refusals_report_over_no_report"]
        refusing, usual = ((m.get(k) or {}).get("self_peak_kib") for k in ("sbx_refusing_1m", "sbx_true"))
        self.res["floors"] = {
            "startup_at_or_below_bwrap": verdict(sbx <= bw if sbx and bw else None),
            "startup_goal_0.6x_bwrap": verdict(sbx <= 0.6 * bw if sbx and bw else None),
            "relay_at_least_80pct_of_bare": verdict(rel >= 0.8 if rel else None),
            "supervisor_peak_rss_under_4MiB": verdict(max(rss) < 4096 if rss else None),
            "startup_within_0.1ms_of_base": verdict(sbx - base <= 0.1 if sbx and base else None),
            "refusals_1m_within_5x_of_no_report": verdict(hammer <= 5 if hammer else None),
            "refusing_peak_rss_within_1MiB_of_usual": verdict(
                refusing - usual <= 1024 if refusing and usual else None),
        }

    # ----- 6. the tree meter's own CPU -----------------------------------

    def meter(self):
        """Supervisor CPU (sbx's own utime+stime, not its children's) over 5 s
        while the jail holds N processes, still or churning (issue 12)."""
        print("6. tree meter cost", file=sys.stderr)
        if not self.need("meter", sbx=True):
            return
        for n in ((10, 1000) if not self.quick else (10, 200)):
            for churn in (False, True):
                key = f"{n}_procs_{'churn' if churn else 'still'}"
                self.res["meter"][key] = self.meter_once(n, churn)

    def meter_once(self, n, churn, hold_s=5.0):
        script = (f"i=0; while [ $i -lt {n} ]; do sleep 60 & i=$((i+1)); done; "
                  + ("while :; do /bin/true; done & " if churn else "")
                  + f"echo ready; sleep {hold_s + 2}")
        cmd = [self.sbx, "run", "-q", "--pids", str(n + 64), "--cpu", "600s",
               "--memory", "16G", "--time", "120s", "--", "/bin/sh", "-c", script]
        tick = os.sysconf("SC_CLK_TCK")

        def own_cpu(pid):
            with open(f"/proc/{pid}/stat") as f:
                t = f.read().rsplit(")", 1)[1].split()
            return (int(t[11]) + int(t[12])) / tick

        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            if p.stdout.readline().strip() != "ready":
                return {"error": "the jail did not start its processes"}
            t0, c0 = time.monotonic(), own_cpu(p.pid)
            time.sleep(hold_s)
            c1, t1 = own_cpu(p.pid), time.monotonic()
        finally:
            p.wait(timeout=120)
        return {"processes": n, "churn": churn, "supervisor_cpu_pct": round(100 * (c1 - c0) / (t1 - t0), 2),
                "seconds": round(t1 - t0, 2)}

    # ----- 7. refused syscalls (issue 18) --------------------------------

    def denials(self):
        """The report's cost: the kernel's round trip for a notification, and a
        program making N refused calls under sbx with and without the report."""
        print("7. refused syscalls: the report's cost", file=sys.stderr)
        rt, loop = (os.path.join(self.helpers, h) for h in ("notifyrt", "keyloop"))
        rows = self.res["denials"]
        if os.access(rt, os.X_OK):
            r = subprocess.run([rt, "20000" if self.quick else "200000"], capture_output=True, text=True)
            rows["round_trip"] = json.loads(r.stdout) if r.returncode == 0 else {"error": r.stderr[:200]}
        else:
            self.skip("denials.round_trip", "notifyrt helper could not be built")
        if not os.access(loop, os.X_OK) or not self.need("denials.sbx", sbx=True):
            self.skip("denials.sbx", "keyloop helper could not be built") if self.sbx_ok else None
            return
        n = 100000 if self.quick else 1000000
        cmd = lambda *opt: [self.sbx, "run", "-q", "--time", "1800s", "--cpu", "1800s", *opt,
                            "-b", f"{self.helpers}:/h", "--", "/h/keyloop", str(n)]
        times = {"report": [], "no_report": []}
        for _ in range(2 if self.quick else 3):
            for key, c in (("report", cmd()), ("no_report", cmd("--no-syscall-report"))):
                t0 = time.monotonic()
                p = subprocess.run(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if p.returncode != 0:
                    rows[key] = {"error": f"sbx exited {p.returncode}"}
                    return
                times[key].append(time.monotonic() - t0)
        for key, t in times.items():
            rows[f"sbx_{key}"] = dict(self.stats(t), calls=n)
        per = (rows["sbx_report"]["median"] - rows["sbx_no_report"]["median"]) / n * 1e3
        rows["sbx_report"]["extra_us_per_refusal"] = round(per, 3)
        peak = os.path.join(self.helpers, "peakrss")
        if os.access(peak, os.X_OK):
            self.res["memory"]["sbx_refusing_1m"] = self.peak(peak, cmd(), runs=1 if self.quick else 2)

    def run_all(self):
        for step in (self.startup, self.language, self.throughput, self.relay, self.memory,
                     self.meter, self.phases, self.denials):
            step()
        self.derive()
        self.res["meta"]["loadavg_end"] = os.getloadavg()[0]
        return self.res


# ----- strace parsing ------------------------------------------------------

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


VERBOSE = re.compile(r"sbx: (supervise )?\+(\d+(?:\.\d+)?)ms (.*?)(?=sbx: |\n|$)")


def parse_verbose(text):
    """Steps of `sbx run -v` as [{t_ms, who, step, delta_ms}], sorted by time.
    Lines from the supervisor and the jail's init may interleave mid-line."""
    steps = [{"t_ms": float(m.group(2)), "who": "supervise" if m.group(1) else "spawn/init",
              "step": m.group(3).strip()} for m in VERBOSE.finditer(text)]
    orphans = [ln.strip() for ln in text.splitlines() if ln.strip() and "sbx: " not in ln]
    for st in steps:
        if not st["step"] and orphans:
            st["step"] = orphans.pop(0)
    steps.sort(key=lambda x: x["t_ms"])
    prev = 0.0
    for st in steps:
        st["delta_ms"] = round(st["t_ms"] - prev, 3)
        prev = st["t_ms"]
    return steps


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


# ----- output ----------------------------------------------------------------

def fmt(v, unit=""):
    return "-" if v is None else f"{v:.2f}{unit}" if isinstance(v, float) else f"{v}{unit}"


def table_rows(res):
    """(section, item, value, spread) rows shared by the text and markdown tables."""
    rows = []
    lat = lambda row: (fmt(row["median"], " ms"), f"sd {row['stddev']:.2f}, min {row['min']:.2f}, "
                       f"p90 {row['p90']:.2f}, cpu {row.get('cpu_user_ms', 0) + row.get('cpu_sys_ms', 0):.2f}")
    names = {"bare": "bare /bin/true", "unshare": "unshare -Urmpfiun --mount-proc",
             "bwrap": "bwrap (namespaces+mounts)", "bwrap_seccomp": "bwrap + seccomp filter",
             "sbx_version": "sbx --version (exec+link)", "sbx": "sbx run -q -- /bin/true",
             "sbx_no_report": "sbx run -q --no-syscall-report", "sbx_base": "SBX_BASE run -q (main)",
             "sbx_net_host": "sbx run -q --net host"}
    for k, label in names.items():
        if res["startup"].get(k):
            rows.append(("start-up", label) + lat(res["startup"][k]))
    for k, label in (("bare_python3", "python3 hello.py"), ("sbx_py", "sbx run -q --lang py hello.py")):
        if res["language"].get(k):
            rows.append(("language", label) + lat(res["language"][k]))
    for key, group in res["throughput"].items():
        for name, st in group.items():
            if st:
                rows.append(("throughput", f"200 runs, {st['parallel']} parallel: {name}",
                             f"{st['runs_per_s']:.0f} runs/s", f"{st['median']:.0f} ms total"))
    for k, st in res["relay"].items():
        if st:
            rows.append(("relay 1 GiB", "bare pipe (pinned)" if k == "bare_pipe" else "sbx passthrough (pinned)",
                         f"{st['MB_per_s']:.0f} MB/s", f"{st['median']:.0f} ms"))
    for k, st in res["memory"].items():
        if st and "self_peak_kib" in st:
            rows.append(("peak RSS", k, f"{st['self_peak_kib'] / 1024:.2f} MiB",
                         f"tree {st['tree_maxrss_kib'] / 1024:.2f} MiB"))
        elif st and st.get("error"):
            rows.append(("peak RSS", k, "error", st["error"]))
        elif st and st.get("max_rss_kib"):
            rows.append(("peak RSS", k, f"{st['max_rss_kib'] / 1024:.2f} MiB", "time -v (tree)"))
    for k, st in res.get("meter", {}).items():
        if st and "supervisor_cpu_pct" in st:
            rows.append(("tree meter", f"{st['processes']} processes, {'churning' if st['churn'] else 'still'}",
                         f"{st['supervisor_cpu_pct']:.2f} % CPU", f"sbx's own CPU over {st['seconds']} s"))
        elif st:
            rows.append(("tree meter", k, "error", st.get("error", "")))
    rt = res.get("denials", {}).get("round_trip") or {}
    for k, label in (("in_kernel", "refused call, answered in the kernel"),
                     ("notify", "refused call, user notification round trip"),
                     ("notify_sync_wake", "... with SYNC_WAKE_UP"),
                     ("notify_sync_wake_short_slice", "... and a 0.1 ms slice (as sbx)")):
        v, cpu = rt.get(f"{k}_ns"), rt.get(f"{k}_cpu_ns")
        if isinstance(v, (int, float)):
            note = f"notifyrt, {rt['calls']} calls" + (f"; CPU {cpu / 1e3:.2f} us/call" if cpu else "")
            rows.append(("refusals", label, f"{v / 1e3:.2f} us" if v >= 0 else "refused", note))
    for k, label in (("sbx_report", "sbx, N refused calls, reported"),
                     ("sbx_no_report", "sbx, N refused calls, --no-syscall-report")):
        st = res.get("denials", {}).get(k)
        if st and "median" in st:
            extra = f", +{st['extra_us_per_refusal']:.2f} us/call" if "extra_us_per_refusal" in st else ""
            rows.append(("refusals", label.replace("N", f"{st['calls']:,}"), fmt(st["median"], " ms"),
                         f"min {st['min']:.0f}, max {st['max']:.0f}{extra}"))
        elif st:
            rows.append(("refusals", k, "error", st.get("error", "")))
    for k, v in res["ratios"].items():
        if v is not None:
            rows.append(("ratio", k, f"{v:.2f}x", ""))
    for k, v in res["floors"].items():
        rows.append(("floor", k, v or "not measured", ""))
    return rows


def print_table(res):
    print(f"\nsbx benchmarks - {res['meta']['date']}, user {res['meta']['user']}, "
          f"{res['meta']['cpus']} CPUs, kernel {res['meta']['kernel']}")
    m = res["meta"]
    if (m.get("loadavg_start") or 0) > 0.5 * (m["cpus"] or 1):
        print(f"  NOTE: the machine was busy before the run (1-min load average {m['loadavg_start']:.1f} "
              f"on {m['cpus']} CPUs): medians are noisy; compare min/p10 too")
    for sec, item, val, spread in table_rows(res):
        print(f"  {sec:<12} {item:<44} {val:>14}  {spread}")
    kf = res.get("kernel_floor")
    if kf:
        print("\n  kernel floor, clone()+waitpid() medians: " + ", ".join(
            f"{k} {v['median_ms']:.2f} ms" for k, v in kf.items() if isinstance(v, dict)))
    tl = (res["phases"] or {}).get("strace_timeline")
    if tl:
        print(f"\n  start-up phases (strace, best of 5, {tl['total_ms']:.2f} ms traced):")
        for p in tl["phases"]:
            print(f"    {p['from']:>22} -> {p['to']:<22} {p['ms']:8.3f} ms")
        print(f"    jail clone() itself {fmt(tl['jail_clone_syscall_ms'], ' ms')}; "
              f"{tl['mount_calls']} mount() calls, {tl['mount_syscalls_ms']:.3f} ms inside them")
    top = (res["phases"] or {}).get("strace_summary")
    if top:
        print("  strace -c -f, top syscalls by time: " + ", ".join(
            f"{r['syscall']}{'(wait)' if r['may_block'] else ''} {r['seconds'] * 1e3:.2f} ms/{r['calls']}"
            for r in top[:10]))
    vl = (res["phases"] or {}).get("verbose_log")
    if vl and vl["steps"]:
        print("\n  sbx run -v steps (best of 5; ms since sbx's clock start, +delta since the previous step):")
        for st in vl["steps"][:30]:
            print(f"    {st['t_ms']:8.3f} ms  +{st['delta_ms']:6.3f}  {st['who']:<10} {st['step']}")
    elif vl:
        print("\n  sbx run -v printed no timed steps; raw: " + " | ".join(vl["raw"][:10]))
    for s in res["skipped"]:
        print(f"  SKIPPED {s['item']}: {s['note']}")


def markdown(res):
    m = res["meta"]
    out = [f"Measured {m['date'][:10]} as `{m['user']}` on {m['cpus']} vCPUs, kernel {m['kernel']}, "
           f"with `make bench`:", "", "| what | item | median | spread |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in table_rows(res)]
    out += [f"| skipped | {s['item']} | {s['note']} | |" for s in res["skipped"]]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sbx", default="./sbx")
    ap.add_argument("--helpers", default="")
    ap.add_argument("--out", default="bench/results.json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--base", default=os.environ.get("SBX_BASE"),
                    help="another sbx to compare start-up with (a build of main)")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    if args.markdown:
        with open(args.markdown) as f:
            print(markdown(json.load(f)))
        return 0
    if not shutil.which("hyperfine"):
        print("bench: hyperfine is not installed (Debian package `hyperfine`); "
              "timing items are skipped", file=sys.stderr)
    b = Bench(args)
    if not b.tools["hyperfine"]:
        b.skip("startup/language/throughput/relay", "hyperfine is not installed")
        for step in (b.memory, b.meter, b.phases, b.denials):
            step()
        b.derive()
    else:
        b.run_all()
    with open(args.out + ".tmp", "w") as f:
        json.dump(b.res, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print_table(b.res)
    print(f"\nwrote {args.out}")
    shutil.rmtree(b.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
