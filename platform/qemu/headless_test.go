package qemu

import (
	"strings"
	"testing"
)

func TestDropDisplayDevices(t *testing.T) {
	lima := "-m 1024 -display none -device virtio-vga -device virtio-keyboard-pci -device virtio-mouse-pci -device qemu-xhci,id=usb-bus -device virtio-rng-pci"
	got := strings.Join(DropDisplayDevices(strings.Fields(lima)), " ")
	want := "-m 1024 -display none -device virtio-rng-pci -vga none"
	if got != want {
		t.Errorf("headless:\n got %s\nwant %s", got, want)
	}
	vnc := "-display vnc=127.0.0.1:0,password=on -device virtio-vga -device virtio-tablet-pci -device qemu-xhci,id=usb-bus"
	if got := strings.Join(DropDisplayDevices(strings.Fields(vnc)), " "); got != vnc {
		t.Errorf("with a display:\n got %s\nwant it unchanged", got)
	}
}
