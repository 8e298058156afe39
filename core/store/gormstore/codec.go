package gormstore

import (
	"encoding/json"
	"fmt"

	"paddock.dev/paddock/core/resource"
)

func encode(obj resource.Object) ([]byte, error) {
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", resource.KeyOf(obj), err)
	}
	return raw, nil
}

// decode returns a fresh object of kind k from its JSON.
func decode(k *resource.Kind, raw []byte) (resource.Object, error) {
	obj := k.New()
	if err := json.Unmarshal(raw, obj); err != nil {
		return nil, fmt.Errorf("decode %s: %w", k.Name, err)
	}
	return obj, nil
}

// field returns the raw value of a top-level JSON field of an encoded
// object, or nil when it is absent.
func field(raw []byte, name string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	return m[name], nil
}

// withField returns a copy of k's object obj in which the top-level JSON
// field name has the given raw value (absent when nil).
func withField(k *resource.Kind, obj resource.Object, name string, value json.RawMessage) (resource.Object, error) {
	raw, err := encode(obj)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if value == nil {
		delete(m, name)
	} else {
		m[name] = value
	}
	if raw, err = json.Marshal(m); err != nil {
		return nil, err
	}
	return decode(k, raw)
}
