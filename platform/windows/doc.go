// Package windows holds what Paddock needs to know about a Windows host: its
// %LOCALAPPDATA% directories and how a process is stopped gracefully (a
// console control event, a bounded wait, then TerminateProcess) today; WSL2
// through Lima and service control manager specifics as they arrive. It
// builds on every OS, so its logic is tested anywhere.
package windows
