package limaexec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/lima-vm/lima/pkg/snapshot"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"
)

// snapshotCmd is `snapshot create|apply|delete NAME TAG` and `snapshot
// list NAME`: Lima's snapshot package, which works on the instance's
// disk with qemu-img while it is stopped and through QEMU's monitor
// (savevm, loadvm, delvm, info snapshots) while it runs. list prints
// Lima's table as it is; the driver reads it (lima.ParseSnapshots).
func snapshotCmd(level func() (slog.Level, error), stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "snapshot",
		Short: "Create, apply, delete and list an instance's snapshots (Lima's snapshot package)",
	}
	ops := []struct {
		verb, short string
		run         func(ctx context.Context, inst *limastore.Instance, tag string) error
	}{
		{"create", "Take a snapshot (savevm while it runs)", snapshot.Save},
		{"apply", "Apply a snapshot (loadvm while it runs, restoring it live)", snapshot.Load},
		{"delete", "Delete a snapshot", snapshot.Del},
	}
	for _, op := range ops {
		root.AddCommand(&cobra.Command{
			Use:   op.verb + " NAME TAG",
			Short: op.short,
			Args:  cobra.ExactArgs(2),
			RunE: func(cmd *cobra.Command, args []string) error {
				return runInstanceCmd(cmd.Context(), level, stderr, func(ctx context.Context) error {
					inst, err := snapshotInstance(args[0])
					if err != nil {
						return err
					}
					mon := watchMonitorOutput()
					err = op.run(ctx, inst, args[1])
					if merr := mon.err(); err == nil && merr != nil {
						err = merr
					}
					if err != nil {
						return fmt.Errorf("%s snapshot %s of %s: %w", op.verb, args[1], args[0], err)
					}
					return nil
				})
			},
		})
	}
	root.AddCommand(&cobra.Command{
		Use:   "list NAME",
		Short: "Print the snapshot table of QEMU",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInstanceCmd(cmd.Context(), level, stderr, func(ctx context.Context) error {
				inst, err := snapshotInstance(args[0])
				if err != nil {
					return err
				}
				out, err := snapshot.List(ctx, inst)
				if err != nil {
					return fmt.Errorf("list the snapshots of %s: %w", args[0], err)
				}
				_, err = io.WriteString(stdout, out)
				return err
			})
		},
	})
	return root
}

// snapshotInstance inspects the instance name, which must be running or
// stopped: Lima picks qemu-img or the monitor by that status.
func snapshotInstance(name string) (*limastore.Instance, error) {
	inst, err := limastore.Inspect(name)
	if err != nil {
		return nil, err
	}
	if inst.Config == nil {
		return nil, fmt.Errorf("instance %s is broken: %w", name, errors.Join(inst.Errors...))
	}
	if inst.Status != limastore.StatusRunning && inst.Status != limastore.StatusStopped {
		return nil, fmt.Errorf("instance %s is %s: snapshots need it running or stopped", name, strings.ToLower(inst.Status))
	}
	return inst, nil
}

// monitorOutput catches what QEMU's monitor answered to savevm, loadvm
// or delvm. Lima v1.2.2 only logs it ("output: ..." as a warning), yet a
// monitor command that fails ("Error: Snapshot 's1' does not exist",
// "Error: Migration is disabled when VirtFS export path ... is mounted")
// fails in that text alone, not in the QMP call.
type monitorOutput struct {
	mu   sync.Mutex
	text []string
}

func watchMonitorOutput() *monitorOutput {
	m := &monitorOutput{}
	std := logrus.StandardLogger()
	if std.GetLevel() < logrus.WarnLevel {
		std.SetLevel(logrus.WarnLevel)
	}
	std.AddHook(m)
	return m
}

func (m *monitorOutput) Levels() []logrus.Level { return []logrus.Level{logrus.WarnLevel} }

func (m *monitorOutput) Fire(e *logrus.Entry) error {
	if out, ok := strings.CutPrefix(e.Message, "output: "); ok {
		m.mu.Lock()
		m.text = append(m.text, out)
		m.mu.Unlock()
	}
	return nil
}

// err is the monitor's error, if it answered one.
func (m *monitorOutput) err() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.text {
		if strings.Contains(t, "Error") {
			return errors.New(strings.TrimSpace(strings.TrimPrefix(t, "Error: ")))
		}
	}
	return nil
}
