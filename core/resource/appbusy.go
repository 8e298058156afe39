package resource

// AppBusyFile is a file in the home of the App's guest user. A command
// that 'paddock shell' (or ctr, nerdctl) runs in the App's VM holds a
// shared lock on it while it runs: its work goes on in the guest, where
// the host sees none of it, and the App is not suspended as idle under it.
const AppBusyFile = ".paddock-busy"

// HoldingAppBusy returns the guest's shell command line remote, preceded
// by taking a shared lock on AppBusyFile. The command and its children
// inherit the lock's descriptor (9), so the lock lasts while any of them
// runs; a guest without flock runs the command all the same.
func HoldingAppBusy(remote string) string {
	return `exec 9>>"$HOME/` + AppBusyFile + `" && flock -s 9 2>/dev/null; ` + remote
}

// AppBusyQuery is a guest shell command line that prints one line when a
// command holds AppBusyFile's lock, and nothing otherwise.
const AppBusyQuery = `flock -n -x -E 75 "$HOME/` + AppBusyFile + `" true 2>/dev/null; [ $? -ne 75 ] || echo "a command of paddock shell"`
