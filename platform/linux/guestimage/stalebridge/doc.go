// Command paddock-stale-bridge runs in the guest image before dockerd
// starts at boot, and removes Docker's default bridge network ("bridge",
// docker0) from dockerd's network store.
//
// dockerd (20.10, Debian 12's docker.io) deletes the default bridge at
// every start and makes it anew; but first its bridge driver restores the
// stored one, firewall and all. At a boot, where the kernel's firewall is
// empty, that is about forty iptables runs for nothing: 4-7 s of a cold
// start of the App under emulation. Without the stored record dockerd
// makes the bridge once, as on its first start.
//
// It removes only what dockerd itself would: the network's record, its
// bridge driver's configuration and its endpoint count. It leaves the store
// alone when the bridge still has endpoints (dockerd was killed with
// containers on it: dockerd's own cleanup handles them), when docker0
// exists (dockerd already ran in this boot, and with live restore its
// containers may use the bridge still), and when the store holds no
// default bridge. User-defined networks stay. Whatever it finds, it exits
// 0 unless it could not read or write the store; the unit's ExecStartPre
// ignores its failure, so dockerd starts either way.
package main
