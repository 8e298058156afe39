// Package limaexec is paddock-lima (cmd/paddock/paddock-lima), the program
// that runs the parts of Lima v1.2.2 whose packages the daemon does not
// link: Lima's host agent (its library, github.com/lima-vm/lima/pkg/hostagent),
// its instance package (create, prepare, delete, force-stop), its cidata
// package (the cloud-init configuration) and, through them, its VM
// drivers and user-mode network (gvisor-tap-vsock, gopacket). Go runs
// every linked package's initialisers when a program starts; kept out of
// the daemon's binary, theirs no longer touch pages of it in the idle
// daemon. The driver in platform/lima runs these commands (Driver.Helper)
// with LIMA_HOME in their environment:
//
//   - hostagent NAME: the host agent for one instance, one process per
//     running VM, started in a process group of its own. It writes its pid
//     file, its events (standard output) and its log (standard error, JSON
//     lines that Lima's event watcher reads). Beyond Lima's host agent it
//     serves Lima's host agent API on --socket, and works around Lima
//     v1.2.2 losing the guest agent's socket forward on slow boots
//     (gaforward.go), so that a start under TCG ends Running, not degraded.
//   - check-cloud-config NAME, create NAME: the template on standard input.
//   - prepare NAME, delete NAME, stop-forcibly NAME.
//   - snapshot create|apply|delete NAME TAG, snapshot list NAME: Lima's
//     snapshot package (qemu-img on a stopped instance's disk, QEMU's
//     monitor on a running one); list prints QEMU's table, which the
//     driver reads (lima.ParseSnapshots). A monitor command's error,
//     which Lima only logs, fails the command.
//
// These others log JSON lines on standard error, which the driver relays
// to its log, and report a failure as one lima.HelperFailure on standard
// output, exiting 3 (lima.HelperExitInvalid) for a template Lima rejects
// and 1 otherwise.
package limaexec
