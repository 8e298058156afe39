package autostart

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// runKey is the current user's Run key, whose values Windows runs at login.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Install makes Windows start the tray at login and says where.
func Install(e Entry) (string, error) {
	where := `HKCU\` + runKey + `\` + e.RunValueName()
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return where, err
	}
	defer k.Close()
	return where, k.SetStringValue(e.RunValueName(), e.RunCommand())
}

// Remove undoes Install, if it was done, says where, and reports whether
// there was anything to remove.
func Remove(e Entry) (string, bool, error) {
	where := `HKCU\` + runKey + `\` + e.RunValueName()
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return where, false, nil
	}
	if err != nil {
		return where, false, err
	}
	defer k.Close()
	err = k.DeleteValue(e.RunValueName())
	if errors.Is(err, registry.ErrNotExist) {
		return where, false, nil
	}
	return where, err == nil, err
}
