package windows

import (
	"errors"
	"os"
	"path/filepath"

	"paddock.dev/paddock/core/instance"
)

// SocketPathMax is the longest socket path Windows takes, in bytes: an
// AF_UNIX sun_path holds 108, the terminating NUL included, as on Linux
// (Lima's sockets and the forwarded engine socket are AF_UNIX there too).
const SocketPathMax = 107

// Roots returns the Windows base directories for Paddock: data and logs in
// separate folders under %LOCALAPPDATA%\Paddock (so no instance name can
// collide with the log folder), and the user's profile as the base of the
// short one, whose socket paths must stay within SocketPathMax.
func Roots() (instance.Roots, error) {
	local := os.Getenv("LOCALAPPDATA")
	if local == "" {
		return instance.Roots{}, errors.New("LOCALAPPDATA is not set")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return instance.Roots{}, err
	}
	return instance.Roots{
		Data:          filepath.Join(local, "Paddock", "data"),
		Log:           filepath.Join(local, "Paddock", "logs"),
		Short:         home,
		MaxSocketPath: SocketPathMax,
	}, nil
}
