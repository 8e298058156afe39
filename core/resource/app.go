package resource

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppName is the name of the one App object.
const AppName = "app"

// Container engines an App can run.
const (
	EngineMoby       = "moby"
	EngineContainerd = "containerd"
)

// Condition types of an App.
const (
	AppCreated              = "Created"
	AppRunning              = "Running"
	AppContainerEngineReady = "ContainerEngineReady"
	AppSettled              = "Settled"
)

// App is the cluster-scoped singleton that asks for a running VM with a
// container engine, sized as its spec says.
type App struct {
	TypeMeta
	Metadata ObjectMeta `json:"metadata"`
	Spec     AppSpec    `json:"spec,omitempty"`
	Status   AppStatus  `json:"status,omitempty"`
}

// AppSpec is what the user asks of the App.
type AppSpec struct {
	Running         bool   `json:"running,omitempty" doc:"Whether the App's VM and engine should run."`
	ContainerEngine string `json:"containerEngine,omitempty" enum:"moby,containerd" doc:"Engine inside the VM; moby when empty."`
	CPUs            int    `json:"cpus,omitempty" minimum:"0" maximum:"256" doc:"Virtual CPUs; 2 when zero."`
	Memory          string `json:"memory,omitempty" doc:"Memory, e.g. 4GiB; 4GiB when empty." example:"4GiB"`
	Disk            string `json:"disk,omitempty" doc:"Disk size, e.g. 64GiB; 64GiB when empty." example:"64GiB"`
	Namespace       string `json:"namespace,omitempty" doc:"Namespace of the App's VM and template; paddock when empty. Immutable."`
}

// AppStatus is what the App's controller reports.
type AppStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

func (a *App) GetTypeMeta() *TypeMeta { return &a.TypeMeta }
func (a *App) GetMeta() *ObjectMeta   { return &a.Metadata }

// KindApp describes the App kind.
var KindApp = &Kind{
	Name:      "App",
	Plural:    "apps",
	SpecField: "spec",
	HasStatus: true,
	New:       func() Object { return &App{} },
	Default: func(obj Object) {
		s := &obj.(*App).Spec
		setDefault(&s.ContainerEngine, EngineMoby)
		if s.CPUs == 0 {
			s.CPUs = 2
		}
		setDefault(&s.Memory, "4GiB")
		setDefault(&s.Disk, "64GiB")
		setDefault(&s.Namespace, "paddock")
	},
	Validate: func(obj, old Object) []FieldError {
		a := obj.(*App)
		var errs []FieldError
		if a.Metadata.Name != AppName {
			errs = append(errs, FieldError{"metadata.name", `must be "app": there is one App`})
		}
		switch a.Spec.ContainerEngine {
		case EngineMoby, EngineContainerd:
		default:
			errs = append(errs, FieldError{"spec.containerEngine", `must be "moby" or "containerd"`})
		}
		if a.Spec.CPUs < 1 || a.Spec.CPUs > 256 {
			errs = append(errs, FieldError{"spec.cpus", "must be between 1 and 256"})
		}
		errs = append(errs, validateSize("spec.memory", a.Spec.Memory, 512<<20)...)
		errs = append(errs, validateSize("spec.disk", a.Spec.Disk, 1<<30)...)
		errs = append(errs, validateDNSLabel("spec.namespace", a.Spec.Namespace)...)
		if old != nil && old.(*App).Spec.Namespace != a.Spec.Namespace {
			errs = append(errs, FieldError{"spec.namespace", "is immutable: delete and recreate the App to move it"})
		}
		return errs
	},
}

func init() { register(KindApp) }

func setDefault(field *string, value string) {
	if *field == "" {
		*field = value
	}
}
