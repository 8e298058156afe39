package wire

import (
	"encoding/json"
	"errors"
	"testing"

	"paddock.dev/paddock/core/resource"
)

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{CollectionPath(resource.KindVM, "default"), "/api/v1alpha1/namespaces/default/vms"},
		{CollectionPath(resource.KindVM, ""), "/api/v1alpha1/vms"},
		{ObjectPath(resource.KindVM, "default", "dev"), "/api/v1alpha1/namespaces/default/vms/dev"},
		{ObjectPath(resource.KindConfigMap, "team a", "x/y"), "/api/v1alpha1/namespaces/team%20a/configmaps/x%2Fy"},
		{CollectionPath(resource.KindApp, "ignored"), "/api/v1alpha1/app"},
		{ObjectPath(resource.KindApp, "", "app"), "/api/v1alpha1/app"},
	} {
		if tc.got != tc.want {
			t.Errorf("path %q, want %q", tc.got, tc.want)
		}
	}
}

// A problem+json body from the server becomes the resource error it was
// made from, fields and all, so that client code switches on the reason.
func TestProblemCarriesTheReasonAndFields(t *testing.T) {
	body := `{"title":"Unprocessable Entity","status":422,"reason":"Invalid","detail":"VM default/dev is invalid",
		"errors":[{"message":"must be at least 1","location":"body.spec.params.cpus","value":0},
		          {"message":"is required","location":"query.wait"}]}`
	var p Problem
	if err := json.Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	var err error = p.Error()
	if resource.ReasonOf(err) != resource.ReasonInvalid {
		t.Errorf("reason %q, want Invalid", resource.ReasonOf(err))
	}
	var re *resource.Error
	if !errors.As(err, &re) || re.Message != "VM default/dev is invalid" {
		t.Fatalf("error %#v, want the detail as message", err)
	}
	want := []resource.FieldError{{Field: "spec.params.cpus", Message: "must be at least 1"}, {Field: "query.wait", Message: "is required"}}
	if len(re.Fields) != len(want) || re.Fields[0] != want[0] || re.Fields[1] != want[1] {
		t.Errorf("fields %+v, want %+v (body. dropped, other locations kept)", re.Fields, want)
	}
}

func TestListAndWatchEnvelopes(t *testing.T) {
	list := RawList{APIVersion: resource.APIVersion, Kind: "VMList", Metadata: ListMeta{ResourceVersion: "42"},
		Items: []json.RawMessage{json.RawMessage(`{"kind":"VM"}`)}}
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"apiVersion":"paddock.dev/v1alpha1","kind":"VMList","metadata":{"resourceVersion":"42"},"items":[{"kind":"VM"}]}`; got != want {
		t.Errorf("list = %s\nwant   %s", got, want)
	}
	empty, err := json.Marshal(List[int]{Items: []int{}})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(empty, &back); err != nil {
		t.Fatal(err)
	}
	if items, ok := back["items"].([]any); !ok || len(items) != 0 {
		t.Errorf("an empty list's items are %v, want []", back["items"])
	}

	ev, err := json.Marshal(WatchEvent{Type: "MODIFIED", Object: json.RawMessage(`{"kind":"VM"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(ev), `{"type":"MODIFIED","object":{"kind":"VM"}}`; got != want {
		t.Errorf("watch event = %s, want %s", got, want)
	}
}
