#!/bin/sh
# After the package was removed (deb: "remove" or "purge"; rpm: 0, which
# is also its purge) or upgraded: let a running systemd forget the units.
# On purge, also remove the links that enabled the packaged units, left
# when no systemd ran to disable them at removal (a chroot, an image
# build). The users' VMs and data are theirs and stay.
set -e
case "$1" in
purge | 0)
	for link in /etc/systemd/system/*.wants/paddock@*.service /etc/systemd/user/*.wants/paddock.service; do
		[ -L "$link" ] || continue
		case $(readlink "$link") in
		*/systemd/system/paddock@.service | */systemd/user/paddock.service) rm -f "$link" ;;
		esac
	done
	;;
esac
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
	systemctl reset-failed 'paddock@*.service' >/dev/null 2>&1 || true
fi
exit 0
