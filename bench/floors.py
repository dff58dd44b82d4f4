"""floors.py - the ratios and the floors `make bench` judges.

derive(res) fills res["ratios"] and res["floors"] from the measurements of
one run.  Every floor is always present, as
{"verdict": "met" | "missed" | "not measured", "measured", "bound", "note"}:
a floor whose inputs are missing says so and why, never disappears.

Start-up, CPU and throughput are judged against `bwrap_same` (bwrap with
sbx's own mount table and a seccomp filter, bench/bwrap_same.py), against
`bwrap_seccomp` (bwrap's own few mounts and the filter) and against the
kernel's floor, `unshare -Urmpfiun --mount-proc`.  The relay floor judges
the median of per-pair ratios (relaypairs.py).
"""

MIB = 1024  # KiB


def ratio(a, b):
    return round(a / b, 3) if a and b else None


def cpu(row):
    """User+system CPU per run in ms of the whole process tree (treecpu), else
    hyperfine's (children it waited for), or None."""
    if row and "tree_cpu_ms" in row:
        return row["tree_cpu_ms"]
    if not row or "cpu_user_ms" not in row:
        return None
    return round(row["cpu_user_ms"] + row["cpu_sys_ms"], 4)


def ratios(res):
    s, t, r, d = (res[k] for k in ("startup", "throughput", "relay", "denials"))
    med = lambda row: row["median"] if row else None
    sbx = med(s.get("sbx"))
    out = {
        "startup_sbx_over_bwrap_same": ratio(sbx, med(s.get("bwrap_same"))),
        "startup_sbx_over_bwrap_seccomp": ratio(sbx, med(s.get("bwrap_seccomp"))),
        "startup_sbx_over_bwrap": ratio(sbx, med(s.get("bwrap"))),
        "startup_sbx_over_bare": ratio(sbx, med(s.get("bare"))),
        "startup_sbx_net_host_over_sbx": ratio(med(s.get("sbx_net_host")), sbx),
        "cpu_sbx_over_bwrap_same": ratio(cpu(s.get("sbx")), cpu(s.get("bwrap_same"))),
        "cpu_sbx_over_bwrap_seccomp": ratio(cpu(s.get("sbx")), cpu(s.get("bwrap_seccomp"))),
        "language_sbx_over_bare": ratio(med(res["language"].get("sbx_py")),
                                        med(res["language"].get("bare_python3"))),
        # ratio of the two MB/s medians: for the reader; the floor judges _paired
        "relay_sbx_over_bare": ratio((r.get("sbx") or {}).get("MB_per_s"),
                                     (r.get("bare_pipe") or {}).get("MB_per_s")),
        "relay_sbx_over_bare_paired": (r.get("sbx") or {}).get("bare_over_sbx_median"),
        # shown, not judged: into `| cat`, one pipe hop more than the bare pipe
        "relay_sbx_into_pipe_over_bare_paired": (r.get("sbx_into_pipe") or {}).get(
            "bare_over_sbx_median"),
        "refusals_report_over_no_report": ratio(med(d.get("sbx_report")), med(d.get("sbx_no_report"))),
    }
    # the bound of any design that sees every refused call: the round
    # trip's CPU alone against the kernel's answer, with no waiting at all
    rt = d.get("round_trip") or {}
    k, n = rt.get("in_kernel_cpu_ns"), rt.get("notify_sync_wake_cpu_ns")
    out["refusal_round_trip_cpu_over_in_kernel"] = (
        round((k + n) / k, 3) if isinstance(k, (int, float)) and k > 0 and n and n > 0 else None)
    for key, rows in t.items():
        for other in ("bwrap_same", "bwrap_seccomp"):
            out[f"throughput_{key}_sbx_over_{other}"] = ratio(
                (rows.get("sbx") or {}).get("runs_per_s"), (rows.get(other) or {}).get("runs_per_s"))
    return out


def floor(ok, measured, bound, missing=None):
    """One floor's entry; OK None means an input is missing (MISSING says which)."""
    verdict = "not measured" if ok is None else "met" if ok else "missed"
    return {"verdict": verdict, "measured": measured if ok is not None else None,
            "bound": bound, "note": missing if ok is None else None}


def versus(name, a, b, limit, cmp, unit, what):
    """A floor comparing A with LIMIT x B (cmp "le" or "ge")."""
    bound = f"{'<=' if cmp == 'le' else '>='} {limit:g}x {name}"
    if not a or not b:
        return floor(None, None, bound, f"no {what} for {'sbx' if not a else name}")
    x = a / b
    return floor(x <= limit if cmp == "le" else x >= limit,
                 f"{a:.2f} / {b:.2f} {unit} = {x:.2f}x", bound)


def floors(res):
    s, m, d = res["startup"], res["memory"], res["denials"]
    med = lambda k: (s.get(k) or {}).get("median")
    p8 = res["throughput"].get("p8", {})
    rps = lambda k: (p8.get(k) or {}).get("runs_per_s")
    jobs = (p8.get("sbx") or {}).get("jobs", 200)
    out = {}
    out["startup_median_at_most_0.85x_bwrap_same"] = versus(
        "bwrap_same", med("sbx"), med("bwrap_same"), 0.85, "le", "ms", "start-up median")
    out["startup_aim_0.6x_bwrap_same"] = versus(
        "bwrap_same", med("sbx"), med("bwrap_same"), 0.6, "le", "ms", "start-up median")
    out["cpu_per_run_at_most_bwrap_same"] = versus(
        "bwrap_same", cpu(s.get("sbx")), cpu(s.get("bwrap_same")), 1.0, "le", "ms CPU",
        "CPU per run")
    out["throughput_p8_at_least_1.3x_bwrap_same"] = versus(
        "bwrap_same", rps("sbx"), rps("bwrap_same"), 1.3, "ge", f"runs/s ({jobs} runs)",
        "8-parallel throughput")
    out["startup_at_most_0.8x_bwrap_seccomp"] = versus(
        "bwrap_seccomp", med("sbx"), med("bwrap_seccomp"), 0.8, "le", "ms", "start-up median")
    # whole-tree CPU: a subreaper counts what bwrap never reaps (treecpu)
    out["cpu_per_run_at_most_0.85x_bwrap_seccomp"] = versus(
        "bwrap_seccomp", cpu(s.get("sbx")), cpu(s.get("bwrap_seccomp")), 0.85, "le", "ms CPU",
        "whole-tree CPU per run")
    out["throughput_p8_at_least_1.2x_bwrap_seccomp"] = versus(
        "bwrap_seccomp", rps("sbx"), rps("bwrap_seccomp"), 1.2, "ge", f"runs/s ({jobs} runs)",
        "8-parallel throughput")
    rss = [(m.get(k) or {}).get("self_peak_kib") for k in ("sbx_true", "sbx_relay_1g")]
    rss = [x for x in rss if x]
    out["supervisor_peak_rss_under_2MiB"] = floor(
        max(rss) < 2 * MIB if rss else None, f"{max(rss) / MIB:.2f} MiB" if rss else None,
        "< 2 MiB (max of sbx_true, sbx_relay_1g)", "no peak RSS for sbx")
    out["relay_1GiB_at_least_90pct_of_bare_pipe"] = relay_floor(res)
    out.update(startup_floors(res))
    out.update(report_floors(res, med("sbx"), med("sbx_base"), m, d))
    return out


def relay_floor(res):
    """Judged: the median over interleaved pairs of bare ms / sbx ms (the runs
    of a pair share the machine's state, so its drift cancels), not the ratio
    of the two medians, which is shown beside it."""
    paired, medians = (res["ratios"].get(k) for k in ("relay_sbx_over_bare_paired",
                                                       "relay_sbx_over_bare"))
    pairs = (res["relay"].get("sbx") or {}).get("pairs")
    measured = (f"{paired * 100:.0f}% (median over {pairs} interleaved pairs of bare ms / sbx ms; "
                f"ratio of the medians {medians * 100:.0f}%)" if paired and medians else None)
    return floor(paired >= 0.9 if paired else None, measured,
                 ">= 90% of a bare pipe, both pinned; judged on the median of the paired ratios",
                 "no paired relay measurement for sbx and the bare pipe")


def startup_floors(res):
    """Against the kernel's own floor: sbx less a bare /bin/true over
    `unshare -Urmpfiun --mount-proc` less the same (all the namespaces and
    a fresh /proc, nothing else); and `--lang py` against a bare python3."""
    s, lang = res["startup"], res["language"]
    med = lambda rows, k: (rows.get(k) or {}).get("median")
    sbx, bare, uns = med(s, "sbx"), med(s, "bare"), med(s, "unshare")
    bound = "<= 1.4x unshare, both less bare /bin/true"
    if sbx and bare and uns and uns > bare:
        x = (sbx - bare) / (uns - bare)
        kernel = floor(x <= 1.4, f"({sbx:.2f} - {bare:.2f}) / ({uns:.2f} - {bare:.2f}) ms = "
                       f"{x:.2f}x", bound)
    else:
        kernel = floor(None, None, bound, "no start-up median for sbx, unshare or bare /bin/true")
    py, bare_py = med(lang, "sbx_py"), med(lang, "bare_python3")
    return {"startup_over_unshare_at_most_1.4x": kernel,
            "lang_py_within_5ms_of_bare_python3": floor(
                py - bare_py <= 5 if py and bare_py else None,
                f"{py:.2f} - {bare_py:.2f} ms = {py - bare_py:+.2f} ms" if py and bare_py else None,
                "<= bare python3 hello.py + 5 ms", "no --lang py or bare python3 median")}


def report_floors(res, sbx, base, m, d):
    """The refused-syscall report's floors.  Every refused call is counted
    exactly, so each costs one round trip through the kernel's user
    notification; the report is judged against that round trip, not
    against --no-syscall-report, which sees none of them."""
    out = {"startup_within_0.1ms_of_base": floor(
        sbx - base <= 0.1 if sbx and base else None,
        f"{sbx:.3f} - {base:.3f} = {sbx - base:+.3f} ms" if sbx and base else None,
        "<= SBX_BASE + 0.1 ms", "no SBX_BASE given" if not base else "no sbx start-up")}
    rep, norep = ((d.get(k) or {}) for k in ("sbx_report", "sbx_no_report"))
    calls = rep.get("calls")
    trip = (d.get("round_trip") or {}).get("notify_sync_wake_ns")
    per_call = ((rep["median"] - norep["median"]) * 1e3 / calls
                if calls and rep.get("median") and norep.get("median") else None)
    out["refusal_report_at_most_1.5x_round_trip"] = floor(
        per_call <= 1.5 * trip / 1000 if per_call and trip else None,
        f"{per_call:.2f} us per reported call / {trip / 1000:.2f} us round trip = "
        f"{per_call * 1000 / trip:.2f}x" if per_call and trip else None,
        "<= 1.5x the kernel's round trip with SYNC_WAKE_UP (notifyrt)",
        "the refused-calls runs or the round trip did not happen or failed")
    refusing, usual = ((m.get(k) or {}).get("self_peak_kib") for k in ("sbx_refusing_1m", "sbx_true"))
    out["refusing_peak_rss_within_1MiB_of_usual"] = floor(
        refusing - usual <= MIB if refusing and usual else None,
        f"{(refusing - usual) / MIB:+.2f} MiB" if refusing and usual else None,
        "<= sbx_true's peak + 1 MiB", "no peak RSS while refusing, or of sbx_true")
    return out


def derive(res):
    res["ratios"] = ratios(res)
    res["floors"] = floors(res)
