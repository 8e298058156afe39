package qemu

import "strings"

// freePageBalloon is a virtio balloon that never inflates (nobody asks it
// to) and only reports the pages the guest frees, which QEMU then returns
// to the host: without it, every page a guest ever touched (at boot, for a
// build, for a cache it dropped since) stays in QEMU's resident memory.
// The guest's virtio_balloon driver reports free blocks of 2 MiB and more
// a few seconds after they were freed.
const freePageBalloon = "virtio-balloon-pci,free-page-reporting=on"

// AddFreePageReporting adds freePageBalloon to the arguments of a QEMU that
// runs a guest, unless they already have a balloon. Queries such as
// "-accel help" pass through unchanged.
func AddFreePageReporting(args []string) []string {
	runsGuest := false
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-device":
			if strings.HasPrefix(args[i+1], "virtio-balloon") {
				return args
			}
		case "-drive", "-kernel":
			runsGuest = true
		}
	}
	if !runsGuest {
		return args
	}
	return append(args[:len(args):len(args)], "-device", freePageBalloon)
}
