#!/bin/sh
# Runs contrib/engines/slurm.sbatch, unmodified, on a one-node Slurm cluster
# this script starts itself, as an unprivileged user, and checks what the
# example promises: 100 tasks each with an "ok" record and the right answer
# in its output, and a cancelled task whose record says "aborted".
#
#   sh tests/engines/check-slurm.sh [SBX]      (root; SBX default build/sbx)
#
# Needs root: it installs Slurm and munge when missing, starts munged,
# slurmctld and slurmd (in the background, not through systemd, which need
# not be PID 1 here) and adds the user sbxeng when missing.  The cluster's
# files live in a temp dir, its ports are free ones picked here, so a
# Slurm already running on the host is left alone.  The trap stops the
# daemons, removes the temp dir and the user it added.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
sbx=${1:-$src/build/sbx}
user=sbxeng
began=$(date +%s)

CHECK=check-slurm
. "$(dirname "$0")/lib.sh"
need_sbx "it installs Slurm, starts its daemons and adds the user $user"

need=""
command -v munged >/dev/null || need="$need munge"
command -v slurmctld >/dev/null || need="$need slurmctld"
command -v slurmd >/dev/null || need="$need slurmd"
command -v sbatch >/dev/null || need="$need slurm-client"
command -v jq >/dev/null || need="$need jq"
if [ -n "$need" ]; then
	say "installing$need"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null ||
		fail "apt-get install$need failed: run apt-get update, or install them by hand"
fi

tmp=$(mktemp -d /var/tmp/sbx-check-slurm.XXXXXX)
pids=""
added_user=0
jobs_to_cancel=0
cleanup() {
	rc=$?
	trap - EXIT INT TERM
	if [ "$jobs_to_cancel" = 1 ]; then
		scancel -u "$user" 2>/dev/null || true
		# the steps' processes belong to slurmstepd, not to the daemons:
		# they must be gone before the daemons are
		n=0
		while [ -n "$(squeue -h -u "$user" -o %i 2>/dev/null)" ] && [ $n -lt 60 ]; do
			sleep 1
			n=$((n + 1))
		done
	fi
	for p in $pids; do
		kill "$p" 2>/dev/null || true
	done
	for p in $pids; do
		wait "$p" 2>/dev/null || true
	done
	if [ "$rc" != 0 ]; then
		for f in "$tmp"/slurmctld.stderr "$tmp"/slurmd.stderr "$tmp"/munge/log.stderr; do
			[ -f "$f" ] && { echo "--- last lines of $f" >&2; tail -n 15 "$f" >&2; }
		done
	fi
	rm -rf "$tmp"
	[ "$added_user" = 1 ] && userdel "$user" 2>/dev/null
	say "took $(($(date +%s) - began)) s"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
chmod 0755 "$tmp"

if ! id "$user" >/dev/null 2>&1; then
	useradd --system --no-create-home --home-dir "$tmp/work" --shell /bin/sh "$user"
	added_user=1
	say "added user $user (removed again at the end)"
fi

# waits up to $1 s for the command in the rest of the arguments to succeed
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

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# munge: a key of its own, its socket in the temp dir
mkdir -m 0755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/key" bs=1024 count=1 status=none
chmod 0600 "$tmp/munge/key"
munged --foreground --force --socket="$tmp/munge/socket" --key-file="$tmp/munge/key" \
	--pid-file="$tmp/munge/pid" --log-file="$tmp/munge/log" --seed-file="$tmp/munge/seed" \
	>"$tmp/munge/log.stderr" 2>&1 &
pids="$pids $!"
wait_for 30 test -S "$tmp/munge/socket" || fail "munged did not make its socket in 30 s"

host=$(hostname -s)
cpus=$(nproc)
# slurmd drains a node configured with more memory than it finds: take
# nine tenths of MemTotal
mem=$(awk '/^MemTotal:/ { print int($2 / 1024 * 9 / 10) }' /proc/meminfo)
ctld_port=$(free_port)
slurmd_port=$(free_port)
[ "$ctld_port" != "$slurmd_port" ] || slurmd_port=$(free_port)
mkdir "$tmp/state" "$tmp/spool"
export SLURM_CONF="$tmp/slurm.conf"
# proctrack/linuxproc and task/none, no cgroup plugins: on a cgroup v1
# (or hybrid) host proctrack/cgroup and task/cgroup work too (tried), but
# they leave slurm_<node> cgroups in each hierarchy, and on pure cgroup v2
# Slurm 22.05 asks systemd over D-Bus for slurmd's cgroup, which a CI
# machine without systemd as PID 1 cannot give; sbx's own limits are what
# is checked here
cat >"$SLURM_CONF" <<EOF
ClusterName=sbxengines
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
# -D: in the foreground of a background job, so the trap can end them;
# they log to their files and repeat it on stderr
slurmctld -D -f "$SLURM_CONF" >"$tmp/slurmctld.stderr" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.stderr" 2>&1 &
pids="$pids $!"
node_idle() { [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; }
wait_for 60 node_idle || fail "node $host not idle within 60 s: sinfo says '$(sinfo -h -o '%n %t %E' 2>&1)'"
say "one-node cluster up: node $host, $cpus CPUs, ${mem} MiB, slurmctld port $ctld_port"

# the user's side: sbx on PATH, a work dir with inputs and ./solve
mkdir -m 0755 "$tmp/bin" "$tmp/work" "$tmp/work/inputs"
cp "$sbx" "$tmp/bin/sbx"
chmod 0755 "$tmp/bin/sbx"
cp "$src/contrib/engines/slurm.sbatch" "$tmp/work/slurm.sbatch"
# solve reads a number and prints its square; the input "hang" makes it
# say so and then wait until it is killed
cat >"$tmp/work/solve" <<'EOF'
#!/bin/sh
read -r n <"$1"
if [ "$n" = hang ]; then
	echo "solve: started, hanging"
	exec sleep 100000
fi
echo "$n squared is $((n * n))"
EOF
chmod 0755 "$tmp/work/solve"
i=1
while [ $i -le 101 ]; do
	echo $i >"$tmp/work/inputs/$i.txt"
	i=$((i + 1))
done
echo hang >"$tmp/work/inputs/101.txt"
chown -R "$user": "$tmp/work"

as_user() {
	runuser -u "$user" -- env -i PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp/work" \
		SLURM_CONF="$SLURM_CONF" TMPDIR=/tmp sh -c "cd '$tmp/work' && $1"
}
no_jobs_left() { [ -z "$(squeue -h -u "$user" -o %i)" ]; }

jobs_to_cancel=1
job=$(as_user 'sbatch --parsable slurm.sbatch') || fail "sbatch slurm.sbatch was refused"
say "submitted slurm.sbatch as $user: job $job, array 1-100"
wait_for 900 no_jobs_left || fail "job $job not finished within 900 s: $(squeue -h -u "$user" -o '%i %T %R' | head -n 3)"

bad=0
i=1
while [ $i -le 100 ]; do
	r=$tmp/work/results/$i.json
	log=$tmp/work/sbx-tasks_${job}_$i.out
	# jq -e succeeds on an empty file: compare what it prints instead
	if [ "$(jq -r .status "$r" 2>/dev/null)" != ok ]; then
		echo "task $i: record $r: $(cat "$r" 2>/dev/null || echo missing)" >&2
		bad=$((bad + 1))
	elif ! grep -qx "$i squared is $((i * i))" "$log"; then
		echo "task $i: output $log lacks '$i squared is $((i * i))': $(head -c 300 "$log" 2>/dev/null || echo missing)" >&2
		bad=$((bad + 1))
	fi
	i=$((i + 1))
done
[ $bad = 0 ] || fail "$bad of 100 tasks of job $job have no ok record with the right answer"
say "100 of 100 tasks: status ok, answer right"

# cancelling: task 101 hangs; once its jail has started (solve said so in
# its output), scancel must still leave an "aborted" record
job=$(as_user 'sbatch --parsable --array=101 slurm.sbatch') || fail "sbatch --array=101 slurm.sbatch was refused"
log=$tmp/work/sbx-tasks_${job}_101.out
started() { grep -q 'solve: started' "$log" 2>/dev/null; }
wait_for 120 started || fail "task 101 of job $job did not start its program within 120 s: $(cat "$log" 2>/dev/null)"
scancel "$job"
wait_for 120 no_jobs_left || fail "job $job still there 120 s after scancel"
r=$tmp/work/results/101.json
[ "$(jq -r .status "$r" 2>/dev/null)" = aborted ] ||
	fail "cancelled task 101: record $r is not aborted: $(cat "$r" 2>/dev/null || echo missing)"
say "scancel of a running task: record $(jq -c '{status, message}' "$r")"
jobs_to_cancel=0
say "PASS"
