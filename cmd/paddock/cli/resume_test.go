package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
)

// apiDaemon serves the daemon's real API, over a real store and without
// controllers, on the socket of the default instance of a private HOME,
// and returns it with a function that runs paddock's commands in this
// process against it. The test plays the controllers by writing status.
func apiDaemon(t *testing.T) (*paddocktest.Daemon, func(args ...string) (string, string, int)) {
	t.Helper()
	t.Setenv("HOME", newEnv(t, "").home)
	t.Setenv(EnvNoAutostart, "1")
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "PADDOCK_INSTANCE"} {
		t.Setenv(v, "")
	}
	p, err := (&cli{instance: "default"}).Paths()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.MkdirAll(); err != nil {
		t.Fatal(err)
	}
	d := paddocktest.NewDaemon(t)
	d.Socket = p.Socket
	d.Start()
	return d, func(args ...string) (string, string, int) {
		var out, errOut bytes.Buffer
		code := Run(args, &out, &errOut)
		return out.String(), errOut.String(), code
	}
}

// playWhen plays a controller: once the object at key satisfies ready
// (its spec took a command's change), it runs write, which writes the
// status the controller would.
func playWhen(t *testing.T, d *paddocktest.Daemon, key resource.Key, ready func(resource.Object) bool, write func()) {
	t.Helper()
	go func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if obj, err := d.Store.Get(context.Background(), key); err == nil && ready(obj) {
				write()
				return
			}
		}
	}()
}

func specOf(t *testing.T, d *paddocktest.Daemon, key resource.Key) (running, cold bool) {
	t.Helper()
	obj, err := d.Store.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	switch o := obj.(type) {
	case *resource.VM:
		return o.Spec.Running, o.Spec.Cold
	case *resource.App:
		return o.Spec.Running, o.Spec.Cold
	}
	t.Fatalf("%s has no spec.cold", key)
	return false, false
}

const (
	savedMsg = "the VM is stopped; its state is saved; the next start resumes it"
	coldWhy  = "the saved state was made by another QEMU version"
)

// 'paddock vm start|stop NAME [--cold]' set the VM's spec.cold as the
// flag says, and say how the VM started or whether its state was saved.
func TestVMStartAndStopColdFlagsAndWhatTheySay(t *testing.T) {
	d, run := apiDaemon(t)
	ctx := context.Background()
	if _, err := d.Store.Create(ctx, &resource.VM{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "VM"},
		Metadata: resource.ObjectMeta{Name: "dev", Namespace: "default"}, Spec: resource.VMSpec{TemplateRef: "plain"}}); err != nil {
		t.Fatal(err)
	}
	key := resource.Key{Kind: "VM", Namespace: "default", Name: "dev"}
	cond := paddocktest.Condition

	steps := []struct {
		args          []string
		running, cold bool
		// the controller's part, once the spec took the change; nil
		// for a command that does not wait.
		reason, msg string
		status      string
		want        string
	}{
		{[]string{"vm", "start", "dev", "--cold", "--wait=false"}, true, true, "", "", "", "vm/dev start requested\n"},
		{[]string{"vm", "stop", "dev", "--wait=false"}, false, false, "", "", "", "vm/dev stop requested\n"},
		{[]string{"vm", "start", "dev", "--quiet"}, true, false, resource.ReasonResumed, "resumed in 1.2s", "True", "vm/dev running (resumed)\n"},
		{[]string{"vm", "stop", "dev"}, false, false, resource.ReasonStopped, savedMsg, "False", "vm/dev stopped: " + savedMsg + "\n"},
		{[]string{"vm", "start", "dev", "--cold", "-q"}, true, true, resource.ReasonColdBoot, "asked to boot cold", "True", "vm/dev running (cold boot: asked to boot cold)\n"},
		{[]string{"vm", "stop", "dev", "--cold"}, false, true, resource.ReasonStopped, "the VM is stopped: shut down, as asked", "False", "vm/dev stopped: the VM is stopped: shut down, as asked\n"},
	}
	for _, s := range steps {
		if s.reason != "" {
			playWhen(t, d, key, func(o resource.Object) bool {
				vm := o.(*resource.VM)
				return vm.Spec.Running == s.running && vm.Spec.Cold == s.cold
			}, func() { d.SetVMConditions("default", "dev", cond(resource.VMRunning, s.status, s.reason, s.msg)) })
		}
		out, errOut, code := run(s.args...)
		if code != 0 || out != s.want {
			t.Fatalf("paddock %v: exit %d, %q %q; want %q", s.args, code, out, errOut, s.want)
		}
		if running, cold := specOf(t, d, key); running != s.running || cold != s.cold {
			t.Fatalf("after paddock %v: spec.running %t, spec.cold %t; want %t, %t", s.args, running, cold, s.running, s.cold)
		}
	}

	// A stopped VM has nothing to restart: a conflict with its state
	// (exit 1, as vm shell on a stopped VM), saying to start it, where it
	// was once answered "restarted" and left stopped.
	if _, errOut, code := run("vm", "restart", "dev"); code != exitError || !strings.Contains(errOut, "paddock vm start dev") {
		t.Errorf("vm restart of a stopped VM: exit %d %q; want 1 saying to start it", code, errOut)
	}

	// vm get and the wide list show how it last started, and why it
	// booted cold.
	_, _, _ = run("vm", "start", "dev", "--cold", "--wait=false")
	d.SetVMConditions("default", "dev", cond(resource.VMRunning, "True", resource.ReasonColdBoot, coldWhy))
	for _, args := range [][]string{{"vm", "get", "dev"}, {"vm", "list", "-o", "wide"}} {
		if out, errOut, code := run(args...); code != 0 || !strings.Contains(out, "ColdBoot") || !strings.Contains(out, coldWhy) {
			t.Errorf("paddock %v: exit %d, %q %q; want ColdBoot and why", args, code, out, errOut)
		}
	}
	// -o json keeps its shape, with spec.cold.
	out, _, _ := run("vm", "get", "dev", "-o", "json")
	var vm struct{ Spec map[string]any }
	if err := json.Unmarshal([]byte(out), &vm); err != nil || vm.Spec["cold"] != true {
		t.Errorf("vm get -o json: %v %s", err, out)
	}

	// --cold is the start's and the stop's alone.
	if _, errOut, code := run("vm", "restart", "dev", "--cold"); code != exitUsage || !strings.Contains(errOut, "unknown flag: --cold") {
		t.Errorf("vm restart --cold: exit %d %q", code, errOut)
	}
}

// 'paddock start|stop [--cold]' set the App's spec.cold as the flag says;
// the start says how the VM started, the stop whether its state was
// saved, and 'paddock status' both.
func TestAppStartAndStopColdFlagsAndWhatTheySay(t *testing.T) {
	d, run := apiDaemon(t)
	key := resource.Key{Kind: "App", Name: resource.AppName}
	cond := paddocktest.Condition
	settledAt := func(running, cold bool) func(resource.Object) bool {
		return func(o resource.Object) bool {
			a := o.(*resource.App)
			return a.Spec.Running == running && a.Spec.Cold == cold
		}
	}

	if out, errOut, code := run("start", "--cold", "--wait=false"); code != 0 || out != "app started (not waiting)\n" {
		t.Fatalf("start --cold --wait=false: exit %d %q %q", code, out, errOut)
	}
	if running, cold := specOf(t, d, key); !running || !cold {
		t.Fatalf("after start --cold: spec.running %t, spec.cold %t", running, cold)
	}

	playWhen(t, d, key, settledAt(false, false), func() {
		d.SetAppConditions(cond(resource.AppRunning, "False", resource.ReasonStopped, savedMsg),
			cond(resource.AppSettled, "True", resource.ReasonStopped, "the VM is stopped"))
	})
	if out, errOut, code := run("stop"); code != 0 || out != "app stopped: "+savedMsg+"\n" {
		t.Fatalf("stop: exit %d %q %q", code, out, errOut)
	}
	out, _, _ := run("status")
	if !strings.Contains(out, "Running:     Stopped: "+savedMsg+"\n") {
		t.Errorf("status of an App whose state is saved:\n%s", out)
	}

	for _, s := range []struct {
		args         []string
		cold         bool
		reason, msg  string
		said, status string
	}{
		{[]string{"start"}, false, resource.ReasonResumed, "", "(resumed)", "Running:     Running (resumed)\n"},
		{[]string{"start", "--cold"}, true, resource.ReasonColdBoot, coldWhy, "(cold boot: " + coldWhy + ")", "Running:     Running (cold boot: " + coldWhy + ")\n"},
	} {
		playWhen(t, d, key, settledAt(true, s.cold), func() {
			d.SetAppConditions(cond(resource.AppRunning, "True", s.reason, s.msg),
				cond(resource.AppContainerEngineReady, "True", resource.ReasonConnected, "docker answered"),
				cond(resource.AppSettled, "True", resource.ReasonRunning, "the VM runs and moby answers"))
		})
		if out, errOut, code := run(s.args...); code != 0 || out != "app started: the VM runs and moby answers "+s.said+"\n" {
			t.Fatalf("paddock %v: exit %d %q %q", s.args, code, out, errOut)
		}
		if running, cold := specOf(t, d, key); !running || cold != s.cold {
			t.Fatalf("after paddock %v: spec.running %t, spec.cold %t", s.args, running, cold)
		}
		if out, _, _ := run("status"); !strings.Contains(out, s.status) {
			t.Errorf("status after paddock %v:\n%s", s.args, out)
		}
	}
	// -o json: the same fields as before, and vmState.
	out, _, _ = run("status", "-o", "json")
	var v struct {
		App map[string]any `json:"app"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.App["vmState"] != "Running (cold boot: "+coldWhy+")" || v.App["phase"] != "Running" || v.App["wanted"] != "running" {
		t.Errorf("status -o json: %v\n%s", err, out)
	}
}

// The Running line of 'paddock status' and what a start and a stop say,
// for each state of the Running condition.
func TestRunningLineSaysHowTheVMStarted(t *testing.T) {
	c := func(status, reason, msg string) *metav1.Condition {
		return &metav1.Condition{Type: resource.VMRunning, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg}
	}
	for _, tt := range []struct {
		c         *metav1.Condition
		line, how string
	}{
		{nil, "unknown yet", ""},
		{c("True", resource.ReasonResumed, ""), "Running (resumed)", "resumed"},
		{c("True", resource.ReasonResumed, "in 1.2s"), "Running (resumed): in 1.2s", "resumed"},
		{c("True", resource.ReasonColdBoot, coldWhy), "Running (cold boot: " + coldWhy + ")", "cold boot: " + coldWhy},
		{c("True", resource.ReasonStarted, "the VM is running"), "Running: the VM is running", ""},
		{c("False", resource.ReasonStopped, savedMsg), "Stopped: " + savedMsg, ""},
		{c("False", resource.ReasonStarting, "booting the VM"), "False (Starting): booting the VM", ""},
		{c("False", resource.ReasonStartFailed, "no memory"), "False (StartFailed): no memory", ""},
	} {
		if got := runningLine(tt.c); got != tt.line {
			t.Errorf("runningLine(%+v) = %q, want %q", tt.c, got, tt.line)
		}
		if got := howStarted(tt.c); got != tt.how {
			t.Errorf("howStarted(%+v) = %q, want %q", tt.c, got, tt.how)
		}
	}
}

// The help of the starts and stops says what a stop does by default and
// what --cold does.
func TestStartAndStopHelpSayWhatColdDoes(t *testing.T) {
	for _, args := range [][]string{{"stop"}, {"vm", "stop"}} {
		out, _, code := inProcess(t, append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "saves the state of a running QEMU VM") || !strings.Contains(out, "--cold") || !strings.Contains(out, "containers still") {
			t.Errorf("paddock %v --help:\n%s", args, out)
		}
	}
	for _, args := range [][]string{{"start"}, {"vm", "start"}} {
		out, _, code := inProcess(t, append(args, "--help")...)
		if code != 0 || !strings.Contains(out, "resumes the state the last stop saved") || !strings.Contains(out, "--cold") {
			t.Errorf("paddock %v --help:\n%s", args, out)
		}
	}
}
