#!/bin/sh
# Install the Debian packages named on the command line, only those missing.
# Idempotent and non-interactive; prints the apt line instead when not root.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && { echo "deps: all installed"; exit 0; }
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing:$missing"
	echo "deps: run as root: apt-get install -y$missing"
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
