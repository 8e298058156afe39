#!/bin/bash
# Install the .deb that build.sh made with dpkg, check that the binary runs
# from its installed path and that the units, completions and README
# landed, then remove the package again. Needs root.
#
#   packaging/check-deb.sh [dist/paddock_VERSION_ARCH.deb]
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls -t dist/paddock_*.deb | head -1)}
[ -f "$deb" ] || { echo "check-deb: no .deb (run packaging/build.sh)" >&2; exit 1; }

if dpkg-query -W -f='${Status}' paddock 2>/dev/null | grep -q 'install ok installed'; then
	echo "check-deb: a paddock package is already installed; remove it first" >&2
	exit 1
fi
trap 'dpkg -r paddock >/dev/null' EXIT
dpkg -i "$deb"

fail=0
check() { if "$@"; then echo "ok: $*"; else echo "FAIL: $*"; fail=1; fi; }
check test "$(command -v paddock)" = /usr/bin/paddock
version=$(/usr/bin/paddock version) && echo "$version" | grep -q '^paddock v' && echo "ok: $version" ||
	{ echo "FAIL: /usr/bin/paddock version: $version"; fail=1; }
for f in /usr/lib/systemd/user/paddock.service /usr/lib/systemd/system/paddock@.service \
	/usr/share/bash-completion/completions/paddock /usr/share/zsh/vendor-completions/_paddock \
	/usr/share/fish/vendor_completions.d/paddock.fish /usr/share/doc/paddock/README.md \
	/usr/share/lima/lima-guestagent.Linux-*; do
	check test -s "$f"
done
# The packaged units are valid for systemd (an instance of the template
# for an account that exists: root).
if command -v systemd-analyze >/dev/null; then
	out=$(systemd-analyze verify /usr/lib/systemd/user/paddock.service 2>&1) && [ -z "$out" ] &&
		echo "ok: systemd-analyze verify paddock.service" || { echo "FAIL: verify paddock.service: $out"; fail=1; }
	tmp=$(mktemp -d); cp /usr/lib/systemd/system/paddock@.service "$tmp/"; ln -s paddock@.service "$tmp/paddock@root.service"
	out=$(systemd-analyze verify "$tmp/paddock@root.service" 2>&1) && [ -z "$out" ] &&
		echo "ok: systemd-analyze verify paddock@root.service" || { echo "FAIL: verify paddock@root.service: $out"; fail=1; }
	rm -rf "$tmp"
fi
exit $fail
