//go:build !linux

package argv0

// Run returns at once: only on Linux does the host agent run the paddock
// binary under a helper's name.
func Run() {}
