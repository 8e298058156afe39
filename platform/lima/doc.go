// Package lima drives Linux VMs through Lima v1.2.2, used as a library: it
// owns everything between Paddock's VM controller and Lima. It does not
// reconcile anything itself; the controller calls it and maps what it
// reports to conditions.
//
// A Driver works on the instances under one LIMA_HOME. It is the VM
// controller's driver (core/vm's Lifecycle, Inspector and Validator roles):
//
//   - Validate makes every check Lima's create makes of a template for an
//     instance name (the name, Lima's loader and validator, the cloud-init
//     configuration), rejects fields Lima does not know, and names the
//     fields at fault, a YAML error by its line;
//     Create and Reconfigure reject a bad template with a *ValidationError.
//   - Create makes an instance. It leaves a pending-create marker that the
//     caller removes with Commit once it has recorded the instance;
//     Uncommitted lists the markers a crash left, so that an instance that
//     Lima has but the caller never recorded is found. Delete removes an
//     instance and its marker.
//   - Start launches `paddock-lima hostagent NAME` (package limaexec) in a
//     process group of its own, so that it outlives the daemon, and
//     returns once it runs. WaitRunning and Watch follow its events; a failed start is a
//     *StartError carrying the last errors the host agent logged, or the
//     guest's last console lines when its kernel panicked or the guest
//     image's lima-init failed (both of which Lima itself would wait out
//     for ten minutes).
//   - Stop interrupts the host agent, waits a grace period, then kills what
//     is left; StopAll stops several in parallel.
//   - Reconfigure replaces a stopped instance's template, as limactl edit
//     does.
//   - ListSnapshots, CreateSnapshot, ApplySnapshot and DeleteSnapshot
//     work on a QEMU machine's snapshots, stopped or running (applied to
//     a running one, a snapshot restores it live), through Lima's
//     snapshot package in paddock-lima; ParseSnapshots reads QEMU's
//     table. Failures a user can act on are *resource.Error (snapshot.go).
//   - Describe tells whether an instance exists and runs, from the host
//     agent's and the VM's processes, not from a status file, and where
//     its files are; Inspect is the part the controller uses. List and
//     Running find instances and host agents that outlived a daemon.
//
// On Linux, Start also picks QEMU's accelerator (PADDOCK_QEMU_ACCEL: auto,
// kvm or tcg; auto probes whether KVM really runs a guest, see
// platform/qemu), records it for Describe, and prepares the host agent's
// environment: for a native-architecture guest, Lima's QEMU driver is
// pointed at paddock-shim under the name qemu-system-ARCH (the QEMU
// wrapper, in platform/qemu), which adds a free-page-reporting balloon,
// rewrites Lima's KVM arguments for TCG when TCG was chosen, and execs the
// real QEMU; and paddock-shim comes first on its PATH as ssh (the ssh shim,
// platform/lima/sshshim), so that Lima's 10-second SSH check passes as soon
// as the guest answers. paddock-shim is a small binary of these two
// helpers only, which dispatches on its invocation name
// (cmd/paddock/argv0); where it is not installed, the links point to the
// paddock binary, which holds them too.
//
// The daemon's binary links none of Lima's host agent, instance, cidata
// and VM driver packages, whose initialisers would keep megabytes of it
// resident in the idle daemon: the host agent, the cloud-init checks of a
// template, and Lima's create, prepare, delete and force-stop run in
// paddock-lima (Driver.Helper, found by FindHelper beside the paddock
// binary or in ../lib/paddock or ../libexec/paddock), which reports a
// failure typed (HelperFailure), a rejected template as a
// *ValidationError.
//
// EnsureUserKey creates Lima's SSH user key crash-safely; RouteLogrus sends
// Lima's logrus output to log/slog. BuildGuestAgent (and the
// build-guestagent command) builds Lima's guest agent, which Start finds
// beside the paddock binary, in ../share/lima from it (Lima's places) or
// in ../lib/paddock or ../libexec/paddock (where the packages put it), and
// says so when it is in none of them.
package lima
