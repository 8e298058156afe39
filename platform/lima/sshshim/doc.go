// Package sshshim is the ssh shim (Exec): the program that the VM driver
// (platform/lima) puts first on a Lima host agent's PATH as ssh, which
// waits until the guest's SSH server can answer and then runs the real
// ssh, and which on a cold boot answers the host agent's last check (the
// end of Lima's boot scripts) from the console. Lima's host agent runs
// ssh a dozen times and more at every start and resume, so the shim is
// built into the small paddock-shim binary (with the QEMU wrapper,
// platform/qemu), whose start costs a few milliseconds where the paddock
// binary's costs some 40: it imports nothing heavier than
// platform/lima/bootwatch. Only Linux has the shim; elsewhere the package
// holds its environment's names only.
package sshshim
