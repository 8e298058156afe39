package qemu

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestRewriteForTCG(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{
			name: "Lima's KVM arguments",
			in:   "-m 1024 -cpu host -machine q35,accel=kvm -smp 2,sockets=1,cores=2,threads=1",
			want: "-m 1024 -cpu max -machine q35,vmport=off -smp 2,sockets=1,cores=2,threads=1 -accel tcg,thread=multi,tb-size=512",
		},
		{
			name: "CPU features are kept",
			in:   "-cpu host,-pdpe1gb -machine q35,accel=kvm",
			want: "-cpu max,-pdpe1gb -machine q35,vmport=off -accel tcg,thread=multi,tb-size=512",
		},
		{
			name: "a separate -accel kvm becomes TCG",
			in:   "-machine q35 -accel kvm",
			want: "-machine q35 -accel tcg,thread=multi,tb-size=512",
		},
		{
			name: "other machine options stay",
			in:   "-M pc,accel=kvm,usb=off",
			want: "-M pc,usb=off -accel tcg,thread=multi,tb-size=512",
		},
		{
			name: "feature queries pass through",
			in:   "-M none -accel help",
			want: "-M none -accel help",
		},
		{
			name: "an emulated guest's arguments pass through",
			in:   "-cpu max -machine q35,vmport=off -accel tcg,thread=multi,tb-size=512",
			want: "-cpu max -machine q35,vmport=off -accel tcg,thread=multi,tb-size=512",
		},
		{
			name: "a trailing flag without value",
			in:   "-version",
			want: "-version",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(RewriteForTCG(strings.Fields(tt.in), 512), " ")
			if got != tt.want {
				t.Errorf("RewriteForTCG(%s)\n got %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestRewriteForTCGLeavesInputAlone(t *testing.T) {
	in := []string{"-machine", "q35,accel=kvm", "-cpu", "host"}
	orig := slices.Clone(in)
	RewriteForTCG(in, DefaultTBSize)
	if !slices.Equal(in, orig) {
		t.Errorf("input changed to %v", in)
	}
}

func TestDecideAccel(t *testing.T) {
	broken := func() error { return errors.New("failed to set MSR") }
	works := func() error { return nil }
	mustNotProbe := func() error { t.Error("probed although the mode was explicit"); return nil }
	tests := []struct {
		mode     Accel
		probe    func() error
		want     Accel
		warnings bool
	}{
		{AccelAuto, works, AccelKVM, false},
		{AccelAuto, broken, AccelTCG, true},
		{AccelKVM, mustNotProbe, AccelKVM, false},
		{AccelTCG, mustNotProbe, AccelTCG, false},
	}
	for _, tt := range tests {
		got, warning := DecideAccel(tt.mode, tt.probe)
		if got != tt.want || (warning != "") != tt.warnings {
			t.Errorf("DecideAccel(%s) = %s, %q; want %s, warning %v", tt.mode, got, warning, tt.want, tt.warnings)
		}
		if tt.warnings && !strings.Contains(warning, "failed to set MSR") {
			t.Errorf("warning %q does not say why KVM was not used", warning)
		}
	}
}

func TestParseAccel(t *testing.T) {
	for in, want := range map[string]Accel{"": AccelAuto, "auto": AccelAuto, "KVM": AccelKVM, " tcg ": AccelTCG} {
		if got, err := ParseAccel(in); err != nil || got != want {
			t.Errorf("ParseAccel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseAccel("hvf"); err == nil || !strings.Contains(err.Error(), EnvAccel) {
		t.Errorf("ParseAccel(hvf) = %v, want an error naming %s", err, EnvAccel)
	}
}

func TestIsQEMUWrapperName(t *testing.T) {
	for argv0, want := range map[string]bool{
		"/home/u/.paddock/lima/_paddock/bin/qemu-system-x86_64": true,
		"qemu-system-aarch64": true,
		"/usr/bin/paddock":    false,
		"paddock":             false,
	} {
		if got := IsWrapperName(argv0); got != want {
			t.Errorf("IsWrapperName(%q) = %v, want %v", argv0, got, want)
		}
	}
}

func TestRewriteForTCGSizesTheTranslationCache(t *testing.T) {
	got := strings.Join(RewriteForTCG(strings.Fields("-machine q35,accel=kvm"), 64), " ")
	if want := "-machine q35,vmport=off -accel tcg,thread=multi,tb-size=64"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestParseTBSize(t *testing.T) {
	for in, want := range map[string]int{"": DefaultTBSize, "64": 64, " 128 ": 128} {
		if got, err := ParseTBSize(in); err != nil || got != want {
			t.Errorf("ParseTBSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"64M", "0", "4", "-1", "99999"} {
		if _, err := ParseTBSize(in); err == nil || !strings.Contains(err.Error(), EnvTBSize) {
			t.Errorf("ParseTBSize(%q) = %v; want an error naming %s", in, err, EnvTBSize)
		}
	}
}
