package lima_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/version"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/logging"
	"paddock.dev/paddock/platform/lima"
)

// The end-to-end tests boot real VMs with QEMU from the image that
// platform/linux/guestimage builds. They run only with PADDOCK_E2E=1; then
// a missing prerequisite fails them. On a 2-core host without KVM they take
// about 5 minutes, more when other VMs share the cores; give them room:
//
//	PADDOCK_E2E=1 go test -timeout 20m ./platform/lima
const envE2E = "PADDOCK_E2E"

// e2e is what the end-to-end tests share: one paddock binary, guest agent,
// image and LIMA_HOME, made once per test binary.
type e2e struct {
	driver   *lima.Driver
	imageDir string
	tmp      string
}

var (
	e2eOnce sync.Once
	e2eEnv  *e2e
	e2eErr  error
)

// Lima reads LIMA_HOME from the environment, so a process drives one: all
// tests share one short temporary directory (Lima's sockets live there,
// and socket paths are limited to about 100 bytes) and its Lima home.
var (
	tmpOnce sync.Once
	tmpDir  string
	tmpErr  error
)

func sharedTemp(tb testing.TB) string {
	tb.Helper()
	tmpOnce.Do(func() { tmpDir, tmpErr = os.MkdirTemp("", "pdt-") })
	if tmpErr != nil {
		tb.Fatal(tmpErr)
	}
	return tmpDir
}

// newDriver returns a driver on the shared Lima home, for tests that boot
// nothing.
func newDriver(tb testing.TB) *lima.Driver {
	return &lima.Driver{
		LimaHome:   filepath.Join(sharedTemp(tb), "lima"),
		Executable: "/nonexistent/paddock",
		Helper:     helper,
		Logger:     logging.New(os.Stderr, slog.LevelWarn),
	}
}

// helper is paddock-lima, which TestMain builds: the driver runs the
// template's cloud-init checks and Lima's create and delete in it.
var helper string

func TestMain(m *testing.M) {
	// Test binaries carry no module build information, from which the
	// driver takes Lima's version when the link did not stamp one.
	v, err := output(context.Background(), "", "go", "list", "-m", "-f", "{{.Version}}", "github.com/lima-vm/lima")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	version.Version = v
	helperDir, err := os.MkdirTemp("", "pdt-helper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := paddocktest.Build(helperDir, paddocktest.Helper); err != nil {
		fmt.Fprintln(os.Stderr, "build paddock-lima:", err)
		os.RemoveAll(helperDir)
		os.Exit(1)
	}
	helper = filepath.Join(helperDir, lima.HelperName)
	code := m.Run()
	os.RemoveAll(helperDir)
	if e2eEnv != nil {
		if err := e2eEnv.deleteAll(); err != nil {
			fmt.Fprintln(os.Stderr, "e2e teardown:", err)
			code = 1
		}
	}
	if tmpDir != "" {
		if err := os.RemoveAll(tmpDir); err != nil {
			fmt.Fprintln(os.Stderr, "test teardown:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// setupE2E skips without PADDOCK_E2E=1 and otherwise returns the shared
// environment, failing the test when it cannot be made.
func setupE2E(tb testing.TB) *e2e {
	tb.Helper()
	if os.Getenv(envE2E) != "1" {
		tb.Skip("set PADDOCK_E2E=1 to boot real VMs with QEMU (needs qemu-system-x86, qemu-utils, openssh-client, and root or sudo for the image build)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		tb.Fatalf("the end-to-end tests boot x86_64 Linux guests on a Linux amd64 host, not on %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	tmp := sharedTemp(tb)
	e2eOnce.Do(func() { e2eEnv, e2eErr = newE2E(tmp) })
	if e2eErr != nil {
		tb.Fatal(e2eErr)
	}
	return e2eEnv
}

func newE2E(tmp string) (*e2e, error) {
	for _, prog := range []string{"qemu-system-x86_64", "qemu-img", "ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(prog); err != nil {
			return nil, fmt.Errorf("prerequisite missing: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	root, err := output(ctx, "", "go", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		return nil, err
	}
	env := &e2e{tmp: tmp}
	// The host agents run paddock-shim, beside the paddock binary, as the
	// QEMU wrapper and the ssh shim.
	bin := filepath.Join(tmp, "bin", "paddock")
	if _, err := output(ctx, root, "go", "build", "-o", filepath.Dir(bin)+string(filepath.Separator), "./cmd/paddock", "./cmd/paddock/paddock-shim"); err != nil {
		return env, err
	}
	// The daemon (here: this test binary) finds the guest agent beside its
	// own executable, as Lima looks for it; the host agents are told.
	self, err := os.Executable()
	if err != nil {
		return env, err
	}
	if _, err := lima.BuildGuestAgent(ctx, "go", root, filepath.Dir(self), limayaml.X8664); err != nil {
		return env, err
	}
	if env.imageDir, err = output(ctx, root, filepath.Join(root, "platform/linux/guestimage/build.sh")); err != nil {
		return env, err
	}
	level, err := logging.ParseLevel(os.Getenv(logging.EnvLevel))
	if err != nil {
		return env, err
	}
	env.driver = &lima.Driver{
		LimaHome:   filepath.Join(tmp, "lima"),
		Executable: bin,
		Helper:     helper,
		Logger:     logging.New(os.Stderr, level),
	}
	return env, nil
}

// template returns a Lima template for the test image, with extra lines
// appended; it shares no host folder unless extra says mounts.
func (e *e2e) template(tb testing.TB, extra string) []byte {
	tb.Helper()
	base, err := os.ReadFile(filepath.Join(e.imageDir, "template.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	mounts := "mounts: []\n"
	if strings.Contains(extra, "mounts:") {
		mounts = ""
	}
	return []byte(string(base) + `
cpus: 2
memory: 1GiB
disk: 4GiB
` + mounts + `ssh: {loadDotSSHPubKeys: false}
user: {name: paddock, uid: 1000}
` + extra)
}

// deleteAll deletes every instance the tests left.
func (e *e2e) deleteAll() error {
	if e.driver == nil {
		return nil
	}
	names, err := e.driver.List()
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := e.driver.Delete(context.Background(), n); err != nil {
			return err
		}
	}
	return nil
}

// ssh runs a command in the instance's guest over SSH and returns its
// output.
func (e *e2e) ssh(tb testing.TB, name string, command ...string) string {
	tb.Helper()
	inst, err := e.driver.Describe(name)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := output(ctx, "", "ssh", append([]string{"-F", inst.SSHConfigFile, inst.Hostname, "--"}, command...)...)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func output(ctx context.Context, dir, prog string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", prog, strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
