// Command paddock-shim is the QEMU wrapper and the ssh shim that Lima's
// host agent runs on Linux, through links named qemu-system-ARCH and ssh
// that the daemon makes (see cmd/paddock/argv0). The paddock binary holds
// the same two, but its start costs some 40 ms in its packages'
// initialisers, and a VM's start or resume runs them a dozen times one
// after the other; this binary links nothing else and starts in a few.
package main

import (
	"fmt"
	"os"

	"paddock.dev/paddock/cmd/paddock/argv0"
)

func main() {
	argv0.Run()
	fmt.Fprintln(os.Stderr, "paddock-shim runs only under the names the paddock daemon links it as, for Lima's host agent: qemu-system-ARCH or ssh")
	os.Exit(2)
}
