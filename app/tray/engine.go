package tray

import "paddock.dev/paddock/core/resource"

// engineName is the spec's container engine, moby when unset.
func engineName(spec resource.AppSpec) string {
	if spec.ContainerEngine == "" {
		return resource.EngineMoby
	}
	return spec.ContainerEngine
}

func setEngine(spec *resource.AppSpec, name string) { spec.ContainerEngine = name }

// engineValue is the merge patch value that selects engine name.
func engineValue(name string) any { return name }
