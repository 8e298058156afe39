#!/bin/bash
# Check the .deb that build.sh made, as root:
#  1. lintian finds nothing (overrides carry their reasons in the package);
#  2. dpkg installs it here, the binary runs from its installed path, the
#     units, Lima helper, guest agent, manual pages, completions, documents
#     and the tray's menu entry, icons and settings window (paddock-settings,
#     which runs) landed, and the units are valid for systemd; then dpkg
#     purges it;
#  3. under a real systemd (booted in namespaces on a private overlay of
#     this machine's root, so nothing reaches the host), the maintainer
#     scripts: an upgrade restarts the running daemons, a removal stops and
#     disables every instance of paddock@.service and stops the users'
#     daemons, and a purge leaves no unit, link or process behind.
#
#   packaging/check-deb.sh [dist/paddock_VERSION_ARCH.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls -t dist/paddock_*.deb | head -1)}
[ -f "$deb" ] || { echo "check-deb: no .deb (run packaging/build.sh)" >&2; exit 1; }
deb=$(realpath "$deb")

if dpkg-query -W -f='${Status}' paddock 2>/dev/null | grep -q 'install ok installed'; then
	echo "check-deb: a paddock package is already installed; remove it first" >&2
	exit 1
fi

fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
check() { if "$@"; then ok "$*"; else bad "$*"; fi; }

echo "== lintian"
if out=$(lintian --fail-on warning,error "$deb" 2>&1 | grep -v 'running with root privileges'); [ -z "$out" ]; then
	ok "lintian $(basename "$deb")"
else
	bad "lintian:"; echo "$out"
fi

echo "== dpkg on this machine"
trap 'dpkg -P paddock >/dev/null 2>&1 || true' EXIT
dpkg -i "$deb"
check test "$(command -v paddock)" = /usr/bin/paddock
version=$(/usr/bin/paddock version --client) && echo "$version" | grep -q '^paddock v' && ok "$version" ||
	bad "/usr/bin/paddock version --client: $version"
for f in /usr/lib/systemd/user/paddock.service /usr/lib/systemd/system/paddock@.service \
	/usr/share/bash-completion/completions/paddock /usr/share/zsh/vendor-completions/_paddock \
	/usr/share/fish/vendor_completions.d/paddock.fish /usr/share/doc/paddock/README.md \
	/usr/share/doc/paddock/copyright /usr/share/doc/paddock/changelog.Debian.gz \
	/usr/share/man/man1/paddock.1.gz /usr/share/man/man1/paddock-service-install.1.gz \
	/usr/lib/paddock/lima-guestagent.Linux-* /usr/lib/paddock/paddock-lima /usr/lib/paddock/paddock-shim /usr/share/applications/paddock-tray.desktop \
	/usr/share/icons/hicolor/256x256/apps/paddock.png /usr/share/icons/hicolor/48x48/apps/paddock.png; do
	check test -s "$f"
done
# The settings window: a program that runs, of the package's version; the
# static paddock has none of its own.
check test -x /usr/lib/paddock/paddock-settings
settings_version=$(/usr/lib/paddock/paddock-settings version --client) && [ "$settings_version" = "$version" ] &&
	ok "paddock-settings: $settings_version" || bad "/usr/lib/paddock/paddock-settings version --client: $settings_version, not $version"
if out=$(/usr/bin/paddock tray --settings 2>&1 </dev/null); then
	bad "/usr/bin/paddock tray --settings ran: $out"
elif grep -q 'built without the settings window' <<<"$out"; then
	ok "/usr/bin/paddock has no settings window of its own"
else
	bad "/usr/bin/paddock tray --settings: $out"
fi
# The packaged units are valid for systemd (an instance of the template
# for an account that exists: root).
out=$(systemd-analyze verify /usr/lib/systemd/user/paddock.service 2>&1) && [ -z "$out" ] &&
	ok "systemd-analyze verify paddock.service" || bad "verify paddock.service: $out"
tmp=$(mktemp -d)
trap 'dpkg -P paddock >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
cp /usr/lib/systemd/system/paddock@.service "$tmp/"; ln -s paddock@.service "$tmp/paddock@root.service"
out=$(systemd-analyze verify "$tmp/paddock@root.service" 2>&1) && [ -z "$out" ] &&
	ok "systemd-analyze verify paddock@root.service" || bad "verify paddock@root.service: $out"
dpkg -P paddock >/dev/null
check test ! -e /usr/bin/paddock

echo "== the maintainer scripts under systemd"
sysd=platform/linux/systemdtest/sysd-ns.sh
export SYSD_NS_BASE=$tmp/sysd
id=deb$$
mkdir -p "$tmp/share"
cp "$deb" "$tmp/share/paddock.deb"
trap 'bash $sysd down $id >/dev/null 2>&1 || true; dpkg -P paddock >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
start=$(date +%s)
bash "$sysd" up "$id" "$tmp/share"
inside() { bash "$sysd" exec "$id" "$@"; }
# as UID NAME CMD...: run CMD inside with the environment systemd gives
# NAME's daemon (a user manager's adds XDG_RUNTIME_DIR; here both do, since
# the paths this check needs do not depend on it).
as() {
	local uid=$1 name=$2; shift 2
	inside setpriv --reuid="$uid" --regid="$uid" --init-groups env -i HOME="/home/$name" USER="$name" \
		XDG_RUNTIME_DIR="/run/user/$uid" PATH=/usr/bin:/bin "$@"
}
# mainpid UNIT SOCKET [systemctl options]: the daemon's pid once the unit
# is active and its API socket exists, within 30 s; empty if it never is.
mainpid() {
	local unit=$1 socket=$2 pid; shift 2
	for _ in $(seq 150); do
		if [ "$(inside systemctl "$@" is-active "$unit" 2>/dev/null)" = active ] && inside test -S "$socket"; then
			pid=$(inside systemctl "$@" show --property=MainPID --value "$unit")
			[ "$pid" -gt 0 ] && { echo "$pid"; return; }
		fi
		sleep 0.2
	done
}
paddock_processes() { inside sh -c 'pgrep -x paddock || true'; }

inside useradd --create-home --uid 1601 --user-group alice
inside useradd --create-home --uid 1602 --user-group desk
inside loginctl enable-linger desk
for _ in $(seq 150); do [ "$(inside systemctl is-active user@1602.service)" = active ] && break; sleep 0.2; done
inside dpkg -i /share/paddock.deb >/dev/null
alice_socket=$(as 1601 alice paddock service paths socket)
desk_socket=$(as 1602 desk paddock service paths socket)
inside systemctl enable --now paddock@alice.service
inside systemctl --user -M desk@ enable --now paddock.service
sys_pid=$(mainpid paddock@alice.service "$alice_socket")
user_pid=$(mainpid paddock.service "$desk_socket" --user -M desk@)
[ -n "$sys_pid" ] && ok "paddock@alice runs, pid $sys_pid" || bad "paddock@alice did not start: $(inside systemctl status --no-pager paddock@alice.service)"
[ -n "$user_pid" ] && ok "desk's paddock.service runs, pid $user_pid" || bad "desk's paddock.service did not start"

# An upgrade (here the same version again, which runs the same scripts)
# restarts both daemons on the new binary.
inside rm -f "$alice_socket" "$desk_socket"
inside dpkg -i /share/paddock.deb >/dev/null
new_sys=$(mainpid paddock@alice.service "$alice_socket")
new_user=$(mainpid paddock.service "$desk_socket" --user -M desk@)
[ -n "$new_sys" ] && [ "$new_sys" != "$sys_pid" ] && ok "upgrade restarted paddock@alice ($sys_pid -> $new_sys)" ||
	bad "after an upgrade paddock@alice runs as '$new_sys', was $sys_pid: not restarted"
[ -n "$new_user" ] && [ "$new_user" != "$user_pid" ] && ok "upgrade restarted desk's paddock.service ($user_pid -> $new_user)" ||
	bad "after an upgrade desk's paddock.service runs as '$new_user', was $user_pid: not restarted"

# Removal stops and disables every instance, and stops the user's daemon.
inside systemctl enable paddock@desk.service # enabled, not running
inside dpkg -r paddock >/dev/null
left=$(paddock_processes)
[ -z "$left" ] && ok "no paddock process runs after dpkg -r" || bad "after dpkg -r paddock processes run: $left"
links=$(inside sh -c 'ls /etc/systemd/system/*.wants/ | grep paddock || true')
[ -z "$links" ] && ok "no enabling link is left after dpkg -r" || bad "after dpkg -r links are left: $links"
state=$(inside systemctl is-active paddock@alice.service || true)
[ "$state" = inactive ] && ok "paddock@alice is inactive" || bad "paddock@alice is $state after dpkg -r"

# Purge removes the links a removal without a running systemd would leave.
inside ln -s /usr/lib/systemd/system/paddock@.service /etc/systemd/system/multi-user.target.wants/paddock@bob.service
inside dpkg -P paddock >/dev/null
links=$(inside sh -c 'ls /etc/systemd/system/*.wants/ | grep paddock || true')
[ -z "$links" ] && ok "no enabling link is left after dpkg -P" || bad "after dpkg -P links are left: $links"
units=$(inside systemctl list-units --all --plain --no-legend 'paddock*')
[ -z "$units" ] && ok "systemd lists no paddock unit after dpkg -P" || bad "after dpkg -P systemd lists: $units"
bash "$sysd" down "$id" >/dev/null
echo "the maintainer scripts' check took $(($(date +%s) - start)) s"
exit $fail
