#!/usr/bin/env bash
# check-deb.sh - build the Debian package from contrib/debian, hold it to
# lintian, install it, run the installed sbx, purge it, and check that
# nothing of it is left (make check-deb; CI runs it as root).
#
# It works on a copy of the tree in a temporary directory (the package
# build writes debian/ and build/ there, never here), installs the build
# dependencies and tools that are missing (apt-get; CI's machine is fresh),
# and removes all it made on exit.  The packages it installs stay, as with
# make deps.
set -euo pipefail

fail() {
	echo "check-deb: FAIL: $*" >&2
	exit 1
}

if [ "$(id -u)" != 0 ]; then
	echo "check-deb: needs root: it installs build dependencies with apt-get and" \
		"the package with dpkg -i, then purges it; run it as root (CI does)" >&2
	exit 2
fi
state() { dpkg-query -W -f='${db:Status-Status}' sbx 2>/dev/null || echo not-installed; }
if [ "$(state)" != not-installed ]; then
	echo "check-deb: a package named sbx is installed already: this test would" \
		"replace and purge it; remove it first (dpkg --purge sbx)" >&2
	exit 2
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/sbx-deb.XXXXXX)
installed=0
cleanup() {
	if [ "$installed" = 1 ] && [ "$(state)" != not-installed ]; then
		dpkg --purge sbx >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
# The tools this test runs, then what debian/control names (apt-get
# build-dep reads it from the copy's debian/ and installs what is missing).
tools=(dpkg-dev lintian man-db python3)
missing=()
for p in "${tools[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
	echo "== apt-get install ${missing[*]}"
	apt-get install -y --no-install-recommends "${missing[@]}"
fi

echo "== copy of the tree in $work/src"
mkdir "$work/src"
tar -C "$top" --exclude=./.git --exclude=./build --exclude=./build-asan --exclude=./sbx \
	-cf - . | tar -C "$work/src" -xf -
cp -r "$work/src/contrib/debian" "$work/src/debian"
if ! (cd "$work/src" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
	echo "== apt-get build-dep (what debian/control names and is missing)"
	apt-get build-dep -y --no-install-recommends "$work/src"
fi

echo "== dpkg-buildpackage -us -uc -b"
(cd "$work/src" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -n 40 "$work/build.log" >&2; fail "dpkg-buildpackage failed (log above)"; }
if grep -E 'warning:|error:' "$work/build.log" >&2; then
	fail "the package build printed compiler warnings (above)"
fi
grep -E 'Synthesis: Tested: [1-9]' "$work/build.log" ||
	fail "the package build ran no unit tests (dh_auto_test: make test-unit)"
# dpkg-buildflags' hardening reached the compiler and the linker: every
# word of its flags is on the lines that build sbx itself
(
	cd "$work/src"
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all
	compile=$(grep -e '-o build/cmd/sbx/main.o' "$work/build.log")
	link=$(grep -e '-o build/sbx ' "$work/build.log")
	for w in $(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CFLAGS); do
		grep -qF -e " $w " <<<"$compile " || fail "the package build compiled sbx without $w: $compile"
	done
	for w in $(dpkg-buildflags --get LDFLAGS); do
		grep -qF -e " $w " <<<"$link " || fail "the package build linked sbx without $w: $link"
	done
)
deb=$(ls "$work"/sbx_*_amd64.deb)
changes=$(ls "$work"/sbx_*_amd64.changes)

# Ubuntu's dpkg-buildflags gives -D_FORTIFY_SOURCE=3 where Debian's gives
# =2: the Makefile must keep the packager's level and define no other.
echo "== build with Ubuntu's _FORTIFY_SOURCE=3"
(
	cd "$work/src"
	make clean >/dev/null
	eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_CPPFLAGS_STRIP=-D_FORTIFY_SOURCE=2 \
		DEB_CPPFLAGS_APPEND=-D_FORTIFY_SOURCE=3 dpkg-buildflags --export=sh)"
	make WERROR=1 build/sbx
) >"$work/fortify3.log" 2>&1 ||
	{ tail -n 40 "$work/fortify3.log" >&2; fail "the _FORTIFY_SOURCE=3 build failed (log above)"; }
grep -q -- '-D_FORTIFY_SOURCE=3' "$work/fortify3.log" ||
	fail "the _FORTIFY_SOURCE=3 build did not pass the packager's CPPFLAGS to the compiler"
if grep -q -- '-D_FORTIFY_SOURCE=2' "$work/fortify3.log"; then
	fail "the _FORTIFY_SOURCE=3 build also defined _FORTIFY_SOURCE=2"
fi

# Every override must say why on the comment line above it.
echo "== lintian"
for f in "$work"/src/debian/*lintian-overrides "$work"/src/debian/source/lintian-overrides; do
	[ -f "$f" ] || continue
	awk -v f="$f" '
		/^[[:space:]]*$/ { prev = ""; next }
		/^#/ { prev = $0; next }
		prev == "" { printf "check-deb: %s: override without a reason: %s\n", f, $0; bad = 1 }
		{ prev = "" }
		END { exit bad }' "$f" >&2 || fail "every lintian override needs a comment giving its reason"
done
lintian --fail-on error,warning --display-info "$changes" | tee "$work/lintian.log" ||
	fail "lintian found errors or warnings that are not overridden (above)"
echo "lintian: $(grep -c '^[EWIPX]: ' "$work/lintian.log" || true) tags shown, none an error or warning"
dpkg-deb -c "$deb"

echo "== dpkg -i $(basename "$deb")"
installed=1
dpkg -i "$deb"
dpkg -L sbx >"$work/files"

echo "== /usr/bin/sbx run -- /bin/echo hi"
mkdir "$work/tmp"
# what is in the shared temporary directories: path and owner's uid
snapshot() { find /tmp /var/tmp /dev/shm -mindepth 1 -maxdepth 1 -printf '%p %U\n' 2>/dev/null | sort; }
snapshot >"$work/tmp-before"
rc=0
TMPDIR="$work/tmp" /usr/bin/sbx run -- /bin/echo hi >"$work/out" 2>"$work/record" || rc=$?
[ "$rc" = 0 ] || { cat "$work/record" >&2; fail "the installed sbx exited $rc (its stderr above)"; }
snapshot >"$work/tmp-after"
[ "$(cat "$work/out")" = hi ] || fail "stdout was '$(cat "$work/out")', not 'hi'"
jail_uid=$(python3 -c '
import json, sys
rec = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
if rec["status"] != "ok" or rec["exit_code"] != 0:
    sys.exit("the record says %s, exit code %s" % (rec["status"], rec["exit_code"]))
print(rec["isolation"]["host_uid"])
' "$work/record") || fail "the installed sbx's record is not ok: $(cat "$work/record")"
[ -z "$(ls -A "$work/tmp")" ] || fail "sbx left files in its TMPDIR: $(ls -A "$work/tmp")"
# Other jobs on the machine make temporary files too (a compiler's, a test
# suite's sbx-test-*): what counts is one named sbx* by sbx itself or owned
# by the jail's host uid.
new=$(comm -13 "$work/tmp-before" "$work/tmp-after" |
	awk -v uid="$jail_uid" '{ n = $1; sub(".*/", "", n) }
		$2 == uid || (n ~ /^sbx/ && n !~ /^sbx-(tests?|deb|ci)[.-]/)')
[ -z "$new" ] || fail "sbx left temporary files (path, owner uid): $new"

echo "== man -w sbx"
page=$(man -w sbx) || fail "man -w sbx finds no page"
grep -qx "$page" "$work/files" || fail "man -w sbx found $page, which is not the package's"

echo "== dpkg --purge sbx"
dpkg --purge sbx
installed=0
[ "$(state)" = not-installed ] || fail "dpkg still lists sbx as $(state) after the purge"
left=0
while IFS= read -r path; do
	[ "$path" != /. ] || continue
	[ -e "$path" ] || [ -L "$path" ] || continue
	# a directory another package owns (/usr/bin, /usr/share/man/man1) stays
	if [ -d "$path" ] && [ ! -L "$path" ] && dpkg-query -S "$path" >/dev/null 2>&1; then
		continue
	fi
	echo "check-deb: left after the purge: $path" >&2
	left=1
done <"$work/files"
[ "$left" = 0 ] || fail "files of the package are left after dpkg --purge (above)"
echo "check-deb: ok: built, lintian-clean, installed, ran, purged without a trace"
