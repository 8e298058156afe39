#!/bin/sh
# A cloud image carries no container engine: Debian's docker.io (which
# brings containerd) is installed at the first boot, from the network.
# The engine is then started by name, as the kernel command line starts it
# in a built image, at every boot.
set -e
unit="{{UNIT}}"
if ! command -v dockerd >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -qy --no-install-recommends docker.io
fi
# The shutdown fits in the minute Paddock gives it, as in Paddock's own
# guest image (platform/linux/guestimage/rootfs/etc/systemd/, which says
# why): 10 s after SIGTERM for what is left, 30 s for dockerd to stop its
# containers. The two values are that image's; a test keeps them so.
conf=/etc/systemd/system.conf.d/paddock-stop.conf
if [ ! -e "$conf" ]; then
	mkdir -p /etc/systemd/system/docker.service.d "${conf%/*}"
	printf '[Service]\nTimeoutStopSec=30s\n' >/etc/systemd/system/docker.service.d/paddock-stop.conf
	printf '[Manager]\nDefaultTimeoutStopSec=10s\n' >"$conf.tmp"
	mv "$conf.tmp" "$conf"
	systemctl daemon-reload
fi
# Installing docker.io enables Docker; containerd alone is wanted then.
if [ "$unit" = containerd.service ]; then
	systemctl disable --now docker.service docker.socket
fi
systemctl start "$unit"
