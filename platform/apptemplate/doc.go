// Package apptemplate renders the Lima template of the App's VM, for every
// host: Render is a pure function of the instance (its name and short
// directory), the container engine, the guest image and the VM type the
// host runs (Target), so every platform's template is tested on any OS.
//
// The App's shared folders (spec.mounts: the home folder, writable, unless
// the App lists others) are mounted at the same path in the guest, so that
// `docker run -v ~/proj:/src` finds them; the guest user takes the host
// user's id, so that their files are the guest user's too.
//
// What the VM types add:
//
//   - qemu (Linux; macOS without VZ, accelerated by HVF): the folders by
//     9p (QEMU's virtio-9p) or reverse-sshfs (the guest's sshfs, served
//     by the host's sftp-server over Lima's SSH), spec.mountType; an
//     x86_64 guest boots by BIOS (a kernel booted directly needs no
//     firmware, Debian's cloud images boot either way), so the host needs
//     no UEFI firmware.
//   - vz (macOS 13 and later): the folders by virtiofs; Rosetta for
//     x86_64 binaries when the host has it (Apple silicon).
//   - wsl2 (Windows): the image is a root file system tarball; WSL2 shares
//     the host's files itself, every Windows drive at /mnt/<letter>
//     (mountType wsl2), and takes no list.
//
// On every type the engine's socket is forwarded to the instance's short
// directory (resource.EngineForward). On Linux and macOS the daemon serves
// Docker's socket (Socket) in front of that forward (platform/engineproxy);
// on Windows it serves the named pipe Pipe(instance). The instance's
// docker context names the one or the other.
// An image that platform/linux/guestimage built (a kernel booted directly)
// has its engines and starts one from the kernel command line; any other
// gets the engine installed and started at its first boot (install.sh).
// Nothing in a template is host-wide: the sockets and the pipe are the
// instance's, and Lima chooses the SSH port.
//
// Template adapts Render to the App controller's role (core/app.Template),
// taking the image from a function each render calls, so that where the
// image comes from (a local build, a download, a setting) stays the
// caller's.
package apptemplate
