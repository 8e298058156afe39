package cli

import "errors"

// runAsUser is not needed on Windows, where pathsFor uses the caller's own
// paths.
func runAsUser(name string, args ...string) ([]byte, error) {
	return nil, errors.New("running as another account is not supported on Windows")
}
