package lima

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The daemon finds paddock-lima beside the paddock binary first, then
// where the packages put it, and names every place it looked when it is
// in none.
func TestFindHelper(t *testing.T) {
	prefix := t.TempDir()
	exe := filepath.Join(prefix, "bin", "paddock")
	packaged := filepath.Join(prefix, "lib", "paddock", helperFile())
	beside := filepath.Join(prefix, "bin", helperFile())
	if _, err := FindHelper(exe); err == nil || !strings.Contains(err.Error(), beside) ||
		!strings.Contains(err.Error(), packaged) || !strings.Contains(err.Error(), filepath.Join(prefix, "libexec", "paddock", helperFile())) {
		t.Errorf("no helper anywhere: %v; want an error naming the three places", err)
	}
	for _, f := range []string{packaged, beside} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/true\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if got, err := FindHelper(exe); err != nil || got != f {
			t.Errorf("with %s: FindHelper = %q, %v", f, got, err)
		}
	}
}
