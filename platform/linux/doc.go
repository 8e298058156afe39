// Package linux holds what Paddock needs to know about a Linux host: its XDG
// directories today, QEMU through Lima and systemd specifics as they arrive.
// The package builds on every OS so that its pure logic is tested everywhere;
// files that need Linux carry a build constraint.
package linux
