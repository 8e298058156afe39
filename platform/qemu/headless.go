package qemu

import "slices"

// headlessDevices are the devices Lima v1.2.2 adds to every x86_64 guest for
// a display and its input, whether or not there is a display.
var headlessDevices = []string{
	"virtio-vga",
	"virtio-gpu",
	"virtio-keyboard-pci",
	"virtio-mouse-pci",
	"virtio-tablet-pci",
	"qemu-xhci,id=usb-bus",
}

// DropDisplayDevices removes the display, keyboard, mouse and USB
// controller devices from QEMU arguments that have no display
// ("-display none"), and asks for no VGA card instead of QEMU's default
// one. Under emulation, the firmware and the guest kernel spend seconds
// setting up devices nobody can see or use. Arguments with a display pass
// through unchanged.
func DropDisplayDevices(args []string) []string {
	headless := false
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "-display" && args[i+1] == "none" {
			headless = true
		}
	}
	if !headless {
		return args
	}
	out := make([]string, 0, len(args)+2)
	for i := 0; i < len(args); i++ {
		if args[i] == "-device" && i+1 < len(args) && slices.Contains(headlessDevices, args[i+1]) {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return append(out, "-vga", "none")
}
