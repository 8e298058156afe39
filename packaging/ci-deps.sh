#!/bin/bash
# Install what the service tests and the package check need on a bare
# Debian 12, as root: systemd and logind for the throw-away systemd the
# tests boot in namespaces (TestServiceUnderSystemd, TestContainer),
# util-linux for unshare, nsenter and setpriv, passwd for useradd, and dpkg
# for check-deb.sh.
set -euo pipefail
pkgs=(systemd systemd-sysv libpam-systemd dbus dbus-user-session util-linux passwd dpkg)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
