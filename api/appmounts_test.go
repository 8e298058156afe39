package api_test

import (
	"path/filepath"
	"slices"
	"testing"

	"paddock.dev/paddock/api"
)

// The OpenAPI document describes the App's shared folders: spec.mounts,
// a list of a location and readOnly, optional, and spec.mountType with
// its values.
func TestOpenAPIDescribesTheAppsMounts(t *testing.T) {
	st := openStore(t)
	doc := api.New(api.Config{Store: st}).OpenAPI()
	spec := doc.Components.Schemas.Map()["AppSpec"]
	if spec == nil {
		t.Fatal("no AppSpec schema in the OpenAPI document")
	}
	if slices.Contains(spec.Required, "mounts") || slices.Contains(spec.Required, "mountType") {
		t.Errorf("mounts and mountType must be optional; required: %v", spec.Required)
	}
	mounts := spec.Properties["mounts"]
	if mounts == nil || mounts.Type != "array" || mounts.Items == nil || mounts.Description == "" {
		t.Fatalf("spec.mounts is %+v, want a described array", mounts)
	}
	item := mounts.Items
	if item.Ref != "" {
		item = doc.Components.Schemas.Map()[filepath.Base(item.Ref)]
	}
	if item == nil || item.Properties["location"] == nil || item.Properties["readOnly"] == nil || !slices.Equal(item.Required, []string{"location"}) {
		t.Fatalf("a mount is %+v, want location (required) and readOnly", item)
	}
	if mt := spec.Properties["mountType"]; mt == nil || !slices.Equal(mt.Enum, []any{"9p", "reverse-sshfs"}) {
		t.Errorf("spec.mountType is %+v, want the enum 9p, reverse-sshfs", mt)
	}
}
