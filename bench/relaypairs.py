"""relaypairs.py - issue 17's relay item: 1 GiB through sbx against a bare pipe.

The two commands run in interleaved pairs (bare, sbx, bare, sbx, ...), each
timed by the wall clock around the child, with the CPU of the children it
reaped.  On a shared 2-CPU VM the run-to-run noise is about +-15% and drifts
over tens of seconds, so two blocks timed one after the other can land far
apart although neither command changed; the runs of one pair share the
machine's state, so the median over pairs of bare_ms / sbx_ms cancels the
drift.  That paired ratio is what floors.py judges; the ratio of the two
medians is kept beside it for the reader.

pairs(bare, sbx, n, warmup) returns {"bare": [...], "sbx": [...]} of (wall
s, user s, system s) per run, "ratios" (bare / sbx wall per pair) and
"cpu_ratios" (bare / sbx CPU per pair), or {"error": "..."} when a run
fails; sbx None times the bare pipe alone.  rows() turns that into the
results' relay rows (the usual stats, MB/s, and the pairs on the sbx row).
"""

import resource
import statistics
import subprocess
import time

GIB = 1 << 30


def timed(cmd):
    """(wall s, user s, system s) of one run of CMD with stdout to /dev/null,
    or a string saying how it failed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        return f"exits {proc.returncode}: " + proc.stderr.strip()[-300:]
    # RUSAGE_CHILDREN grows by the reaped child and every descendant it reaped
    return wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime


def pairs(bare, sbx, n, warmup):
    """N counted pairs (after WARMUP uncounted ones) of BARE then SBX."""
    out = {"bare": [], "sbx": [], "ratios": [], "cpu_ratios": []}
    for i in range(warmup + n):
        got = [timed(cmd) for cmd in ([bare, sbx] if sbx else [bare])]
        for key, run in zip(("bare", "sbx"), got):
            if isinstance(run, str):
                return {"error": f"{key}: {run}"}
        if i < warmup:
            continue
        out["bare"].append(got[0])
        if sbx:
            out["sbx"].append(got[1])
            out["ratios"].append(got[0][0] / got[1][0])
            out["cpu_ratios"].append(sum(got[0][1:]) / sum(got[1][1:]))
    return out


def summary(ratios, cpu_ratios):
    """What the sbx row says about its pairs: the median ratio and its spread,
    and the same of bare CPU / sbx CPU (waiting for a busy CPU is not in it)."""
    return {"pairs": len(ratios), "bare_over_sbx_per_pair": [round(r, 4) for r in ratios],
            "bare_over_sbx_median": round(statistics.median(ratios), 4),
            "bare_over_sbx_min": round(min(ratios), 4), "bare_over_sbx_max": round(max(ratios), 4),
            "cpu_bare_over_sbx_median": round(statistics.median(cpu_ratios), 4)}


def rows(got, stats, warmup):
    """{"bare_pipe": row, "sbx": row} from pairs(); STATS is Bench.stats."""
    out = {}
    for key, runs in (("bare_pipe", got["bare"]), ("sbx", got["sbx"])):
        if not runs:
            continue
        st = stats([r[0] for r in runs], statistics.fmean(r[1] for r in runs),
                   statistics.fmean(r[2] for r in runs))
        st.update(MB_per_s=round(GIB / 1e6 / (st["median"] / 1e3), 1), bytes=GIB,
                  method="interleaved pairs", warmup_pairs=warmup,
                  cpu_how="getrusage(RUSAGE_CHILDREN) around each run: the children it reaped")
        out[key] = st
    if got["ratios"]:
        out["sbx"].update(summary(got["ratios"], got["cpu_ratios"]))
    return out
