#!/bin/sh
# After the package's units were added or removed: let a running systemd
# see the change. Services are neither enabled nor started here; that is
# the user's choice (see /usr/share/doc/paddock/README.md).
set -e
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload || true
fi
