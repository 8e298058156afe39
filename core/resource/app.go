package resource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	units "github.com/docker/go-units"
	"github.com/pbnjay/memory"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppName is the name of the one App object.
const AppName = "app"

// Container engines an App can run.
const (
	EngineMoby       = "moby"
	EngineContainerd = "containerd"
)

// Engines lists the container engines, the default first.
var Engines = []string{EngineMoby, EngineContainerd}

// Condition types of an App.
const (
	AppCreated              = "Created"
	AppRunning              = "Running"
	AppContainerEngineReady = "ContainerEngineReady"
	AppSettled              = "Settled"
)

// Reasons of the App's own conditions (Stopped and Reconciling are the
// VM's too). Settled also forwards the VM's reasons (Pending, Starting,
// StartFailed, ...) while the VM is on its way.
const (
	ReasonConnected   = "Connected"
	ReasonConnecting  = "Connecting"
	ReasonWaiting     = "Waiting"
	ReasonStopping    = "Stopping"
	ReasonRunning     = "Running"
	ReasonCreating    = "Creating"
	ReasonRestarting  = "Restarting"
	ReasonDeleting    = "Deleting"
	ReasonDownloading = "Downloading"
	// ReasonSuspended is the Running, ContainerEngineReady and Settled
	// reason of an App that is suspended: it should run (spec.running), was
	// idle for spec.suspendWhenIdle, and its VM is stopped, its state saved,
	// until a client of its engine or a start wakes it.
	ReasonSuspended = "Suspended"
	// ReasonSuspending is Settled's reason while the VM of an App being
	// suspended stops.
	ReasonSuspending = "Suspending"
)

// AnnotationSuspended is set on the App by its controller when it suspends
// the App: the App's generation then, in decimal. It holds for that
// generation alone: any change of the App's spec (a stop, a start, a size)
// ends the suspension, as does removing the annotation, which is what a
// wake does.
const AnnotationSuspended = Group + "/suspended"

// UnsuspendPatch is the JSON merge patch that removes AnnotationSuspended
// from the App: it ends a suspension, which wakes the App.
const UnsuspendPatch = `{"metadata":{"annotations":{"` + AnnotationSuspended + `":null}}}`

// MinSuspendWhenIdle is the shortest spec.suspendWhenIdle.
const MinSuspendWhenIdle = 10 * time.Second

// Reasons an App's Created and Settled conditions give when the App cannot
// make or change its VM; Settled also forwards the VM's failures.
const (
	ReasonTemplateFailed = "TemplateFailed"
	ReasonVMNameTaken    = "VMNameTaken"
	ReasonInvalidSpec    = "Invalid"
)

// AppFailures are the reasons of a Settled condition that say the App will
// not settle without another change.
var AppFailures = []string{ReasonCreateFailed, ReasonStartFailed, ReasonStopFailed, ReasonTemplateFailed, ReasonVMNameTaken, ReasonInvalidSpec}

// Defaults and bounds of an App's sizes. The default memory is lowered to
// half the host's on hosts with less than twice as much.
const (
	DefaultAppNamespace = "paddock"
	defaultAppCPUs      = 2
	defaultAppMemory    = 4 << 30
	defaultAppDisk      = "64GiB"
	minAppMemory        = 512 << 20
	minAppDisk          = 1 << 30
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
	Running         bool            `json:"running,omitempty" doc:"Whether the App's VM and engine should run."`
	ContainerEngine ContainerEngine `json:"containerEngine,omitzero" doc:"The container engine inside the VM."`
	CPUs            int             `json:"cpus,omitempty" minimum:"0" maximum:"256" doc:"Virtual CPUs, at most the host's; 2 (or the host's, if fewer) when zero."`
	Memory          string          `json:"memory,omitempty" doc:"Memory, e.g. 4GiB, at most the host's; 4GiB (or half the host's, if less) when empty." example:"4GiB"`
	Disk            string          `json:"disk,omitempty" doc:"Disk size, e.g. 64GiB; 64GiB when empty. The disk grows as it fills." example:"64GiB"`
	Namespace       string          `json:"namespace,omitempty" doc:"Namespace of the App's VM and template; paddock when empty. Immutable."`
	// Mounts is nil for the default (the home folder) and empty for none.
	Mounts    []AppMount `json:"mounts,omitzero" doc:"Host folders the VM shares, each at the same path in the guest, so that docker run -v finds them; the home folder (~), writable, when absent; [] shares none. On WSL2, WSL shares the Windows drives itself and this list is not used. A change restarts a running VM."`
	Cold      bool       `json:"cold,omitempty" doc:"Stop the App's VM with a full shutdown and start it with a full boot, rather than saving its state at a stop and resuming it at the next start (see the VM's spec.cold)."`
	MountType string     `json:"mountType,omitempty" enum:"9p,reverse-sshfs" doc:"How QEMU shares the folders: 9p or reverse-sshfs; the faster (9p) when empty. VZ always uses virtiofs, WSL2 its own mounts."`
	// SuspendWhenIdle is a Go duration; empty or "0" is off.
	SuspendWhenIdle string `json:"suspendWhenIdle,omitempty" doc:"Suspend the running App after this long without a client connected to its engine's socket (Docker's or containerd's), without a running container and without anyone working in its VM (a login on a terminal, a command of paddock shell), e.g. 15m (at least 10s): its VM's state is saved and QEMU ends, and the next connection to the socket (or a start, or a shell) resumes it. Empty or 0: never (the default). Not on WSL2, where the daemon's named pipe for Docker neither counts its clients nor wakes the App." example:"15m"`
}

// IdleTimeout is how long the App may be idle before it is suspended
// (spec.suspendWhenIdle); zero when that is off or not a valid duration.
func (s AppSpec) IdleTimeout() time.Duration {
	d, err := ParseSuspendWhenIdle(s.SuspendWhenIdle)
	if err != nil {
		return 0
	}
	return d
}

// ParseSuspendWhenIdle reads a value of spec.suspendWhenIdle: zero for off;
// an error that says what to write for one it refuses.
func ParseSuspendWhenIdle(v string) (time.Duration, error) {
	if v == "" || v == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration: write one such as 15m, 1h or 90s; 0 or empty turns suspending off", v)
	case d == 0:
		return 0, nil
	case d < MinSuspendWhenIdle:
		return 0, fmt.Errorf("%s is too short: at least %s (0 or empty turns suspending off)", v, MinSuspendWhenIdle)
	}
	return d, nil
}

// Suspended reports whether the App's controller suspended it for its
// current spec (AnnotationSuspended names its generation) and it should
// run.
func (a *App) Suspended() bool {
	v, ok := a.Metadata.Annotations[AnnotationSuspended]
	return ok && a.Spec.Running && v == strconv.FormatInt(a.Metadata.Generation, 10)
}

// ContainerEngine chooses the engine; an object so that engine options can
// join the name later.
type ContainerEngine struct {
	Name string `json:"name,omitempty" enum:"moby,containerd" doc:"moby (Docker) or containerd; moby when empty."`
}

// UnmarshalJSON refuses the bare string an older spec held, naming the
// object it must be, and otherwise decodes as usual.
func (e *ContainerEngine) UnmarshalJSON(raw []byte) error {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '"' {
		return fmt.Errorf(`spec.containerEngine is an object: write {"name": %s}`, trimmed)
	}
	type plain ContainerEngine
	return json.Unmarshal(raw, (*plain)(e))
}

// AppStatus is what the App's controller reports.
type AppStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// IdleSince is when the running App that suspends when idle was last
	// busy, as the look that found it idle saw it; a daemon that starts
	// goes on counting its idle time from here. Unset while it is busy,
	// stopped or suspended.
	IdleSince *metav1.Time `json:"idleSince,omitempty" doc:"When the running App, which suspends when idle (spec.suspendWhenIdle), last had a client of its engine or a running container, once it is seen idle: its idle time counts from here, across a restart of the daemon. Unset while it is busy, stopped or suspended."`
}

func (a *App) GetTypeMeta() *TypeMeta { return &a.TypeMeta }
func (a *App) GetMeta() *ObjectMeta   { return &a.Metadata }

// StatusConditions returns the App's conditions, for writers that set them
// on any kind.
func (a *App) StatusConditions() *[]metav1.Condition { return &a.Status.Conditions }

// KindApp describes the App kind.
var KindApp = &Kind{
	Name:      "App",
	Plural:    "apps",
	SpecField: "spec",
	HasStatus: true,
	New:       func() Object { return &App{} },
	Default: func(obj Object) {
		s := &obj.(*App).Spec
		setDefault(&s.ContainerEngine.Name, EngineMoby)
		if s.CPUs == 0 {
			s.CPUs = min(defaultAppCPUs, hostCPUs())
		}
		setDefault(&s.Memory, defaultAppMemorySize())
		setDefault(&s.Disk, defaultAppDisk)
		setDefault(&s.Namespace, DefaultAppNamespace)
		if s.Mounts == nil {
			s.Mounts = DefaultAppMounts()
		}
	},
	Validate: func(obj, old Object) []FieldError {
		a := obj.(*App)
		var errs []FieldError
		if a.Metadata.Name != AppName {
			errs = append(errs, FieldError{"metadata.name", `must be "app": there is one App`})
		}
		switch a.Spec.ContainerEngine.Name {
		case EngineMoby, EngineContainerd:
		default:
			errs = append(errs, FieldError{"spec.containerEngine.name", fmt.Sprintf(`%q is not an engine: use "moby" or "containerd"`, a.Spec.ContainerEngine.Name)})
		}
		if n := hostCPUs(); a.Spec.CPUs < 1 || a.Spec.CPUs > n {
			errs = append(errs, FieldError{"spec.cpus", fmt.Sprintf("must be between 1 and %d, the host's CPU count", n)})
		}
		errs = append(errs, validateSize("spec.memory", a.Spec.Memory, minAppMemory, hostMemory(), "the host's memory")...)
		errs = append(errs, validateSize("spec.disk", a.Spec.Disk, minAppDisk, 0, "")...)
		errs = append(errs, validateDNSLabel("spec.namespace", a.Spec.Namespace)...)
		var oldMounts []AppMount
		if old != nil {
			oldMounts = old.(*App).Spec.Mounts
		}
		errs = append(errs, validateAppMounts(a.Spec.Mounts, oldMounts)...)
		errs = append(errs, validateMountType(a.Spec.MountType)...)
		if _, err := ParseSuspendWhenIdle(a.Spec.SuspendWhenIdle); err != nil {
			errs = append(errs, FieldError{"spec.suspendWhenIdle", err.Error()})
		}
		if old != nil && old.(*App).Spec.Namespace != a.Spec.Namespace {
			errs = append(errs, FieldError{"spec.namespace", "is immutable: delete and recreate the App to move it"})
		}
		return errs
	},
	ValidatePatch: func(patch []byte) []FieldError {
		var p struct {
			Spec struct {
				CPUs *json.Number `json:"cpus"`
			} `json:"spec"`
		}
		// A patch that does not decode is the merge's to refuse.
		if json.Unmarshal(patch, &p) != nil || p.Spec.CPUs == nil {
			return nil
		}
		if n, err := p.Spec.CPUs.Float64(); err == nil && n == 0 {
			return []FieldError{{"spec.cpus", fmt.Sprintf("must be between 1 and %d, the host's CPU count: send null for the default", hostCPUs())}}
		}
		return nil
	},
}

func init() { register(KindApp) }

func setDefault(field *string, value string) {
	if *field == "" {
		*field = value
	}
}

// hostCPUs is the number of CPUs the host gives this process.
func hostCPUs() int { return runtime.NumCPU() }

// hostMemory is the host's memory in bytes, 0 when the OS does not say.
func hostMemory() int64 { return int64(memory.TotalMemory()) }

// defaultAppMemorySize is 4GiB, or half the host's memory (in whole MiB)
// on a host with less than 8GiB.
func defaultAppMemorySize() string {
	if total := hostMemory(); total > 0 && total < 2*defaultAppMemory {
		return fmt.Sprintf("%dMiB", max(total/2, minAppMemory)>>20)
	}
	return units.BytesSize(defaultAppMemory)
}

// AppVMName is the name of the App's VM, in the App's namespace.
const AppVMName = "app"

// EngineSocket is where clients on the host of the instance whose short
// directory is shortDir reach engine: docker.sock or containerd.sock,
// which the daemon serves in front of the VM's forward (EngineForward).
// It is the one place that naming rule lives.
func EngineSocket(shortDir, engine string) string {
	return filepath.Join(shortDir, engineSocketName(engine))
}

// EngineForward is where the App's VM forwards engine's socket into the
// short directory shortDir, behind the daemon's EngineSocket:
// vm-docker.sock or vm-containerd.sock.
func EngineForward(shortDir, engine string) string {
	return filepath.Join(shortDir, "vm-"+engineSocketName(engine))
}

// EngineTitle is what people call engine: Docker for moby, containerd for
// containerd.
func EngineTitle(engine string) string {
	if engine == EngineMoby {
		return "Docker"
	}
	return engine
}

func engineSocketName(engine string) string {
	if engine == EngineContainerd {
		return "containerd.sock"
	}
	return "docker.sock"
}
