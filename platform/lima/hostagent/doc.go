// Package hostagent is the host agent program, `paddock hostagent NAME`:
// Lima v1.2.2's host agent (its library, github.com/lima-vm/lima/pkg/hostagent)
// run inside the paddock binary for one instance, one process per running
// VM. The driver in platform/lima starts it in a process group of its own
// with its environment prepared (see Run) and reads its pid file, its
// events (standard output) and its log (standard error, JSON lines that
// Lima's event watcher reads).
//
// Beyond Lima's host agent it serves Lima's host agent API on --socket, and
// works around Lima v1.2.2 losing the guest agent's socket forward on slow
// boots (gaforward.go), so that a start under TCG ends Running, not
// degraded.
package hostagent
