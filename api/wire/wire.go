// Package wire holds what the REST server and its Go client must agree on:
// paths, list and watch-event envelopes, the problem+json error body, and
// what a wait waits for (ConditionWant).
package wire

import (
	"encoding/json"
	"net/url"

	"paddock.dev/paddock/core/resource"
)

// Base is the path prefix of every resource endpoint.
const Base = "/api/v1alpha1"

// Content types beyond JSON.
const (
	MergePatchType  = "application/merge-patch+json"
	ProblemType     = "application/problem+json"
	EventStreamType = "text/event-stream"
)

// CollectionPath is where objects of kind k in namespace ns are listed,
// watched and created; ns empty means all namespaces (list and watch only).
// The App, a singleton, has one path for everything.
func CollectionPath(k *resource.Kind, ns string) string {
	switch {
	case !k.Namespaced:
		return Base + "/" + k.Singular()
	case ns == "":
		return Base + "/" + k.Plural
	}
	return Base + "/namespaces/" + url.PathEscape(ns) + "/" + k.Plural
}

// ObjectPath is the path of one object.
func ObjectPath(k *resource.Kind, ns, name string) string {
	if !k.Namespaced {
		return CollectionPath(k, "")
	}
	return CollectionPath(k, ns) + "/" + url.PathEscape(name)
}

// WatchError is the type of the event that ends a watch the daemon ends.
const WatchError = "ERROR"

// ListMeta is the metadata of a list.
type ListMeta struct {
	ResourceVersion string `json:"resourceVersion" doc:"The revision the list is current at; watch from it to follow changes."`
}

// List is the envelope of a list response: kind is the item kind plus
// "List".
type List[T any] struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Metadata   ListMeta `json:"metadata"`
	Items      []T      `json:"items"`
}

// RawList is a List whose items are left undecoded.
type RawList = List[json.RawMessage]

// WatchEvent is the data of one server-sent event of a watch; the event's
// id is the revision, and ids only increase over a stream. A stream the
// daemon ends (its reader fell behind, or the daemon stops) ends with an
// event of type ERROR, without an id, whose object is a Problem: resume
// from the last id received.
type WatchEvent struct {
	Type   string          `json:"type" enum:"ADDED,MODIFIED,DELETED,BOOKMARK,ERROR"`
	Object json.RawMessage `json:"object"`
}

// Problem is the body of every error response (RFC 9457), with the reason
// a program can switch on and a detail a person can act on.
type Problem struct {
	Type   string          `json:"type,omitempty"`
	Title  string          `json:"title"`
	Status int             `json:"status"`
	Reason resource.Reason `json:"reason"`
	Detail string          `json:"detail"`
	Errors []ProblemField  `json:"errors,omitempty"`
}

// ProblemField is one invalid field of a request.
type ProblemField struct {
	Message  string `json:"message"`
	Location string `json:"location,omitempty" doc:"Where the error is, e.g. body.spec.cpus."`
	Value    any    `json:"value,omitempty"`
}

// Error returns the resource error a Problem carries.
func (p *Problem) Error() *resource.Error {
	e := &resource.Error{Reason: p.Reason, Message: p.Detail}
	for _, f := range p.Errors {
		e.Fields = append(e.Fields, resource.FieldError{Field: trimBody(f.Location), Message: f.Message})
	}
	return e
}

func trimBody(loc string) string {
	if len(loc) > 5 && loc[:5] == "body." {
		return loc[5:]
	}
	return loc
}
