//go:build linux

package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/api/client"
)

// A client of the API (the tray, as the CLI) reads a VM's boot steps from
// its host agent's log through the daemon, as they are written. The test
// plays the host agent, with lines as Lima's writes them.
func TestBootStepsAreReadableOverTheAPI(t *testing.T) {
	e := newEnv(t, "default")
	e.serve()
	applyTemplateCM(e, "debian")
	e.mustRun("vm", "create", "dev", "--template", "debian", "--timeout=1m")
	log := filepath.Join(e.path("lima_home"), "dev", filenames.HostAgentStderrLog)
	if err := os.WriteFile(log, []byte(`{"level":"info","msg":"Creating iso file /x/cidata.iso","time":"2026-12-01T04:00:00Z"}
{"level":"info","msg":"Starting QEMU (hint: to watch the boot progress, see \"/x/serial*.log\")","time":"2026-12-01T04:00:01Z"}
{"level":"info","msg":"SSH Local Port: 60022","time":"2026-12-01T04:00:01Z"}
`), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	steps := make(chan string, 16)
	go client.NewUnix(e.path("socket")).FollowBoot(ctx, "default", "dev", time.Time{}, func(s string) { steps <- s })
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-steps:
			if got != want {
				t.Fatalf("step %q, want %q", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no step %q", want)
		}
	}
	expect("preparing the VM's disk")
	expect("booting the kernel")
	appendTo(t, log, `{"level":"info","msg":"Waiting for the essential requirement 1 of 2: \"ssh\"","time":"2026-12-01T04:00:02Z"}
{"level":"info","msg":"The essential requirement 1 of 2 is satisfied","time":"2026-12-01T04:00:09Z"}
{"level":"info","msg":"Waiting for the final requirement 1 of 1: \"boot scripts must have finished\"","time":"2026-12-01T04:00:10Z"}
`)
	expect("waiting for SSH")
	expect("SSH is up; setting up the guest")
	expect("running the boot scripts")
}
