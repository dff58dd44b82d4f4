#!/bin/sh
# tests/mutants/run.sh [NAME...] - apply each named break of a security
# check (tests/mutants/list), rebuild sbx, and run the tests meant to catch
# it: every mutant must make one of them fail.  Run from the source tree
# (make mutants); the tree is restored after each, even on ^C.
set -eu
cd "$(dirname "$0")/../.."
dir=tests/mutants
applied=
restore() {
	if [ -n "$applied" ]; then
		git apply -R "$applied" && applied=
	fi
}
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM

make -j2 >/dev/null
make build/tests/integration_tests build/tests/sbx-sim probes >/dev/null
export SBX="$PWD/build/sbx" SBX_PROBES="$PWD/build/probes" SBX_SRC="$PWD" \
	SBX_SIM="$PWD/build/tests/sbx-sim"
survived=0
while read -r name filters; do
	case $name in '#'* | '') continue ;; esac
	if [ $# -gt 0 ] && ! printf ' %s ' "$*" | grep -q " $name "; then
		continue
	fi
	git apply "$dir/$name.patch"
	applied="$dir/$name.patch"
	if ! make -j2 >/dev/null 2>&1; then
		echo "mutants: $name: does not build" >&2
		exit 1
	fi
	caught=no
	for f in $filters; do
		if ! build/tests/integration_tests --filter="$f" >/dev/null 2>&1; then
			caught="by $f"
			break
		fi
	done
	restore
	if [ "$caught" = no ]; then
		echo "mutants: $name: SURVIVED (no test failed: $filters)"
		survived=1
	else
		echo "mutants: $name: caught $caught"
	fi
done <"$dir/list"
make -j2 >/dev/null
exit "$survived"
