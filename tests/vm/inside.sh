#!/bin/sh
# inside.sh (make vm-inside): what `make vmcheck` runs inside the VM, as root
# or as the unprivileged user, from a tree already built on the host: the
# integration suites VM_SUITES names, then the schema check of every record
# they saw (as `make test-integration` does, without its list of the suites
# the filter left out).
# An unprivileged caller gets every sbx of the suite started alone in a
# delegated scope of its own (SBX_TEST_SCOPES, as `systemd-run --user
# --scope -p Delegate=yes` would), so the suite runs on the cgroup path;
# root's runs find /sys/fs/cgroup/sbx by themselves.
# Not the unit tests: they test sbx's code, not this kernel's cgroups, and
# under TCG they took longer than these suites.
set -u
B=$PWD/build
own=$(sed -n 's/^0:://p' /proc/self/cgroup)
echo "vm-inside: kernel $(uname -r), uid $(id -u), cgroup $own"
if [ "$(id -u)" != 0 ]; then
	SBX_TEST_SCOPES=/sys/fs/cgroup${own%/*}
	export SBX_TEST_SCOPES
fi
t0=$(date +%s)
rm -f "$B/records.jsonl"
SBX=$B/sbx SBX_PROBES=$B/probes SBX_SRC=$PWD SBX_RECORDS=$B/records.jsonl \
	"$B/tests/integration_tests" --jobs=2 --filter="$VM_SUITES"
rc=$?
/usr/bin/python3 tests/validate_records.py contrib/result.schema.json "$B/records.jsonl" || rc=1
echo "vm-inside: integration $(($(date +%s) - t0)) s (uid $(id -u), exit $rc)"
exit $rc
