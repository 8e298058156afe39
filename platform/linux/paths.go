package linux

import (
	"os"
	"path/filepath"

	"paddock.dev/paddock/core/instance"
)

// SocketPathMax is the longest socket path Linux takes, in bytes: sun_path
// holds 108, the terminating NUL included (unix(7)).
const SocketPathMax = 107

// Roots returns the XDG base directories for Paddock: data under
// $XDG_DATA_HOME (~/.local/share), logs under $XDG_STATE_HOME
// (~/.local/state), and the home directory as the base of the short one,
// whose socket paths must stay within SocketPathMax.
func Roots() (instance.Roots, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return instance.Roots{}, err
	}
	return instance.Roots{
		Data:          filepath.Join(xdg("XDG_DATA_HOME", home, ".local/share"), "paddock"),
		Log:           filepath.Join(xdg("XDG_STATE_HOME", home, ".local/state"), "paddock"),
		Short:         home,
		MaxSocketPath: SocketPathMax,
	}, nil
}

// xdg returns the directory an XDG variable names, or its default under
// home. The specification says to ignore relative values.
func xdg(env, home, fallback string) string {
	if v := os.Getenv(env); filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(home, fallback)
}
