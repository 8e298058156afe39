package vm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/core/resource"
)

// annotationSource records, on a VM's template copy, which template and
// params it was made from, so that the copy is made anew only when those
// change and edits of the copy itself are kept otherwise.
const annotationSource = resource.Group + "/templateSource"

// annotationTemplateRef records, on a VM's template copy, the name of the
// template it was made from, so that a VM moved to another template lets
// go of the one it left (see releaseSource).
const annotationTemplateRef = resource.Group + "/templateRef"

// Render merges params over a template as a JSON merge patch (RFC 7386)
// over the template's structure: a param sets its field, null removes it,
// a list replaces the template's.
func Render(template string, params map[string]any) ([]byte, error) {
	if len(params) == 0 {
		return []byte(template), nil
	}
	tj, err := yaml.YAMLToJSON([]byte(template))
	if err != nil {
		return nil, &notYAMLError{err}
	}
	pj, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	merged, err := jsonpatch.MergePatch(tj, pj)
	if err != nil {
		return nil, fmt.Errorf("merge params into the template: %w", err)
	}
	return yaml.JSONToYAML(merged)
}

// notYAMLError is a template that does not parse as YAML, before params
// are merged: the template is at fault, not the params.
type notYAMLError struct{ err error }

// The YAML library's message starts with what it was doing and its name.
var yamlErrorPrefix = regexp.MustCompile(`^(error converting YAML to JSON: )?yaml: `)

func (e *notYAMLError) Error() string {
	return "the template is not YAML: " + yamlErrorPrefix.ReplaceAllString(e.err.Error(), "")
}

func (e *notYAMLError) Unwrap() error { return e.err }

// sourceOf names what a VM's template copy is made from: its template's
// ConfigMap at a revision, and its params.
func sourceOf(vm *resource.VM, src *resource.ConfigMap) string {
	params, _ := json.Marshal(vm.Spec.Params)
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%s", vm.Spec.TemplateRef, src.Metadata.UID, params))
	return hex.EncodeToString(sum[:12])
}

// render reads a VM's template from its ConfigMap and merges its params.
// Problems are Invalid errors naming the VM's field at fault.
func render(vm *resource.VM, src *resource.ConfigMap) ([]byte, error) {
	text, ok := src.Data[resource.TemplateKey]
	if !ok {
		return nil, invalid(vm, "spec.templateRef", fmt.Sprintf("configmap %q has no %q key holding a lima.yaml", src.Metadata.Name, resource.TemplateKey))
	}
	out, err := Render(text, vm.Spec.Params)
	var notYAML *notYAMLError
	if errors.As(err, &notYAML) {
		return nil, invalid(vm, "template", notYAML.Error())
	}
	if err != nil {
		return nil, invalid(vm, "spec.params", err.Error())
	}
	return out, nil
}

func invalid(obj resource.Object, field, msg string) error {
	return resource.Invalid(resource.KeyOf(obj), []resource.FieldError{{Field: field, Message: msg}})
}

// templateFields turns the driver's complaints about a rendered template
// into the VM's fields: a field a param sets is the param's, any other the
// template's.
func templateFields(vm *resource.VM, problems []resource.FieldError) []resource.FieldError {
	out := make([]resource.FieldError, len(problems))
	for i, p := range problems {
		top := p.Field
		for j, r := range p.Field {
			if r == '.' || r == '[' {
				top = p.Field[:j]
				break
			}
		}
		field := "template." + p.Field
		switch _, param := vm.Spec.Params[top]; {
		case p.Field == "":
			field = "template"
		case p.Field == NameField:
			field = NameField
		case param:
			field = "spec.params." + p.Field
		}
		out[i] = resource.FieldError{Field: field, Message: p.Message}
	}
	return out
}
