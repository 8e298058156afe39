// Package darwin holds what Paddock needs to know about a macOS host: its
// Library directories and socket path limit (Roots), the VM type the App
// runs on (AppTarget: VZ where it runs guests, with Rosetta on Apple
// silicon; QEMU with HVF elsewhere), and the macOS side of the platform
// seam (Host, in host_darwin.go). Everything but host_darwin.go builds on
// every OS, so its logic is tested anywhere.
package darwin
