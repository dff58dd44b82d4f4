#!/bin/bash
# vmcheck.sh (make vmcheck): the cgroup tests and a chosen part of the
# integration suite on Debian 12's own kernel (6.1) with pure cgroup v2 and
# a delegated subtree, inside a throw-away VM (vm-run.sh), as root and as
# the unprivileged user $VMCHECK_USER (default sbxuser).
#
# A machine that cannot run the VM (no qemu or kernel: `make vm-deps`; a VM
# that does not boot) is a SKIP with the reason, exit 0; VMCHECK_REQUIRE=1
# makes it a failure.  A test failing inside a VM that did boot fails.
#   env: VM_SUITES (criterion --filter), VMCHECK_USER, VMCHECK_TIMEOUT (s,
#        per VM run), VMLAB_DIR, VMCHECK_ACCEL (auto|kvm|tcg)
set -uo pipefail
cd "$(dirname "$0")/../.."
TOP=$PWD
LAB=${VMLAB_DIR:-/tmp/vmlab}
USER_=${VMCHECK_USER:-sbxuser}
TMO=${VMCHECK_TIMEOUT:-900}
ACCEL=${VMCHECK_ACCEL:-auto}
RUN=tests/vm/vm-run.sh
: "${VM_SUITES:?the criterion filter of what runs inside: run make vmcheck}"
export VMLAB_DIR=$LAB

skip() {
	echo "vmcheck: SKIP: $*"
	[ "${VMCHECK_REQUIRE:-0}" = 1 ] && exit 1
	exit 0
}
now() { date +%s; }

command -v qemu-system-x86_64 >/dev/null || skip "qemu-system-x86_64 is not installed (make vm-deps)"
ls "$LAB"/kernel/boot/vmlinuz-* >/dev/null 2>&1 || skip "no Debian 12 kernel in $LAB/kernel (make vm-deps)"
[ -x /bin/busybox ] || skip "busybox-static is not installed (make vm-deps)"
[ "$(id -u)" = 0 ] || skip "vmcheck runs as root (it stages a copy for $USER_)"
id "$USER_" >/dev/null 2>&1 || skip "no user $USER_ for the unprivileged run"

t0=$(now)
# two tries within 300 s: an emulated boot on a loaded host can fail once
# (15-30 s measured for a boot and `uname -r`, 97 s at load 40)
for try in 1 2; do
	left=$((t0 + 300 - $(now)))
	[ $left -gt 10 ] || break
	boot=$("$RUN" --accel "$ACCEL" --timeout $((try == 1 ? 180 : left)) -- uname -r 2>&1)
	rc=$?
	[ $rc = 0 ] && break
done
[ $rc = 0 ] || skip "the VM did not boot here within 300 s (vm-run exit $rc): $(echo "$boot" | tail -n 5 | tr '\n' ' ')"
echo "vmcheck: the VM boots kernel $boot ($(($(now) - t0)) s for a boot and 'uname -r')"

# Build on the host; the guest runs the host's files.
make -j2 build/sbx build/tests/integration_tests probes >/dev/null || exit 1

stage=$(mktemp -d /tmp/sbx-vmcheck.XXXXXX)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"
git ls-files -z | xargs -0 cp --parents -t "$stage"
chown -R "$USER_": "$stage"
su -s /bin/sh "$USER_" -c "cd '$stage' && make -j2 build/sbx build/tests/integration_tests \
	probes >/dev/null" || exit 1

fail=0
t1=$(now)
echo "== vmcheck: as root"
"$RUN" --accel "$ACCEL" --timeout "$TMO" --rw "$TOP" -- make --no-print-directory vm-inside VM_SUITES="$VM_SUITES" ||
	fail=1
t2=$(now)
echo "== vmcheck: as $USER_"
# the guest starts in the host's current directory: the staged copy
(cd "$stage" && "$TOP/$RUN" --accel "$ACCEL" --timeout "$TMO" --user "$USER_" --rw "$stage" -- \
	make --no-print-directory vm-inside VM_SUITES="$VM_SUITES") || fail=1
t3=$(now)
echo "vmcheck: root $((t2 - t1)) s, $USER_ $((t3 - t2)) s, total $((t3 - t0)) s"
[ $fail = 0 ] || { echo "vmcheck: FAILED"; exit 1; }
echo "vmcheck: passed"
