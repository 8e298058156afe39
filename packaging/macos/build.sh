#!/bin/bash
# Build Paddock for macOS, on a Mac: Lima's VZ driver and its host agent's
# file watcher use cgo there, so the darwin binary cannot be cross-compiled.
# For each architecture it builds the binary with cgo (the tray included)
# and its Lima helper paddock-lima beside it (the host agents, which run
# VZ), signs both ad hoc with the virtualization entitlement that VZ
# requires (packaging/macos/vz.entitlements, as Lima signs limactl), builds Lima's
# guest agent for the guest of that architecture into share/lima beside
# bin/ (where the binary finds it), and packs them with the install
# script into a tarball (packaging/macos/archive.sh):
#
#   packaging/macos/build.sh                       # dist/paddock-VERSION-darwin-{arm64,amd64}.tar.gz
#   PADDOCK_ARCHS=arm64 PADDOCK_VERSION=1.2.3 packaging/macos/build.sh
#   CODESIGN_IDENTITY="Developer ID Application: ..." packaging/macos/build.sh
#
# Needs Go and the Xcode command line tools (clang, codesign).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "$(uname -s)" != Darwin ]; then
	echo "packaging/macos/build.sh runs on macOS: the darwin binary needs cgo (Lima's VZ driver)" >&2
	exit 2
fi
newest=$(sed -n 's/^- semver: *//p' packaging/changelog.yml | head -1)
version=${PADDOCK_VERSION:-${newest%-*}}
identity=${CODESIGN_IDENTITY:--} # "-": ad hoc
for arch in ${PADDOCK_ARCHS:-arm64 amd64}; do
	case $arch in
	arm64) guest=aarch64 ;;
	amd64) guest=x86_64 ;;
	*) echo "unknown architecture $arch: use arm64 or amd64" >&2; exit 2 ;;
	esac
	root=dist/darwin-$arch
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/share/lima"
	CGO_ENABLED=1 GOOS=darwin GOARCH=$arch go build -trimpath -tags tray \
		-ldflags "-s -w -X paddock.dev/paddock/core/buildinfo.Version=v$version" \
		-o "$root/bin/" ./cmd/paddock ./cmd/paddock/paddock-lima
	codesign --force --entitlements packaging/macos/vz.entitlements \
		--sign "$identity" "$root/bin/paddock" "$root/bin/paddock-lima"
	go run ./platform/lima/build-guestagent -o "$root/share/lima" -arch "$guest" >/dev/null
	packaging/macos/archive.sh "$root" "dist/paddock-$version-darwin-$arch.tar.gz"
done
