#!/bin/sh
# sanity.sh [PROBE_DIR] - run every probe WITHOUT sbx, on the bare host, as
# the current user, and report which ones say ESCAPED.
#
# A probe that cannot report an escape bare proves nothing when it says
# BLOCKED in the jail, so every escape-type probe should say ESCAPED here.
# The few that cannot (they need root, a kernel feature, or are unsafe
# bare) are listed in README.md; they show as "blocked-bare (expected)".
# Exit status: 0 when every other probe escaped, 1 otherwise.
set -u

DIR=${1:-$(cd "$(dirname "$0")/../../build/probes" && pwd)}
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sbx-sanity-XXXXXX")
MARK="sbx-sanity-marker-$$"
SUSPECT=0
export SBX_PROBE_BARE=1
trap 'pkill -KILL -f "$MARK" 2>/dev/null; kill $SENTINEL $LISTENERS 2>/dev/null; rm -rf "$WORK"' EXIT INT TERM

# Probes that cannot show an escape bare, for this user (see README.md).
if [ "$(id -u)" = 0 ]; then
	EXPECT_BLOCKED="fs_setuid priv_x32 priv_kexec_load res_mem_bomb proc_kill_all priv_tioclinux priv_bpf res_mem_shared"
else
	EXPECT_BLOCKED="fs_setuid fs_root_home fs_write_usr fs_write_hostname fs_proc1_root fs_mount_tmpfs
		fs_bind_mount fs_chroot fs_pivot_root fs_open_by_handle net_raw_socket net_packet_socket
		priv_init_module priv_finit_module priv_kexec_load priv_reboot priv_swapon priv_acct
		priv_unshare_mntns priv_settimeofday priv_clock_settime priv_bpf priv_perf_event_open priv_x32 res_mem_bomb
		proc_kill_all priv_tioclinux priv_process_vm_readv res_mem_shared priv_prlimit_init"
fi
# Escapes that need something of the host: a resolver, an IPv6 route,
# ptrace access to pid 1 (some VMs and containers deny it even to root).
HOST_DEPENDENT="net_dns net_tcp6_connect fs_proc1_root"
# fs_setuid escapes bare only for a non-root caller.
[ "$(id -u)" != 0 ] && EXPECT_BLOCKED=$(echo "$EXPECT_BLOCKED" | sed 's/fs_setuid//')

cd "$WORK" || exit 2
echo "sbx-secret-$$" > secret
ln -s "$WORK/secret" planted-link
sleep 60 & SENTINEL=$!
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
$PY -c "import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$PORT)); s.listen(); time.sleep(60)" & L1=$!
$PY -c "import socket,time; s=socket.socket(socket.AF_UNIX); s.bind('\0$MARK'); s.listen(); time.sleep(60)" & L2=$!
LISTENERS="$L1 $L2"
sleep 0.3

# run NAME ARGS... : print "NAME  verdict" and classify it.
run() {
	name=$1
	shift
	out=$("$@" 2>&1 | grep -E '^(BLOCKED|ESCAPED|ERROR):' | tail -n 1)
	case " $(echo $EXPECT_BLOCKED) " in
	*" $name "*) expect=blocked ;;
	*) expect=escaped ;;
	esac
	case " $HOST_DEPENDENT " in
	*" $name "*) [ "$expect" = escaped ] && expect=host ;;
	esac
	case "$out" in
	ESCAPED:*) tag="escaped-bare (ok)" ;;
	*ENOSYS*) tag="blocked-bare (kernel lacks it)" ;;
	*) if [ "$expect" = host ]; then tag="blocked-bare (this host lacks it)"; elif [ "$expect" = blocked ]; then tag="blocked-bare (expected)"; else
		tag="SUSPECT: cannot detect an escape"; SUSPECT=$((SUSPECT + 1)); fi ;;
	esac
	printf '%-24s %-34s %s\n' "$name" "$tag" "$out"
}

# survivor NAME: the probe leaves a marked process; it escapes if one lives after 1 s.
survivor() {
	"$DIR/$1" "$MARK-$1" > /dev/null 2>&1
	sleep 1
	if pgrep -f "$MARK-$1" > /dev/null; then
		echo "ESCAPED: a process with the marker outlived the probe"
		pkill -KILL -f "$MARK-$1"
	else
		echo "BLOCKED: nothing survived"
	fi
}

for p in "$DIR"/*; do
	name=$(basename "$p" .py)
	case "$name" in
	net_host_loopback) run "$name" "$p" "$PORT" ;;
	net_abstract_unix) run "$name" "$p" "$MARK" ;;
	fs_secret)         run "$name" "$p" "$WORK/secret" ;;
	fs_proc1_root)     run "$name" "$p" "$WORK/secret" ;;
	fs_link_escape)    run "$name" "$p" "$WORK/secret" planted-link ;;
	proc_signal_host)  run "$name" "$p" "$SENTINEL" ;;
	proc_daemon|proc_term_ignorer) run "$name" survivor "$name" ;;
	fd_inherited)      run "$name" sh -c 'exec 3</etc/hostname; exec "$0"' "$p" ;;
	fd_emfile)         run "$name" "$p" 100 ;;
	env_canary)        run "$name" env SECRET_TOKEN=x "$p" ;;
	stdin_eof)         run "$name" sh -c 'echo data | "$0"' "$p" ;;
	priv_tiocsti|priv_tioclinux) run "$name" script -qec "$p" /dev/null ;;
	res_output_flood)  run "$name" sh -c '"$0" > /dev/null' "$p" ;;
	res_busy_loop|res_sigxcpu_ignorer|res_sigterm_trapper) run "$name" "$p" 0.5 ;;
	res_cpu_hider)     run "$name" "$p" sigign 5 20 ;;
	res_tmpfs_fill)    run "$name" "$p" "$WORK" 2 ;;
	res_tmpfs_xattr)   d=$(mktemp -d /dev/shm/sbx-sanity-XXXXXX) && run "$name" "$p" "$d" 2 500
			   rm -rf "$d" ;;
	res_sock_fill|res_netlink_fill) run "$name" "$p" 1 1 ;;
	res_mem_nodump|res_mem_leader_exit) run "$name" "$p" 2 2 ;;
	res_mem_grow)      run "$name" "$p" 2 ;;
	res_sock_orphan)   run "$name" "$p" 2 ;;
	*)                 run "$name" "$p" < /dev/null ;;
	esac
done
echo "sanity: $SUSPECT suspect probe(s) as uid $(id -u)"
[ "$SUSPECT" = 0 ]
