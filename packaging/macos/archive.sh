#!/bin/bash
# Pack Paddock's macOS archive from built darwin binaries:
#
#   packaging/macos/archive.sh ROOT OUT.tar.gz
#
# ROOT holds bin/paddock, bin/paddock-lima and share/lima/lima-guestagent.*
# (packaging/macos/build.sh builds them on a Mac: they need cgo). The
# archive holds those, install.sh and uninstall.sh, vz.entitlements (which
# install.sh signs paddock-lima with, when it lacks the entitlement) and
# README.md, in one folder named after OUT.
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 ROOT OUT.tar.gz" >&2
	exit 2
fi
root=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
for f in bin/paddock bin/paddock-lima; do
	[ -f "$root/$f" ] || { echo "archive.sh: $root/$f is missing" >&2; exit 1; }
done
agents=("$root"/share/lima/lima-guestagent.*)
[ -f "${agents[0]}" ] || { echo "archive.sh: no $root/share/lima/lima-guestagent.*" >&2; exit 1; }

name=$(basename "$out" .tar.gz)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/share"
cp -R "$root/bin" "$stage/$name/"
cp -R "$root/share/lima" "$stage/$name/share/"
cp "$here/install.sh" "$here/uninstall.sh" "$here/vz.entitlements" "$here/README.md" "$stage/$name/"
chmod 0755 "$stage/$name/install.sh" "$stage/$name/uninstall.sh" "$stage/$name/bin/paddock" "$stage/$name/bin/paddock-lima"
tar -C "$stage" -czf "$out" "$name"
echo "$out"
