package qemu

import (
	"strings"
	"testing"
)

func TestLookQEMUNamesTheDebianPackage(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Find("x86_64")
	if err == nil {
		t.Fatal("Find found QEMU on an empty PATH")
	}
	for _, want := range []string{"apt-get install qemu-system-x86", "apt-get install qemu-utils"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
