package client

import (
	"context"
	"net/http"
	"net/url"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
)

// snapshotsPath is the snapshots subresource of the VM ns/name.
func snapshotsPath(ns, name string) string {
	return wire.ObjectPath(resource.KindVM, namespaceOf(resource.KindVM, ns), name) + "/snapshots"
}

// Snapshots lists the snapshots of the VM ns/name, oldest first.
func (c *Client) Snapshots(ctx context.Context, ns, name string) ([]resource.VMSnapshot, error) {
	var out resource.VMSnapshotList
	if err := c.do(ctx, http.MethodGet, snapshotsPath(ns, name), "", nil, &out); err != nil {
		return nil, err
	}
	return out.Items, nil
}

// CreateSnapshot takes the snapshot tag of the VM ns/name, running or
// stopped, and returns it; a tag the VM has already is AlreadyExists.
func (c *Client) CreateSnapshot(ctx context.Context, ns, name, tag string) (resource.VMSnapshot, error) {
	var out resource.VMSnapshot
	body := map[string]string{"tag": tag}
	return out, c.do(ctx, http.MethodPost, snapshotsPath(ns, name), "application/json", body, &out)
}

// ApplySnapshot returns the VM ns/name to its snapshot tag, losing its
// current state; a running VM goes on running from the snapshot.
func (c *Client) ApplySnapshot(ctx context.Context, ns, name, tag string) error {
	return c.do(ctx, http.MethodPost, snapshotsPath(ns, name)+"/"+url.PathEscape(tag)+"/apply", "", nil, nil)
}

// DeleteSnapshot deletes the snapshot tag of the VM ns/name.
func (c *Client) DeleteSnapshot(ctx context.Context, ns, name, tag string) error {
	return c.do(ctx, http.MethodDelete, snapshotsPath(ns, name)+"/"+url.PathEscape(tag), "", nil, nil)
}
