// Package linux holds what Paddock needs to know about a Linux host outside
// its VMs: the XDG base directories an instance's paths derive from and
// their socket path limit (Roots), and the Linux side of the platform seam
// (Host, in host_linux.go: QEMU, the guest image, the host check). QEMU
// lives in platform/qemu, Lima in platform/lima, systemd service
// definitions in platform/service, the App's template in
// platform/apptemplate. Beneath it, guestimage builds the guest image
// (platform/image chooses it), and systemdtest runs a throw-away systemd
// for tests.
package linux
