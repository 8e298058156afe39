//go:build !darwin || cgo

package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The tray runs its settings window from paddock-settings beside the
// binary or in ../lib/paddock (where the packages put it) when the binary
// lacks the window, and from the binary itself when it has it or when
// there is no such program, which then says how to get the window.
func TestSettingsExecutable(t *testing.T) {
	name := "paddock-settings"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	type file struct {
		path string
		mode os.FileMode // 0: a directory
	}
	for _, c := range []struct {
		what  string
		files []file
		want  string // relative to the root; "" is the binary itself
	}{
		{"nothing", nil, ""},
		{"beside", []file{{"bin/" + name, 0o755}}, "bin/" + name},
		{"packaged", []file{{"lib/paddock/" + name, 0o755}}, "lib/paddock/" + name},
		{"beside first", []file{{"bin/" + name, 0o755}, {"lib/paddock/" + name, 0o755}}, "bin/" + name},
		{"a directory", []file{{"bin/" + name, 0}}, ""},
		{"not runnable", []file{{"bin/" + name, 0o644}, {"lib/paddock/" + name, 0o755}}, "lib/paddock/" + name},
	} {
		t.Run(c.what, func(t *testing.T) {
			if c.what == "not runnable" && runtime.GOOS == "windows" {
				t.Skip("Windows has no mode bit that makes a file runnable")
			}
			root := t.TempDir()
			exe := filepath.Join(root, "bin", "paddock")
			if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range c.files {
				p := filepath.Join(root, filepath.FromSlash(f.path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if f.mode == 0 {
					err = os.Mkdir(p, 0o755)
				} else {
					err = os.WriteFile(p, []byte("#!/bin/sh\n"), f.mode)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			want := exe
			if c.want != "" && !settingsWindowBuiltIn {
				want = filepath.Join(root, filepath.FromSlash(c.want))
			}
			if got := settingsExecutable(exe); got != want {
				t.Errorf("settingsExecutable(%s) = %s, want %s (window built in: %v)", exe, got, want, settingsWindowBuiltIn)
			}
		})
	}
}
