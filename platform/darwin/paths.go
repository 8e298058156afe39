package darwin

import (
	"os"
	"path/filepath"

	"paddock.dev/paddock/core/instance"
)

// SocketPathMax is the longest socket path macOS takes, in bytes: sun_path
// holds 104, the terminating NUL included (unix(4)).
const SocketPathMax = 103

// Roots returns the macOS base directories for Paddock:
// ~/Library/Application Support/Paddock, ~/Library/Logs/Paddock, and the
// home directory as the base of the short one, whose socket paths must
// stay within SocketPathMax.
func Roots() (instance.Roots, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return instance.Roots{}, err
	}
	return instance.Roots{
		Data:          filepath.Join(home, "Library", "Application Support", "Paddock"),
		Log:           filepath.Join(home, "Library", "Logs", "Paddock"),
		Short:         home,
		MaxSocketPath: SocketPathMax,
	}, nil
}
