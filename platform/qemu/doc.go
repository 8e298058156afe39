// Package qemu holds what Paddock knows about QEMU itself, apart from Lima,
// which drives it: finding its programs (Find), choosing how it
// accelerates guests (ParseAccel, DecideAccel; $PADDOCK_QEMU_ACCEL is auto,
// kvm or tcg), whether KVM really runs a guest here (ProbeKVM,
// ProbeKVMCached), and the QEMU wrapper (ExecWrapper, WrapperArgs): the
// paddock binary under the name qemu-system-ARCH, which gives every guest
// a balloon that returns the pages it frees (AddFreePageReporting) and,
// when the guest is to run under TCG ($PADDOCK_QEMU_WRAPPER_ACCEL), runs it
// so where Lima v1.2.2 would ask for KVM (RewriteForTCG, with a
// translation cache of $PADDOCK_QEMU_TB_SIZE MiB) and drops display
// devices from a guest without a display (DropDisplayDevices).
//
// The package builds on every OS so that its pure logic is tested
// everywhere; the probe and the wrapper need Linux and carry a build
// constraint. platform/lima decides when to use them.
package qemu
