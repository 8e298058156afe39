package cli

import (
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

	steps := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string // in stdout, or stderr when code != 0
	}{
		{"apply again", demoFile, []string{"apply", "-f", "-"}, 0, "configmap/demo unchanged\nvm/dev unchanged"},
		{"get table", "", []string{"get", "vms"}, 0, "dev    false     "},
		{"get all namespaces", "", []string{"get", "configmaps", "-A"}, 0, "NAMESPACE   NAME           DATA"},
		{"get yaml", "", []string{"get", "cm", "demo", "-o", "yaml"}, 0, "    user: {name: paddock, uid: 1000}"},
		{"get by label", "", []string{"get", "cm", "-l", "team=b"}, 0, ""},
		{"get json", "", []string{"get", "vm/dev", "-o", "json"}, 0, `"templateRef": "demo"`},
		{"unknown kind", "", []string{"get", "pods"}, 2, `unknown kind "pods"`},
		{"unknown flag", "", []string{"get", "vms", "--bogus"}, 2, "unknown flag"},
		{"bad output", "", []string{"get", "vms", "-o", "xml"}, 2, "unknown output format"},
		{"not found", "", []string{"get", "vm", "nope"}, 1, `vm "nope" in namespace "default" not found`},
		{"patch", "", []string{"patch", "vm", "dev", "--type", "merge", "-p", `{"metadata":{"labels":{"tier":"web"}}}`}, 0, "vm/dev"},
		{"patch unknown field", "", []string{"patch", "vm", "dev", "-p", `{"spec":{"cpus":1}}`}, 3, `unknown field "cpus"`},
		{"patch invalid", "", []string{"patch", "vm/dev", "-p", `{"spec":{"templateRef":"Bad_Name"}}`}, 3, "spec.templateRef"},
		{"patch not json", "", []string{"patch", "vm/dev", "-p", `{`}, 2, "not valid JSON"},
		{"patch type", "", []string{"patch", "vm/dev", "--type", "json", "-p", `[]`}, 2, "only merge"},
		{"apply invalid", "apiVersion: paddock.dev/v1alpha1\nkind: VM\nmetadata: {name: x}\nspec: {}\n", []string{"apply", "-f", "-"}, 3, "spec.templateRef: is required"},
		{"apply no file", "", []string{"apply"}, 2, "-f FILE"},
		{"wait times out", "", []string{"wait", "vm/dev", "--for=condition=Running", "--timeout=1s"}, 4, "timed out after 1s waiting for vm/dev"},
		{"wait bad for", "", []string{"wait", "vm/dev", "--for=ready"}, 2, "--for must be"},
		{"wait met", "", []string{"wait", "vm/dev", "--for=condition=Created", "--reason=Created", "--timeout=30s"}, 0, "condition met: Created=True"},
		{"status patch", "", []string{"patch", "vm", "dev", "--subresource", "status", "-p", `{"status":{"restartCount":7}}`}, 0, "vm/dev"},
		{"wait wrong reason", "", []string{"wait", "vm/dev", "--for=condition=Created", "--reason=Other", "--timeout=1s"}, 4, "Created=True reason Created"},
		{"delete", "", []string{"delete", "vm", "dev"}, 0, "vm/dev deleted"},
		{"wait for delete", "", []string{"wait", "vm/dev", "--for=delete", "--timeout=5s"}, 0, "deleted"},
		{"delete missing", "", []string{"delete", "vm/dev"}, 1, "not found"},
		{"version", "", []string{"version", "-o", "json"}, 0, `"goVersion"`},
		{"paths", "", []string{"service", "paths", "nope"}, 2, "unknown key"},
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

func TestCLIWithoutAutostartSaysHowToStart(t *testing.T) {
	e := newEnv(t, "default")
	_, errOut, code := e.run("", "get", "vms")
	if code != 1 || !strings.Contains(errOut, "paddock serve") {
		t.Fatalf("exit %d %q", code, errOut)
	}
}
