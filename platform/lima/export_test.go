package lima

import (
	"os"
	"path/filepath"
)

// ReplaceSavedState replaces the state the machine in dir saved with
// state, and describes it as saved: a state that fits by every check a
// start makes, for tests of a state QEMU cannot load (a fault no real
// save produces on demand).
func ReplaceSavedState(dir string, state []byte) error {
	fit, err := readFit(dir)
	if err != nil {
		return err
	}
	file := filepath.Join(dir, savedStateFile)
	if err := os.WriteFile(file, state, 0o600); err != nil {
		return err
	}
	if fit.StateCRC, err = fileCRC(file); err != nil {
		return err
	}
	fit.StateSize = int64(len(state))
	return writeFit(dir, fit)
}
