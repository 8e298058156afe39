package windows

// Process creation flags (CreateProcess's dwCreationFlags) of the programs
// the daemon starts. The daemon runs detached or as a service, without a
// console window: a console program it starts without CREATE_NO_WINDOW
// opens a window of its own, which flashes on the user's desktop (a
// PowerShell query, every wsl.exe bridge of a Docker connection) or stays
// open as long as the program runs (a host agent). A program started with
// CREATE_NO_WINDOW has a console with no window, which the console
// programs it starts in turn (the host agent's ssh and wsl.exe) share, and
// which platform/windows.Interrupt can still attach to.
const (
	createNewProcessGroup = 0x00000200 // CREATE_NEW_PROCESS_GROUP
	createNoWindow        = 0x08000000 // CREATE_NO_WINDOW

	// HelperFlags are for a short console program: no window.
	HelperFlags = createNoWindow
	// HostAgentFlags are for a host agent: no window, and a process group
	// of its own, so that CTRL_BREAK_EVENT reaches it alone (StopPlan).
	HostAgentFlags = createNoWindow | createNewProcessGroup
)
