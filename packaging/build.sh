#!/bin/bash
# Build Paddock's Linux packages: the static binary, its shell completions,
# and a .deb and an .rpm made by nfpm, all under dist/.
#
#   packaging/build.sh                      # amd64, version 0.0.0-dev
#   PADDOCK_VERSION=1.2.3 PADDOCK_ARCH=arm64 packaging/build.sh
#   PACKAGERS=deb packaging/build.sh        # only the .deb
set -euo pipefail
cd "$(dirname "$0")/.."

export PADDOCK_VERSION=${PADDOCK_VERSION:-0.0.0-dev}
export PADDOCK_ARCH=${PADDOCK_ARCH:-$(go env GOARCH)}
PACKAGERS=${PACKAGERS:-deb rpm}
NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2

out=dist/linux-$PADDOCK_ARCH
mkdir -p "$out" dist/completions
CGO_ENABLED=0 GOOS=linux GOARCH=$PADDOCK_ARCH go build -trimpath \
	-ldflags "-s -w -X paddock.dev/paddock/core/buildinfo.Version=v$PADDOCK_VERSION" \
	-o "$out/paddock" ./cmd/paddock

# Completions come from the binary itself; build one for this machine when
# the package is for another architecture.
gen=$out/paddock
if [ "$PADDOCK_ARCH" != "$(go env GOARCH)" ]; then
	gen=dist/paddock-host
	CGO_ENABLED=0 go build -o "$gen" ./cmd/paddock
fi
"$gen" completion bash >dist/completions/paddock.bash
"$gen" completion zsh >dist/completions/_paddock
"$gen" completion fish >dist/completions/paddock.fish

# nfpm expands no variables in source paths: stage the binary, and Lima's
# guest agent, which Lima finds in ../share/lima from the binary.
mkdir -p dist/stage
cp "$out/paddock" dist/stage/paddock
case $PADDOCK_ARCH in
amd64) guest_arch=x86_64 ;;
arm64) guest_arch=aarch64 ;;
*) echo "build.sh: no guest agent for $PADDOCK_ARCH" >&2; exit 1 ;;
esac
rm -f dist/stage/lima-guestagent.*
go run ./platform/lima/build-guestagent -o dist/stage -arch "$guest_arch" >/dev/null
for p in $PACKAGERS; do
	go run "$NFPM" package --config packaging/nfpm.yaml --packager "$p" --target dist/
done
ls -l dist/*.deb dist/*.rpm 2>/dev/null || true
