package engine

import (
	"context"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
)

// containerd's calls that the Pinger makes, each with its request and
// answer read field by field (containerd's api module would bring its
// generated code for three messages):
const (
	// versionMethod: an empty request, answered by a message whose field
	// 1 is the version.
	versionMethod = "/containerd.services.version.v1.Version/Version"
	// namespacesMethod: an empty request (no filter), answered by the
	// namespaces (field 1), each a message whose field 1 is its name.
	namespacesMethod = "/containerd.services.namespaces.v1.Namespaces/List"
	// tasksMethod: an empty request (no filter) in the namespace that
	// namespaceHeader names, answered by the tasks (field 1), each a
	// message whose field 4 is its status.
	tasksMethod = "/containerd.services.tasks.v1.Tasks/List"

	namespaceHeader = "containerd-namespace"
)

// A task's status (containerd.v1.types.Status) that keeps the App from
// being suspended: a task that runs, or is paused (as Docker lists a
// paused container among the running ones).
const (
	taskRunning = 2
	taskPaused  = 4
	taskPausing = 5
)

// containerd calls containerd through sock.
func containerd(sock string) (*grpc.ClientConn, error) {
	return grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
}

// invoke makes the call method with the request req and returns the
// answer.
func invoke(ctx context.Context, conn *grpc.ClientConn, method string, req []byte) ([]byte, error) {
	var resp []byte
	err := conn.Invoke(ctx, method, req, &resp, grpc.ForceCodec(rawCodec{}))
	return resp, err
}

// containerdVersion makes containerd's version call through sock.
func containerdVersion(ctx context.Context, sock string) (string, error) {
	conn, err := containerd(sock)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	resp, err := invoke(ctx, conn, versionMethod, nil)
	if err != nil {
		return "", fmt.Errorf("containerd at %s: %w", sock, err)
	}
	versions, err := bytesFields(resp, 1)
	if err != nil || len(versions) == 0 {
		return "", fmt.Errorf("containerd at %s: no version in the answer (%v)", sock, err)
	}
	return fmt.Sprintf("containerd %s answers at %s", versions[0], sock), nil
}

// containerdAnyRunning asks containerd through sock whether a task runs
// (or is paused) in any of its namespaces.
func containerdAnyRunning(ctx context.Context, sock string) (bool, error) {
	conn, err := containerd(sock)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	resp, err := invoke(ctx, conn, namespacesMethod, nil)
	if err != nil {
		return false, fmt.Errorf("containerd at %s: its namespaces: %w", sock, err)
	}
	namespaces, err := bytesFields(resp, 1)
	if err != nil {
		return false, fmt.Errorf("containerd at %s: its namespaces: %w", sock, err)
	}
	for _, ns := range namespaces {
		names, err := bytesFields(ns, 1)
		if err != nil || len(names) == 0 {
			return false, fmt.Errorf("containerd at %s: a namespace without a name (%v)", sock, err)
		}
		resp, err := invoke(metadata.AppendToOutgoingContext(ctx, namespaceHeader, string(names[0])), conn, tasksMethod, nil)
		if err != nil {
			return false, fmt.Errorf("containerd at %s: the tasks of namespace %s: %w", sock, names[0], err)
		}
		tasks, err := bytesFields(resp, 1)
		if err != nil {
			return false, fmt.Errorf("containerd at %s: the tasks of namespace %s: %w", sock, names[0], err)
		}
		for _, task := range tasks {
			status, err := varintField(task, 4)
			if err != nil {
				return false, fmt.Errorf("containerd at %s: a task of namespace %s: %w", sock, names[0], err)
			}
			if status == taskRunning || status == taskPaused || status == taskPausing {
				return true, nil
			}
		}
	}
	return false, nil
}

// bytesFields returns the values of field num of a protobuf message that
// are bytes (strings, messages, the elements of a repeated one).
func bytesFields(msg []byte, num protowire.Number) ([][]byte, error) {
	var out [][]byte
	err := eachField(msg, func(n protowire.Number, typ protowire.Type, value []byte) error {
		if n != num || typ != protowire.BytesType {
			return nil
		}
		v, l := protowire.ConsumeBytes(value)
		if l < 0 {
			return protowire.ParseError(l)
		}
		out = append(out, v)
		return nil
	})
	return out, err
}

// varintField returns the value of field num of a protobuf message that
// is a varint (an enum), its last if repeated; 0, proto3's default, when
// the field is absent.
func varintField(msg []byte, num protowire.Number) (uint64, error) {
	var out uint64
	err := eachField(msg, func(n protowire.Number, typ protowire.Type, value []byte) error {
		if n != num || typ != protowire.VarintType {
			return nil
		}
		v, l := protowire.ConsumeVarint(value)
		if l < 0 {
			return protowire.ParseError(l)
		}
		out = v
		return nil
	})
	return out, err
}

// eachField calls fn with each field of msg: its number, its type, and the
// message from its value on.
func eachField(msg []byte, fn func(protowire.Number, protowire.Type, []byte) error) error {
	for len(msg) > 0 {
		num, typ, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
		if err := fn(num, typ, msg); err != nil {
			return err
		}
		n = protowire.ConsumeFieldValue(num, typ, msg)
		if n < 0 {
			return protowire.ParseError(n)
		}
		msg = msg[n:]
	}
	return nil
}

// rawCodec passes messages as the bytes they are on the wire, so that a
// call needs no generated code.
type rawCodec struct{}

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.([]byte)
	if !ok {
		return nil, fmt.Errorf("raw codec: %T is not bytes", v)
	}
	return b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw codec: %T is not *[]byte", v)
	}
	*p = append((*p)[:0], data...)
	return nil
}

// Name is proto: containerd takes the bytes as the protobuf they are.
func (rawCodec) Name() string { return "proto" }
