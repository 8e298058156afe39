#!/bin/bash
# Build Paddock's Windows zip, on any machine with Go: paddock.exe and its
# Lima helper paddock-lima.exe (cross-compiled without cgo, which they
# need not on Windows), Lima's guest agent for the WSL2 guest (a Linux
# program), the install and uninstall scripts, and the App's WSL root file
# system when one is given:
#
#   packaging/windows/zip.sh                 # dist/paddock-VERSION-windows-amd64.zip
#   PADDOCK_WSL_IMAGE=rootfs.tar.gz packaging/windows/zip.sh
#   PADDOCK_VERSION=1.2.3 PADDOCK_DIST=/tmp/out packaging/windows/zip.sh
#
# The zip holds one folder, paddock-VERSION-windows-amd64, with bin\
# (paddock.exe, paddock-lima.exe), share\lima\ (the guest agent, where the
# daemon finds it from bin\), image\ (the WSL image, when given),
# install.ps1, uninstall.ps1 and README.md. The tray's settings window,
# paddock-settings.exe, needs cgo and a Windows C compiler: it is not in
# the zip (see packaging/windows/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."

newest=$(sed -n 's/^- semver: *//p' packaging/changelog.yml | head -1)
version=${PADDOCK_VERSION:-${newest%-*}}
dist=${PADDOCK_DIST:-dist}
image=${PADDOCK_WSL_IMAGE:-}
if [ -n "$image" ]; then
	case $image in
	*.tar | *.tar.*) ;;
	*) echo "zip.sh: PADDOCK_WSL_IMAGE=$image: WSL2 boots a root file system tarball (.tar, .tar.gz, ...)" >&2; exit 2 ;;
	esac
	[ -f "$image" ] || { echo "zip.sh: PADDOCK_WSL_IMAGE=$image: no such file" >&2; exit 2; }
fi

name=paddock-$version-windows-amd64
mkdir -p "$dist"
dist=$(cd "$dist" && pwd)
stage=$dist/windows-amd64
root=$stage/$name
rm -rf "$stage"
mkdir -p "$root/bin" "$root/share/lima"
# -trimpath, as packaging/build.sh and CI build, so that a second build
# finds every package in the cache.
CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build -trimpath \
	-ldflags "-s -w -X paddock.dev/paddock/core/buildinfo.Version=v$version" \
	-o "$root/bin/" ./cmd/paddock ./cmd/paddock/paddock-lima
go run ./platform/lima/build-guestagent -o "$root/share/lima" -arch x86_64 >/dev/null
if [ -n "$image" ]; then
	mkdir -p "$root/image"
	cp "$image" "$root/image/"
fi
cp packaging/windows/install.ps1 packaging/windows/uninstall.ps1 packaging/windows/README.md "$root/"

rm -f "$dist/$name.zip"
(cd "$stage" && zip -qrX "$dist/$name.zip" "$name")
echo "$dist/$name.zip"
