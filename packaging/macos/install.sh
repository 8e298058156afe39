#!/bin/bash
# Install Paddock from its unpacked macOS archive: place the binaries in
# PREFIX/bin and Lima's guest agent in PREFIX/share/lima (where the daemon
# finds it), sign paddock-lima ad hoc with the virtualization entitlement
# when it lacks it (VZ refuses a binary without), install the daemon as
# your LaunchAgent and start it (paddock service install, paddock service
# start: launchctl bootstrap, or kickstart when launchd has the job), and
# make the tray start at login.
#
#   ./install.sh [--prefix DIR] [--no-service] [--no-tray]
#
# PREFIX is /usr/local unless --prefix (or PREFIX) says otherwise; where
# you cannot write, the copy and the signature run with sudo. Run it as
# yourself, not with sudo: the LaunchAgent and the tray are yours.
# Installing again upgrades: the running daemon stops first (its VMs stop
# gracefully) and the service is updated and started again.
set -euo pipefail
src=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-/usr/local}
service=1 tray=1
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) prefix=${2:?--prefix needs a directory}; shift ;;
	--prefix=*) prefix=${1#--prefix=} ;;
	--no-service) service= ;;
	--no-tray) tray= ;;
	-h | --help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "install.sh: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
if [ "$(id -u)" = 0 ]; then
	echo "install.sh: run it as the user who owns the VMs, not as root: the LaunchAgent and the tray are theirs (it uses sudo for the copy where needed)" >&2
	exit 2
fi
[ -f "$src/bin/paddock" ] || { echo "install.sh: no bin/paddock beside this script: run it from the unpacked archive" >&2; exit 1; }

# sudo only where the prefix is not the user's to write. (A function, not
# an empty array, for macOS's bash 3.2 under set -u.)
mkdir -p "$prefix" 2>/dev/null || true
sudo=
if [ ! -w "$prefix" ]; then
	sudo=sudo
fi
priv() { if [ -n "$sudo" ]; then sudo "$@"; else "$@"; fi; }
bin=$prefix/bin
paddock=$bin/paddock

# An upgrade: the running daemon holds the old binary.
if [ -x "$paddock" ]; then
	"$paddock" shutdown || true
fi

priv mkdir -p "$bin" "$prefix/share/lima"
priv install -m 0755 "$src/bin/paddock" "$src/bin/paddock-lima" "$bin/"
priv install -m 0644 "$src"/share/lima/lima-guestagent.* "$prefix/share/lima/"
echo "installed $paddock, $bin/paddock-lima and Lima's guest agent in $prefix/share/lima"

# VZ runs guests in paddock-lima (Lima's host agent) only when it carries
# the virtualization entitlement. A signature that has it (build.sh's, or a
# Developer ID one) is kept; otherwise it is signed ad hoc.
if codesign -d --entitlements - --xml "$bin/paddock-lima" 2>/dev/null | grep -q com.apple.security.virtualization; then
	echo "paddock-lima carries the virtualization entitlement already"
else
	priv codesign --force --sign - --entitlements "$src/vz.entitlements" "$bin/paddock-lima"
	echo "signed $bin/paddock-lima ad hoc with the virtualization entitlement"
fi

if [ -n "$service" ]; then
	# The LaunchAgent's definition comes from paddock itself, as from
	# "paddock service install" by hand; start bootstraps it into gui/UID
	# (kickstarts it when launchd has it) and waits until the API answers.
	"$paddock" service install
	"$paddock" service start
fi
if [ -n "$tray" ]; then
	"$paddock" tray --autostart on
	echo "the tray starts at your next login; to start it now: $paddock tray &"
fi
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "note: $bin is not on your PATH" ;;
esac
