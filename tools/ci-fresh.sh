#!/bin/sh
# CI: the README's first steps and its two commands on a fresh Debian 12,
# as a new user of sbx would run them: a minimal root made by debootstrap
# (--variant=minbase) from Debian's archive, entered as a container (its
# own mount and pid namespaces, pivot_root, a fresh /proc, a tmpfs /tmp),
# where only what the README names is installed first (git, make).  Then,
# as root with the clone in root's home (mode 0700), and as a new user
# with the clone in a 0700 home of its own: `make demo`, then `make check`.
# The lab machine has every tool installed and stages its clones in 0755
# directories, which once hid a test that failed in a 0700 home and a
# tool `make deps` did not install.
#
# Needs root, debootstrap (installed when missing) and Debian's archive.
# Measured on the 2-core CI machine: about 10 min in all (debootstrap 40 s;
# as root make demo 100 s with the packages it installs, make check 190 s;
# as the new user 20 s and 215 s).
# SBX_FRESH_STEPS="demo" runs the first command only; SBX_FRESH_USERS="root"
# leaves the new user out; SBX_FRESH_MIRROR names another Debian mirror.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
steps=${SBX_FRESH_STEPS:-demo check}
users=${SBX_FRESH_USERS:-root fresh}
mirror=${SBX_FRESH_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources \
	2>/dev/null | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}

if [ "$(id -u)" != 0 ]; then
	echo "ci-fresh: needs root (debootstrap and a container); run it as root" >&2
	exit 2
fi
if ! command -v debootstrap >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
fi

# Not below /tmp: the container mounts a tmpfs on its own /tmp.  The
# container's mounts live in its own mount namespace and end with it.
work=$(mktemp -d /var/tmp/sbx-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
root=$work/root
t0=$(date +%s)
echo "== fresh: debootstrap --variant=minbase bookworm from $mirror"
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
	tail -n 20 "$work/debootstrap.log" >&2
	echo "ci-fresh: debootstrap failed (log above)" >&2
	exit 2
fi
echo "== fresh: root made in $(($(date +%s) - t0)) s"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# What the user clones: this tree as committed, world-readable
git clone -q --bare "$src" "$root/srv/sbx.git"
chmod -R a+rX "$root/srv"

cat >"$root/fresh.sh" <<'EOF'
#!/bin/sh
set -eu
export DEBIAN_FRONTEND=noninteractive
step() { echo "== fresh ($1): $2"; }
step root "apt-get install git make (the README's first step)"
apt-get update -qq
apt-get install -y -qq git make >/dev/null
for user in $USERS; do
	if [ "$user" = root ]; then
		home=/root
		as() { sh -c "$1"; }
	else
		useradd -m -s /bin/sh "$user"
		home=/home/$user
		as() { su -s /bin/sh "$user" -c "$1"; }
	fi
	# git refuses a repository another user owns: each clones its own copy,
	# as each would clone from a forge
	repo=/srv/$user.git
	cp -r /srv/sbx.git "$repo"
	chown -R "$user": "$repo"
	chmod 0700 "$home"
	step "$user" "git clone into $home (mode 0700)"
	as "git clone -q $repo $home/sbx"
	if [ "$user" != root ]; then
		# the README: make deps as root (or the apt-get line it prints)
		step "$user" "make deps, run by root"
		(cd "$home/sbx" && make deps)
	fi
	for s in $STEPS; do
		t=$(date +%s)
		step "$user" "make $s"
		as "cd $home/sbx && make $s"
		step "$user" "make $s passed in $(($(date +%s) - t)) s"
	done
done
EOF

# The container: a private copy of the mount table, pid 1 of its own pid
# namespace, the new root bound onto itself for pivot_root.
unshare --mount --pid --fork --propagation private \
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin STEPS="$steps" USERS="$users" sh -euc '
	r=$1
	mount --bind "$r" "$r"
	mount -t proc proc "$r/proc"
	mount --rbind /dev "$r/dev"
	mount --rbind /sys "$r/sys"
	mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
	mkdir "$r/.host"
	cd "$r"
	pivot_root . .host
	umount -l /.host
	rmdir /.host
	cd /
	exec env HOME=/root TERM=dumb LANG=C.UTF-8 sh /fresh.sh
' sh "$root"
echo "== fresh: all passed in $(($(date +%s) - t0)) s"
