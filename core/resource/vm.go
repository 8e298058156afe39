package resource

import (
	"fmt"
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition types of a VM and their reasons.
const (
	VMCreated = "Created"
	VMRunning = "Running"

	ReasonPending      = "Pending"
	ReasonCreated      = "Created"
	ReasonCreateFailed = "CreateFailed"
	ReasonReconciling  = "Reconciling"
	ReasonStarting     = "Starting"
	ReasonStarted      = "Started"
	ReasonResumed      = "Resumed"
	ReasonColdBoot     = "ColdBoot"
	ReasonStopped      = "Stopped"
	ReasonStartFailed  = "StartFailed"
	ReasonStopFailed   = "StopFailed"
)

// LabelVM marks an object that belongs to the VM it names.
const LabelVM = Group + "/vm"

// LabelMadeBy names what made an object. MadeByVMCreate marks a template
// ConfigMap that `paddock vm create` stored from a file: the VM controller
// deletes it with the last VM that uses it. A template ConfigMap without it
// is the user's, and is kept.
const (
	LabelMadeBy    = Group + "/made-by"
	MadeByVMCreate = "vm-create"
)

// maxVMName bounds VM names: they become Lima instance names, and Lima puts
// them into socket paths, which are length-limited.
const maxVMName = 32

// TemplateKey is the ConfigMap data key that holds a Lima template.
const TemplateKey = "template"

// TemplateName is the name of the ConfigMap that holds the validated copy
// of vm's template. It is the one place that naming rule lives.
func TemplateName(vm string) string { return vm + "-template" }

// VM is a Linux virtual machine made from a Lima template.
type VM struct {
	TypeMeta
	Metadata ObjectMeta `json:"metadata"`
	Spec     VMSpec     `json:"spec,omitempty"`
	Status   VMStatus   `json:"status,omitempty"`
}

// VMSpec is what the user asks of a VM.
type VMSpec struct {
	Running     bool           `json:"running,omitempty" doc:"Whether the VM should run."`
	TemplateRef string         `json:"templateRef,omitempty" doc:"Name of a ConfigMap in the VM's namespace whose 'template' key holds a complete lima.yaml."`
	Params      map[string]any `json:"params,omitempty" doc:"Fields merged over the template, in lima.yaml's structure."`
	Cold        bool           `json:"cold,omitempty" doc:"Stop with a full shutdown and start with a full boot. When false, a stop saves the running VM's state (QEMU VMs) and the next start resumes it; a state that does not fit the VM any more is dropped and the VM boots, saying why in its Running condition."`
}

// VMStartedReasons are the reasons of a Running condition that is True:
// the machine resumed a saved state, or booted (ColdBoot, with why it did
// not resume), or Started, which the controllers of earlier versions
// recorded for both.
var VMStartedReasons = []string{ReasonResumed, ReasonColdBoot, ReasonStarted}

// VMStatus is what the VM's controller reports.
type VMStatus struct {
	TemplateConfigMap               string             `json:"templateConfigMap,omitempty" doc:"The ConfigMap holding the VM's own validated copy of its template."`
	ObservedTemplateResourceVersion string             `json:"observedTemplateResourceVersion,omitempty" doc:"Revision of the template copy the VM's machine is configured with; a running VM started with it."`
	RestartNeeded                   bool               `json:"restartNeeded,omitempty" doc:"True while the VM runs an older template copy than its own, until the restart the controller makes for it stops it."`
	RestartCount                    int                `json:"restartCount,omitempty" doc:"Goes up by one each time Running becomes True."`
	Accelerator                     string             `json:"accelerator,omitempty" doc:"How the VM's CPU runs: kvm, hvf, tcg (emulation; slow) or another driver's name."`
	Conditions                      []metav1.Condition `json:"conditions,omitempty"`
}

func (v *VM) GetTypeMeta() *TypeMeta { return &v.TypeMeta }
func (v *VM) GetMeta() *ObjectMeta   { return &v.Metadata }

// Phase summarises the VM in a word, its phase (see PhaseAndReason).
func (v *VM) Phase() string {
	phase, _ := v.PhaseAndReason()
	return phase
}

// StatusConditions returns the VM's conditions, for writers that set them
// on any kind.
func (v *VM) StatusConditions() *[]metav1.Condition { return &v.Status.Conditions }

// KindVM describes the VM kind.
var KindVM = &Kind{
	Name:       "VM",
	Plural:     "vms",
	Namespaced: true,
	LabelNames: true,
	SpecField:  "spec",
	HasStatus:  true,
	New:        func() Object { return &VM{} },
	Default:    func(Object) {},
	Validate: func(obj, old Object) []FieldError {
		v := obj.(*VM)
		var errs []FieldError
		if len(v.Metadata.Name) > maxVMName {
			errs = append(errs, FieldError{"metadata.name", "must be at most 32 characters: it becomes part of socket paths"})
		}
		if v.Spec.TemplateRef == "" {
			errs = append(errs, FieldError{"spec.templateRef", "is required: name a ConfigMap whose 'template' key holds a lima.yaml"})
		} else {
			errs = append(errs, validateDNSSubdomain("spec.templateRef", v.Spec.TemplateRef)...)
		}
		return append(errs, validateVMParams(v.Spec.Params)...)
	},
}

func init() { register(KindVM) }

// Bounds of a VM's sizes below the host's.
const (
	minVMMemory = 128 << 20
	minVMDisk   = 512 << 20
)

// validateVMParams checks the params Paddock knows: cpus (a whole number
// from 1 to the host's CPU count), memory (a size no larger than the
// host's memory) and disk (a size). The driver checks the rest in the
// rendered template.
func validateVMParams(params map[string]any) []FieldError {
	var errs []FieldError
	if v, ok := params["cpus"]; ok && v != nil {
		n, isNumber := number(v)
		if host := hostCPUs(); !isNumber || n != math.Trunc(n) || n < 1 || n > float64(host) {
			errs = append(errs, FieldError{"spec.params.cpus", fmt.Sprintf("must be a whole number from 1 to %d, the host's CPU count", host)})
		}
	}
	for _, size := range []struct {
		name      string
		min, max  int64
		limitName string
	}{{"memory", minVMMemory, hostMemory(), "the host's memory"}, {"disk", minVMDisk, 0, ""}} {
		v, ok := params[size.name]
		if !ok || v == nil {
			continue
		}
		field := "spec.params." + size.name
		if s, isString := v.(string); isString {
			errs = append(errs, validateSize(field, s, size.min, size.max, size.limitName)...)
		} else {
			errs = append(errs, FieldError{field, "must be a size such as 4GiB"})
		}
	}
	return errs
}

// number returns v as a float64 when it is a number: float64 as JSON
// decodes it, or an integer as Go code sets it.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
