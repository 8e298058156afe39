// Command build-guestagent builds Lima's guest agent, the program Paddock
// puts into every VM, for the paddock binary to find:
//
//	go run ./platform/lima/build-guestagent -o DIR [-arch x86_64|aarch64]
//
// Put DIR at share/lima beside the bin directory of the paddock binary (or
// make DIR the binary's own directory). Run it from the repository, whose
// go.mod pins the Lima version.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"

	"github.com/lima-vm/lima/pkg/limayaml"

	"paddock.dev/paddock/platform/lima"
)

func main() {
	out := flag.String("o", "", "directory to write lima-guestagent.Linux-ARCH into (required)")
	arch := flag.String("arch", limayaml.NewArch(runtime.GOARCH), "guest architecture: x86_64 or aarch64")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	path, err := lima.BuildGuestAgent(ctx, "", ".", *out, *arch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build-guestagent:", err)
		os.Exit(1)
	}
	fmt.Println(path)
}
