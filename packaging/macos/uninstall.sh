#!/bin/bash
# Uninstall what install.sh installed: the tray's start at login, the
# LaunchAgent (stopped first: its VMs stop gracefully), and the binaries
# and guest agent under PREFIX. Your VMs, images and settings stay;
# "paddock factory-reset" before this script removes them too.
#
#   ./uninstall.sh [--prefix DIR]
set -euo pipefail
prefix=${PREFIX:-/usr/local}
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=${2:?--prefix needs a directory}; shift ;;
	--prefix=*) prefix=${1#--prefix=} ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "uninstall.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
bin=$prefix/bin
paddock=$bin/paddock
if [ -x "$paddock" ]; then
	"$paddock" tray --autostart off || true
	"$paddock" shutdown || true
	# Fails where no service is installed: not an error here.
	"$paddock" service uninstall || true
fi
sudo=
if [ -e "$bin" ] && [ ! -w "$bin" ]; then
	sudo=sudo
fi
priv() { if [ -n "$sudo" ]; then sudo "$@"; else "$@"; fi; }
priv rm -f "$paddock" "$bin/paddock-lima" "$prefix"/share/lima/lima-guestagent.*
priv rmdir "$prefix/share/lima" 2>/dev/null || true
echo "removed Paddock from $prefix"
