#!/bin/bash
# check.sh (make check-arm64): sbx built for aarch64 on this host, its unit
# suite and the integration suites ARM64_SUITES names run in Debian 12's
# own arm64 kernel under qemu-system-aarch64 (TCG), as root and as an
# unprivileged user (uid 1000).  The guest writes TAP files and exit codes
# to a 9p share; qemu exits 0 whatever the guest did, so the verdict is
# read from those files: a failing test, a skip tests/arm64/expected-skips
# does not name, a guest that did not write its results or a VM cut at
# ARM64_TIMEOUT (s, default 600) fails the check.
#   env: ARM64_SUITES (criterion --filter), ARM64_ROOT_SUITES (root's, if
#        other), ARM64_TIMEOUT, ARM64LAB_DIR, ARM64_KEEP
set -uo pipefail
cd "$(dirname "$0")/../.."
TOP=$PWD
LAB=${ARM64LAB_DIR:-/tmp/arm64lab}
TMO=${ARM64_TIMEOUT:-600}
: "${ARM64_SUITES:?the criterion filter of the integration suites: run make check-arm64}"
die() { echo "check-arm64: FAIL: $*"; exit 1; }

command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 is missing (make arm64-deps)"
command -v aarch64-linux-gnu-gcc >/dev/null || die "aarch64-linux-gnu-gcc is missing (make arm64-deps)"
K=$(ls "$LAB"/kernel/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)
[ -n "$K" ] || die "no arm64 kernel in $LAB/kernel (make arm64-deps)"
KVER=${K##*/vmlinuz-}
BB=$LAB/busybox/bin/busybox
[ -x "$BB" ] || die "no busybox-static:arm64 in $LAB/busybox (make arm64-deps)"

t0=$(date +%s)
make -j2 ARCH=arm64 ARM64LAB_DIR="$LAB" build-arm64/sbx build-arm64/tests/unit_tests \
	build-arm64/tests/integration_tests build-arm64/tests/sbx-sim probes >"$LAB/build.log" 2>&1 ||
	{ tail -n 30 "$LAB/build.log"; die "the arm64 build failed"; }
echo "check-arm64: cross-built in $(($(date +%s) - t0)) s"

W=$(mktemp -d /tmp/sbx-arm64.XXXXXX)
# ARM64_KEEP=1 keeps the guest's files (results, logs, console) for a look
[ "${ARM64_KEEP:-0}" = 1 ] && echo "check-arm64: keeping $W" || trap 'rm -rf "$W"' EXIT
R=$W/root
OUT=$W/out
mkdir -p "$R"/bin "$R"/etc "$R"/lib/aarch64-linux-gnu "$R"/sbx "$OUT"
cp "$BB" "$R"/bin/busybox
cp tests/arm64/init "$R"/init
cp tests/arm64/stage2 "$R"/stage2
chmod 755 "$R"/init "$R"/stage2
printf 'root:x:0:0:root:/root:/bin/sh\nsbxuser:x:1000:1000:sbxuser:/home/sbxuser:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$R"/etc/passwd
printf 'root:x:0:\nsbxuser:x:1000:\nnogroup:x:65534:\n' >"$R"/etc/group
echo "127.0.0.1 localhost sbx-arm64" >"$R"/etc/hosts
printf "passwd: files\ngroup: files\nshadow: files\n" >"$R"/etc/nsswitch.conf
# the tracked tree and the arm64 build
git ls-files -z | xargs -0 cp --parents -t "$R"/sbx
mkdir -p "$R"/sbx/build-arm64/tests
cp -a build-arm64/sbx "$R"/sbx/build-arm64/
cp -a build-arm64/tests/unit_tests build-arm64/tests/integration_tests build-arm64/tests/sbx-sim \
	"$R"/sbx/build-arm64/tests/
cp -a build-arm64/probes "$R"/sbx/build-arm64/
printf "ARM64_SUITES='%s'\nARM64_ROOT_SUITES='%s'\nARM64_GUEST_CMD='%s'\n" "$ARM64_SUITES" \
	"${ARM64_ROOT_SUITES:-$ARM64_SUITES}" "${ARM64_GUEST_CMD:-}" \
	>"$R"/sbx/tests/arm64/guest.conf
# the shared-library closure of the dynamic binaries: the Criterion sysroot,
# then the multiarch arm64 packages, then the cross libc
LIBDIRS="$LAB/sysroot/lib/aarch64-linux-gnu $LAB/sysroot/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib"
todo="build-arm64/sbx build-arm64/tests/unit_tests build-arm64/tests/integration_tests build-arm64/tests/sbx-sim"
seen=" "
while [ -n "${todo// /}" ]; do
	set -- $todo; f=$1; shift; todo="$*"
	for n in $(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
		case "$seen" in *" $n "*) continue ;; esac
		seen="$seen$n "
		for d in $LIBDIRS; do
			if [ -e "$d/$n" ]; then cp -L "$d/$n" "$R/lib/aarch64-linux-gnu/$n"; todo="$todo $d/$n"; break; fi
		done
		[ -e "$R/lib/aarch64-linux-gnu/$n" ] || die "no arm64 $n (needed by $f)"
	done
done
# the loader of the libc copied above: a mismatched pair fails in odd ways
for d in $LIBDIRS; do
	[ -e "$d/libc.so.6" ] && { cp -L "$d/ld-linux-aarch64.so.1" "$R"/lib/aarch64-linux-gnu/; break; }
done
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$R"/lib/ld-linux-aarch64.so.1
M=$LAB/kernel/lib/modules/$KVER/kernel
for m in drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci_legacy_dev \
	drivers/virtio/virtio_pci fs/netfs/netfs fs/fscache/fscache net/9p/9pnet \
	net/9p/9pnet_virtio fs/9p/9p; do
	[ -f "$M/$m.ko" ] || continue
	mkdir -p "$R/lib/modules/$KVER/kernel/$(dirname $m)"
	cp "$M/$m.ko" "$R/lib/modules/$KVER/kernel/$m.ko"
done
(cd "$R" && find . | cpio -o -H newc --quiet --owner=0:0) | gzip -1 >"$W/initrd.gz"
echo "check-arm64: initramfs $(du -h "$W/initrd.gz" | cut -f1) (libraries:$seen)"

t1=$(date +%s)
timeout "$TMO" qemu-system-aarch64 -M virt -cpu cortex-a57 -m 2048 -smp 2 -nographic \
	-no-reboot -kernel "$K" -initrd "$W/initrd.gz" \
	-append "console=ttyAMA0 rdinit=/init panic=-1 quiet" \
	-fsdev local,id=fs0,path="$OUT",security_model=none \
	-device virtio-9p-pci,fsdev=fs0,mount_tag=out </dev/null >"$W/console.log" 2>&1
qrc=$?
grep -a -v -E '^\[ *[0-9]+\.[0-9]+\]' "$W/console.log"
echo "check-arm64: the VM ran $(($(date +%s) - t1)) s (qemu exit $qrc)"
if [ $qrc = 124 ]; then
	tail -n 40 "$W/console.log"
	die "the VM was cut at ARM64_TIMEOUT=$TMO s"
fi
[ -e "$OUT/done" ] || { tail -n 40 "$W/console.log"; die "the guest did not report its results"; }

fail=0
for who in root sbxuser; do
	for s in unit integration; do
		tap=$OUT/$who/$s.tap
		if [ ! -s "$tap" ]; then
			echo "check-arm64: $who $s: no TAP file"; fail=1; continue
		fi
		rc=$(cat "$OUT/$who/$s.rc" 2>/dev/null || echo none)
		echo "check-arm64: $who $s: exit $rc, $(grep -v '# SKIP' "$tap" | grep -c '^ok') passed, $(grep -c '^not ok' "$tap") failed, $(grep -c '# SKIP SKIP' "$tap") skipped"
		grep '^not ok' "$tap" | sed "s/^/check-arm64: $who: /"
		# what the --filter left out is "disabled", not skipped
		grep -v -e '# SKIP Test is disabled' -e '# SKIP test was skipped$' "$tap" >"$W/$who-$s.tap"
		grep '# SKIP' "$W/$who-$s.tap" | sed "s/^ok - /check-arm64: $who: skipped: /"
		[ "$rc" = 0 ] || { fail=1; grep -a -A4 -E 'Assertion Failed|\[FAIL\]|CRASH' "$OUT/$who/$s.log" | head -n 80; }
		sh tools/check-skips.sh tests/arm64/expected-skips "$W/$who-$s.tap" || fail=1
	done
	if [ -s "$OUT/$who/records.jsonl" ]; then
		/usr/bin/python3 tests/validate_records.py contrib/result.schema.json "$OUT/$who/records.jsonl" || fail=1
	fi
done
echo "check-arm64: $(($(date +%s) - t0)) s in all"
[ $fail = 0 ] || die "a test failed or skipped unexpectedly in the arm64 VM"
echo "check-arm64: ok"
