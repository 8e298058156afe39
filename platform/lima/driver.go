package lima

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	limastore "github.com/lima-vm/lima/pkg/store"

	"paddock.dev/paddock/core/vm"
)

// EnvLimaHome is the variable through which Lima finds its home directory.
const EnvLimaHome = "LIMA_HOME"

// Driver drives the Lima instances under one LIMA_HOME. Lima's library
// reads LIMA_HOME from the process's environment on every call
// (pkg/store/dirnames.LimaDir) and has no other way to be told, so the
// first use of a Driver sets it for the whole process, once, and a process
// can use Drivers of one LimaHome only. The host agents it starts get
// their Lima home, and whatever else Lima reads from the environment, in
// their own environment (hostAgentEnv). A Driver must not be copied after
// first use.
type Driver struct {
	// LimaHome is Lima's home directory; keep it short, since Lima puts
	// sockets in it and socket paths are limited to about 100 bytes.
	LimaHome string
	// Executable is the paddock binary, which a host agent runs as its
	// QEMU wrapper and ssh shim (on Linux). The guest agent is looked for
	// beside it, in ../share/lima (Lima's places) and in ../lib/paddock or
	// ../libexec/paddock (the packages').
	Executable string
	// Helper is paddock-lima, which runs the host agents and the parts of
	// Lima the daemon does not link (see HelperName); empty means the one
	// FindHelper finds for Executable.
	Helper string
	// Logger receives the driver's log and Lima's; nil means slog.Default().
	Logger *slog.Logger
	// Accel is how QEMU accelerates guests: "auto", "kvm" or "tcg"; empty
	// takes $PADDOCK_QEMU_ACCEL, auto when unset (see platform/qemu).
	Accel string

	once    sync.Once
	initErr error
}

// The Driver is the VM controller's driver in all three roles.
var (
	_ vm.Driver    = (*Driver)(nil)
	_ vm.Validator = (*Driver)(nil)
)

// ErrExists is returned by Create for an instance that exists already.
var ErrExists = errors.New("instance exists already")

var (
	limaHomeMu  sync.Mutex
	limaHomeSet string
)

// init sets LIMA_HOME for the process and routes Lima's logs to the
// logger; it runs once per Driver.
func (d *Driver) init() error {
	d.once.Do(func() {
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
		d.initErr = d.setLimaHome()
		if d.initErr == nil {
			RouteLogrus(d.Logger)
		}
	})
	return d.initErr
}

func (d *Driver) setLimaHome() error {
	if d.LimaHome == "" || !filepath.IsAbs(d.LimaHome) {
		return fmt.Errorf("lima home %q must be an absolute path", d.LimaHome)
	}
	limaHomeMu.Lock()
	defer limaHomeMu.Unlock()
	if limaHomeSet != "" && limaHomeSet != d.LimaHome {
		return fmt.Errorf("this process already drives Lima home %s; it cannot drive %s too", limaHomeSet, d.LimaHome)
	}
	if err := os.MkdirAll(d.LimaHome, 0o700); err != nil {
		return err
	}
	if err := os.Setenv(EnvLimaHome, d.LimaHome); err != nil {
		return err
	}
	limaHomeSet = d.LimaHome
	return nil
}

// List returns the names of the instances under LimaHome.
func (d *Driver) List() ([]string, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	return limastore.Instances()
}

// Create creates the instance name from templateYAML: validates it (a
// *ValidationError says what is wrong), generates the user's SSH key if
// needed and lets Lima write the instance directory. It first records a
// pending-create marker (see Uncommitted) that stays until Commit or
// Delete, so that a crash between here and the caller recording the
// instance is found on the next start. If Lima fails half way, the
// instance directory is removed again. Lima's part runs in paddock-lima.
func (d *Driver) Create(ctx context.Context, name string, templateYAML []byte) error {
	if err := d.init(); err != nil {
		return err
	}
	if p := checkName(name); p != nil {
		return &ValidationError{Problems: []Problem{*p}}
	}
	if _, err := d.load(name, templateYAML); err != nil {
		return err
	}
	dir, err := limastore.InstanceDir(name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%w: %s", ErrExists, name)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := EnsureUserKey(d.LimaHome); err != nil {
		return err
	}
	if err := d.markPending(name); err != nil {
		return err
	}
	if err := d.runHelper(ctx, templateYAML, "create", name); err != nil {
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			return errors.Join(fmt.Errorf("create instance %s: %w", name, err), fmt.Errorf("remove what was created: %w", rmErr))
		}
		return fmt.Errorf("create instance %s: %w", name, err)
	}
	return nil
}

// Delete stops the instance if it runs (forcibly: it is going away) and
// removes its directory and its pending-create marker, and on Windows its
// WSL distribution (forgetDistro); Lima's part runs in paddock-lima.
// Deleting an instance that does not exist succeeds.
func (d *Driver) Delete(ctx context.Context, name string) error {
	if err := d.init(); err != nil {
		return err
	}
	_, err := limastore.Inspect(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := d.Stop(ctx, name, 0); err != nil {
			return err
		}
		if err := d.runHelper(ctx, nil, "delete", name); err != nil {
			return fmt.Errorf("delete instance %s: %w", name, err)
		}
	}
	if err := forgetDistro(ctx, name); err != nil {
		return fmt.Errorf("delete instance %s: unregister its WSL distribution: %w", name, err)
	}
	return d.Commit(name)
}
