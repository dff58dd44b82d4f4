#!/bin/sh
# inside.sh (make vm-inside): what `make vmcheck` runs inside the VM, as root
# or as the unprivileged user, from a tree already built on the host.
# An unprivileged caller gets every sbx of the suite started alone in a
# delegated scope of its own (SBX_TEST_SCOPES, as `systemd-run --user
# --scope -p Delegate=yes` would), so the suite runs on the cgroup path;
# root's runs find /sys/fs/cgroup/sbx by themselves.
set -u
echo "vm-inside: kernel $(uname -r), uid $(id -u), cgroup $(sed -n 's/^0:://p' /proc/self/cgroup)"
if [ "$(id -u)" != 0 ]; then
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	SBX_TEST_SCOPES=/sys/fs/cgroup${own%/*}
	export SBX_TEST_SCOPES
fi
# Not the unit tests: they test sbx's code, not this kernel's cgroups, and
# under TCG they took longer than the suites below.
t0=$(date +%s)
make --no-print-directory test-integration INTEG_ARGS="--filter=$VM_SUITES"
rc=$?
echo "vm-inside: integration $(($(date +%s) - t0)) s (uid $(id -u), exit $rc)"
exit $rc
