#!/bin/bash
# From a clone of Paddock on Debian or Ubuntu, one step to a Settled App and
# a working docker: the host packages it lacks (QEMU, qemu-img, ssh, curl,
# and docker.io for the docker CLI; through sudo unless run as root), the
# binary and Lima's guest agent beside it, the guest image, and
# 'paddock start'. The image is Debian's published cloud image, which the
# daemon downloads and checks against its pinned digest, when
# cloud.debian.org answers; otherwise it is built here from Debian packages
# (platform/linux/guestimage/build.sh, which needs root too).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
case "$(uname -m)" in
x86_64) qemu="qemu-system-x86" ;;
aarch64) qemu="qemu-system-arm" ;;
*) echo "quickstart: no QEMU package known for $(uname -m)" >&2; exit 1 ;;
esac
pkgs=("$qemu" qemu-utils openssh-client openssh-sftp-server curl docker.io)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "quickstart: installing ${missing[*]} (needs root)"
	"${sudo[@]}" apt-get update
	"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	# docker.io was installed for its CLI: Docker runs in Paddock's VM,
	# not on the host. An engine the user had before is left alone.
	if [[ " ${missing[*]} " == *" docker.io "* ]] && [ -d /run/systemd/system ]; then
		"${sudo[@]}" systemctl disable --now docker.service docker.socket containerd.service 2>/dev/null || true
	fi
fi

echo "quickstart: building paddock, its Lima helpers and Lima's guest agent"
go build -o . ./cmd/paddock ./cmd/paddock/paddock-lima ./cmd/paddock/paddock-shim
go run ./platform/lima/build-guestagent -o .

if curl -fsIL --max-time 15 -o /dev/null https://cloud.debian.org/images/cloud/; then
	echo "quickstart: the daemon downloads Debian's cloud image (unless an image was built here before)"
else
	echo "quickstart: cloud.debian.org does not answer: building the guest image here"
	platform/linux/guestimage/build.sh >/dev/null
fi

./paddock start
# This instance's docker context, for this command only.
./paddock run docker info --format 'Docker {{.ServerVersion}} answers in the App VM.'
