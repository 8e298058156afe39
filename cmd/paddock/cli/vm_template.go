package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/parser"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// storedTemplate is the ConfigMap that `vm create --template FILE` keeps
// the file in.
type storedTemplate struct {
	ns      string
	file    string // the file, as the user named it
	data    []byte
	name    string // the ConfigMap
	created bool   // by this command
	action  string // what this command did to it: created, configured or unchanged
	why     string // why it is not named after the file, or ""
}

// maxTemplateNames bounds the names store tries for one file: debian,
// debian-2, ... debian-20.
const maxTemplateNames = 20

// storeAttempts bounds the retries when another writer changes the
// ConfigMap between reading and writing it.
const storeAttempts = 3

var nonName = regexp.MustCompile(`[^a-z0-9-]+`)

// templateRef returns the ConfigMap a VM's template comes from: a file is
// stored (see storeTemplate) and returned as well; anything else names an
// existing ConfigMap.
func templateRef(ctx context.Context, cl *client.Client, ns, template, chosen string) (string, *storedTemplate, error) {
	data, err := os.ReadFile(template)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(template, "/.") {
		if chosen != "" {
			return "", nil, usageError("--template-name names the ConfigMap a template file is stored in; %q is no file", template)
		}
		return template, nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	st := &storedTemplate{ns: ns, file: template, data: data}
	if err := st.store(ctx, cl, chosen); err != nil {
		return "", nil, err
	}
	return st.name, st, nil
}

// store puts the file into a ConfigMap, never changing one that a VM
// uses or that the user made. Chosen is the ConfigMap's name from
// --template-name: if it holds another template that VMs use, store
// refuses, naming them. Without it, the ConfigMap is named after the file,
// or, when that one holds another template that VMs use or the user made,
// after the file with the first free number: debian-2, debian-3.
func (st *storedTemplate) store(ctx context.Context, cl *client.Client, chosen string) error {
	base := chosen
	if base == "" {
		name := strings.TrimSuffix(filepath.Base(st.file), filepath.Ext(st.file))
		base = strings.Trim(nonName.ReplaceAllString(strings.ToLower(name), "-"), "-")
		if base == "" {
			return usageError("cannot name a ConfigMap after %q; choose one with --template-name", st.file)
		}
	}
	var why string // why the file's own name would not do
	for n := 1; n <= maxTemplateNames; n++ {
		st.name = base
		if n > 1 {
			st.name = base + "-" + strconv.Itoa(n)
		}
		ok, whyNot, err := st.storeAs(ctx, cl, chosen != "")
		if err != nil || ok {
			st.why = why
			return err
		}
		if chosen != "" {
			return resource.Errorf(resource.ReasonConflict, "%s; choose another --template-name, or change the template with `paddock apply`", whyNot)
		}
		if n == 1 {
			why = whyNot
		}
	}
	return resource.Errorf(resource.ReasonConflict, "%s, and %s-2 to %s-%d are taken too; choose a name with --template-name", why, base, base, maxTemplateNames)
}

// storeAs stores the file under st.name unless that ConfigMap holds
// another template that must be kept; then it says why.
func (st *storedTemplate) storeAs(ctx context.Context, cl *client.Client, chosen bool) (bool, string, error) {
	for attempt := 1; ; attempt++ {
		retry := attempt < storeAttempts
		obj, err := cl.Get(ctx, resource.KindConfigMap, st.ns, st.name)
		if resource.IsNotFound(err) {
			cm := &resource.ConfigMap{
				TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: resource.KindConfigMap.Name},
				Metadata: resource.ObjectMeta{Name: st.name, Namespace: st.ns, Labels: map[string]string{resource.LabelMadeBy: resource.MadeByVMCreate}},
				Data:     map[string]string{resource.TemplateKey: string(st.data)},
			}
			_, err := cl.Create(ctx, cm)
			if retry && resource.ReasonOf(err) == resource.ReasonAlreadyExists {
				continue
			}
			st.created, st.action = err == nil, "created"
			return err == nil, "", err
		}
		if err != nil {
			return false, "", err
		}
		cm := obj.(*resource.ConfigMap)
		if text, ok := cm.Data[resource.TemplateKey]; ok && text == string(st.data) {
			st.action = "unchanged"
			return true, "", nil
		}
		users, err := templateUsers(ctx, cl, cm)
		if err != nil {
			return false, "", err
		}
		if len(users) > 0 {
			return false, fmt.Sprintf("configmap/%s holds another template, used by %s", st.name, strings.Join(users, ", ")), nil
		}
		if !chosen && cm.Metadata.Labels[resource.LabelMadeBy] != resource.MadeByVMCreate {
			return false, fmt.Sprintf("configmap/%s holds another template, made by you", st.name), nil
		}
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[resource.TemplateKey] = string(st.data)
		_, err = cl.Update(ctx, cm)
		if retry && resource.IsConflict(err) {
			continue
		}
		st.action = "configured"
		return err == nil, "", err
	}
}

// templateUsers names the VMs that use cm: as their template (unless they
// are being deleted), or as their template copy.
func templateUsers(ctx context.Context, cl *client.Client, cm *resource.ConfigMap) ([]string, error) {
	var users []string
	if vm := cm.Metadata.Labels[resource.LabelVM]; vm != "" {
		users = append(users, "vm/"+vm)
	}
	vms, _, err := cl.List(ctx, resource.KindVM, cm.Metadata.Namespace, client.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, obj := range vms {
		vm := obj.(*resource.VM)
		if vm.Spec.TemplateRef == cm.Metadata.Name && !vm.Metadata.Terminating() && !slices.Contains(users, "vm/"+vm.Metadata.Name) {
			users = append(users, "vm/"+vm.Metadata.Name)
		}
	}
	return users, nil
}

// report says what happened to the ConfigMap, once the VM is created.
func (st *storedTemplate) report(c *cli) {
	switch {
	case st.why != "":
		fmt.Fprintf(c.stdout, "configmap/%s %s: %s\n", st.name, st.action, st.why)
	case st.action != "unchanged":
		fmt.Fprintf(c.stdout, "configmap/%s %s\n", st.name, st.action)
	}
}

// rejected takes back what store did when the VM was not created: a
// ConfigMap it created that no VM uses is deleted. A rejection that names
// the template's fields names them in the file, by line.
func (st *storedTemplate) rejected(ctx context.Context, cl *client.Client, err error) error {
	if st.created {
		if obj, gerr := cl.Get(ctx, resource.KindConfigMap, st.ns, st.name); gerr == nil {
			cm := obj.(*resource.ConfigMap)
			users, lerr := templateUsers(ctx, cl, cm)
			if lerr == nil && len(users) == 0 {
				_, lerr = cl.Delete(ctx, resource.KindConfigMap, cm.Metadata.Namespace, st.name)
			}
			if lerr != nil {
				err = errors.Join(err, fmt.Errorf("remove configmap/%s, which this command created: %w", st.name, lerr))
			}
		}
	}
	var re *resource.Error
	if !errors.As(err, &re) || re.Reason != resource.ReasonInvalid {
		return err
	}
	fields := make([]resource.FieldError, len(re.Fields))
	for i, f := range re.Fields {
		fields[i] = st.inFile(f)
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.String()
	}
	prefix, _, _ := strings.Cut(re.Message, " is invalid: ")
	return &resource.Error{Reason: re.Reason, Message: prefix + " is invalid: " + strings.Join(parts, "; "), Fields: fields}
}

// lineRE reads the line (and column) at the start of a problem with the
// whole template.
var lineRE = regexp.MustCompile(`^(?:the template is not YAML: )?line (\d+)(?:, column (\d+))?: (.*)$`)

// inFile names a problem with the template by the file and its line: the
// field "template" (the whole template) by the line its message names,
// "template.FIELD" by the line of FIELD, or of the nearest enclosing field
// the file has. Other fields are kept.
func (st *storedTemplate) inFile(f resource.FieldError) resource.FieldError {
	if f.Field == "template" {
		if m := lineRE.FindStringSubmatch(f.Message); m != nil {
			loc := st.file + ":" + m[1]
			if m[2] != "" {
				loc += ":" + m[2]
			}
			return resource.FieldError{Field: loc, Message: m[3]}
		}
		return resource.FieldError{Field: st.file, Message: f.Message}
	}
	field, ok := strings.CutPrefix(f.Field, "template.")
	if !ok {
		return f
	}
	if line := lineOf(st.data, field); line > 0 {
		return resource.FieldError{Field: fmt.Sprintf("%s:%d: %s", st.file, line, field), Message: f.Message}
	}
	return resource.FieldError{Field: st.file + ": " + field, Message: f.Message}
}

// lineOf returns the line of field (images[0].arch) in the YAML data, or
// of the nearest enclosing field there; 0 when it finds none.
func lineOf(data []byte, field string) int {
	file, err := parser.ParseBytes(data, 0)
	if err != nil {
		return 0
	}
	for field != "" {
		if path, err := yaml.PathString("$." + field); err == nil {
			if node, err := path.FilterFile(file); err == nil && node != nil && node.GetToken() != nil {
				return node.GetToken().Position.Line
			}
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return 0
}
