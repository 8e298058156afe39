// Package bootwatch holds what the host sees of a guest's boot and resume
// from outside it, for the VM driver (platform/lima) and for the ssh shim
// that Lima's host agent runs (platform/lima/sshshim): the serial console's
// log (Console: a kernel panic, a failed lima-init, lima-init's end, the
// end of Lima's boot scripts), and waiting for a file another process
// makes (WaitForFile). It imports the standard library only, so that the
// shim's small binary stays small.
package bootwatch
