package api

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// VMSnapshots is what the API needs from the VM driver to take, apply,
// delete and list the snapshots of a VM's machine, running or stopped.
// Machines are named as their VMs. Failures a client can act on are
// *resource.Error: NotFound for an unknown tag, AlreadyExists for a tag
// taken, Conflict for a machine that cannot take snapshots now (one that
// never started has no disk yet), BadRequest for a VM type without
// snapshots.
type VMSnapshots interface {
	ListSnapshots(ctx context.Context, name string) ([]resource.VMSnapshot, error)
	CreateSnapshot(ctx context.Context, name, tag string) error
	// ApplySnapshot returns the machine to the snapshot, losing its
	// current state; a running machine goes on running from it.
	ApplySnapshot(ctx context.Context, name, tag string) error
	DeleteSnapshot(ctx context.Context, name, tag string) error
}

type snapshotInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	Tag       string `path:"tag" pattern:"^[A-Za-z0-9._-]{1,63}$" doc:"The snapshot's tag."`
}

type createSnapshotInput struct {
	Namespace string `path:"namespace"`
	Name      string `path:"name"`
	Body      struct {
		Tag string `json:"tag" pattern:"^[A-Za-z0-9._-]{1,63}$" example:"before-upgrade" doc:"The new snapshot's tag: 1 to 63 letters, digits, '.', '_' or '-', unique on the VM."`
	}
}

type snapshotListOutput struct {
	Body resource.VMSnapshotList
}

type snapshotOutput struct {
	Body resource.VMSnapshot
}

func (s *Server) registerVMSnapshots() {
	path := wire.Base + "/namespaces/{namespace}/vms/{name}/snapshots"
	tags := []string{resource.KindVM.Plural}
	huma.Register(s.api, huma.Operation{
		OperationID: "list-vm-snapshots",
		Method:      http.MethodGet,
		Path:        path,
		Summary:     "List a VM's snapshots: tag, size and time, oldest first",
		Description: "A VM that never started has none.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, func(ctx context.Context, in *objectInput) (*snapshotListOutput, error) {
		if _, err := s.snapshotVM(ctx, in.Namespace, in.Name, false); err != nil {
			return nil, toProblem(err)
		}
		items, err := s.snapshots.ListSnapshots(ctx, in.Name)
		if err != nil {
			return nil, toProblem(err)
		}
		return &snapshotListOutput{Body: resource.VMSnapshotList{APIVersion: resource.APIVersion, Kind: "VMSnapshotList", Items: items}}, nil
	})
	huma.Register(s.api, huma.Operation{
		OperationID:   "create-vm-snapshot",
		Method:        http.MethodPost,
		Path:          path,
		Summary:       "Take a snapshot of a VM: its disk, and its memory and devices while it runs",
		Description:   "A tag the VM has already answers 409 Conflict; a VM that never started, or is starting or stopping, 409 too.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		MaxBodyBytes:  maxBodyBytes,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *createSnapshotInput) (*snapshotOutput, error) {
		if _, err := s.snapshotVM(ctx, in.Namespace, in.Name, true); err != nil {
			return nil, toProblem(err)
		}
		if err := s.snapshots.CreateSnapshot(ctx, in.Name, in.Body.Tag); err != nil {
			return nil, toProblem(err)
		}
		items, err := s.snapshots.ListSnapshots(ctx, in.Name)
		if err != nil {
			return nil, toProblem(err)
		}
		for _, it := range items {
			if it.Tag == in.Body.Tag {
				return &snapshotOutput{Body: it}, nil
			}
		}
		return nil, toProblem(resource.Errorf(resource.ReasonInternal, "snapshot %q of vm %s was taken but is not listed", in.Body.Tag, in.Name))
	})
	huma.Register(s.api, huma.Operation{
		OperationID: "delete-vm-snapshot",
		Method:      http.MethodDelete,
		Path:        path + "/{tag}",
		Summary:     "Delete a VM's snapshot",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *snapshotInput) (*struct{}, error) {
		if _, err := s.snapshotVM(ctx, in.Namespace, in.Name, true); err != nil {
			return nil, toProblem(err)
		}
		if err := s.snapshots.DeleteSnapshot(ctx, in.Name, in.Tag); err != nil {
			return nil, toProblem(err)
		}
		return nil, nil
	})
	huma.Register(s.api, huma.Operation{
		OperationID: "apply-vm-snapshot",
		Method:      http.MethodPost,
		Path:        path + "/{tag}/apply",
		Summary:     "Return a VM to a snapshot, losing its current state; a running VM goes on running from the snapshot",
		Description: "A stopped VM gets the snapshot's disk; a running one its disk, memory and devices, live. " +
			"A VM that is starting or stopping answers 409 Conflict.",
		Tags:   tags,
		Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict, http.StatusUnprocessableEntity},
	}, func(ctx context.Context, in *snapshotInput) (*struct{}, error) {
		if _, err := s.snapshotVM(ctx, in.Namespace, in.Name, true); err != nil {
			return nil, toProblem(err)
		}
		if err := s.snapshots.ApplySnapshot(ctx, in.Name, in.Tag); err != nil {
			return nil, toProblem(err)
		}
		return nil, nil
	})
}

// snapshotVM returns the VM whose snapshots a request works on; a change
// (settled) needs it running or stopped, not on its way between, which
// its controller is driving: a snapshot taken or applied then would race
// the boot or the shutdown.
func (s *Server) snapshotVM(ctx context.Context, ns, name string, settled bool) (*resource.VM, error) {
	if s.snapshots == nil {
		return nil, resource.Errorf(resource.ReasonInternal, "this daemon runs no VM driver, so it has no snapshots of vm %s", name)
	}
	obj, err := s.store.Get(ctx, resource.Key{Kind: resource.KindVM.Name, Namespace: ns, Name: name})
	if err != nil {
		return nil, err
	}
	vm := obj.(*resource.VM)
	if !settled {
		return vm, nil
	}
	switch phase, _ := vm.PhaseAndReason(); phase {
	case resource.PhaseStarting, resource.PhaseStopping, resource.PhaseTerminating:
		return nil, resource.Errorf(resource.ReasonConflict, "vm %s is %s: take, apply or delete its snapshots once it runs or has stopped", name, strings.ToLower(phase))
	case resource.PhasePending:
		return nil, resource.Errorf(resource.ReasonConflict, "vm %s is not created yet, so it has no snapshots: start it once first", name)
	}
	return vm, nil
}
