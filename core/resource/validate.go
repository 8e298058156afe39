package resource

import (
	"fmt"
	"strconv"
	"strings"

	units "github.com/docker/go-units"
	"k8s.io/apimachinery/pkg/util/validation"
)

// maxAnnotationBytes bounds the annotations of one object.
const maxAnnotationBytes = 256 << 10

// DefaultAndValidate fills defaults into obj and checks it as a write of
// kind k; old is the stored object on update, nil on create. The error is
// an Invalid *Error naming every bad field.
func DefaultAndValidate(k *Kind, obj, old Object) error {
	tm := obj.GetTypeMeta()
	m := obj.GetMeta()
	if k.Namespaced && m.Namespace == "" {
		m.Namespace = DefaultNamespace
	}
	k.Default(obj)

	var errs []FieldError
	if tm.APIVersion != APIVersion {
		errs = append(errs, FieldError{"apiVersion", fmt.Sprintf("must be %q", APIVersion)})
	}
	if tm.Kind != k.Name {
		errs = append(errs, FieldError{"kind", fmt.Sprintf("must be %q", k.Name)})
	}
	errs = append(errs, validateMeta(k, m)...)
	errs = append(errs, k.Validate(obj, old)...)
	if len(errs) > 0 {
		return Invalid(Key{Kind: k.Name, Namespace: m.Namespace, Name: m.Name}, errs)
	}
	return nil
}

// ValidateName checks a name as the kind requires, for paths and the CLI.
func ValidateName(k *Kind, name string) error {
	if errs := validateDNSSubdomain("metadata.name", name); len(errs) > 0 {
		return Invalid(Key{Kind: k.Name, Name: name}, errs)
	}
	return nil
}

// ValidateNamespace checks a namespace name.
func ValidateNamespace(ns string) error {
	if errs := validateDNSLabel("metadata.namespace", ns); len(errs) > 0 {
		return &Error{Reason: ReasonInvalid, Message: fmt.Sprintf("invalid namespace %q: %s", ns, errs[0].Message), Fields: errs}
	}
	return nil
}

func validateMeta(k *Kind, m *ObjectMeta) []FieldError {
	var errs []FieldError
	switch {
	case m.Name == "":
		errs = append(errs, FieldError{"metadata.name", "is required"})
	case k.LabelNames:
		errs = append(errs, validateDNSLabel("metadata.name", m.Name)...)
	default:
		errs = append(errs, validateDNSSubdomain("metadata.name", m.Name)...)
	}
	if k.Namespaced {
		errs = append(errs, validateDNSLabel("metadata.namespace", m.Namespace)...)
	} else if m.Namespace != "" {
		errs = append(errs, FieldError{"metadata.namespace", fmt.Sprintf("must be empty: %s is not namespaced", k.Name)})
	}
	for key, value := range m.Labels {
		errs = append(errs, fieldMsgs("metadata.labels["+key+"]", validation.IsQualifiedName(key))...)
		errs = append(errs, fieldMsgs("metadata.labels["+key+"]", validation.IsValidLabelValue(value))...)
	}
	size := 0
	for key, value := range m.Annotations {
		errs = append(errs, fieldMsgs("metadata.annotations["+key+"]", validation.IsQualifiedName(strings.ToLower(key)))...)
		size += len(key) + len(value)
	}
	if size > maxAnnotationBytes {
		errs = append(errs, FieldError{"metadata.annotations", "must be at most 256 KiB in total"})
	}
	for i, f := range m.Finalizers {
		errs = append(errs, fieldMsgs(fmt.Sprintf("metadata.finalizers[%d]", i), validation.IsQualifiedName(f))...)
	}
	controllers := 0
	for i, r := range m.OwnerReferences {
		if r.Kind == "" || r.Name == "" || r.UID == "" {
			errs = append(errs, FieldError{fmt.Sprintf("metadata.ownerReferences[%d]", i), "needs kind, name and uid"})
		}
		if r.Controller {
			controllers++
		}
	}
	if controllers > 1 {
		errs = append(errs, FieldError{"metadata.ownerReferences", "may mark only one owner as controller"})
	}
	return errs
}

func validateDNSLabel(field, value string) []FieldError {
	return fieldMsgs(field, validation.IsDNS1123Label(value))
}

func validateDNSSubdomain(field, value string) []FieldError {
	return fieldMsgs(field, validation.IsDNS1123Subdomain(value))
}

// MaxSize is the largest size an object may ask for: 1PiB, past any
// disk or memory a desktop has, and far from where int64 bytes overflow.
const MaxSize = 1 << 50

// ParseSize parses a size such as 4GiB, 512MiB or 1.5TiB (units of 1024,
// "B" and "i" optional, any case) into bytes. A size past MaxSize, or in
// a larger unit, is refused as too large, saying the limit.
func ParseSize(value string) (int64, error) {
	tooLarge := fmt.Errorf("%q is too large: sizes go up to %s", value, units.BytesSize(MaxSize))
	digits := strings.TrimRight(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ")
	switch strings.ToLower(strings.TrimSpace(value[len(digits):])) {
	case "e", "eb", "eib", "z", "zb", "zib", "y", "yb", "yib":
		if _, err := strconv.ParseFloat(strings.TrimSpace(digits), 64); err == nil {
			return 0, tooLarge
		}
	}
	n, err := units.RAMInBytes(value)
	if err != nil {
		return 0, fmt.Errorf("%q is not a size: write it like 4GiB or 512MiB", value)
	}
	// A size past int64 converts to a negative number, or to zero.
	if n < 0 || n > MaxSize || (n == 0 && strings.ContainsAny(value, "123456789")) {
		return 0, tooLarge
	}
	return n, nil
}

// validateSize checks a size such as 4GiB and that it is at least min
// bytes and, when max is above zero, at most max bytes (named maxName).
func validateSize(field, value string, min, max int64, maxName string) []FieldError {
	n, err := ParseSize(value)
	if err != nil {
		return []FieldError{{field, err.Error()}}
	}
	if n < min {
		return []FieldError{{field, fmt.Sprintf("must be at least %s", units.BytesSize(float64(min)))}}
	}
	if max > 0 && n > max {
		return []FieldError{{field, fmt.Sprintf("must be at most %s, %s", units.BytesSize(float64(max)), maxName)}}
	}
	return nil
}

func fieldMsgs(field string, msgs []string) []FieldError {
	var errs []FieldError
	for _, m := range msgs {
		errs = append(errs, FieldError{field, m})
	}
	return errs
}
