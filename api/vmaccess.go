package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"k8s.io/apimachinery/pkg/api/meta"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// VMAccess is what the API needs from the VM driver so that people reach a
// VM's machine through the daemon, never through its files: a client may
// run as another user than the daemon (a system service), or elsewhere (the
// tray). Machines are named as their VMs.
type VMAccess interface {
	// SSH returns how to reach the running machine over ssh.
	SSH(name string) (resource.VMSSH, error)
	// LogPath returns the file of one of the machine's logs, which need
	// not exist yet.
	LogPath(name string, stream resource.VMLogStream) (string, error)
}

type sshOutput struct {
	Body resource.VMSSH
}

func (s *Server) registerVMAccess() {
	huma.Register(s.api, huma.Operation{
		OperationID: "ssh-vm",
		Method:      http.MethodGet,
		Path:        wire.Base + "/namespaces/{namespace}/vms/{name}/ssh",
		Summary:     "How to reach a running VM over ssh: host, port, user, identity file and options",
		Description: "The identity file is a path on the daemon's host, readable by the daemon's user. " +
			"A VM that is not running answers 409 Conflict.",
		Tags:   []string{resource.KindVM.Plural},
		Errors: []int{http.StatusNotFound, http.StatusConflict},
	}, func(ctx context.Context, in *objectInput) (*sshOutput, error) {
		vm, err := s.accessibleVM(ctx, in.Namespace, in.Name)
		if err != nil {
			return nil, toProblem(err)
		}
		if !meta.IsStatusConditionTrue(vm.Status.Conditions, resource.VMRunning) {
			return nil, toProblem(resource.Errorf(resource.ReasonConflict, "%s", notRunning(vm)))
		}
		params, err := s.access.SSH(in.Name)
		if err != nil {
			return nil, toProblem(err)
		}
		return &sshOutput{Body: params}, nil
	})
	s.registerVMLogs()
}

// notRunning says that vm does not run and how to start it: the App's VM
// through the App, which would stop a VM started behind its back.
func notRunning(vm *resource.VM) string {
	if _, ok := vm.Metadata.OwnerOfKind(resource.KindApp.Name); ok {
		return fmt.Sprintf("the App's vm %s is not running: start the App with 'paddock start'", vm.Metadata.Name)
	}
	start := "paddock vm start " + vm.Metadata.Name
	if vm.Metadata.Namespace != resource.DefaultNamespace {
		start = fmt.Sprintf("paddock vm start -n %s %s", vm.Metadata.Namespace, vm.Metadata.Name)
	}
	return fmt.Sprintf("vm %s is not running: start it with '%s'", vm.Metadata.Name, start)
}

// accessibleVM returns the VM whose machine a request wants to reach.
func (s *Server) accessibleVM(ctx context.Context, ns, name string) (*resource.VM, error) {
	if s.access == nil {
		return nil, resource.Errorf(resource.ReasonInternal, "this daemon runs no VM driver, so it cannot reach vm %s", name)
	}
	obj, err := s.store.Get(ctx, resource.Key{Kind: resource.KindVM.Name, Namespace: ns, Name: name})
	if err != nil {
		return nil, err
	}
	return obj.(*resource.VM), nil
}
