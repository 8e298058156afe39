#!/bin/bash
# Install what the tests and the package checks need on a bare Debian 12,
# as root: QEMU, qemu-img and ssh for the VMs (the guest image's build
# installs its own packages); shellcheck for the shell scripts; systemd
# and logind for the throw-away systemd the tests boot in namespaces
# (TestServiceUnderSystemd, TestContainer), util-linux for unshare,
# nsenter and setpriv, passwd for useradd; for the package checks dpkg and
# lintian (check-deb.sh), rpm and rpmlint (check-rpm.sh). The tray's
# settings window (Fyne on GLFW) builds with cgo against OpenGL and X11's
# headers, and the tray's tests run it under Xvfb with xdotool and
# ImageMagick's import for the window, xclip for the clipboard and a
# private D-Bus session bus (dbus above) for the tray menu. The App's
# end-to-end test talks to Docker in its VM with the host's docker CLI
# (Debian ships it only in docker.io), and to containerd with containerd's
# ctr, and imports a busybox-static root
# file system as an image made offline; the mount benchmark shares folders
# by reverse-sshfs through the host's sftp-server. zip packs the Windows
# zip (packaging/windows/zip.sh), which packaging/archives' test builds.
set -euo pipefail
pkgs=(qemu-system-x86 qemu-utils openssh-client openssh-sftp-server shellcheck
	systemd systemd-sysv libpam-systemd dbus dbus-user-session util-linux passwd dpkg lintian rpm rpmlint
	gcc libc6-dev pkg-config libgl1-mesa-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
	xvfb libgl1-mesa-dri x11-utils xdotool imagemagick xclip
	docker.io containerd busybox-static zip)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
# Only the CLIs are wanted: no engine on the host itself.
if command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
	systemctl disable --now docker.service docker.socket containerd.service 2>/dev/null || true
fi
