package unixsock

import (
	"errors"
	"fmt"
	"net"
	"os"
)

// Listen listens on a Unix socket at path that only the user can use. The
// caller holds the instance lock, so a socket already there is a leftover
// of a daemon that died and is removed.
func Listen(path string) (net.Listener, error) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove stale socket: %w", err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	// The socket's directory is private already; the mode is the second
	// fence, for a directory someone loosened.
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}
