// Command manpages writes Paddock's manual pages, generated from the
// cobra commands with cobra/doc, for the Linux packages:
//
//	go run ./packaging/manpages -o DIR [-version VERSION]
//
// packaging/build.sh runs it and compresses the pages.
package main

import (
	"flag"
	"fmt"
	"os"

	"paddock.dev/paddock/cmd/paddock/cli"
)

func main() {
	out := flag.String("o", "", "directory to write the pages into (required)")
	version := flag.String("version", "dev", "the version the pages name")
	flag.Parse()
	if *out == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "manpages:", err)
		os.Exit(1)
	}
	if err := cli.WriteManPages(*out, *version); err != nil {
		fmt.Fprintln(os.Stderr, "manpages:", err)
		os.Exit(1)
	}
}
