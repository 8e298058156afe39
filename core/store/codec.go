package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	"paddock.dev/paddock/core/resource"
)

// DecodeStrict decodes a request body into a fresh object of kind k,
// refusing unknown fields, so that a misspelt field is an error rather than
// a setting silently ignored.
func DecodeStrict(k *resource.Kind, raw []byte) (resource.Object, error) {
	obj := k.New()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return nil, &resource.Error{Reason: resource.ReasonInvalid, Message: fmt.Sprintf("cannot read the %s: %v", k.Singular(), err)}
	}
	if dec.More() {
		return nil, &resource.Error{Reason: resource.ReasonInvalid, Message: fmt.Sprintf("cannot read the %s: unexpected data after the object", k.Singular())}
	}
	return obj, nil
}
