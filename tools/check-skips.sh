#!/bin/sh
# tools/check-skips.sh LIST TAP... - every test the TAP files say was
# skipped must be named in LIST with the reason it may skip for; any other
# skip fails.  A skip is how a test says "this host cannot show it"; one
# that nobody expected hides a test that stopped running (a missing tool, a
# broken fixture) behind a passing suite.
#
# LIST: one "GLOB REASON..." per line (# comments): GLOB matches the test's
# suite::name as a shell pattern, REASON is a substring of its SKIP message.
# --self-test: prove the script fails on an unexpected skip.
set -eu

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	printf 'cgroup::* no delegated cgroup v2\n' >"$t/list"
	printf 'ok - cgroup::a  # SKIP SKIP: no delegated cgroup v2: here\n' >"$t/ok.tap"
	printf 'ok - cgroup::a  # SKIP SKIP: needs strace\n' >"$t/reason.tap"
	printf 'ok - jail::b  # SKIP SKIP: no delegated cgroup v2\n' >"$t/name.tap"
	sh "$0" "$t/list" "$t/ok.tap" >/dev/null || { echo "check-skips: self-test: an expected skip failed"; exit 1; }
	for bad in reason name; do
		if sh "$0" "$t/list" "$t/$bad.tap" >/dev/null 2>&1; then
			echo "check-skips: self-test: an unexpected skip ($bad) passed"
			exit 1
		fi
	done
	echo "check-skips: self-test ok"
	exit 0
fi

list=$1
shift
bad=0
n=0
for tap in "$@"; do
	if [ ! -r "$tap" ]; then
		echo "check-skips: $tap: no TAP file to read (did the suite run?)" >&2
		bad=1
		continue
	fi
	# "ok - suite::name  # SKIP SKIP: reason"
	grep '# SKIP' "$tap" | sed 's/^ok - //' >"$tap.skips" || true
	while IFS= read -r line; do
		name=${line%%  # SKIP*}
		reason=${line#*# SKIP }
		n=$((n + 1))
		ok=no
		while read -r glob why; do
			case $glob in '#'* | '') continue ;; esac
			# shellcheck disable=SC2254
			case $name in $glob) case $reason in *"$why"*) ok=yes ;; esac ;; esac
			[ $ok = yes ] && break
		done <"$list"
		if [ $ok = no ]; then
			echo "check-skips: $name skipped, and $list does not expect it: $reason" >&2
			bad=1
		fi
	done <"$tap.skips"
	rm -f "$tap.skips"
done
if [ $bad = 0 ]; then
	echo "check-skips: $n skipped, each named in $list"
fi
exit $bad
