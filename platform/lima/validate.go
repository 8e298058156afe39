package lima

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	units "github.com/docker/go-units"
	"github.com/goccy/go-yaml"
	"github.com/lima-vm/lima/pkg/limayaml"
	"github.com/lima-vm/lima/pkg/osutil"
	limastore "github.com/lima-vm/lima/pkg/store"
	"github.com/lima-vm/lima/pkg/store/filenames"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/vm"
	"paddock.dev/paddock/platform/hostcheck"
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

// Validate checks templateYAML for the instance name with every check
// Lima's create makes (vm.Validator): the name, Lima's loader (which fills
// in defaults) and validator, and the checks of the cloud-init
// configuration it writes. It returns the fields at fault when Lima
// rejects it; a problem with the whole template (YAML that does not parse)
// has no field, one with the name has vm.NameField. It is stricter than
// Lima in one way: a field Lima does not know is an error, where Lima only
// warns, so that a typo is reported instead of silently ignored.
func (d *Driver) Validate(name string, templateYAML []byte) ([]resource.FieldError, error) {
	if err := d.init(); err != nil {
		return nil, err
	}
	if p := checkName(name); p != nil {
		return []resource.FieldError{{Field: vm.NameField, Message: p.Message}}, nil
	}
	_, err := d.load(name, templateYAML)
	if err == nil {
		err = d.checkDiskSpace(name, templateYAML)
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := make([]resource.FieldError, len(ve.Problems))
	for i, p := range ve.Problems {
		out[i] = resource.FieldError{Field: p.Field, Message: p.Message}
	}
	return out, nil
}

// checkDiskSpace refuses a disk the template asks for that is larger than
// the space left where the instance's disk will be, counting what its disk
// holds already: the disk grows as the VM fills it, and a host disk that
// fills up under a VM damages the guest's file systems. A disk no larger
// than the instance's own is not checked: it was when the instance was
// made or grown, and a change of something else (an App's engine) asks
// nothing more of the host, while a disk cannot shrink. Nor is Lima's
// default size, which a template that names none gets.
func (d *Driver) checkDiskSpace(name string, templateYAML []byte) error {
	var y struct {
		Disk *string `yaml:"disk"`
	}
	if yaml.Unmarshal(templateYAML, &y) != nil || y.Disk == nil {
		return nil // the loader has checked the template
	}
	size, err := units.RAMInBytes(*y.Disk)
	if err != nil {
		return nil // Lima's validator has said so
	}
	if inst, err := limastore.Inspect(name); err == nil && inst.Config != nil && size <= inst.Disk {
		return nil
	}
	dir := filepath.Join(d.LimaHome, name)
	free, err := hostcheck.FreeSpace(dir)
	if err != nil {
		return fmt.Errorf("measure the free space for the VM's disk in %s: %w", dir, err)
	}
	held := uint64(0)
	if fi, err := os.Stat(filepath.Join(dir, filenames.DiffDisk)); err == nil {
		held = uint64(fi.Size())
	}
	if uint64(size) > free+held {
		return &ValidationError{Problems: []Problem{{Field: "disk", Message: fmt.Sprintf(
			"%s exceeds the %s free in %s, which will hold the VM's disk: ask for a smaller disk, or free space there",
			*y.Disk, units.BytesSize(float64(free+held)), dir)}}}
	}
	return nil
}

// checkName makes Lima's checks of an instance name: its characters, and
// the length of the longest socket path in its directory.
func checkName(name string) *Problem {
	if err := limastore.ValidateInstName(name); err != nil {
		return &Problem{Field: "name", Message: err.Error()}
	}
	dir, err := limastore.InstanceDir(name)
	if err != nil {
		return &Problem{Field: "name", Message: err.Error()}
	}
	if sock := filepath.Join(dir, filenames.LongestSock); len(sock) >= osutil.UnixPathMax {
		return &Problem{Field: "name", Message: fmt.Sprintf("is too long: the socket path %s would be %d bytes, and must be less than %d; choose a name at most %d bytes long",
			sock, len(sock), osutil.UnixPathMax, len(name)-(len(sock)-osutil.UnixPathMax+1))}
	}
	return nil
}

// load is Validate's check of the template, returning the loaded template.
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
	if err := d.checkCloudConfig(name, templateYAML); err != nil {
		return nil, err
	}
	return loaded, nil
}

// checkCloudConfig makes the checks Lima's create makes when it writes the
// instance's cloud-init configuration (the user is not root, has a uid,
// a home and a shell): paddock-lima writes it to a temporary directory
// (CheckCloudConfig). That needs Lima's user key, as create does.
func (d *Driver) checkCloudConfig(name string, templateYAML []byte) error {
	if err := EnsureUserKey(d.LimaHome); err != nil {
		return err
	}
	return d.runHelper(context.Background(), templateYAML, "check-cloud-config", name)
}

// CheckCloudConfig is paddock-lima's part of checkCloudConfig: it loads
// templateYAML for the instance name under limaHome and writes its
// cloud-init configuration with generate (Lima's
// cidata.GenerateCloudConfig, which the daemon does not link) to a
// temporary directory. A problem is a *ValidationError.
func CheckCloudConfig(limaHome, name string, templateYAML []byte, generate func(dir, name string, y *limayaml.LimaYAML) error) error {
	loaded, err := limayaml.Load(templateYAML, filepath.Join(limaHome, name, filenames.LimaYAML))
	if err != nil {
		return validationError(err)
	}
	dir, err := os.MkdirTemp("", "paddock-validate-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := generate(dir, name, loaded); err != nil {
		return validationError(err)
	}
	return nil
}

// validationError splits a (possibly joined) Lima error into problems,
// each once: Lima says the same sentence for a field and for each value
// it defaulted from it (an image's arch from arch).
func validationError(err error) *ValidationError {
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	ve := &ValidationError{}
	seen := map[Problem]bool{}
	for _, e := range errs {
		var nested *ValidationError
		if errors.As(e, &nested) {
			ve.Problems = append(ve.Problems, nested.Problems...)
			continue
		}
		p := problemOf(e)
		if !seen[p] {
			seen[p] = true
			ve.Problems = append(ve.Problems, p)
		}
	}
	if len(ve.Problems) == 0 {
		ve.Problems = []Problem{{Message: fmt.Sprint(err)}}
	}
	return ve
}

// unmarshalPrefix starts Lima's message for YAML it cannot decode; it names
// the path of the instance's lima.yaml, which is no file of the user's.
var unmarshalPrefix = regexp.MustCompile(`^failed to unmarshal YAML \(.*?"\): `)

// cloudConfigRE matches the checks of Lima's cloud-init configuration,
// which name Go fields; cloudConfigFields are the template's.
var (
	cloudConfigRE     = regexp.MustCompile(`^field (User|UID|Home|Shell|SSHPubKeys) (.*)$`)
	cloudConfigFields = map[string]string{"User": "user.name", "UID": "user.uid", "Home": "user.home", "Shell": "user.shell", "SSHPubKeys": "ssh"}
)

// problemOf names the field of one of Lima's errors, and its line when the
// YAML decoder found it.
func problemOf(e error) Problem {
	msg := e.Error()
	var yerr yaml.Error
	if errors.As(e, &yerr) && yerr.GetToken() != nil {
		pos := yerr.GetToken().Position
		msg = fmt.Sprintf("line %d, column %d: %s", pos.Line, pos.Column, yerr.GetMessage())
	} else {
		msg = unmarshalPrefix.ReplaceAllString(msg, "")
	}
	p := Problem{Message: msg}
	if m := cloudConfigRE.FindStringSubmatch(msg); m != nil {
		p.Field = cloudConfigFields[m[1]]
		p.Message = fmt.Sprintf("field `%s` %s", p.Field, m[2])
		return p
	}
	for i, re := range fieldREs {
		if m := re.FindStringSubmatch(msg); m != nil {
			p.Field = m[1]
			if i == goFieldRE {
				p.Field = yamlPath(p.Field)
			}
			break
		}
	}
	return p
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
