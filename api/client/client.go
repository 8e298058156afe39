package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/buildinfo"
	"paddock.dev/paddock/core/resource"
)

// Client talks to one daemon.
type Client struct {
	http     *http.Client
	base     string
	token    string
	endpoint string // for messages: the socket path or address
	dryRun   bool   // writes only ask the daemon to check them (DryRun)
}

// NewUnix returns a client of the daemon listening on the Unix socket at path.
func NewUnix(path string) *Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, "unix", path)
		},
		MaxIdleConnsPerHost: 16,
	}
	return &Client{http: &http.Client{Transport: tr}, base: "http://paddock", endpoint: path}
}

// NewTCP returns a client of the daemon at a loopback address, sending token.
func NewTCP(addr, token string) *Client {
	return &Client{http: &http.Client{}, base: "http://" + addr, token: token, endpoint: addr}
}

// CloseIdleConnections closes the connections the client keeps open
// between requests, as http.Client's method of that name does.
func (c *Client) CloseIdleConnections() { c.http.CloseIdleConnections() }

// DryRun returns a client of the same daemon whose writes (Create,
// Update, UpdateStatus, Patch, PatchStatus, Delete, PatchApp) are dry
// runs, the API's ?dryRun=All: the daemon checks each as it would the
// real one, admission included, and answers the object as it would be,
// storing nothing. Actions (AppAction, VMAction) have no dry run and fail.
func (c *Client) DryRun() *Client {
	dry := *c
	dry.dryRun = true
	return &dry
}

// written returns the path of a write, asking for a dry run when c makes
// them.
func (c *Client) written(path string) string {
	if !c.dryRun {
		return path
	}
	return path + "?dryRun=All"
}

// errNoDryRun is the error of an action asked of a dry-run client.
var errNoDryRun = errors.New("an action has no dry run: only writes of objects do")

// Endpoint names where the daemon is expected, for messages.
func (c *Client) Endpoint() string { return c.endpoint }

// ErrUnreachable wraps every failure to reach the daemon at all.
var ErrUnreachable = errors.New("cannot reach the paddock daemon")

// ListOptions select what List and Watch return.
type ListOptions struct {
	LabelSelector string
	FieldSelector string
}

func (o ListOptions) query() url.Values {
	q := url.Values{}
	if o.LabelSelector != "" {
		q.Set("labelSelector", o.LabelSelector)
	}
	if o.FieldSelector != "" {
		q.Set("fieldSelector", o.FieldSelector)
	}
	return q
}

// Ready returns nil once the daemon answers /readyz.
func (c *Client) Ready(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/readyz", "", nil, nil)
}

// Version returns the daemon's build information.
func (c *Client) Version(ctx context.Context) (buildinfo.Info, error) {
	var info buildinfo.Info
	err := c.do(ctx, http.MethodGet, "/version", "", nil, &info)
	return info, err
}

// Get reads one object.
func (c *Client) Get(ctx context.Context, k *resource.Kind, ns, name string) (resource.Object, error) {
	ns = namespaceOf(k, ns)
	obj := resource.NewObject(k)
	return obj, c.do(ctx, http.MethodGet, wire.ObjectPath(k, ns, name), "", nil, obj)
}

// List reads the objects of kind k in namespace ns (all when empty) and
// the revision the list is current at. For the App it is the one App, or
// none.
func (c *Client) List(ctx context.Context, k *resource.Kind, ns string, opts ListOptions) ([]resource.Object, string, error) {
	if !k.Namespaced {
		obj, err := c.Get(ctx, k, "", resource.AppName)
		if resource.IsNotFound(err) {
			return nil, "", nil
		}
		if err != nil {
			return nil, "", err
		}
		return []resource.Object{obj}, obj.GetMeta().ResourceVersion, nil
	}
	var list wire.RawList
	path := wire.CollectionPath(k, ns)
	if q := opts.query().Encode(); q != "" {
		path += "?" + q
	}
	if err := c.do(ctx, http.MethodGet, path, "", nil, &list); err != nil {
		return nil, "", err
	}
	out := make([]resource.Object, len(list.Items))
	for i, raw := range list.Items {
		out[i] = resource.NewObject(k)
		if err := json.Unmarshal(raw, out[i]); err != nil {
			return nil, "", fmt.Errorf("decode %s: %w", k.Name, err)
		}
	}
	return out, list.Metadata.ResourceVersion, nil
}

// Create creates obj in its namespace.
func (c *Client) Create(ctx context.Context, obj resource.Object) (resource.Object, error) {
	k, ns, _, err := parts(obj)
	if err != nil {
		return nil, err
	}
	out := resource.NewObject(k)
	return out, c.do(ctx, http.MethodPost, c.written(wire.CollectionPath(k, ns)), "application/json", obj, out)
}

// Update replaces obj's metadata and spec; a resourceVersion in it is a
// precondition.
func (c *Client) Update(ctx context.Context, obj resource.Object) (resource.Object, error) {
	return c.put(ctx, obj, "")
}

// UpdateStatus replaces obj's status.
func (c *Client) UpdateStatus(ctx context.Context, obj resource.Object) (resource.Object, error) {
	return c.put(ctx, obj, "/status")
}

func (c *Client) put(ctx context.Context, obj resource.Object, sub string) (resource.Object, error) {
	k, ns, name, err := parts(obj)
	if err != nil {
		return nil, err
	}
	out := resource.NewObject(k)
	return out, c.do(ctx, http.MethodPut, c.written(wire.ObjectPath(k, ns, name)+sub), "application/json", obj, out)
}

// Patch applies a JSON merge patch to an object's metadata and spec.
func (c *Client) Patch(ctx context.Context, k *resource.Kind, ns, name string, patch []byte) (resource.Object, error) {
	return c.patch(ctx, k, ns, name, "", patch)
}

// PatchStatus applies a JSON merge patch to an object's status.
func (c *Client) PatchStatus(ctx context.Context, k *resource.Kind, ns, name string, patch []byte) (resource.Object, error) {
	return c.patch(ctx, k, ns, name, "/status", patch)
}

func (c *Client) patch(ctx context.Context, k *resource.Kind, ns, name, sub string, patch []byte) (resource.Object, error) {
	out := resource.NewObject(k)
	path := wire.ObjectPath(k, namespaceOf(k, ns), name) + sub
	return out, c.do(ctx, http.MethodPatch, c.written(path), wire.MergePatchType, json.RawMessage(patch), out)
}

// Delete deletes an object and returns its last state: still there,
// Terminating, while finalizers remain.
func (c *Client) Delete(ctx context.Context, k *resource.Kind, ns, name string) (resource.Object, error) {
	out := resource.NewObject(k)
	return out, c.do(ctx, http.MethodDelete, c.written(wire.ObjectPath(k, namespaceOf(k, ns), name)), "", nil, out)
}

func parts(obj resource.Object) (*resource.Kind, string, string, error) {
	k, ok := resource.KindOf(obj.GetTypeMeta().Kind)
	if !ok {
		return nil, "", "", fmt.Errorf("unknown kind %q", obj.GetTypeMeta().Kind)
	}
	m := obj.GetMeta()
	return k, namespaceOf(k, m.Namespace), m.Name, nil
}

// namespaceOf returns the namespace an object of kind k named in ns lives
// in: the default one when none is named, none for cluster-scoped kinds.
func namespaceOf(k *resource.Kind, ns string) string {
	if k.Namespaced && ns == "" {
		return resource.DefaultNamespace
	}
	return ns
}

// do sends one request and decodes the answer into out, or the problem
// into a *resource.Error.
func (c *Client) do(ctx context.Context, method, path, contentType string, body, out any) error {
	resp, err := c.send(ctx, method, path, contentType, body, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return problemOf(resp)
	}
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("decode the daemon's answer to %s %s: %w", method, path, err)
	}
	return nil
}

func (c *Client) send(ctx context.Context, method, path, contentType string, body any, accept string) (*http.Response, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w at %s: %v", ErrUnreachable, c.endpoint, unwrapURLError(err))
	}
	return resp, nil
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// problemOf reads an error answer.
func problemOf(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var p wire.Problem
	if err := json.Unmarshal(data, &p); err == nil && p.Reason != "" {
		return p.Error()
	}
	msg := strings.TrimSpace(string(data))
	if msg == "" {
		msg = resp.Status
	}
	return &resource.Error{Reason: resource.ReasonForStatus(resp.StatusCode), Message: msg}
}

// VMAction asks a VM to start, stop, restart or reset. With WaitAtMost,
// the answer comes once the action took effect or failed (the VM's
// conditions say which), or with a Timeout error; with NoWait, at once.
// Cold sets the spec.cold of a start or a stop (false without it).
func (c *Client) VMAction(ctx context.Context, ns, name, action string, w Await, opts ...ActionOption) (*resource.VM, error) {
	if c.dryRun {
		return nil, errNoDryRun
	}
	path := wire.ObjectPath(resource.KindVM, namespaceOf(resource.KindVM, ns), name) + "/" + action + "?" + actionQuery(w, opts)
	out := &resource.VM{}
	return out, c.do(ctx, http.MethodPost, path, "", nil, out)
}
