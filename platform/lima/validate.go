package lima

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
)

// A Problem is one thing wrong with a template. Field is the template's
// field as Lima names it (for example "images[0].location" or "cpus"), or
// empty when Lima's message does not name one.
type Problem struct {
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// ValidationError lists what Lima's loader and validator found wrong with a
// template. The API answers it with 422 and the fields named.
type ValidationError struct {
	Problems []Problem
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return "invalid template: " + strings.Join(msgs, "; ")
}

// Patterns that name the field in Lima's messages and in the YAML
// decoder's: "field `x.y` must ...", "unknown field \"x\"", "cannot
// unmarshal ... into Go struct field LimaYAML.x.y of type ...".
var fieldREs = []*regexp.Regexp{
	regexp.MustCompile("field `([^`]+)`"),
	regexp.MustCompile(`unknown field "([^"]+)"`),
	regexp.MustCompile(`Go struct field [A-Za-z]+\.(\S+) of type`),
}

// goFieldRE is the index of the pattern that yields Go field names.
const goFieldRE = 2

// yamlPath turns a path of Go field names of limayaml.LimaYAML, as the YAML
// decoder reports them ("SSH.LocalPort"), into the template's field names
// ("ssh.localPort"). A name it cannot resolve is kept as it is.
func yamlPath(goPath string) string {
	t := reflect.TypeFor[limayaml.LimaYAML]()
	parts := strings.Split(goPath, ".")
	for i, name := range parts {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			break
		}
		f, ok := t.FieldByName(name)
		if !ok {
			break
		}
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			parts[i] = tag
		}
		t = f.Type
	}
	return strings.Join(parts, ".")
}

// Validate checks templateYAML with Lima's own loader (which fills in
// defaults) and validator, as Create does, and returns the fields at fault
// when Lima rejects it (vm.Validator); "(template)" stands for a problem
// Lima names no field for. It is stricter than Lima in one way: a field
// Lima does not know is an error, where Lima only warns, so that a typo is
// reported instead of silently ignored.
func (d *Driver) Validate(templateYAML []byte) ([]resource.FieldError, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	// The name only seeds defaults such as MAC addresses.
	_, err := d.load("validate", templateYAML)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := make([]resource.FieldError, len(ve.Problems))
	for i, p := range ve.Problems {
		field := p.Field
		if field == "" {
			field = "(template)"
		}
		out[i] = resource.FieldError{Field: field, Message: p.Message}
	}
	return out, nil
}

// load is Validate for the instance name, returning the loaded template.
func (d *Driver) load(name string, templateYAML []byte) (*limayaml.LimaYAML, error) {
	if len(templateYAML) == 0 {
		return nil, &ValidationError{Problems: []Problem{{Message: "the template is empty"}}}
	}
	// The loader derives per-instance defaults (such as MAC addresses) from
	// the path the instance's lima.yaml will have.
	loaded, err := limayaml.Load(templateYAML, filepath.Join(d.LimaHome, name, filenames.LimaYAML))
	if err != nil {
		return nil, validationError(err)
	}
	if err := checkKnownFields(templateYAML); err != nil {
		return nil, validationError(err)
	}
	if err := limayaml.Validate(loaded, false); err != nil {
		return nil, validationError(err)
	}
	return loaded, nil
}

// validationError splits a (possibly joined) Lima error into problems.
func validationError(err error) *ValidationError {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	ve := &ValidationError{}
	for _, e := range errs {
		var nested *ValidationError
		if errors.As(e, &nested) {
			ve.Problems = append(ve.Problems, nested.Problems...)
			continue
		}
		p := Problem{Message: e.Error()}
		for i, re := range fieldREs {
			if m := re.FindStringSubmatch(p.Message); m != nil {
				p.Field = m[1]
				if i == goFieldRE {
					p.Field = yamlPath(p.Field)
				}
				break
			}
		}
		ve.Problems = append(ve.Problems, p)
	}
	if len(ve.Problems) == 0 {
		ve.Problems = []Problem{{Message: fmt.Sprint(err)}}
	}
	return ve
}

// checkKnownFields decodes templateYAML strictly, so that a field Lima does
// not know fails. Lima's types that accept a string or an object in the same
// place are skipped here: Lima's own loader has decoded them already.
func checkKnownFields(templateYAML []byte) error {
	var y limayaml.LimaYAML
	return yaml.UnmarshalWithOptions(templateYAML, &y, yaml.Strict(),
		yaml.CustomUnmarshaler[limayaml.Disk](func(*limayaml.Disk, []byte) error { return nil }),
		yaml.CustomUnmarshaler[limayaml.BaseTemplates](func(*limayaml.BaseTemplates, []byte) error { return nil }),
		yaml.CustomUnmarshaler[limayaml.LocatorWithDigest](func(*limayaml.LocatorWithDigest, []byte) error { return nil }),
	)
}
