// Package linux holds what Paddock needs to know about a Linux host outside
// its VMs: the XDG base directories an instance's paths derive from
// (Roots). QEMU lives in platform/qemu, Lima in platform/lima, systemd
// service definitions in platform/service. Beneath it, apptemplate renders
// the App's VM template, guestimage builds the guest image, and
// systemdtest runs a throw-away systemd for tests.
package linux
