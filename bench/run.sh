#!/bin/sh
# bench/run.sh - what `make bench` runs: sbx against bare exec, unshare and
# bwrap on this machine, in this run.  Builds small helpers
# (a seccomp BPF generator for `bwrap --seccomp`, withfds to open bwrap's
# descriptors, a peak-RSS probe, ...) into a temporary directory, then hands
# over to bench/bench.py, which prints a table and writes bench/results.json.
#
# Run it as an unprivileged user for numbers comparable with the reference
# figures (as root it works too; the record says who ran it).
#
#   SBX=./sbx           the binary to measure
#   BENCH_OUT=FILE      where the JSON goes (default bench/results.json)
#   BENCH_QUICK=1       far fewer runs (about half a minute): a smoke test, not numbers
#   SBX_BASE=PATH       another sbx (a build of main) for the start-up comparison
#
# Nothing is installed here: a missing tool is reported as a skipped item.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
sbx=${SBX:-./sbx}
out=${BENCH_OUT:-$here/results.json}
quick=
[ "${BENCH_QUICK:-0}" = 1 ] && quick=--quick

if ! command -v python3 >/dev/null 2>&1; then
	echo "bench: python3 is required (Debian package python3)" >&2
	exit 1
fi

helpers=$(mktemp -d "${TMPDIR:-/tmp}/sbx-bench-helpers.XXXXXX")
trap 'rm -rf "$helpers"' EXIT INT TERM

# Helpers are built here, not by the Makefile: the bench is optional and
# a missing compiler or libseccomp must only skip the items that need them.
cc=${CC:-cc}
cflags="-std=gnu11 -D_GNU_SOURCE -O2 -Wall -Wextra"
if "$cc" $cflags -o "$helpers/bpfgen" "$here/bpfgen.c" -lseccomp 2>"$helpers/bpfgen.log" &&
   "$helpers/bpfgen" "$helpers/filter.bpf"; then
	:
else
	echo "bench: could not build the BPF filter for bwrap (see below); bwrap+seccomp is skipped" >&2
	cat "$helpers/bpfgen.log" >&2
	rm -f "$helpers/filter.bpf"
fi
if ! "$cc" $cflags -o "$helpers/peakrss" "$here/peakrss.c" 2>"$helpers/peakrss.log"; then
	echo "bench: could not build peakrss; memory items are skipped" >&2
	cat "$helpers/peakrss.log" >&2
fi
# the notification round trip, and a program that hammers a refused call
if ! "$cc" $cflags -o "$helpers/notifyrt" "$here/notifyrt.c" 2>"$helpers/notifyrt.log"; then
	echo "bench: could not build notifyrt; the round-trip item is skipped" >&2
	cat "$helpers/notifyrt.log" >&2
fi
if ! "$cc" $cflags -static -o "$helpers/keyloop" "$here/../tests/probes/priv_keyctl_loop.c" \
	2>"$helpers/keyloop.log"; then
	echo "bench: could not build keyloop (static); the refused-calls items are skipped" >&2
	cat "$helpers/keyloop.log" >&2
fi
# opens bwrap's --seccomp and --file descriptors without a shell
if ! "$cc" $cflags -static -o "$helpers/withfds" "$here/withfds.c" 2>"$helpers/withfds.log" &&
   ! "$cc" $cflags -o "$helpers/withfds" "$here/withfds.c" 2>>"$helpers/withfds.log"; then
	echo "bench: could not build withfds; bwrap with a seccomp filter is skipped" >&2
	cat "$helpers/withfds.log" >&2
fi
# the CPU of a command's whole tree: hyperfine misses what bwrap never reaps
if ! "$cc" $cflags -o "$helpers/treecpu" "$here/treecpu.c" 2>"$helpers/treecpu.log"; then
	echo "bench: could not build treecpu; CPU per run falls back to hyperfine's" >&2
	cat "$helpers/treecpu.log" >&2
fi
chmod 755 "$helpers"
if "$cc" $cflags -o "$helpers/nsfloor" "$here/nsfloor.c" 2>/dev/null; then
	"$helpers/nsfloor" 200 >"$helpers/nsfloor.json" 2>/dev/null || rm -f "$helpers/nsfloor.json"
fi

python3 -B "$here/bench.py" --sbx "$sbx" --helpers "$helpers" --out "$out" $quick
