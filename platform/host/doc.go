// Package host is the platform seam: what the daemon and the CLI ask of the
// operating system they run on, behind one small interface (Host) that
// each platform package implements in its build-tagged host_<os>.go, and
// Current picks at build time.
//
// A Host answers: its path conventions (Roots, beneath which every
// instance's directories and sockets derive), the VM type the App runs on
// here and what it offers (AppTarget: qemu on Linux, vz or qemu on macOS,
// wsl2 on Windows), what this host lacks to run the App (Check), and
// where the host's docker CLI reaches the App's Docker (DockerEndpoint: the
// forwarded socket, or on Windows the instance's named pipe, which
// ServeDocker relays to the socket).
// AppTemplate puts the target, the instance and a guest image (which
// platform/image chooses and brings onto the host) together into the App
// controller's template role (core/app.Template).
//
// How a process is stopped gracefully is the other half of the seam, kept
// where the processes are stopped: platform/lima interrupts a host agent
// with SIGINT on Unix and with the console control event that
// platform/windows.StopPlan chooses on Windows (Interrupt), then kills what
// is left (SIGKILL; TerminateProcess); on Windows a deleted instance's WSL
// distribution is unregistered there too.
package host
