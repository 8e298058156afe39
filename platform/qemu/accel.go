package qemu

import (
	"fmt"
	"strconv"
	"strings"
)

// EnvAccel selects how QEMU accelerates guests: auto (the default), kvm or
// tcg.
const EnvAccel = "PADDOCK_QEMU_ACCEL"

// Accel is a QEMU accelerator, or the choice to probe for one.
type Accel string

const (
	AccelAuto Accel = "auto" // KVM where a probe shows it works, else TCG
	AccelKVM  Accel = "kvm"  // hardware virtualization
	AccelTCG  Accel = "tcg"  // emulation: works everywhere, much slower
)

// ParseAccel accepts auto, kvm and tcg, in any case; empty means auto.
func ParseAccel(s string) (Accel, error) {
	switch a := Accel(strings.ToLower(strings.TrimSpace(s))); a {
	case "":
		return AccelAuto, nil
	case AccelAuto, AccelKVM, AccelTCG:
		return a, nil
	}
	return "", fmt.Errorf("unknown QEMU accelerator %q in %s: use auto, kvm or tcg", s, EnvAccel)
}

// DecideAccel turns a mode into the accelerator to use. kvm and tcg are
// taken as asked, without probing. auto calls probeKVM and picks KVM when
// it returns nil, else TCG with a warning that says why.
func DecideAccel(mode Accel, probeKVM func() error) (accel Accel, warning string) {
	switch mode {
	case AccelKVM, AccelTCG:
		return mode, ""
	}
	if err := probeKVM(); err != nil {
		return AccelTCG, fmt.Sprintf("KVM does not work on this host (%v); guests run under TCG emulation, which is much slower", err)
	}
	return AccelKVM, ""
}

// EnvTBSize sets the size of QEMU's TCG translation cache in MiB.
const EnvTBSize = "PADDOCK_QEMU_TB_SIZE"

// DefaultTBSize is the TCG translation cache's size in MiB unless
// $PADDOCK_QEMU_TB_SIZE says otherwise: 64, an eighth of what Lima itself
// uses for emulated guests. QEMU 7.2 never gives the host back a page of
// the cache it filled once (a flush only starts filling it again), and a
// boot of the test image generates about 1.2 GB of host code, so an idle
// guest holds the whole cache, beside about 70 MiB of QEMU's own. In four
// runs, 64 kept an idle 1 GiB guest of the test image within 150 MiB of
// what it uses (used + buff/cache), with 29 to 73 MiB to spare; 80 and
// 128 stayed within only when the guest's own figures were kind (80 by
// about 10 MiB at the usual ones), 96 and 128 went over by up to 20 and
// 50 MiB, 512 by 470. The price is that the boot's code is translated
// again after each of about 37 flushes instead of 2: some 8 s more of
// QEMU's CPU time per boot on a 2-core host. docs/performance.md
// has the figures.
const DefaultTBSize = 64

// ParseTBSize reads a translation cache size in MiB, at least 8; empty
// means DefaultTBSize.
func ParseTBSize(s string) (int, error) {
	if strings.TrimSpace(s) == "" {
		return DefaultTBSize, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 8 || n > 1<<14 {
		return 0, fmt.Errorf("%s=%q is not a size in MiB from 8 to 16384", EnvTBSize, s)
	}
	return n, nil
}

// RewriteForTCG rewrites the arguments Lima v1.2.2 gives QEMU for a
// native-architecture guest on Linux, which always ask for KVM, so that the
// guest runs under TCG instead, one host thread per vCPU and a translation
// cache of tbSize MiB: "accel=kvm" leaves -machine (and q35 gets
// vmport=off, as Lima sets for TCG), "-accel kvm" becomes TCG, "-accel tcg"
// options are added when no -accel is left, and "-cpu host" becomes
// "-cpu max" (host needs KVM), keeping any CPU feature flags. Arguments
// without KVM in them pass through unchanged.
func RewriteForTCG(args []string, tbSize int) []string {
	tcgAccel := fmt.Sprintf("tcg,thread=multi,tb-size=%d", tbSize)
	out := make([]string, 0, len(args)+2)
	rewrote, hasAccel := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if i+1 == len(args) {
			out = append(out, a)
			break
		}
		v := args[i+1]
		switch a {
		case "-machine", "-M":
			if m, ok := dropKVM(v); ok {
				out = append(out, a, m)
				rewrote = true
				i++
				continue
			}
		case "-accel":
			hasAccel = true
			if v == "kvm" || strings.HasPrefix(v, "kvm,") {
				out = append(out, a, tcgAccel)
				rewrote = true
				i++
				continue
			}
		case "-cpu":
			if v == "host" || strings.HasPrefix(v, "host,") {
				out = append(out, a, "max"+strings.TrimPrefix(v, "host"))
				i++
				continue
			}
		}
		out = append(out, a)
	}
	if rewrote && !hasAccel {
		out = append(out, "-accel", tcgAccel)
	}
	return out
}

// dropKVM removes accel=kvm from a -machine value and reports whether it
// was there.
func dropKVM(machine string) (string, bool) {
	opts := strings.Split(machine, ",")
	kept := opts[:0]
	found := false
	for _, o := range opts {
		if o == "accel=kvm" {
			found = true
			continue
		}
		kept = append(kept, o)
	}
	if !found {
		return machine, false
	}
	if kept[0] == "q35" || strings.HasPrefix(kept[0], "pc-q35") {
		kept = append(kept, "vmport=off")
	}
	return strings.Join(kept, ","), true
}
