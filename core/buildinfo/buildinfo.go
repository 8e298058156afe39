// Package buildinfo reports which Paddock this is: the version stamped at
// link time, the commit the toolchain recorded, the Go and Lima it was
// built with, and where its binary is.
package buildinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
)

// Version is set at link time with
// -ldflags "-X paddock.dev/paddock/core/buildinfo.Version=v1.2.3".
var Version = "dev"

// Info is what `paddock version` and the API's /version report.
type Info struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	Lima      string `json:"lima,omitempty"`
}

// Get returns the build information of the running binary.
func Get() Info {
	info := Info{
		Version:   Version,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return info
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			info.Commit = s.Value
		}
	}
	for _, dep := range bi.Deps {
		if dep.Path == "github.com/lima-vm/lima" {
			info.Lima = dep.Version
		}
	}
	return info
}

// Executable returns the path of the running paddock binary: the program
// the daemon runs host agents with, the CLI starts the daemon with, and a
// service manager runs. Symbolic links are not resolved, so that a link a
// package manager keeps (such as Homebrew's bin/paddock) goes on working
// after an upgrade moves its target.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the paddock binary's path: %w", err)
	}
	return filepath.Abs(exe)
}
