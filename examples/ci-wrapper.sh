#!/bin/sh
# ci-wrapper.sh - run a CI step under sbx and fail the job on anything but
# status "ok", printing the result record with jq.
#
#   examples/ci-wrapper.sh make test
#   SBX=/usr/local/bin/sbx SBX_TIME=10m examples/ci-wrapper.sh ./run-tests
#
# The step gets the host's toolchain read-only (policy "host"), the current
# directory writable at the same path, and no network.
set -u
SBX=${SBX:-sbx}
record=$(mktemp "${TMPDIR:-/tmp}/sbx-record.XXXXXX") || exit 125
trap 'rm -f "$record"' EXIT

"$SBX" run -p host -B "$PWD:$PWD" -C "$PWD" --net none \
	--time "${SBX_TIME:-10m}" --result "$record" -- "$@"
code=$?

status=$(jq -r .status "$record" 2>/dev/null)
if [ "$status" != "ok" ]; then
	echo "ci-wrapper: the step ended with status '${status:-unknown}' (exit $code):" >&2
	jq . "$record" >&2 || cat "$record" >&2
	[ "$code" -ne 0 ] || code=1
	exit "$code"
fi
jq -c '{status, wall_ms, cpu_user_ms, max_rss_kib}' "$record"
exit 0
