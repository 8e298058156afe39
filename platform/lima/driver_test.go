package lima_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/platform/lima"
)

// fakeImageTemplate is a template Lima accepts; nothing boots it.
func fakeImageTemplate(tb testing.TB) []byte {
	tb.Helper()
	img := filepath.Join(sharedTemp(tb), "image.qcow2")
	if err := os.WriteFile(img, []byte("not booted\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return []byte(`vmType: qemu
arch: x86_64
images:
- location: ` + img + `
  arch: x86_64
mounts: []
containerd: {system: false, user: false}
ssh: {loadDotSSHPubKeys: false}
user: {name: paddock, uid: 1000}
`)
}

func TestValidateNamesTheField(t *testing.T) {
	d := newDriver(t)
	tests := []struct {
		name, yaml, field string
	}{
		{"Lima's validator", "images: []\n", "images"},
		{"a value of the wrong type", "cpus: many\n", "cpus"},
		{"a field Lima does not know", "cpuz: 2\n", "cpuz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, err := d.Validate("dev", []byte(tt.yaml))
			if err != nil {
				t.Fatalf("Validate(%q): %v", tt.yaml, err)
			}
			fields := make([]string, len(problems))
			for i, p := range problems {
				fields[i] = p.Field
			}
			if !slices.Contains(fields, tt.field) {
				t.Errorf("Validate(%q) named fields %q, want %q among them; problems: %v", tt.yaml, fields, tt.field, problems)
			}
		})
	}
}

func TestValidateAcceptsAGoodTemplate(t *testing.T) {
	if problems, err := newDriver(t).Validate("dev", fakeImageTemplate(t)); err != nil || len(problems) > 0 {
		t.Fatalf("Validate = %v, %v; want no problems", problems, err)
	}
}

func TestCreateIsPendingUntilCommitted(t *testing.T) {
	d := newDriver(t)
	ctx := context.Background()
	const name = "pending"
	if err := d.Create(ctx, name, fakeImageTemplate(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Delete(ctx, name); err != nil {
			t.Error(err)
		}
	})
	if pending, err := d.Uncommitted(); err != nil || !slices.Contains(pending, name) {
		t.Fatalf("after Create, Uncommitted() = %v, %v; want %s listed", pending, err, name)
	}
	if err := d.Create(ctx, name, fakeImageTemplate(t)); !errors.Is(err, lima.ErrExists) {
		t.Errorf("second Create = %v, want ErrExists", err)
	}
	if err := d.Commit(name); err != nil {
		t.Fatal(err)
	}
	if pending, err := d.Uncommitted(); err != nil || slices.Contains(pending, name) {
		t.Fatalf("after Commit, Uncommitted() = %v, %v; want %s gone", pending, err, name)
	}
	inst, err := d.Inspect(name)
	if err != nil || !inst.Exists || inst.Running {
		t.Fatalf("Inspect = %+v, %v; want an existing instance that does not run", inst, err)
	}
}

// A crash after Create leaves the marker; deleting the instance, as a
// controller does for one it never recorded, clears both.
func TestDeleteClearsAnUncommittedCreate(t *testing.T) {
	d := newDriver(t)
	ctx := context.Background()
	const name = "orphan"
	if err := d.Create(ctx, name, fakeImageTemplate(t)); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if pending, err := d.Uncommitted(); err != nil || slices.Contains(pending, name) {
		t.Fatalf("after Delete, Uncommitted() = %v, %v; want %s gone", pending, err, name)
	}
	if inst, err := d.Inspect(name); err != nil || inst.Exists {
		t.Fatalf("after Delete, Inspect = %+v, %v; want no instance", inst, err)
	}
	if err := d.Delete(ctx, name); err != nil {
		t.Errorf("deleting a deleted instance: %v", err)
	}
}

func TestCreateRejectsAnInvalidTemplateWithoutLeavingAnything(t *testing.T) {
	d := newDriver(t)
	const name = "invalid"
	var ve *lima.ValidationError
	if err := d.Create(context.Background(), name, []byte("cpus: many\n")); !errors.As(err, &ve) {
		t.Fatalf("Create = %v, want a *lima.ValidationError", err)
	}
	if pending, err := d.Uncommitted(); err != nil || slices.Contains(pending, name) {
		t.Errorf("Uncommitted() = %v, %v after a rejected create", pending, err)
	}
	if inst, err := d.Inspect(name); err != nil || inst.Exists {
		t.Errorf("Inspect = %+v, %v after a rejected create", inst, err)
	}
}

func TestStartOfAMissingInstance(t *testing.T) {
	if err := newDriver(t).Start(context.Background(), "nonesuch"); !errors.Is(err, lima.ErrNotFound) {
		t.Errorf("Start = %v, want ErrNotFound", err)
	}
}

// createStopped creates instance name from template, never started, deleted
// when the test ends, and returns its directory.
func createStopped(t *testing.T, d *lima.Driver, name string, template []byte) string {
	t.Helper()
	ctx := context.Background()
	if err := d.Create(ctx, name, template); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Delete(ctx, name); err != nil {
			t.Error(err)
		}
	})
	inst, err := d.Describe(name)
	if err != nil {
		t.Fatal(err)
	}
	return inst.Dir
}

// A stopped instance takes a new template once Lima accepted it; a bad one
// leaves the old in place.
func TestReconfigureAStoppedInstance(t *testing.T) {
	d := newDriver(t)
	ctx := context.Background()
	const name = "reconf"
	path := filepath.Join(createStopped(t, d, name, fakeImageTemplate(t)), filenames.LimaYAML)
	var ve *lima.ValidationError
	if err := d.Reconfigure(ctx, name, []byte("cpus: many\n")); !errors.As(err, &ve) {
		t.Fatalf("a bad template: %v, want a *ValidationError", err)
	}
	updated := append(fakeImageTemplate(t), []byte("cpus: 3\n")...)
	if err := d.Reconfigure(ctx, name, updated); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(updated) {
		t.Fatalf("lima.yaml after Reconfigure: %q, %v", got, err)
	}
	if err := d.Reconfigure(ctx, "missing", updated); !errors.Is(err, lima.ErrNotFound) {
		t.Fatalf("a missing instance: %v, want ErrNotFound", err)
	}
}

// A new template's kernel command line is the one the next start boots
// with, though Lima writes it beside the kernel only when it first
// prepares the instance.
func TestReconfigureTakesTheKernelCommandLine(t *testing.T) {
	d := newDriver(t)
	ctx := context.Background()
	const name = "cmdline"
	kernel := filepath.Join(sharedTemp(t), "vmlinuz")
	if err := os.WriteFile(kernel, []byte("not booted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	withCmdline := func(cmdline string) []byte {
		k := "  kernel:\n    location: " + kernel + "\n"
		if cmdline != "" {
			k += "    cmdline: " + cmdline + "\n"
		}
		return bytes.Replace(fakeImageTemplate(t), []byte("  arch: x86_64\n"), []byte("  arch: x86_64\n"+k), 1)
	}
	dir := createStopped(t, d, name, withCmdline("quiet systemd.wants=docker.service"))
	path := filepath.Join(dir, filenames.KernelCmdline)
	cmdline := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return "(none)"
		}
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Never started: the first start writes the command line.
	if err := d.Reconfigure(ctx, name, withCmdline("quiet")); err != nil {
		t.Fatal(err)
	}
	if got := cmdline(); got != "(none)" {
		t.Fatalf("before the first start: kernel.cmdline %q", got)
	}
	// The files Lima's first start leaves beside the instance's disk.
	for f, text := range map[string]string{filenames.Kernel: "not booted\n", filenames.KernelCmdline: "quiet systemd.wants=docker.service"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Reconfigure(ctx, name, withCmdline("quiet systemd.wants=containerd.service")); err != nil {
		t.Fatal(err)
	}
	if got := cmdline(); got != "quiet systemd.wants=containerd.service" {
		t.Fatalf("after Reconfigure: kernel.cmdline %q", got)
	}
	if err := d.Reconfigure(ctx, name, withCmdline("")); err != nil {
		t.Fatal(err)
	}
	if got := cmdline(); got != "(none)" {
		t.Fatalf("after Reconfigure to a template without one: kernel.cmdline %q", got)
	}
}
