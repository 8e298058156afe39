#!/bin/sh
# After the package was installed or upgraded (deb: "configure OLD-VERSION";
# rpm: 1 on install, 2 or more on upgrade): let a running systemd see the
# units, and on an upgrade restart the daemons that run from the packaged
# binary, so that they run the new one (as Debian's deb-systemd-invoke
# restarts a package's services). Nothing is enabled or started on a first
# install: which user's daemon runs is the administrator's choice (see
# /usr/share/doc/paddock/README.md).
set -e
[ -d /run/systemd/system ] || exit 0
systemctl daemon-reload || true

upgrade=false
case "$1" in
configure) [ -n "$2" ] && upgrade=true ;;
[2-9] | [1-9][0-9]*) upgrade=true ;;
esac
$upgrade || exit 0

# runs_packaged_binary UNIT [systemctl options]: whether UNIT runs
# /usr/bin/paddock (units that "paddock service install" wrote may run
# another binary, which is not this package's to restart).
runs_packaged_binary() {
	u=$1; shift
	systemctl "$@" show --property=ExecStart --value "$u" | grep -q 'path=/usr/bin/paddock '
}

# try-restart restarts running units and leaves stopped ones stopped.
for u in $(systemctl list-units --all --plain --no-legend --type=service 'paddock@*.service' 'paddock.service' 'paddock-*.service' | awk '{print $1}'); do
	runs_packaged_binary "$u" || continue
	systemctl try-restart "$u" || echo "paddock: restarting $u failed; see: systemctl status $u" >&2
done
for dir in /run/user/*/systemd/private; do
	[ -S "$dir" ] || continue
	uid=${dir#/run/user/}; uid=${uid%%/*}
	name=$(getent passwd "$uid" | cut -d: -f1) || continue
	for u in $(systemctl --user -M "$name@" list-units --all --plain --no-legend --type=service 'paddock.service' 'paddock-*.service' 2>/dev/null | awk '{print $1}'); do
		runs_packaged_binary "$u" --user -M "$name@" || continue
		systemctl --user -M "$name@" try-restart "$u" || echo "paddock: restarting $u of $name failed" >&2
	done
done
exit 0
