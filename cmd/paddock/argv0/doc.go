// Package argv0 turns the paddock binary into one of the helpers that
// Lima's host agent runs through links to it, when the binary was started
// under such a link's name: the QEMU wrapper (platform/qemu) and the ssh
// shim (platform/lima). Only Linux has such links; elsewhere Run returns
// at once.
package argv0
