#!/bin/sh
# Checks what contrib/engines/README.md says of Docker: with Docker's
# default profile `sbx run` fails with a setup-error that names the seccomp
# filter, and with seccomp-sbx.json, systempaths=unconfined and AppArmor
# unconfined the jail works.  The image is Debian 12 minbase made here by
# debootstrap, with sbx copied in; the Docker daemon is one of its own,
# started here on a socket, data root and exec root in a temp dir, without
# a bridge or iptables rules (the containers get --network none), and
# stopped by the trap with everything it made.
#
#   sh tests/engines/check-docker.sh [SBX]      (root; SBX default build/sbx)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
sbx=${1:-$src/build/sbx}
began=$(date +%s)

CHECK=check-docker
. "$(dirname "$0")/lib.sh"
need_sbx "it installs Docker, starts a Docker daemon and builds an image with debootstrap"
need=""
[ -x /usr/bin/docker ] && command -v dockerd >/dev/null || need="$need docker.io"
command -v debootstrap >/dev/null || need="$need debootstrap"
command -v jq >/dev/null || need="$need jq"
if [ -n "$need" ]; then
	say "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
		fail "apt-get install$need failed: run apt-get update, or install them by hand"
fi
# Debian's client, which matches Debian's daemon
docker() { /usr/bin/docker -H "unix://$tmp/docker.sock" "$@"; }

tmp=$(mktemp -d /var/tmp/sbx-check-docker.XXXXXX)
# the containers' cgroups go below one named after the temp dir, which
# dockerd makes and leaves: the trap removes it
cg=${tmp##*/}
# dockerd and its containerd make these whatever their roots are: the
# trap removes the ones that were not there before (when empty)
made=""
for d in /run/docker /run/containerd; do
	[ -e "$d" ] || made="$made $d"
done
dockerd_pid=""
cleanup() {
	rc=$?
	trap - EXIT INT TERM
	if [ -n "$dockerd_pid" ]; then
		docker rm -f sbx-check >/dev/null 2>&1 || true
		docker rmi sbx-test >/dev/null 2>&1 || true
		kill "$dockerd_pid" 2>/dev/null || true
		wait "$dockerd_pid" 2>/dev/null || true
		[ "$rc" = 0 ] || { echo "--- last lines of dockerd's log" >&2; tail -n 20 "$tmp/dockerd.log" >&2; }
	fi
	for d in /sys/fs/cgroup/"$cg" /sys/fs/cgroup/*/"$cg"; do
		[ ! -d "$d" ] || rmdir "$d" || { echo "check-docker: cgroup $d left behind" >&2; [ "$rc" != 0 ] || rc=1; }
	done
	for d in $made; do
		[ ! -d "$d" ] || find "$d" -depth -type d -empty -delete
		[ ! -e "$d" ] || { echo "check-docker: $d left behind, not empty" >&2; [ "$rc" != 0 ] || rc=1; }
	done
	# dockerd unmounts its layers when it stops: end_check finds any left
	end_check "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

wait_for() {
	limit=$1
	shift
	n=0
	until "$@"; do
		[ $n -lt "$limit" ] || return 1
		sleep 1
		n=$((n + 1))
	done
}

# its identity key too, which would go to /etc/docker
printf '{"deprecated-key-path": "%s"}\n' "$tmp/key.json" >"$tmp/daemon.json"
dockerd --host "unix://$tmp/docker.sock" --data-root "$tmp/data" --exec-root "$tmp/exec" \
	--pidfile "$tmp/dockerd.pid" --bridge none --iptables=false --ip6tables=false \
	--cgroup-parent "/$cg" --config-file "$tmp/daemon.json" \
	>"$tmp/dockerd.log" 2>&1 &
dockerd_pid=$!
dockerd_up() {
	kill -0 "$dockerd_pid" 2>/dev/null || fail "dockerd exited at start: $(tail -n 2 "$tmp/dockerd.log")"
	docker info >/dev/null 2>&1
}
wait_for 60 dockerd_up || fail "dockerd did not answer on $tmp/docker.sock within 60 s"
say "dockerd up ($(docker info --format '{{.ServerVersion}}, storage {{.Driver}}, cgroup {{.CgroupVersion}}'))"

image_rootfs "$tmp/rootfs"
tar -C "$tmp/rootfs" -c . | docker import - sbx-test >/dev/null
rm -rf "$tmp/rootfs"

# run_in OPTIONS...: sbx's record (--json) of `echo hi` in a jail, from a
# container of the image made with OPTIONS
run_in() {
	docker run --rm --name sbx-check --network none "$@" sbx-test \
		sbx run --json -- /bin/echo hi
}

rc=0
run_in >"$tmp/default.json" 2>"$tmp/default.err" || rc=$?
status=$(jq -r .status "$tmp/default.json" 2>/dev/null) || status=unreadable
msg=$(jq -r .message "$tmp/default.json" 2>/dev/null) || msg=""
[ "$rc" = 125 ] && [ "$status" = setup-error ] ||
	fail "default profile: want exit 125 and setup-error, got exit $rc, status $status: $(head -c 600 "$tmp/default.json") $(head -c 300 "$tmp/default.err")"
# the words contrib/engines/README.md quotes
case $msg in
*"clone(CLONE_NEWUSER): Operation not permitted: a seccomp filter refuses new namespaces (sbx runs in a Docker container;"*) ;;
*) fail "default profile: the message is not the one contrib/engines/README.md quotes: $msg" ;;
esac
say "default profile: setup-error, exit 125: $msg"
# doctor in the same container gives run's words on its trial line
doc=$(docker run --rm --network none sbx-test sbx doctor 2>&1) || true
case $doc in
*"a seccomp filter refuses new namespaces (sbx runs in a Docker container;"*) ;;
*) fail "default profile: sbx doctor does not say what run says: $doc" ;;
esac
say "default profile: sbx doctor says the same"

# Follow run's advice as a user would, starting from Docker's real default
# profile (the daemon's own version, from Debian's copy of its source): the
# JSON rule the message gives is added to it, then each later message must
# name the next option, until the jail works.  A message whose advice is
# incomplete (a call the rule leaves out) fails here.
ver=$(dpkg-query -W -f '${Version}' docker.io 2>/dev/null | sed 's/+b[0-9]*$//')
(cd "$tmp" && apt-get download -qq "golang-github-docker-docker-dev=$ver" >/dev/null 2>&1) ||
	fail "apt-get download golang-github-docker-docker-dev=$ver (Docker's default seccomp profile) failed: run apt-get update"
dpkg-deb -x "$tmp"/golang-github-docker-docker-dev_*.deb "$tmp/moby"
profile=$(find "$tmp/moby" -path '*/profiles/seccomp/default.json' | head -n 1)
[ -n "$profile" ] || fail "golang-github-docker-docker-dev=$ver has no profiles/seccomp/default.json"
advised_profile "$profile" "$msg" "$tmp/advised.json"
set -- --security-opt seccomp="$tmp/advised.json"
for step in 1 2 3 4; do
	rc=0
	run_in "$@" >"$tmp/advised.out" 2>"$tmp/advised.err" || rc=$?
	status=$(jq -r .status "$tmp/advised.out" 2>/dev/null) || status=unreadable
	[ "$status" != ok ] || break
	advice=$(jq -r .message "$tmp/advised.out" 2>/dev/null) || advice=""
	case $advice in
	*"systempaths=unconfined"*) opt=systempaths=unconfined ;;
	*"apparmor=unconfined"*) opt=apparmor=unconfined ;;
	*) fail "default profile + the advised rule ($*): status $status, and the message names no next step: $advice $(head -c 300 "$tmp/advised.err")" ;;
	esac
	case " $* " in
	*" $opt "*) fail "default profile + the advised rule ($*): the advice repeats $opt, which did not help: $advice" ;;
	esac
	say "advice followed, step $step: $opt (the message: $(printf '%s' "$advice" | head -c 200))"
	set -- "$@" --security-opt "$opt"
done
[ "$status" = ok ] && [ "$rc" = 0 ] && [ "$(jq -r .stdout "$tmp/advised.out")" = hi ] ||
	fail "Docker's default profile + the advised rule ($*): want ok and hi, got exit $rc, status $status: $(head -c 600 "$tmp/advised.out")"
say "Docker's default profile + the rule run's message gives ($*): ok"

rc=0
run_in --security-opt seccomp="$src/contrib/engines/seccomp-sbx.json" \
	--security-opt systempaths=unconfined --security-opt apparmor=unconfined \
	>"$tmp/sbx.json" 2>"$tmp/sbx.err" || rc=$?
got=$(jq -r '.status == "ok" and .stdout == "hi\n"' "$tmp/sbx.json" 2>/dev/null) || got=unreadable
[ "$rc" = 0 ] && [ "$got" = true ] ||
	fail "with seccomp-sbx.json: want exit 0, ok and stdout hi, got exit $rc: $(head -c 600 "$tmp/sbx.json") $(head -c 300 "$tmp/sbx.err")"
say "seccomp-sbx.json, systempaths=unconfined, apparmor=unconfined: ok ($(jq -c '.isolation | {uid, host_uid}' "$tmp/sbx.json"))"

# and as an ordinary user inside the container, not its root
rc=0
run_in --user 1000:1000 --security-opt seccomp="$src/contrib/engines/seccomp-sbx.json" \
	--security-opt systempaths=unconfined --security-opt apparmor=unconfined \
	>"$tmp/user.json" 2>"$tmp/user.err" || rc=$?
got=$(jq -r '.status == "ok" and .stdout == "hi\n"' "$tmp/user.json" 2>/dev/null) || got=unreadable
[ "$rc" = 0 ] && [ "$got" = true ] ||
	fail "as uid 1000 in the container, with seccomp-sbx.json: want exit 0, ok and stdout hi, got exit $rc: $(head -c 600 "$tmp/user.json") $(head -c 300 "$tmp/user.err")"
say "the same as uid 1000 in the container: ok"
say "PASS"
