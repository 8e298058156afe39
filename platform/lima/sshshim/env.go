package sshshim

// EnvRealSSH names the real ssh program for the ssh shim.
const EnvRealSSH = "PADDOCK_REAL_SSH"

// EnvSSHConsole names the serial console log of a guest that boots the
// guest image (a cold boot, not a resume): the shim dials the guest's SSH
// only once lima-init says there that it is done.
const EnvSSHConsole = "PADDOCK_SSH_CONSOLE"

// EnvSSHResumed names the file that the driver makes once a resumed guest
// runs: the shim dials the guest's SSH only then. Dialled while QEMU still
// loads the state, a connection reaches the guest only when QEMU's user
// network sends its SYN again, seconds later, and every such connection
// costs the guest's sshd a process as it resumes.
const EnvSSHResumed = "PADDOCK_SSH_RESUMED"
