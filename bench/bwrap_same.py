"""bwrap_same.py - bwrap arguments with sbx's own mount table.

The issue compares sbx with bwrap "with the same namespaces, mounts and a
seccomp filter".  Nothing here is written by hand: the arguments are derived,
on this machine and in this run, from what sbx itself says and does:

- `sbx explain` gives each mount's destination, type and source, in order,
  and the hostname, uid, gid, workspace path and cwd;
- one `sbx run` shows the jail's own /proc/self/mountinfo (each mount's
  tmpfs size and mode, and which mount points are read-only) and `ls -A /etc`
  (the files of the /etc that sbx synthesizes).

Mapping: a BIND whose host source is a symlink becomes `--symlink` (sbx
makes the same link); other binds `--ro-bind` (`--bind` when rw); TMPFS
`--perms MODE --size BYTES --tmpfs`; PROC `--proc`; DEV `--dev`; the
workspace `--perms 0700 --size BYTES --tmpfs` and `--chdir`; every file of
sbx's /etc that exists on the host `--file FD /etc/F`, a copy of the host's
file in bwrap's root tmpfs, as sbx writes or copies them into its own (the
`--ro-bind /etc/F /etc/F` variant, a bind mount per file that sbx does not make, is
measured alongside as bwrap_same_robind); every mount point that is
read-only in sbx's jail but would not be in bwrap's (/, /proc, /dev)
`--remount-ro`.  Then bwrap runs once with these arguments and every
remaining difference between the two mount tables is listed.
"""

import os
import re
import subprocess

BASE_ARGS = ["--unshare-all", "--unshare-user", "--die-with-parent"]
FIRST_FD = 10  # --file FDs; 9 is the seccomp filter
PROBE = "cat /proc/self/mountinfo; echo @@; ls -A /etc; echo @@; pwd; hostname; id -u; id -g"
MOUNT_LINE = re.compile(r"^mount \{(.*)\}")
FIELD = re.compile(r'(\w+): ("(?:[^"\\]|\\.)*"|\S+)')
TOP = re.compile(r'^(hostname|uid|gid|workspace|cwd): ("(?:[^"\\]|\\.)*"|\S+)', re.M)


def unquote(v):
    return v[1:-1].replace('\\"', '"').replace("\\\\", "\\") if v.startswith('"') else v


def parse_explain(text):
    """{'mounts': [{dst, type, src, rw, ...}], 'hostname', 'uid', 'gid', 'workspace', 'cwd'}"""
    out = {k: unquote(v) for k, v in TOP.findall(text)}
    out["mounts"] = []
    for line in text.splitlines():
        m = MOUNT_LINE.match(line.strip())
        if m:
            out["mounts"].append({k: unquote(v) for k, v in FIELD.findall(m.group(1))})
    return out


def parse_mountinfo(text):
    """{mount point: {fstype, root, ro, noexec, size_bytes, mode}}, the last mount on a point winning."""
    rows = {}
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        f, r = left.split(), right.split()
        if not sep or len(f) < 6 or len(r) < 3:
            continue
        sup = dict(o.partition("=")[::2] for o in r[2].split(","))
        size = sup.get("size", "")
        mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(size[-1:].lower(), 1)
        rows[f[4]] = {"fstype": r[0], "root": f[3], "ro": "ro" in f[5].split(","),
                      "noexec": "noexec" in f[5].split(","),
                      "size_bytes": int(size.rstrip("kKmMgG")) * mult if size[:1].isdigit() else None,
                      "mode": sup.get("mode")}
    return rows


def parse_probe(text):
    """(mountinfo rows, /etc entries, [pwd, hostname, uid, gid]) of PROBE's output."""
    parts = text.split("@@\n")
    if len(parts) != 3:
        return None
    return parse_mountinfo(parts[0]), parts[1].split(), parts[2].split()


def probe_sbx(sbx):
    """sbx's explain and the jail's view, or (None, why)."""
    ex = subprocess.run([sbx, "explain"], capture_output=True, text=True)
    if ex.returncode != 0:
        return None, "`sbx explain` exited %d: %s" % (ex.returncode, ex.stderr.strip()[-200:])
    run = subprocess.run([sbx, "run", "-q", "--", "/bin/sh", "-c", PROBE],
                         capture_output=True, text=True)
    view = parse_probe(run.stdout) if run.returncode == 0 else None
    if not view:
        return None, "`sbx run -- sh -c PROBE` exited %d: %s" % (run.returncode,
                                                                run.stderr.strip()[-200:])
    return (parse_explain(ex.stdout), view), None


def tmpfs_args(info, size_mb, default_mode):
    """--perms/--size for a tmpfs as sbx mounted it (mountinfo), else as the policy says."""
    mode = (info or {}).get("mode") or default_mode
    size = (info or {}).get("size_bytes") or (int(size_mb) << 20 if size_mb else None)
    return ["--perms", mode.rjust(4, "0")] + (["--size", str(size)] if size else [])


def mount_args(m, mi, notes):
    """bwrap arguments for one mount of `sbx explain`."""
    dst, kind = m.get("dst"), m.get("type")
    if kind == "BIND":
        src = m.get("src", dst)
        if os.path.islink(src):
            return ["--symlink", os.readlink(src), dst]
        if not os.path.exists(src):
            notes.append(f"{dst}: source {src} missing" + (" (optional, skipped)" if
                                                            m.get("optional") == "true" else ""))
            return []
        return ["--bind" if m.get("rw") == "true" else "--ro-bind", src, dst]
    if kind == "TMPFS":
        return tmpfs_args(mi.get(dst), m.get("size_mb"), "1777") + ["--tmpfs", dst]
    if kind == "PROC":
        return ["--proc", dst]
    if kind == "DEV":
        return ["--dev", dst]
    notes.append(f"{dst}: mount type {kind} has no bwrap equivalent here (left out)")
    return []


def build(explain, view, etc="file"):
    """(bwrap arguments before the command, [(fd, file) for --file], notes on
    what could not be matched).  ETC "file": sbx's /etc files are copied into
    bwrap's root tmpfs with --file FD (as sbx copies them); "ro-bind": each is
    a read-only bind mount of the host's file."""
    mi, names, _ = view
    notes, args, files = [], list(BASE_ARGS), []
    for key, opt in (("uid", "--uid"), ("gid", "--gid"), ("hostname", "--hostname")):
        if explain.get(key):
            args += [opt, explain[key]]
    bound = set()
    for m in explain["mounts"]:
        a = mount_args(m, mi, notes)
        args += a
        if a[:1] in (["--ro-bind"], ["--bind"]):
            bound.add(m["dst"])
    ws = explain.get("workspace")
    if ws:
        args += tmpfs_args(mi.get(ws), None, "0700") + ["--tmpfs", ws]
    args += ["--chdir", explain.get("cwd") or ws or "/"]
    for name in names:
        path = "/etc/" + name
        if path in mi:
            continue  # a mount of its own (/etc/alternatives), bound above
        if not os.path.isfile(path):
            notes.append(f"{path}: in sbx's /etc but not a file on the host (left out)")
        elif etc == "file":
            files.append((FIRST_FD + len(files), path))
            args += ["--perms", "0644", "--file", str(files[-1][0]), path]
        else:
            args += ["--ro-bind", path, path]
    for mp in sorted((p for p, r in mi.items() if r["ro"] and p not in bound
                      and r["fstype"] in ("tmpfs", "proc")), key=len, reverse=True):
        args += ["--remount-ro", mp]
    return args, files, notes


def command(withfds, bwrap, args, files, argv, bpf=None):
    """argv running bwrap ARGS [--seccomp 9] ARGV with FILES open on their fds
    and BPF on fd 9, opened by the withfds helper (bench/withfds.c)."""
    fds = [f"{fd}={path}" for fd, path in files] + ([f"9={bpf}"] if bpf else [])
    return ([withfds] + fds + ["--", bwrap] + args + (["--seccomp", "9"] if bpf else []) + argv)


def compare(sbx_view, bw_view):
    """What still differs between sbx's jail and bwrap's: [text]."""
    (smi, setc, sid), (bmi, betc, bid) = sbx_view, bw_view
    diff = []
    for mp in sorted(set(smi) | set(bmi)):
        s, b = smi.get(mp), bmi.get(mp)
        if not s or not b:
            diff.append(f"{mp}: only in {'bwrap' if b else 'sbx'} ({(s or b)['fstype']})")
            continue
        for k in ("fstype", "ro", "noexec", "size_bytes"):
            if s[k] != b[k]:
                diff.append(f"{mp}: {k} sbx {s[k]} / bwrap {b[k]}")
    for name in sorted(set(setc) ^ set(betc)):
        diff.append(f"/etc/{name}: only in {'bwrap' if name in betc else 'sbx'}")
    if sid != bid:
        diff.append(f"cwd, hostname, uid, gid: sbx {sid} / bwrap {bid}")
    return diff


def derive(sbx, bwrap, withfds):
    """{'args', 'files', 'args_robind', 'notes', 'differences', 'how'} or {'error': why}."""
    got, why = probe_sbx(sbx)
    if not got:
        return {"error": why}
    explain, view = got
    args, files, notes = build(explain, view)
    run = subprocess.run(command(withfds, bwrap, args, files, ["/bin/sh", "-c", PROBE]),
                         capture_output=True, text=True)
    bw_view = parse_probe(run.stdout) if run.returncode == 0 else None
    if not bw_view:
        return {"error": "bwrap with the derived arguments exited %d: %s"
                % (run.returncode, run.stderr.strip()[-300:]), "args": args}
    return {"args": args, "files": files, "args_robind": build(explain, view, "ro-bind")[0],
            "notes": notes, "differences": compare(view, bw_view),
            "how": "derived from `sbx explain` and the jail's mountinfo and /etc "
                   "(bench/bwrap_same.py)"}
