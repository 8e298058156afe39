package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppSetReadsPropertiesAgainstTheSchema(t *testing.T) {
	spec, err := appSpecPatch([]string{"cpus=4", "memory=4GiB", "disk=80GiB", "running=false", "containerEngine.name=containerd", "suspendWhenIdle=15m"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(spec)
	if string(raw) != `{"containerEngine":{"name":"containerd"},"cpus":4,"disk":"80GiB","memory":"4GiB","running":false,"suspendWhenIdle":"15m"}` {
		t.Fatalf("patch = %s", raw)
	}
	for arg, want := range map[string]string{
		"containerEngine=moby":      "containerEngine is an object: set containerEngine.name=moby|containerd",
		"containerEngine.name=runc": `"runc" is not an engine: use moby or containerd`,
		"running=yes please":        `"yes please" is not a boolean: use true or false`,
		"cpu=2":                     `unknown property "cpu": properties are containerEngine.name, cpus, disk, memory, mountType, mounts, running, suspendWhenIdle`,
		"cpus=two":                  "not a number of CPUs",
		"memory=lots":               "not a size",
		"namespace=x":               "namespace cannot change",
		"cpus":                      "is not PROPERTY=VALUE",
		"mounts=~/src,:ro":          "has an empty folder",
		"mountType=nfs":             `"nfs" is not a mount type: use 9p or reverse-sshfs`,
		"suspendWhenIdle=15":        `"15" is not a duration: write one such as 15m`,
		"suspendWhenIdle=5s":        "5s is too short: at least 10s",
	} {
		if _, err := appSpecPatch([]string{arg}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", arg, err, want)
		}
	}
}
