#!/bin/sh
# Runs the command of contrib/engines/kubernetes-job.yaml the way its pods
# would, for every completion index, and checks each record is "ok" with
# the right answer.  No cluster runs here, so the pod is made by hand: a
# user namespace of its own whose uid 0 is no host root (hostUsers: false;
# as root, 65536 ids from an unused host range, as the kubelet maps them;
# otherwise the caller's own id), its own mount and pid namespaces, an
# unmasked /proc (procMount: Unmasked), a root holding the host's /usr and
# /etc read-only, sbx in /usr/local/bin, and /tasks with solve.py and
# input-N.txt; then the container's command and args, as the YAML gives
# them, with JOB_COMPLETION_INDEX set.
#
#   sh tests/engines/check-k8s-job.sh [SBX]     (SBX default build/sbx)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
sbx=${1:-$src/build/sbx}
yaml=$src/contrib/engines/kubernetes-job.yaml
began=$(date +%s)

CHECK=check-k8s-job
. "$(dirname "$0")/lib.sh"
need_sbx ""
if ! python3 -c 'import yaml' 2>/dev/null; then
	[ "$(id -u)" = 0 ] || fail "python3-yaml is missing: apt-get install python3-yaml (as root)"
	say "installing python3-yaml"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-yaml >/dev/null ||
		fail "apt-get install python3-yaml failed: run apt-get update, or install it by hand"
fi
command -v jq >/dev/null || fail "jq is missing: apt-get install jq (make deps installs it)"

tmp=$(mktemp -d /var/tmp/sbx-check-k8s.XXXXXX)
trap 'rc=$?; rm -rf "$tmp"; say "took $(($(date +%s) - began)) s"; exit $rc' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chmod 0755 "$tmp"

# The container's command and args exactly as the YAML has them, and the
# number of completions (the indices are 0 .. completions-1).
python3 - "$yaml" "$tmp/argv" "$tmp/completions" <<'EOF'
import sys, yaml
job = yaml.safe_load(open(sys.argv[1]))
spec = job["spec"]
assert spec["completionMode"] == "Indexed", "the Job is not Indexed"
ctr = spec["template"]["spec"]["containers"][0]
argv = ctr["command"] + ctr["args"]
with open(sys.argv[2], "w") as f:
    f.write("\0".join(argv))
with open(sys.argv[3], "w") as f:
    f.write(str(spec["completions"]))
EOF
n=$(cat "$tmp/completions")
say "$(tr '\0' ' ' <"$tmp/argv" | tr -s ' \n' ' ')"

# the pod's root: /usr and /etc come from the host (bound in the pod),
# /bin, /lib, /lib64 and /sbin are merged-/usr links as in Debian's image
r=$tmp/root
mkdir -p "$r/usr" "$r/etc" "$r/dev" "$r/proc" "$r/tmp" "$r/tasks" "$r/root" "$r/.host" "$tmp/tasks" "$tmp/bin"
for l in bin lib lib64 sbin; do
	ln -s "usr/$l" "$r/$l"
done
cp "$sbx" "$tmp/bin/sbx"
cat >"$tmp/tasks/solve.py" <<'EOF'
import sys
n = int(open(sys.argv[1]).read())
print(f"{n} cubed is {n ** 3}")
EOF
i=0
while [ $i -lt "$n" ]; do
	echo $((i + 2)) >"$tmp/tasks/input-$i.txt"
	i=$((i + 1))
done
chmod -R a+rX "$tmp"

# Inside the new namespaces, as the pod's uid 0: build the root, enter it
# and run the container's argv.  $1 is the temp dir, $2 the index.
cat >"$tmp/pod.sh" <<'EOF'
set -eu
t=$1 r=$1/root
mount --bind "$r" "$r"
mount --rbind /usr "$r/usr"
mount -o remount,bind,ro "$r/usr"
mount -t tmpfs -o mode=0755 tmpfs "$r/usr/local/bin"
cp "$t/bin/sbx" "$r/usr/local/bin/sbx"
mount --rbind /etc "$r/etc"
mount -o remount,bind,ro "$r/etc"
mount --rbind /dev "$r/dev"
mount -t proc proc "$r/proc"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
mount --bind "$t/tasks" "$r/tasks"
mount -o remount,bind,ro "$r/tasks"
cd "$r"
pivot_root . .host
umount -l /.host
cd /
exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root HOSTNAME=sbx-tasks-$2 JOB_COMPLETION_INDEX=$2 \
	python3 -c 'import os, sys; a = open(sys.argv[1]).read().split("\0"); os.execv(a[0], a)' \
	"/.argv"
EOF
cp "$tmp/argv" "$r/.argv"
chmod a+r "$r/.argv" "$tmp/pod.sh"

# run_pod INDEX: the pod's stdout on stdout
if [ "$(id -u)" = 0 ]; then
	# 65536 ids from a host range no account uses, as the kubelet gives a
	# pod with hostUsers: false; the map is written from outside, as the
	# kubelet's runtime does
	base=1310720000
	run_pod() {
		rm -f "$tmp/go"
		mkfifo -m 0644 "$tmp/go"
		# unshare runs as host uid $base; its child waits for the map,
		# and its exec of pod.sh as the namespace's uid 0 gives it the
		# namespace's capabilities
		setpriv --reuid="$base" --regid="$base" --clear-groups \
			unshare --user --mount --pid --fork --kill-child --propagation private \
			sh -c 'read -r _ <"$0" && exec sh "$1/pod.sh" "$1" "$2"' "$tmp/go" "$tmp" "$1" &
		pod=$!
		# the unshare process is in the new user namespace once its map
		# files say so; wait for that (bounded), then map
		k=0
		until [ "$(readlink "/proc/$pod/ns/user" 2>/dev/null)" != "$(readlink /proc/self/ns/user)" ]; do
			[ $k -lt 100 ] || { kill "$pod" 2>/dev/null; fail "unshare made no user namespace within 10 s: is user.max_user_namespaces 0?"; }
			sleep 0.1
			k=$((k + 1))
		done
		echo "0 $base 65536" >"/proc/$pod/uid_map"
		echo "0 $base 65536" >"/proc/$pod/gid_map"
		echo go >"$tmp/go"
		wait $pod
	}
else
	run_pod() {
		unshare --user --map-root-user --mount --pid --fork --kill-child --propagation private \
			sh "$tmp/pod.sh" "$tmp" "$1"
	}
fi

bad=0
i=0
while [ $i -lt "$n" ]; do
	rc=0
	run_pod $i >"$tmp/out-$i.json" 2>"$tmp/err-$i.txt" || rc=$?
	want="$((i + 2)) cubed is $(((i + 2) * (i + 2) * (i + 2)))"
	# jq -e succeeds on an empty file: compare what it prints instead
	got=$(jq -r --arg w "$want" '.status == "ok" and .stdout == $w + "\n"' "$tmp/out-$i.json" 2>/dev/null) || got=unreadable
	if [ "$got" != true ]; then
		echo "index $i: exit $rc, want status ok and stdout '$want'; pod's stdout: $(head -c 600 "$tmp/out-$i.json"); stderr: $(head -c 600 "$tmp/err-$i.txt")" >&2
		bad=$((bad + 1))
	fi
	i=$((i + 1))
done
[ $bad = 0 ] || fail "$bad of $n indices have no ok record with the right answer"
say "$n of $n indices: status ok, answer right ($(jq -c '.isolation | {uid, host_uid, namespaces}' "$tmp/out-0.json"))"
say "PASS"
