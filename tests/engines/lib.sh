# lib.sh - what every check in tests/engines/ starts with, sourced after it
# set CHECK (its name, for its messages) and sbx (the binary under test).

say() { echo "$CHECK: $*"; }
fail() {
	echo "$CHECK: FAIL: $*" >&2
	exit 1
}

# ROOT_WHY: why the check needs root, or empty when it does not
need_sbx() {
	[ -z "${1:-}" ] || [ "$(id -u)" = 0 ] || fail "needs root: $1; run it as root"
	[ -x "$sbx" ] || fail "$sbx is not an executable sbx: run make first, or name the binary as the first argument"
}

# The Debian mirror apt uses here (debootstrap's source for an image).
apt_mirror() {
	m=$(grep -rhE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null |
		grep -oE 'https?://[^ ]*/debian/?( |$)' | head -n 1 | tr -d ' ')
	echo "${m:-http://deb.debian.org/debian}"
}

# image_rootfs DIR: Debian 12 minbase in DIR, with sbx in /usr/local/bin.
# sbx is linked against Debian's libcjson1 and libseccomp2: an image holds
# them as any image holds a program's libraries (minbase has libseccomp2).
image_rootfs() {
	say "debootstrap --variant=minbase --include=libcjson1 bookworm from $(apt_mirror)"
	debootstrap --variant=minbase --include=libcjson1 bookworm "$1" "$(apt_mirror)" \
		>"$1.debootstrap.log" 2>&1 ||
		fail "debootstrap failed: $(tail -n 3 "$1.debootstrap.log")"
	cp "$sbx" "$1/usr/local/bin/sbx"
	chmod 0755 "$1/usr/local/bin/sbx"
}

# advised_profile PROFILE MESSAGE OUT: the seccomp PROFILE changed as
# sbx's MESSAGE says: its rule added, and its calls dropped from every
# rule of PROFILE that refuses them.
advised_profile() {
	rule=$(printf '%s' "$2" | sed -n 's/.*(or add \({.*}\) to yours, and drop those calls from its rules that refuse them).*/\1/p')
	[ -n "$rule" ] || fail "the message gives no rule for a seccomp profile: $2"
	jq --argjson rule "$rule" '.syscalls |= map(if .action == "SCMP_ACT_ALLOW" then .
		else .names -= $rule.names end | select(.names | length > 0)) |
		.syscalls += [$rule]' "$1" >"$3" ||
		fail "the rule in the message is not JSON jq can add to $1: $rule"
	chmod 0644 "$3"
}

# end_check RC: the end of a check's EXIT trap, after its own cleanup:
# the temp dir $tmp goes unless something is still mounted below it (which
# fails the check), then the time taken, and exit RC.
end_check() {
	rc=$1
	if grep -q " $tmp/" /proc/self/mounts; then
		echo "$CHECK: mounts left below $tmp, not removed:" >&2
		grep " $tmp/" /proc/self/mounts >&2
		[ "$rc" != 0 ] || rc=1
	else
		rm -rf "$tmp"
	fi
	say "took $(($(date +%s) - began)) s"
	exit "$rc"
}
