package vm

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// Validator is the driver's role that checks templates.
type Validator interface {
	// Validate makes every check the driver's Create would make of a
	// complete template for the machine name; a template the driver
	// rejects yields the fields at fault. Their paths are the template's
	// own; a problem with the whole template (YAML that does not parse)
	// has an empty field, and one with the name has NameField.
	Validate(name string, template []byte) ([]resource.FieldError, error)
}

// NameField is the field of a Validator's problem with the machine name.
const NameField = "metadata.name"

// Admit returns the store's admission check for what the driver must
// accept: a VM's template with its params, and edits of a VM's template
// copy. A rejection is Invalid and names the field.
func Admit(d Validator) store.AdmitFunc {
	return func(ctx context.Context, r store.Reader, obj, old resource.Object) error {
		switch o := obj.(type) {
		case *resource.VM:
			if prev, ok := old.(*resource.VM); ok && prev.Spec.TemplateRef == o.Spec.TemplateRef && reflect.DeepEqual(prev.Spec.Params, o.Spec.Params) {
				return nil
			}
			src, err := sourceTemplate(ctx, r, o)
			if err != nil {
				return err
			}
			rendered, err := render(o, src)
			if err != nil {
				return err
			}
			problems, err := d.Validate(o.Metadata.Name, rendered)
			if err != nil {
				return err
			}
			if len(problems) > 0 {
				return resource.Invalid(resource.KeyOf(o), templateFields(o, problems))
			}
		case *resource.ConfigMap:
			if _, owned := o.Metadata.OwnerOfKind(resource.KindVM.Name); !owned || o.Metadata.Labels[resource.LabelVM] == "" {
				return nil
			}
			problems, err := d.Validate(o.Metadata.Labels[resource.LabelVM], []byte(o.Data[resource.TemplateKey]))
			if err != nil {
				return err
			}
			for i := range problems {
				problems[i].Field = strings.TrimSuffix("data.template: "+problems[i].Field, ": ")
			}
			if len(problems) > 0 {
				return resource.Invalid(resource.KeyOf(o), problems)
			}
		}
		return nil
	}
}

// sourceTemplate reads the ConfigMap a VM's templateRef names.
func sourceTemplate(ctx context.Context, r store.Reader, vm *resource.VM) (*resource.ConfigMap, error) {
	key := resource.Key{Kind: resource.KindConfigMap.Name, Namespace: vm.Metadata.Namespace, Name: vm.Spec.TemplateRef}
	obj, err := r.Get(ctx, key)
	if resource.IsNotFound(err) {
		return nil, invalid(vm, "spec.templateRef", fmt.Sprintf("configmap %q does not exist in namespace %q: create it first", key.Name, key.Namespace))
	}
	if err != nil {
		return nil, err
	}
	return obj.(*resource.ConfigMap), nil
}
