package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The packages ship a manual page per command, generated from the
// commands: each names its command and carries its help.
func TestWriteManPages(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	if err := WriteManPages(dir, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"paddock.1":                 "Run Linux VMs",
		"paddock-service-install.1": "--listen",
		"paddock-vm-start.1":        "paddock vm start",
	} {
		page, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("no page %s: %v", file, err)
			continue
		}
		for _, w := range []string{`.TH "PADDOCK" "1" "Jan 2026" "paddock v1.2.3"`, want} {
			if !strings.Contains(string(page), w) {
				t.Errorf("%s lacks %q:\n%s", file, w, page)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "paddock-completion.1")); err == nil {
		t.Error("the hidden completion command got a page")
	}
}
