#!/bin/sh
# Before the package is removed (deb: "remove"; rpm: 0; nothing on an
# upgrade): stop and disable every instance of the system template
# paddock@.service, disable the packaged user unit for all users, and stop
# every other daemon, system or user, that runs the packaged binary, so
# that none goes on running from a deleted file.
set -e
case "$1" in
remove | 0) ;;
*) exit 0 ;;
esac
[ -d /run/systemd/system ] || exit 0

runs_packaged_binary() {
	u=$1; shift
	systemctl "$@" show --property=ExecStart --value "$u" | grep -q 'path=/usr/bin/paddock '
}

# Running instances are loaded; enabled ones have a link in a target's
# .wants directory, whether they run or not.
units=$(systemctl list-units --all --plain --no-legend --type=service 'paddock@*.service' 'paddock.service' 'paddock-*.service' | awk '{print $1}')
for link in /etc/systemd/system/*.wants/paddock@*.service; do
	[ -L "$link" ] && units="$units ${link##*/}"
done
for u in $(printf '%s\n' $units | sort -u); do
	case $u in
	paddock@*) systemctl disable --now "$u" || echo "paddock: stopping $u failed" >&2 ;;
	*)
		# A unit that "paddock service install" wrote stays (it is not
		# the package's), but stops if it runs the packaged binary.
		runs_packaged_binary "$u" || continue
		systemctl stop "$u" || echo "paddock: stopping $u failed" >&2
		;;
	esac
done
systemctl --global disable paddock.service >/dev/null 2>&1 || true

for dir in /run/user/*/systemd/private; do
	[ -S "$dir" ] || continue
	uid=${dir#/run/user/}; uid=${uid%%/*}
	name=$(getent passwd "$uid" | cut -d: -f1) || continue
	for u in $(systemctl --user -M "$name@" list-units --all --plain --no-legend --type=service 'paddock.service' 'paddock-*.service' 2>/dev/null | awk '{print $1}'); do
		runs_packaged_binary "$u" --user -M "$name@" || continue
		systemctl --user -M "$name@" stop "$u" || echo "paddock: stopping $u of $name failed" >&2
	done
done
exit 0
