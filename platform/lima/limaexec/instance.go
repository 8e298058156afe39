package limaexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/lima-vm/lima/pkg/cidata"
	limainstance "github.com/lima-vm/lima/pkg/instance"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/spf13/cobra"

	"paddock.dev/paddock/platform/lima"
)

// instanceCmds are the commands that run one of Lima's operations on the
// instance NAME under $LIMA_HOME for the driver (see the package's doc).
func instanceCmds(level func() (slog.Level, error), stdin io.Reader, stdout, stderr io.Writer) []*cobra.Command {
	ops := []struct {
		use, short string
		run        func(ctx context.Context, name string) error
	}{
		{"check-cloud-config", "Check the cloud-init configuration of the template on standard input for an instance",
			func(_ context.Context, name string) error {
				tmpl, err := io.ReadAll(stdin)
				if err != nil {
					return err
				}
				return lima.CheckCloudConfig(os.Getenv(lima.EnvLimaHome), name, tmpl, cidata.GenerateCloudConfig)
			}},
		{"create", "Create an instance from the template on standard input (Lima's create)",
			func(ctx context.Context, name string) error {
				tmpl, err := io.ReadAll(stdin)
				if err != nil {
					return err
				}
				if _, err := limainstance.Create(ctx, name, tmpl, false); err != nil {
					return fmt.Errorf("create instance %s: %w", name, err)
				}
				return nil
			}},
		{"prepare", "Prepare a stopped instance's disks for a start (Lima's Prepare)", prepare},
		{"delete", "Delete a stopped instance's files (Lima's Delete)",
			func(ctx context.Context, name string) error {
				inst, err := limastore.Inspect(name)
				if err != nil {
					return err
				}
				if err := limainstance.Delete(ctx, inst, true); err != nil {
					return fmt.Errorf("delete instance %s: %w", name, err)
				}
				return nil
			}},
		{"stop-forcibly", "Remove the pid, socket and temporary files of an instance whose processes are gone (Lima's StopForcibly, killing nothing)",
			func(_ context.Context, name string) error {
				inst, err := limastore.Inspect(name)
				if err != nil {
					return err
				}
				// The driver killed what was alive; Lima kills nothing.
				inst.HostAgentPID, inst.DriverPID = 0, 0
				limainstance.StopForcibly(inst)
				return nil
			}},
	}
	cmds := make([]*cobra.Command, len(ops))
	for i, op := range ops {
		cmds[i] = &cobra.Command{
			Use:   op.use + " NAME",
			Short: op.short,
			Args:  cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runInstanceCmd(cmd.Context(), level, stderr, func(ctx context.Context) error { return op.run(ctx, args[0]) })
			},
		}
	}
	return cmds
}

// prepare runs Lima's Prepare (the disks, the image's download) for the
// instance, with the image's files linked first where Lima would copy
// them (linkLocalImage). Lima's Prepare looks for the guest agent only where Lima
// installs it; the driver has found it already and passes it to the host
// agent, so Prepare does the rest on a copy of the instance that needs
// none (withoutGuestAgent).
func prepare(ctx context.Context, name string) error {
	inst, err := limastore.Inspect(name)
	if err != nil {
		return err
	}
	if inst.Config == nil {
		return fmt.Errorf("instance %s is broken: %w", name, errors.Join(inst.Errors...))
	}
	if err := linkLocalImage(inst); err != nil {
		return err
	}
	_, err = limainstance.Prepare(ctx, withoutGuestAgent(inst))
	return err
}

// withoutGuestAgent returns a copy of inst whose configuration asks for
// no guest agent; nothing else Prepare does depends on it.
func withoutGuestAgent(inst *limastore.Instance) *limastore.Instance {
	cp := *inst
	cfg := *inst.Config
	plain := true
	cfg.Plain = &plain
	cp.Config = &cfg
	return &cp
}
