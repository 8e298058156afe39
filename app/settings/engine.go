package settings

import "paddock.dev/paddock/core/resource"

// engineName is the spec's container engine, moby when unset.
func engineName(spec resource.AppSpec) string {
	if spec.ContainerEngine.Name == "" {
		return resource.EngineMoby
	}
	return spec.ContainerEngine.Name
}

func setEngine(spec *resource.AppSpec, name string) { spec.ContainerEngine.Name = name }

// engineValue is the merge patch value that selects engine name.
func engineValue(name string) any { return resource.ContainerEngine{Name: name} }
