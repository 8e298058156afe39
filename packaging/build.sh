#!/bin/bash
# Build Paddock's Linux packages: the static binaries (paddock and its Lima
# helper paddock-lima), the tray's settings window (paddock-settings),
# Lima's guest agent, the shell completions and manual pages, and a .deb
# and an .rpm made by nfpm, all under dist/.
#
#   packaging/build.sh                      # this machine's arch, the changelog's version
#   PADDOCK_VERSION=1.2.3 PADDOCK_ARCH=arm64 packaging/build.sh
#   PACKAGERS=deb packaging/build.sh        # only the .deb
set -euo pipefail
cd "$(dirname "$0")/.."

# The version and release of the newest entry of the packages' changelog,
# unless given.
newest=$(sed -n 's/^- semver: *//p' packaging/changelog.yml | head -1)
export PADDOCK_VERSION=${PADDOCK_VERSION:-${newest%-*}}
export PADDOCK_RELEASE=${PADDOCK_RELEASE:-${newest##*-}}
export PADDOCK_ARCH=${PADDOCK_ARCH:-$(go env GOARCH)}
PACKAGERS=${PACKAGERS:-deb rpm}
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

out=dist/linux-$PADDOCK_ARCH
mkdir -p "$out" dist/completions
CGO_ENABLED=0 GOOS=linux GOARCH=$PADDOCK_ARCH go build -trimpath \
	-ldflags "-s -w -X paddock.dev/paddock/core/buildinfo.Version=v$PADDOCK_VERSION" \
	-o "$out/" ./cmd/paddock ./cmd/paddock/paddock-lima ./cmd/paddock/paddock-shim

# Completions come from the binary itself; build one for this machine when
# the package is for another architecture.
gen=$out/paddock
if [ "$PADDOCK_ARCH" != "$(go env GOARCH)" ]; then
	gen=dist/paddock-host
	CGO_ENABLED=0 go build -trimpath -o "$gen" ./cmd/paddock
fi
# The tray's settings window is Fyne on OpenGL, which needs cgo: a second
# paddock, built with cgo and the tray tag, that the static one runs for
# Settings… (see settingsExecutable in cmd/paddock/cli). It links the C
# library, X11 and OpenGL of the architecture, so it is built for this
# machine's only; a package for another architecture goes without it (its
# tray's Settings… then says how to get the window) unless built on a
# machine of that architecture.
settings=$out/paddock-settings
rm -f "$settings"
if [ "$PADDOCK_ARCH" = "$(go env GOARCH)" ]; then
	CGO_ENABLED=1 GOOS=linux GOARCH=$PADDOCK_ARCH go build -trimpath -tags tray \
		-ldflags "-s -w -X paddock.dev/paddock/core/buildinfo.Version=v$PADDOCK_VERSION" \
		-o "$settings" ./cmd/paddock
else
	echo "build.sh: no paddock-settings for $PADDOCK_ARCH: the settings window needs cgo with a C compiler, X11 and OpenGL for $PADDOCK_ARCH; the packages leave it out (build them on a machine of that architecture to have it)" >&2
fi

"$gen" completion bash >dist/completions/paddock.bash
"$gen" completion zsh >dist/completions/_paddock
"$gen" completion fish >dist/completions/paddock.fish

# Manual pages from the commands' help, compressed as distributions ship
# them; the date in them is the last commit's, so that builds repeat.
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
export SOURCE_DATE_EPOCH
rm -rf dist/man
# The commands of the packaged binary, which is built without cgo.
CGO_ENABLED=0 go run -trimpath ./packaging/manpages -o dist/man -version "v$PADDOCK_VERSION"
gzip -9n dist/man/*.1

# nfpm expands no variables in source paths: stage the binaries, the
# settings window, which the tray finds in ../lib/paddock from the binary,
# and Lima's guest agent, which the daemon finds there, as it finds
# paddock-lima.
mkdir -p dist/stage
cp "$out/paddock" "$out/paddock-lima" "$out/paddock-shim" dist/stage/
rm -f dist/stage/paddock-settings
config=packaging/nfpm.yaml
if [ -f "$settings" ]; then
	cp "$settings" dist/stage/paddock-settings
else
	# nfpm fails on a missing source: the configuration without its entry.
	config=dist/nfpm-without-settings.yaml
	awk '$0 == "  - src: dist/stage/paddock-settings" { skip = 1; next }
		skip && /^  [-#]/ { skip = 0 }
		!skip' packaging/nfpm.yaml >"$config"
fi
# The guest agent's architecture, and the packages that run and boot guests
# of it (nfpm drops an empty name): Debian's, then Fedora's.
case $PADDOCK_ARCH in
amd64)
	guest_arch=x86_64
	PADDOCK_DEB_QEMU=qemu-system-x86 PADDOCK_DEB_FIRMWARE=''
	PADDOCK_RPM_QEMU=qemu-system-x86-core PADDOCK_RPM_FIRMWARE='' ;;
arm64)
	guest_arch=aarch64
	PADDOCK_DEB_QEMU=qemu-system-arm PADDOCK_DEB_FIRMWARE=qemu-efi-aarch64
	PADDOCK_RPM_QEMU=qemu-system-aarch64-core PADDOCK_RPM_FIRMWARE=edk2-aarch64 ;;
*) echo "build.sh: no guest agent for $PADDOCK_ARCH" >&2; exit 1 ;;
esac
export PADDOCK_DEB_QEMU PADDOCK_DEB_FIRMWARE PADDOCK_RPM_QEMU PADDOCK_RPM_FIRMWARE
rm -f dist/stage/lima-guestagent.*
go run ./platform/lima/build-guestagent -o dist/stage -arch "$guest_arch" >/dev/null
for p in $PACKAGERS; do
	go run "$NFPM" package --config "$config" --packager "$p" --target dist/
done
ls -l dist/*.deb dist/*.rpm 2>/dev/null || true
