#!/bin/sh
# Checks what contrib/engines/README.md says of rootless podman: with its
# default settings `sbx run` fails with a setup-error that names the cause
# and the option, following that advice (and the rule it gives for the
# seccomp profile) makes the jail work, and with seccomp-sbx.json and
# unmask=ALL the jail works, as the container's root and as a user in it.
# podman runs as a user made here for the check (rootless, with its own
# subordinate ids), its storage and runtime directory in a temp dir; the
# trap ends its processes, removes the user and everything it made.  The
# image is Debian 12 minbase made here by debootstrap, with sbx copied in.
#
#   sh tests/engines/check-podman.sh [SBX]      (root; SBX default build/sbx)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
sbx=${1:-$src/build/sbx}
began=$(date +%s)

CHECK=check-podman
. "$(dirname "$0")/lib.sh"
need_sbx "it installs podman, makes a user for it and builds an image with debootstrap"
need=""
for p in podman:podman newuidmap:uidmap runc:runc slirp4netns:slirp4netns \
	fuse-overlayfs:fuse-overlayfs debootstrap:debootstrap jq:jq; do
	command -v "${p%%:*}" >/dev/null || need="$need ${p#*:}"
done
if [ -n "$need" ]; then
	say "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
		fail "apt-get install$need failed: run apt-get update, or install them by hand"
fi
profile=/usr/share/containers/seccomp.json
[ -r "$profile" ] || fail "$profile (podman's default seccomp profile, from containers-common) is missing"

tmp=$(mktemp -d /var/tmp/sbx-check-podman.XXXXXX)
chmod 0755 "$tmp"
user=sbxpodman$$
made_user=""
cleanup() {
	rc=$?
	trap - EXIT INT TERM
	if [ -n "$made_user" ]; then
		# rootless podman leaves a pause process holding its namespaces
		pkill -KILL -u "$user" 2>/dev/null || true
		n=0
		while pgrep -u "$user" >/dev/null 2>&1 && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		userdel "$user" 2>/dev/null || { echo "check-podman: userdel $user failed" >&2; [ "$rc" != 0 ] || rc=1; }
		! grep -q "^$user:" /etc/subuid /etc/subgid ||
			{ echo "check-podman: $user left in /etc/subuid or /etc/subgid" >&2; [ "$rc" != 0 ] || rc=1; }
	fi
	end_check "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

useradd -M -d "$tmp/home" -s /bin/sh "$user" || fail "useradd $user failed"
made_user=1
grep -q "^$user:" /etc/subuid && grep -q "^$user:" /etc/subgid ||
	fail "useradd gave $user no subordinate ids (SUB_UID_COUNT in /etc/login.defs): rootless podman needs them"
mkdir -p "$tmp/home" "$tmp/run"
chown "$user": "$tmp/home" "$tmp/run"
chmod 0700 "$tmp/run"

# as the user, in a login-like environment of its own.  runc and cgroupfs:
# crun refuses a hybrid cgroup layout, and there is no systemd user session
# here to manage cgroups; rootless runc runs without them.
as_user() {
	su -s /bin/sh "$user" -c "cd '$tmp/home' && HOME='$tmp/home' XDG_RUNTIME_DIR='$tmp/run' \
		podman --runtime runc --cgroup-manager cgroupfs $*"
}

image_rootfs "$tmp/rootfs"
tar -C "$tmp/rootfs" -cf "$tmp/rootfs.tar" .
chmod 0644 "$tmp/rootfs.tar"
rm -rf "$tmp/rootfs"
as_user import "$tmp/rootfs.tar" sbx-test >"$tmp/import.log" 2>&1 ||
	fail "podman import as $user failed: $(tail -n 3 "$tmp/import.log")"
rm -f "$tmp/rootfs.tar"
say "image imported by $user ($(as_user version --format '{{.Client.Version}}' 2>/dev/null))"

# run_in OPTIONS...: sbx's record (--json) of `echo hi` in a jail, from a
# container of the image made with OPTIONS
run_in() {
	as_user run --rm --network none "$@" sbx-test sbx run --json -- /bin/echo hi
}
# record FILE: the status, the message
status_of() { jq -r .status "$1" 2>/dev/null || echo unreadable; }
message_of() { jq -r .message "$1" 2>/dev/null || true; }

# podman's defaults: /proc/sys read-only, parts of /proc masked
rc=0
run_in >"$tmp/default.json" 2>"$tmp/default.err" || rc=$?
msg=$(message_of "$tmp/default.json")
[ "$rc" = 125 ] && [ "$(status_of "$tmp/default.json")" = setup-error ] ||
	fail "defaults: want exit 125 and setup-error, got exit $rc: $(head -c 600 "$tmp/default.json") $(head -c 300 "$tmp/default.err")"
case $msg in
*"/proc/sys is read-only here (sbx runs in a podman container)"*"podman run --security-opt unmask=ALL"*) ;;
*) fail "defaults: the message does not name podman's read-only /proc/sys and unmask=ALL: $msg" ;;
esac
say "defaults: setup-error, exit 125: $msg"
doc=$(as_user run --rm --network none sbx-test sbx doctor 2>&1) || true
case $doc in
*"/proc/sys is read-only here (sbx runs in a podman container)"*) ;;
*) fail "defaults: sbx doctor does not say what run says: $doc" ;;
esac
say "defaults: sbx doctor says the same"

# the advice followed: /proc unmasked, then the profile's refusal named
rc=0
run_in --security-opt unmask=ALL >"$tmp/unmasked.json" 2>"$tmp/unmasked.err" || rc=$?
msg=$(message_of "$tmp/unmasked.json")
[ "$rc" = 125 ] && [ "$(status_of "$tmp/unmasked.json")" = setup-error ] ||
	fail "unmask=ALL: want exit 125 and setup-error (the default profile refuses sethostname), got exit $rc: $(head -c 600 "$tmp/unmasked.json")"
case $msg in
*"a seccomp filter sbx runs under answers EPERM for sethostname (sbx runs in a podman container)"*) ;;
*) fail "unmask=ALL: the message does not name the profile's refusal of sethostname: $msg" ;;
esac
say "unmask=ALL: setup-error, exit 125: $(printf '%s' "$msg" | head -c 200)..."
advised_profile "$profile" "$msg" "$tmp/advised.json"
rc=0
run_in --security-opt unmask=ALL --security-opt seccomp="$tmp/advised.json" \
	>"$tmp/advised.out" 2>"$tmp/advised.err" || rc=$?
[ "$rc" = 0 ] && [ "$(jq -r '.status == "ok" and .stdout == "hi\n"' "$tmp/advised.out" 2>/dev/null)" = true ] ||
	fail "podman's default profile + the advised rule, unmask=ALL: want ok and hi, got exit $rc: $(head -c 600 "$tmp/advised.out") $(head -c 300 "$tmp/advised.err")"
say "podman's default profile + the rule run's message gives, unmask=ALL: ok"

# the documented settings, as the container's root and as a user in it
# (the profile copied where the user can read it: a clone may be in 0700 /root)
cp "$src/contrib/engines/seccomp-sbx.json" "$tmp/seccomp-sbx.json"
chmod 0644 "$tmp/seccomp-sbx.json"
for who in root 1000:1000; do
	set -- --security-opt unmask=ALL --security-opt seccomp="$tmp/seccomp-sbx.json"
	[ "$who" = root ] || set -- "$@" --user "$who"
	rc=0
	run_in "$@" >"$tmp/sbx.json" 2>"$tmp/sbx.err" || rc=$?
	[ "$rc" = 0 ] && [ "$(jq -r '.status == "ok" and .stdout == "hi\n"' "$tmp/sbx.json" 2>/dev/null)" = true ] ||
		fail "seccomp-sbx.json, unmask=ALL, as $who in the container: want exit 0, ok and hi, got exit $rc: $(head -c 600 "$tmp/sbx.json") $(head -c 300 "$tmp/sbx.err")"
	say "seccomp-sbx.json, unmask=ALL, as $who in the container: ok ($(jq -c '.isolation | {uid, host_uid}' "$tmp/sbx.json"))"
done
say "PASS"
