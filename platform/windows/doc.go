// Package windows holds what Paddock needs to know about a Windows host: its
// %LOCALAPPDATA% directories today, WSL2 through Lima and service control
// manager specifics as they arrive. It builds on every OS.
package windows
