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
