#!/bin/sh
# CI: the README's two commands (`make demo`, then `make check`), in that
# order, in a clean clone on a machine where the build packages look not
# installed until `make deps` installs them.  A PATH of stand-ins makes it
# so without touching the host: pkg-config and dpkg-query find nothing and
# apt-get "installs" (creates a stamp) until then; after it they are the
# real ones.  `make demo` once read pkg-config before deps ran and failed to
# link (undefined reference to cJSON_CreateNull); the second run worked.
# Needs root (tools/deps.sh installs only as root) and git.
# SBX_FRESH_STEPS="demo" runs the first command only.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/sbx-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
git clone -q "$src" "$work/sbx"
fake=$work/bin
stamp=$work/installed
mkdir "$fake"
cat >"$fake/pkg-config" <<EOF
#!/bin/sh
[ -e "$stamp" ] && exec /usr/bin/pkg-config "\$@"
echo "pkg-config (stand-in): nothing installed yet" >&2
exit 1
EOF
cat >"$fake/dpkg-query" <<EOF
#!/bin/sh
[ -e "$stamp" ] && exec /usr/bin/dpkg-query "\$@"
exit 1
EOF
cat >"$fake/apt-get" <<EOF
#!/bin/sh
case " \$* " in *" install "*) touch "$stamp" ;; esac
exit 0
EOF
chmod 0755 "$fake/pkg-config" "$fake/dpkg-query" "$fake/apt-get"
chmod 0755 "$work"
cd "$work/sbx"
for step in ${SBX_FRESH_STEPS:-demo check}; do
	echo "== fresh clone: make $step"
	PATH="$fake:$PATH" make "$step"
done
