#!/bin/sh
# same-output.sh OLD NEW: run a fixed set of sbx command lines with two sbx
# binaries and fail on any difference a user could see: stdout, stderr and
# the exit status, each JSON record with its measured figures (times, CPU,
# memory, host ids, paths of temporary directories) blanked.  For a change
# meant to move code and not behaviour (a restructuring): build the old
# tree and the new one, then compare.
set -u
[ $# -eq 2 ] || { echo "usage: $0 OLD_SBX NEW_SBX" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
printf 'print("hi")\n' > hello.py
printf 'int main(void){return 3;}\n' > three.c
printf 'hello\n' > data.txt
ln -s data.txt link.txt
cp "$src"/tests/nsjail/*.cfg . 2>/dev/null

# One command line per line, run by sh with $SBX set.
cat > cases <<'CASES'
$SBX
$SBX help
$SBX version
$SBX help run
$SBX run --help
$SBX learn --help
$SBX explain --help
$SBX doctor --help
$SBX langs
$SBX explain
$SBX explain -p host
$SBX explain --lang py
$SBX explain -p default --time 3s -m 64M --net loopback -e A=b
$SBX check policy/default.policy policy/host.policy policy/py.policy
$SBX check tests/policy-bad/*.policy
$SBX run -- /bin/echo hi
$SBX run -q -- /bin/sh -c 'echo out; echo err >&2; exit 7'
$SBX run -- /bin/sh -c 'kill -9 $$'
$SBX run --time 200ms -- /bin/sleep 5
$SBX run --cpu 200ms -- /bin/sh -c 'while :; do :; done'
$SBX run -m 32M -- /usr/bin/python3 -c 'b = bytearray(200 << 20)'
$SBX run --output 1K -- /bin/sh -c 'printf "%2000s" x'
$SBX run -- /no/such/program
$SBX run -- /bin/sh -c 'cat /etc/shadow; ls /root; id'
$SBX run --net none -- /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 9))'
$SBX run -f data.txt -- /bin/cat data.txt
$SBX run -f link.txt -- /bin/cat link.txt
$SBX run -f hello.py --lang py hello.py
$SBX run --lang py hello.py
$SBX run --lang c three.c
$SBX run -o out.txt -- /bin/sh -c 'echo x > out.txt'
$SBX run -p nosuch -- /bin/true
$SBX run --time banana -- /bin/true
$SBX run --bogus
$SBX run
$SBX run -B /nonexistent -- /bin/true
$SBX run -- /bin/sh -c 'unshare -U true; mount -t tmpfs x /mnt; echo $?'
$SBX learn -- /bin/true
$SBX import nsjail *.cfg
CASES

n=0 bad=0
blank='s/"(wall_ms|stopped_ms|processes_peak|cpu_user_ms|cpu_sys_ms|max_rss_kib|memory_peak_kib|host_uid|host_gid|setup_ms|uid|gid)":[0-9.]+/"\1":N/g; s/[0-9]+(\.[0-9]+)? ms/N ms/g; s/sbx-[A-Za-z0-9._-]+/sbx-X/g; s/pid [0-9]+/pid N/g'
while IFS= read -r line; do
	n=$((n + 1))
	for which in old new; do
		if [ $which = old ]; then SBX=$1; else SBX=$2; fi
		( cd "$src" && SBX=$SBX timeout 60 sh -c "$line" ) \
			> "$work/$which.out" 2> "$work/$which.err" < /dev/null
		echo "exit $?" >> "$work/$which.out"
		sed -E -i "$blank; s|$SBX|SBX|g" "$work/$which.out" "$work/$which.err"
	done
	if ! cmp -s "$work/old.out" "$work/new.out" || ! cmp -s "$work/old.err" "$work/new.err"; then
		bad=$((bad + 1))
		echo "== differs: $line"
		diff "$work/old.out" "$work/new.out" | head -20
		diff "$work/old.err" "$work/new.err" | head -20
	fi
done < cases
echo "same-output: $((n - bad)) of $n command lines the same"
[ $bad -eq 0 ]
