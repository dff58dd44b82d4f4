#!/bin/bash
# setup.sh (make arm64-deps): what `make ARCH=arm64` and `make check-arm64`
# need, from Debian's archive.  Installed: the aarch64 cross compiler and
# libc, the multiarch arm64 libseccomp and libcjson (their .a files make a
# static sbx), qemu-system-arm and cpio.  Only unpacked into
# $ARM64LAB_DIR (default /tmp/arm64lab), never installed: Debian 12's arm64
# kernel, busybox-static:arm64, and Criterion with its arm64 runtime
# closure (installing libcriterion-dev:arm64 removes the host's amd64 one:
# their versions of libnanomsg5 and others differ).  Idempotent; root.
set -euo pipefail
LAB=${ARM64LAB_DIR:-/tmp/arm64lab}
mkdir -p "$LAB/debs"
export DEBIAN_FRONTEND=noninteractive
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt-get update -qq
fi
need=()
for p in gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm cpio \
	libseccomp-dev:arm64 libcjson-dev:arm64; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# unpack PKG... (arm64) into DIR, each once
unpack() {
	local dir=$1; shift
	mkdir -p "$dir" "$LAB/stamps"
	for p in "$@"; do
		[ -e "$LAB/stamps/$p" ] && continue
		rm -f "$LAB"/debs/*.deb
		(cd "$LAB/debs" && apt-get download -qq "$p:arm64")
		dpkg-deb -x "$LAB"/debs/*.deb "$dir"
		rm -f "$LAB"/debs/*.deb
		touch "$LAB/stamps/$p"
	done
}

if ! ls "$LAB"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
	kpkg=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-arm64$' | awk '{print $1}' | sort -V | tail -1)
	[ -n "$kpkg" ] || { echo "arm64-setup: no linux-image-6.1.0-*-arm64 package found (apt-get update?)" >&2; exit 1; }
	unpack "$LAB/kernel" "$kpkg"
	# keep the few modules the guest loads (virtio-pci and 9p): 300 MB else
	m=$(echo "$LAB"/kernel/lib/modules/*/kernel)
	find "$m" -name '*.ko' ! \( -path '*/drivers/virtio/virtio_pci*' -o -path '*/fs/netfs/*' \
		-o -path '*/fs/fscache/*' -o -path '*/net/9p/*' -o -path '*/fs/9p/*' \) -delete
fi
unpack "$LAB/busybox" busybox-static
# Criterion and everything its shared library needs at run time
unpack "$LAB/sysroot" libcriterion3 libcriterion-dev libboxfort-dev libffi8 \
	libgit2-1.5 libnanomsg5 libhttp-parser2.9 libmbedcrypto7 libmbedx509-1 \
	libmbedtls14 libpcre2-8-0 libssh2-1 zlib1g libssl3 libgssapi-krb5-2 \
	libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
ls "$LAB"/kernel/boot/vmlinuz-*
