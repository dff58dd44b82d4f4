#!/bin/sh
# inside.sh OUT: what the arm64 guest runs, as root or as sbxuser, from the
# tree built on the host (build-arm64/): the unit suite, then the
# integration suites ARM64_SUITES names, each with its TAP file, exit code
# and skip list in OUT.
set -u
OUT=$1
B=$PWD/build-arm64
mkdir -p "$OUT"
echo "arm64-inside: uid $(id -u), $(uname -m)"
t0=$(date +%s)
"$B/tests/unit_tests" --jobs=2 --verbose --tap="$OUT/unit.tap" </dev/null >"$OUT/unit.log" 2>&1
echo $? >"$OUT/unit.rc"
echo "arm64-inside: unit suite exit $(cat "$OUT/unit.rc"), $(($(date +%s) - t0)) s"
t1=$(date +%s)
SBX=$B/sbx SBX_PROBES=$B/probes SBX_SRC=$PWD SBX_SIM=$B/tests/sbx-sim \
	SBX_RECORDS="$OUT/records.jsonl" "$B/tests/integration_tests" --jobs=2 \
	--verbose --tap="$OUT/integration.tap" --filter="$ARM64_SUITES" </dev/null >"$OUT/integration.log" 2>&1
echo $? >"$OUT/integration.rc"
echo "arm64-inside: integration exit $(cat "$OUT/integration.rc"), $(($(date +%s) - t1)) s"
rc=0
[ "$(cat "$OUT/unit.rc")" = 0 ] && [ "$(cat "$OUT/integration.rc")" = 0 ] || rc=1
echo $rc >"$OUT/rc"
exit $rc
