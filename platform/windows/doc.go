// Package windows holds what Paddock needs to know about a Windows host: its
// %LOCALAPPDATA% directories (Roots), how a process is stopped gracefully
// (StopPlan: a console control event, a bounded wait, then
// TerminateProcess; ConsoleCalls, the kernel32 calls of each event, which
// Interrupt makes), the WSL distribution of an instance and its removal
// (Distro, Listed, Unregister), and the Windows side of the platform seam
// (Host: WSL2). Everything but the _windows.go files builds on every OS,
// so its logic is tested anywhere.
package windows
