package lima_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima"
)

func TestErrorTail(t *testing.T) {
	log := strings.Join([]string{
		`{"level":"info","msg":"Starting QEMU","time":"2026-01-01T00:00:00Z"}`,
		`{"level":"error","msg":"first failure","time":"2026-01-01T00:00:01Z"}`,
		`{"level":"debug","msg":"noise","time":"2026-01-01T00:00:02Z"}`,
		`{"level":"debug","msg":"qemu[stderr]: qemu-system-x86_64: could not load kernel","time":"2026-01-01T00:00:02Z"}`,
		`{"level":"fatal","msg":"driver stopped","error":"qemu: could not load kernel","time":"2026-01-01T00:00:03Z"}`,
		`paddock: exit status 1`,
		``,
	}, "\n")
	path := filepath.Join(t.TempDir(), filenames.HostAgentStderrLog)
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := lima.ErrorTail(path, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"qemu[stderr]: qemu-system-x86_64: could not load kernel", "driver stopped: qemu: could not load kernel", "paddock: exit status 1"}
	if !slices.Equal(got, want) {
		t.Errorf("ErrorTail = %q, want %q", got, want)
	}
}
