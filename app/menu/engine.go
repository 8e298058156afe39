package menu

import (
	"strings"

	"paddock.dev/paddock/core/resource"
)

// engineOf names the App's container engine, the default when unset.
func engineOf(app *resource.App) string {
	if app.Spec.ContainerEngine.Name == "" {
		return resource.EngineMoby
	}
	return app.Spec.ContainerEngine.Name
}

// spaced writes a size such as 4GiB as a person reads it: "4 GiB".
func spaced(size string) string {
	i := strings.IndexFunc(size, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return size
	}
	return size[:i] + " " + strings.TrimSpace(size[i:])
}
