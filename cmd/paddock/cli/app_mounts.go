package cli

import (
	"context"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"paddock.dev/paddock/api/client"
	"paddock.dev/paddock/core/resource"
)

// parseMounts reads 'paddock set mounts=': folders separated by commas,
// each LOCATION or LOCATION:ro (read-only); an empty value shares none.
// Whether each folder exists, and overlaps, the daemon checks.
func parseMounts(v string) (any, error) {
	out := []map[string]any{}
	if strings.TrimSpace(v) == "" {
		return out, nil
	}
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		loc, ro := strings.CutSuffix(item, ":ro")
		if !ro {
			loc, _ = strings.CutSuffix(loc, ":rw")
		}
		if loc == "" {
			return nil, fmt.Errorf("%q has an empty folder: write FOLDER or FOLDER:ro, separated by commas", v)
		}
		m := map[string]any{"location": loc}
		if ro {
			m["readOnly"] = true
		}
		out = append(out, m)
	}
	return out, nil
}

// sharedFolders says what the App's VM shares with the host: the App's
// folders and how they are mounted, which the VM's own template copy says
// once the VM exists (9p, reverse-sshfs, virtiofs; on WSL2 the Windows
// drives, which WSL mounts itself).
func sharedFolders(ctx context.Context, cl *client.Client, a *resource.App, vm *resource.VM) (string, error) {
	mountType := a.Spec.MountType
	if vm != nil && vm.Status.TemplateConfigMap != "" {
		obj, err := cl.Get(ctx, resource.KindConfigMap, vm.Metadata.Namespace, vm.Status.TemplateConfigMap)
		if err != nil && !resource.IsNotFound(err) {
			return "", err
		}
		if err == nil {
			var t struct {
				MountType string `json:"mountType"`
			}
			if yaml.Unmarshal([]byte(obj.(*resource.ConfigMap).Data[resource.TemplateKey]), &t) == nil && t.MountType != "" {
				mountType = t.MountType
			}
		}
	}
	if mountType == "wsl2" {
		return "the Windows drives, at /mnt/<letter> (WSL mounts them)", nil
	}
	mounts := a.Spec.Mounts
	if mounts == nil {
		mounts = resource.DefaultAppMounts()
	}
	if len(mounts) == 0 {
		return "nothing ('paddock set mounts=~' shares the home folder)", nil
	}
	folders := make([]string, len(mounts))
	for i, m := range mounts {
		folders[i] = m.Location + map[bool]string{true: " (read-only)", false: " (writable)"}[m.ReadOnly]
	}
	s := strings.Join(folders, ", ")
	if mountType != "" {
		s += " by " + mountType
	}
	return s + ", each at the same path in the VM", nil
}
