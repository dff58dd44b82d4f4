#!/usr/bin/env python3
"""bench.py - the measurements behind `make bench` (driven by bench/run.sh).

Measures, on this machine and in this run: start-up latency (sbx, bare,
unshare, bwrap), language start-up, throughput of many runs, output relay
(interleaved pairs, relaypairs.py), supervisor memory, and where the
start-up time goes; bwrap with sbx's own mount table (bwrap_same.py), the
per-phase breakdown from `sbx run -v` (phases.py) and the floors sbx is
held to (floors.py); and the cost of reporting refused syscalls (the notification round trip, 1,000,000 refused calls with and
without the report, peak RSS), and start-up against another sbx (SBX_BASE,
e.g. a build of main).  Prints a table (table.py) and writes a JSON file.
A tool that is missing, or an sbx that does not run yet, becomes a
"skipped" item with a note: never silent.

usage: bench.py --sbx PATH --helpers DIR --out FILE [--quick]
       bench.py --markdown FILE      (render a results file as a README table)
       bench.py --markdown FILE --readme README.md   (put it between the markers)
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

import bwrap_same
import floors
import phases
import relaypairs
import table

BWRAP_ARGS = ["--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
              "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
              "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
              "--tmpfs", "/tmp"]
GIB = 1 << 30


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
        self.withfds = os.path.join(self.helpers, "withfds")
        if not os.access(self.withfds, os.X_OK):
            self.withfds = None
        self.base = os.path.abspath(args.base) if args.base else None
        self.res = {"meta": self.meta(), "skipped": [], "startup": {}, "language": {},
                    "throughput": {}, "relay": {}, "memory": {}, "meter": {}, "phases": {},
                    "denials": {}, "ratios": {}, "floors": {}, "bwrap_same": None}
        self.sbx_ok, self.sbx_note = self.probe_sbx()
        self.res["kernel_floor"] = self.kernel_floor()
        self.same = self.derive_bwrap_same()

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
        if {"item": item, "note": note} in self.res["skipped"]:
            return  # asked again by a later step
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

    def interleaved(self, items, runs, warmup, rounds=4, label="startup", check=True):
        """Time several commands in alternating rounds, so load that comes and goes
        (other jobs on a 2-CPU box) hits them all alike; {key: stats}."""
        acc = {key: ([], [], []) for key, _, _ in items}
        live = [(k, c, sh) for k, c, sh in items
                if not check or self.check_runs(f"{label}.{k}", c, sh)]
        per = max(1 if not check else 2, runs // rounds)
        for _ in range(rounds):
            for key, cmd, shell in list(live):
                raw = self.hyperfine_raw(f"{label}.{key}", cmd, per, warmup, shell, False)
                if raw is None:
                    live = [x for x in live if x[0] != key]
                    continue
                acc[key][0].extend(raw[0])
                acc[key][1].append(raw[1])
                acc[key][2].append(raw[2])
        return {k: self.stats(t, statistics.fmean(u), statistics.fmean(y))
                for k, (t, u, y) in acc.items() if t and k in [x[0] for x in live]}

    # ----- 1. start-up -------------------------------------------------

    def derive_bwrap_same(self):
        """bwrap arguments with sbx's own mount table, or None (a skip)."""
        if not self.need("bwrap_same", "bwrap", sbx=True) or not self.seccomp_ok("bwrap_same"):
            return None
        got = bwrap_same.derive(self.sbx, self.tools["bwrap"], self.withfds)
        self.res["bwrap_same"] = got
        if got.get("error"):
            self.skip("bwrap_same", got["error"])
            return None
        return got

    def seccomp_ok(self, item):
        """bwrap with a filter needs the filter and withfds to open it."""
        why = ("no BPF filter (bpfgen could not be built)" if not self.bpf else
               "withfds could not be built" if not self.withfds else None)
        if why:
            self.skip(item, why)
        return not why

    def bwraps(self, argv):
        """{name: argv} of the bwraps to compare with, running ARGV; the ones with
        a filter are started by withfds, and "withfds" is that helper alone."""
        bw = self.tools["bwrap"]
        cmds = {"bwrap": [bw] + BWRAP_ARGS + argv}
        if not self.seccomp_ok("bwrap_seccomp"):
            return cmds
        cmds["bwrap_seccomp"] = bwrap_same.command(self.withfds, bw, BWRAP_ARGS, [], argv, self.bpf)
        files = []
        if self.same:
            files = self.same["files"]
            cmds["bwrap_same"] = bwrap_same.command(self.withfds, bw, self.same["args"], files,
                                                    argv, self.bpf)
            cmds["bwrap_same_robind"] = bwrap_same.command(self.withfds, bw, self.same["args_robind"],
                                                           [], argv, self.bpf)
        # the helper alone, with bwrap_same's fds: /bin/true ignores the arguments
        cmds["withfds"] = bwrap_same.command(self.withfds, "/bin/true", [], files, [], self.bpf)
        return cmds

    @staticmethod
    def launcher_correction(rows, keys):
        """Take withfds's own cost (its row minus bare's) off the rows it started:
        every time of the distribution (KEYS) and, when there, the CPU."""
        wf, bare = rows.get("withfds"), rows.get("bare")
        if not wf or not bare:
            return
        keys = [k for k in keys if k in wf and k in bare]
        for name in ("bwrap_seccomp", "bwrap_same", "bwrap_same_robind"):
            st = rows.get(name)
            if not st:
                continue
            st["withfds_correction"] = {k: round(wf[k] - bare[k], 4) for k in keys if k in st}
            for k in st["withfds_correction"]:
                st[k] = round(st[k] - (wf[k] - bare[k]), 4)
            st["note"] = ("started by withfds, which opens the filter's (and --file's) fds; "
                          "withfds's own cost (its row minus bare's) is taken off")

    def startup(self):
        print("1. start-up latency", file=sys.stderr)
        items = [("bare", ["/bin/true"], False)]
        if self.need("startup.unshare", "unshare"):
            items.append(("unshare", [self.tools["unshare"], "-Urmpfiun", "--mount-proc", "/bin/true"], False))
        if self.need("startup.bwrap", "bwrap"):
            items += [(k, c, False) for k, c in self.bwraps(["/bin/true"]).items()]
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
        self.tree_cpu(rows, items)
        self.launcher_correction(rows, ("median", "mean", "min", "p10", "p90", "max",
                                        "cpu_user_ms", "cpu_sys_ms", "tree_cpu_user_ms",
                                        "tree_cpu_sys_ms", "tree_cpu_ms"))
        self.res["startup"] = rows

    def tree_cpu(self, rows, items):
        """CPU per run of each command's whole process tree (bench/treecpu.c):
        hyperfine's user+system misses descendants nobody waited for (bwrap's)."""
        helper = os.path.join(self.helpers, "treecpu")
        if not os.access(helper, os.X_OK):
            self.skip("startup.tree_cpu", "treecpu helper could not be built; cpu is hyperfine's")
            return
        n = 20 if self.quick else 100
        for key, cmd, _ in items:
            if not rows.get(key):
                continue
            p = subprocess.run([helper, str(n)] + cmd, capture_output=True, text=True)
            r = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else None
            if not r or r["failed"]:
                self.skip(f"startup.{key}.tree_cpu", f"treecpu: {p.stderr.strip()[-200:] or r}")
                continue
            rows[key].update(tree_cpu_user_ms=r["cpu_user_ms"], tree_cpu_sys_ms=r["cpu_sys_ms"],
                             tree_cpu_ms=r["cpu_ms"], tree_cpu_runs=n)

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
            cmds.update((k, " ".join(shlex.quote(a) for a in c))
                        for k, c in self.bwraps(["/bin/true"]).items() if k != "bwrap_same_robind")
        else:
            self.skip("throughput.bwrap", "bwrap is not installed")
        if self.need("throughput.sbx", sbx=True):
            cmds["sbx"] = shlex.quote(self.sbx) + " run -q -- /bin/true"
        # one run of each command checks it works; the pipelines are not run twice
        cmds = {k: c for k, c in cmds.items() if self.check_runs(f"throughput.{k}", c, True)}
        for par in ((8,) if self.quick else (2, 8)):
            self.throughput_rounds(f"p{par}", cmds, par)
            rows = self.res["throughput"].get(f"p{par}", {})
            self.launcher_correction(rows, ("median",))
            for st in rows.values():
                if st and "withfds_correction" in st:
                    st["runs_per_s_uncorrected"] = st["runs_per_s"]
                    st["runs_per_s"] = round(st["jobs"] / (st["median"] / 1e3), 1)

    def throughput_rounds(self, key, cmds, par):
        """200 runs of each command, PAR at a time, timed in interleaved rounds
        (every command once per round, 6 rounds): the machine's drift over the
        step's minute hits sbx and bwrap alike, as in start-up and the relay."""
        total = 40 if self.quick else 200
        items = [(name, f"seq {total} | xargs -P {par} -I{{}} {cmd}", True)
                 for name, cmd in cmds.items()]
        rounds = 2 if self.quick else 6
        got = self.interleaved(items, rounds, 0, rounds=rounds,
                               label=f"throughput.{key}", check=False)
        rows = self.res["throughput"].setdefault(key, {})
        for name in cmds:
            st = got.get(name)
            if st:
                st["runs_per_s"] = round(total / (st["median"] / 1e3), 1)
                st["parallel"], st["jobs"] = par, total
                st["method"] = f"interleaved rounds ({rounds}, one run of each per round)"
            rows[name] = st or None

    # ----- 4. output relay -----------------------------------------------

    def relay(self):
        """Bare pipe and sbx in interleaved pairs, wall clock per run (relaypairs.py)."""
        print("4. output relay (1 GiB, pinned to CPU 0, interleaved rounds)", file=sys.stderr)
        if not self.need("relay", "taskset"):
            return
        n, w = (1, 0) if self.quick else (12, 1)
        bare = [self.tools["taskset"], "-c", "0", "sh", "-c", "head -c 1G /dev/zero | cat"]
        cmds = []
        if self.need("relay.sbx", sbx=True) and self.relay_valid():
            # pipefail: the pipeline's status is sbx's as well as cat's
            pipe = ["bash", "-o", "pipefail", "-c", shlex.join(self.relay_cmd()[3:]) + " | cat"]
            cmds = [("sbx", self.relay_cmd()), ("sbx_into_pipe", self.relay_cmd()[:3] + pipe)]
        got = relaypairs.pairs(bare, cmds, n, w)
        if got.get("error"):
            self.skip("relay", got["error"])
            return
        self.res["relay"] = relaypairs.rows(got, self.stats, w)

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
            rows["bwrap"] = self.peak(peak, [self.tools["bwrap"]] + BWRAP_ARGS + ["/bin/true"])
        if self.need("memory.sbx", sbx=True):
            rows["sbx_true"] = self.peak(peak, [self.sbx, "run", "-q", "--", "/bin/true"])
            if self.tools["taskset"]:
                rows["sbx_relay_1g"] = self.peak(peak, self.relay_cmd(), runs=1 if self.quick else 3)
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
        ph["breakdown"] = phases.breakdown(self.sbx, 6 if self.quick else 30)
        if self.need("phases.strace", "strace"):
            ph["strace_timeline"] = phases.strace_timeline(self.tools["strace"], self.sbx, self.tmp)
            ph["strace_summary"] = phases.strace_summary(self.tools["strace"], self.sbx, self.tmp)

    # ----- 6. the tree meter's own CPU -----------------------------------

    def meter(self):
        """Supervisor CPU (sbx's own utime+stime, not its children's) over 5 s
        while the jail holds N processes, still or churning."""
        print("6. tree meter cost", file=sys.stderr)
        if not self.need("meter", sbx=True):
            return
        for n in ((10, 1000) if not self.quick else (10, 200)):
            for churn in (False, True):
                key = f"{n}_procs_{'churn' if churn else 'still'}"
                self.res["meter"][key] = self.meter_once(n, churn, 1.0 if self.quick else 5.0)

    def meter_once(self, n, churn, hold_s=5.0):
        script = (f"i=0; while [ $i -lt {n} ]; do sleep 60 & i=$((i+1)); done; "
                  + ("while :; do /bin/true; done & " if churn else "")
                  + f"echo ready; sleep {hold_s + 60}")
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
            p.terminate()  # sbx ends the jail (CTL_TERM, then SIGKILL after the grace)
            p.wait(timeout=120)
        return {"processes": n, "churn": churn, "supervisor_cpu_pct": round(100 * (c1 - c0) / (t1 - t0), 2),
                "seconds": round(t1 - t0, 2)}

    # ----- 7. refused syscalls --------------------------------------------

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
        n = 50000 if self.quick else 1000000
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
        self.run_steps([self.startup, self.language, self.throughput, self.relay, self.memory,
                        self.meter, self.phases, self.denials])

    def run_steps(self, steps):
        took = self.res["meta"]["seconds"] = {}
        for step in steps:
            t0 = time.monotonic()
            step()
            took[step.__name__] = round(time.monotonic() - t0, 1)
        floors.derive(self.res)
        self.res["meta"]["loadavg_end"] = os.getloadavg()[0]
        took["total"] = round(sum(took.values()), 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sbx", default="./sbx")
    ap.add_argument("--helpers", default="")
    ap.add_argument("--out", default="bench/results.json")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--base", default=os.environ.get("SBX_BASE"),
                    help="another sbx to compare start-up with (a build of main)")
    ap.add_argument("--markdown", help="render this results file as a README table")
    ap.add_argument("--readme", help="with --markdown: write the table into this file's markers")
    args = ap.parse_args()
    if args.markdown:
        with open(args.markdown) as f:
            res = json.load(f)
        if args.readme:
            table.update_readme(args.readme, res)
        else:
            print(table.markdown(res))
        return 0
    if not shutil.which("hyperfine"):
        print("bench: hyperfine is not installed (Debian package `hyperfine`); "
              "timing items are skipped", file=sys.stderr)
    b = Bench(args)
    if not b.tools["hyperfine"]:
        b.skip("startup/language/throughput", "hyperfine is not installed")
        b.run_steps([b.relay, b.memory, b.meter, b.phases, b.denials])
    else:
        b.run_all()
    with open(args.out + ".tmp", "w") as f:
        json.dump(b.res, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    table.print_table(b.res)
    print(f"\nwrote {args.out}")
    shutil.rmtree(b.tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
