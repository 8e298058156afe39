// Package argv0 turns the running binary, paddock or paddock-shim, into
// one of the helpers that Lima's host agent runs through links to it, when
// it was started under such a link's name: the QEMU wrapper
// (platform/qemu) and the ssh shim (platform/lima/sshshim). The driver
// links them to paddock-shim, whose start is cheap, and to paddock where
// no paddock-shim is installed. Only Linux has such links; elsewhere Run
// returns at once.
package argv0
