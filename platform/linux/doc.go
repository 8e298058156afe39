// Package linux holds what Paddock needs to know about a Linux host outside
// its VMs: the XDG base directories an instance's paths derive from
// (Roots). QEMU lives in platform/qemu, Lima in platform/lima, systemd
// service definitions in platform/service; the guest test image is built
// by platform/linux/guestimage and systemd is run for tests by
// platform/linux/systemdtest.
package linux
