"""table.py - the table `make bench` prints, and the README's copy of it.

table_rows(res) gives (section, item, value, spread) rows from a results
file; print_table() prints them with the details that do not fit a table
(kernel floor, strace view, bwrap_same's arguments); markdown() renders them
for README.md, and update_readme() puts that between the README's marker
comments (`make bench-readme`), so the README's table is never hand-edited.
"""

import os
import re

BEGIN, END = "<!-- bench-table:begin", "<!-- bench-table:end -->"
STARTUP = {"bare": "bare /bin/true", "unshare": "unshare -Urmpfiun --mount-proc",
           "bwrap": "bwrap (namespaces, 3 mounts)", "bwrap_seccomp": "bwrap + seccomp filter",
           "bwrap_same": "bwrap_same: sbx's mounts + seccomp",
           "bwrap_same_robind": "bwrap_same, /etc files as ro-binds",
           "withfds": "withfds FD=FILE... -- /bin/true (launcher)",
           "sbx_version": "sbx --version (exec, no jail)", "sbx": "sbx run -q -- /bin/true",
           "sbx_no_report": "sbx run -q --no-syscall-report", "sbx_base": "SBX_BASE run -q (main)",
           "sbx_net_host": "sbx run -q --net host"}


def fmt(v, unit=""):
    return "-" if v is None else f"{v:.2f}{unit}" if isinstance(v, float) else f"{v}{unit}"


def lat(row):
    """(median, spread) of a latency row; cpu is the whole tree's when measured."""
    cpu = row.get("tree_cpu_ms", row.get("cpu_user_ms", 0) + row.get("cpu_sys_ms", 0))
    tag = "tree cpu" if "tree_cpu_ms" in row else "cpu"
    return (fmt(row["median"], " ms"), f"sd {row['stddev']:.2f}, min {row['min']:.2f}, "
            f"p90 {row['p90']:.2f}, {tag} {cpu:.2f}")


def phase_rows(res):
    bd = (res.get("phases") or {}).get("breakdown")
    if not bd:
        return []
    rows = [("start-up phase", p["phase"], fmt(p["median_ms"], " ms"),
             f"min {p['min_ms']:.3f}" if p.get("min_ms") is not None else "")
            for p in bd["phases"]]
    rows.append(("start-up phase", f"sum: sbx run -v -q, median of {bd['runs']}",
                 fmt(bd["wall_median_ms"] - bd["bare_wall_median_ms"], " ms"),
                 "wall time beyond a bare /bin/true"))
    return rows


def floor_row(k, v):
    if not isinstance(v, dict):  # an older results file: a bare value
        return ("floor", k, v or "not measured", "")
    detail = v.get("measured") or v.get("note") or ""
    return ("floor", k, v["verdict"], f"{detail}; bound {v['bound']}" if v.get("bound") else detail)


def table_rows(res):
    """(section, item, value, spread) rows shared by the text and markdown tables."""
    rows = [("start-up", label) + lat(res["startup"][k])
            for k, label in STARTUP.items() if res["startup"].get(k)]
    rows += phase_rows(res)
    for k, label in (("bare_python3", "python3 hello.py"), ("sbx_py", "sbx run -q --lang py hello.py")):
        if res["language"].get(k):
            rows.append(("language", label) + lat(res["language"][k]))
    for key, group in res["throughput"].items():
        for name, st in group.items():
            if st:
                unc = st.get("runs_per_s_uncorrected")
                rows.append(("throughput", f"{st['jobs']} runs, {st['parallel']} parallel: {name}",
                             f"{st['runs_per_s']:.0f} runs/s", f"{st['median']:.0f} ms total" +
                             (f"; {unc:.0f} runs/s before withfds's share is taken off" if unc else "")))
    rows += relay_rows(res)
    rows += memory_rows(res)
    rows += denial_rows(res)
    for k, v in res["ratios"].items():
        if v is not None:
            rows.append(("ratio", k, f"{v:.2f}x", ""))
    rows += [floor_row(k, v) for k, v in res["floors"].items()]
    return rows


RELAY_LABELS = {"bare_pipe": "bare pipe: head | cat (pinned)",
                "sbx": "sbx passthrough to /dev/null (pinned)",
                "sbx_into_pipe": "sbx passthrough into | cat (pinned)"}


def relay_rows(res):
    """The relay's rows; a results file from before the pairs has only the median."""
    rows = []
    for k, st in res["relay"].items():
        if not st:
            continue
        spread = f"{st['median']:.0f} ms"
        if st.get("method"):
            spread += (f", min {st['min']:.0f}, max {st['max']:.0f}, cpu "
                       f"{st['cpu_user_ms'] + st['cpu_sys_ms']:.0f} ms; {st['runs']} runs, {st['method']}")
        if "bare_over_sbx_median" in st:
            spread += (f"; bare/sbx per pair: median {st['bare_over_sbx_median']:.2f}, "
                       f"{st['bare_over_sbx_min']:.2f} to {st['bare_over_sbx_max']:.2f}, "
                       f"cpu {st['cpu_bare_over_sbx_median']:.2f}")
        rows.append(("relay 1 GiB", RELAY_LABELS.get(k, k), f"{st['MB_per_s']:.0f} MB/s", spread))
    return rows


def memory_rows(res):
    rows = []
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
    return rows


def denial_rows(res):
    rows = []
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
    return rows


def print_table(res):
    m = res["meta"]
    print(f"\nsbx benchmarks - {m['date']}, user {m['user']}, "
          f"{m['cpus']} CPUs, kernel {m['kernel']}" + (", QUICK (a smoke test, not numbers)"
                                                       if m.get("quick") else ""))
    if (m.get("loadavg_start") or 0) > 0.5 * (m["cpus"] or 1):
        print(f"  NOTE: the machine was busy before the run (1-min load average {m['loadavg_start']:.1f} "
              f"on {m['cpus']} CPUs): medians are noisy; compare min/p10 too")
    for sec, item, val, spread in table_rows(res):
        print(f"  {sec:<14} {item:<46} {val:>14}  {spread}")
    print_details(res)
    for s in res["skipped"]:
        print(f"  SKIPPED {s['item']}: {s['note']}")


def print_details(res):
    kf = res.get("kernel_floor")
    if kf:
        print("\n  kernel floor, clone()+waitpid() medians: " + ", ".join(
            f"{k} {v['median_ms']:.2f} ms" for k, v in kf.items() if isinstance(v, dict)))
    bs = res.get("bwrap_same") or {}
    if bs.get("args"):
        print("\n  bwrap_same = withfds " + " ".join(f"{fd}={p}" for fd, p in bs.get("files", []))
              + " 9=FILTER -- bwrap " + " ".join(bs["args"]) + " --seccomp 9 CMD")
        for d in bs.get("notes", []) + bs.get("differences", []):
            print(f"    differs: {d}")
    bd = (res.get("phases") or {}).get("breakdown") or {}
    if bd.get("missing"):
        print("  start-up phases with no -v line: " + ", ".join(bd["missing"]))
    tl = (res["phases"] or {}).get("strace_timeline")
    if tl:
        print(f"\n  start-up landmarks (strace, best of 5, {tl['total_ms']:.2f} ms traced):")
        for p in tl["phases"]:
            print(f"    {p['from']:>26} -> {p['to']:<26} {p['ms']:8.3f} ms")
        print(f"    jail clone() itself {fmt(tl['jail_clone_syscall_ms'], ' ms')}; "
              f"{tl['mount_calls']} mount() calls, {tl['mount_syscalls_ms']:.3f} ms inside them")
    top = (res["phases"] or {}).get("strace_summary")
    if top:
        print("  strace -c -f, top syscalls by time: " + ", ".join(
            f"{r['syscall']}{'(wait)' if r['may_block'] else ''} {r['seconds'] * 1e3:.2f} ms/{r['calls']}"
            for r in top[:10]))


def markdown(res):
    m = res["meta"]
    out = [f"Measured {m['date'][:10]} as `{m['user']}` on {m['cpus']} vCPUs, kernel {m['kernel']}, "
           f"with `{'BENCH_QUICK=1 ' if m.get('quick') else ''}make bench`"
           + (f" in {m['seconds']['total']:.0f} s" if m.get("seconds") else "")
           + f" (1-minute load average {m.get('loadavg_start', 0):.1f} at the start):",
           "", "| what | item | median | spread |", "|---|---|---|---|"]
    cell = lambda x: str(x).replace("|", "\\|")
    out += [f"| {cell(a)} | {cell(b)} | {cell(c)} | {cell(d)} |" for a, b, c, d in table_rows(res)]
    out += [f"| skipped | {cell(s['item'])} | {cell(s['note'])} | |" for s in res["skipped"]]
    return "\n".join(out)


def update_readme(path, res):
    """Replace what is between the marker comments of PATH with markdown(RES)."""
    with open(path) as f:
        text = f.read()
    pat = re.compile(re.escape(BEGIN) + r"[^\n]*\n.*?" + re.escape(END), re.S)
    if len(pat.findall(text)) != 1:
        raise SystemExit(f"bench: {path} needs exactly one '{BEGIN} ... -->' ... '{END}' block")
    block = (f"{BEGIN} (generated by `make bench-readme` from bench/results.json; "
             f"do not edit) -->\n{markdown(res)}\n{END}")
    with open(path + ".tmp", "w") as f:
        f.write(pat.sub(lambda _: block, text))
    os.replace(path + ".tmp", path)
