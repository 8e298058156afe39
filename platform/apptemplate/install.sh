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
# Installing docker.io enables Docker; containerd alone is wanted then.
if [ "$unit" = containerd.service ]; then
	systemctl disable --now docker.service docker.socket
fi
systemctl start "$unit"
