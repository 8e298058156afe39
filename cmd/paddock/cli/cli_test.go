package cli

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const demoFile = `apiVersion: paddock.dev/v1alpha1
kind: ConfigMap
metadata:
  name: demo
  labels: {team: a}
data:
  template: |
    images:
    - location: /var/lib/paddock/none.qcow2
      arch: x86_64
    user: {name: paddock, uid: 1000}
    containerd: {system: false, user: false}
---
apiVersion: paddock.dev/v1alpha1
kind: VM
metadata:
  name: dev
spec:
  templateRef: demo
`

// stopStartedDaemon ends the daemon a CLI command started in e.
func stopStartedDaemon(e *env) {
	data, err := os.ReadFile(e.path("pid_file"))
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Signal(syscall.SIGTERM)
	}
}

func TestCLIStartsTheDaemonAndManagesObjects(t *testing.T) {
	e := newEnv(t, "default")
	e.autostart = true
	t.Cleanup(func() { stopStartedDaemon(e) })

	// No daemon runs: the first command starts one in the background.
	out, errOut, code := e.run(demoFile, "apply", "-f", "-")
	if code != 0 || out != "configmap/demo created\nvm/dev created\n" {
		t.Fatalf("apply: exit %d, %q %q", code, out, errOut)
	}
	if _, err := os.Stat(e.path("pid_file")); err != nil {
		t.Fatal("the CLI did not leave a daemon running")
	}
	// The controller makes the VM's template copy after apply answered;
	// the table below lists it.
	e.mustRun("wait", "vm/dev", "--for=condition=Created", "--timeout=30s")

	steps := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string // in stdout, or stderr when code != 0
	}{
		{"apply again", demoFile, []string{"apply", "-f", "-"}, 0, "configmap/demo unchanged\nvm/dev unchanged"},
		{"get table", "", []string{"get", "vms"}, 0, "dev    Stopped   "},
		{"get all namespaces", "", []string{"get", "configmaps", "-A"}, 0, "NAMESPACE   NAME           DATA"},
		{"get yaml", "", []string{"get", "cm", "demo", "-o", "yaml"}, 0, "    user: {name: paddock, uid: 1000}"},
		{"get by label", "", []string{"get", "cm", "-l", "team=b"}, 0, ""},
		{"get json", "", []string{"get", "vm/dev", "-o", "json"}, 0, `"templateRef": "demo"`},
		{"not found", "", []string{"get", "vm", "nope"}, 1, `vm "nope" in namespace "default" not found`},
		{"patch", "", []string{"patch", "vm", "dev", "--type", "merge", "-p", `{"metadata":{"labels":{"tier":"web"}}}`}, 0, "vm/dev"},
		{"patch unknown field", "", []string{"patch", "vm", "dev", "-p", `{"spec":{"cpus":1}}`}, 3, `unknown field "cpus"`},
		{"patch invalid", "", []string{"patch", "vm/dev", "-p", `{"spec":{"templateRef":"Bad_Name"}}`}, 3, "spec.templateRef"},
		{"apply invalid", "apiVersion: paddock.dev/v1alpha1\nkind: VM\nmetadata: {name: x}\nspec: {}\n", []string{"apply", "-f", "-"}, 3, "spec.templateRef: is required"},
		{"wait times out", "", []string{"wait", "vm/dev", "--for=condition=Running", "--timeout=1s"}, 4, "timed out after 1s waiting for vm/dev"},
		{"wait met", "", []string{"wait", "vm/dev", "--for=condition=Created", "--reason=Created", "--timeout=30s"}, 0, "condition met: Created=True"},
		{"status patch", "", []string{"patch", "vm", "dev", "--subresource", "status", "-p", `{"status":{"restartCount":7}}`}, 0, "vm/dev"},
		{"wait wrong reason", "", []string{"wait", "vm/dev", "--for=condition=Created", "--reason=Other", "--timeout=1s"}, 4, "Created=True reason Created"},
		{"delete", "", []string{"delete", "vm", "dev", "--force"}, 0, "vm/dev deleted"},
		{"wait for delete", "", []string{"wait", "vm/dev", "--for=delete", "--timeout=5s"}, 0, "deleted"},
		{"delete missing", "", []string{"delete", "vm/dev", "-f"}, 1, "not found"},
		{"version", "", []string{"version", "-o", "json"}, 0, `"daemon": {`},
	}
	for _, s := range steps {
		out, errOut, code := e.run(s.stdin, s.args...)
		got := out
		if s.code != 0 {
			got = errOut
		}
		if code != s.code || !strings.Contains(got, s.want) {
			t.Errorf("%s: paddock %v exited %d with %q %q; want exit %d and %q", s.name, s.args, code, out, errOut, s.code, s.want)
		}
	}
}

// inProcess runs paddock's commands in this process, in a private HOME
// short enough for socket paths, with autostart off: for what needs no
// daemon, or must find none.
func inProcess(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("HOME", newEnv(t, "").home)
	t.Setenv(EnvNoAutostart, "1")
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "PADDOCK_INSTANCE"} {
		t.Setenv(v, "")
	}
	var out, errOut bytes.Buffer
	code := Run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func TestCLIWithoutAutostartSaysHowToStart(t *testing.T) {
	_, errOut, code := inProcess(t, "get", "vms")
	if code != 1 || !strings.Contains(errOut, "paddock serve") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}

// Bad usage is refused (exit 2) before any daemon is asked.
func TestCLIUsageErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"unknown kind", []string{"get", "pods"}, `unknown kind "pods"`},
		{"unknown flag", []string{"get", "vms", "--bogus"}, "unknown flag"},
		{"bad output", []string{"get", "vms", "-o", "xml"}, "unknown output format"},
		{"patch not json", []string{"patch", "vm/dev", "-p", `{`}, "not valid JSON"},
		{"patch type", []string{"patch", "vm/dev", "--type", "json", "-p", `[]`}, "only merge"},
		{"apply no file", []string{"apply"}, "-f FILE"},
		{"wait bad for", []string{"wait", "vm/dev", "--for=ready"}, "--for must be"},
		{"wait bad status", []string{"wait", "vm/dev", "--for=condition=Running=Yes"}, "must be True, False or Unknown"},
		{"wait reason with delete", []string{"wait", "vm/dev", "--for=delete", "--reason=X"}, "--reason goes with"},
		{"paths", []string{"service", "paths", "nope"}, "unknown key"},
	}
	for _, c := range cases {
		_, errOut, code := inProcess(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: paddock %v exited %d with %q; want exit 2 and %q", c.name, c.args, code, errOut, c.want)
		}
	}
}
