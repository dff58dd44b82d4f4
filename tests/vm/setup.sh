#!/bin/bash
# setup.sh (make vm-deps): install the Debian packages the VM lab needs
# (qemu-system-x86, busybox-static, zstd) and unpack Debian 12's newest 6.1
# kernel package into $VMLAB_DIR/kernel (default /tmp/vmlab) without
# installing it on the host.  Idempotent.  Needs root and Debian's archive.
set -euo pipefail
LAB=${VMLAB_DIR:-/tmp/vmlab}
mkdir -p "$LAB"
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
[ -x /bin/busybox ] && /bin/busybox --list | grep -qx switch_root || need+=(busybox-static)
command -v zstd >/dev/null || need+=(zstd)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if ! ls "$LAB"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
	pkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' | awk '{print $1}' | sort -V | tail -1)
	[ -n "$pkg" ] || { echo "vm-setup: no linux-image-6.1.0-*-amd64-unsigned package found (apt-get update?)" >&2; exit 1; }
	(cd "$LAB" && apt-get download -qq "$pkg")
	dpkg-deb -x "$LAB"/"$pkg"_*.deb "$LAB/kernel"
	rm -f "$LAB"/"$pkg"_*.deb
fi
ls "$LAB"/kernel/boot/vmlinuz-*
