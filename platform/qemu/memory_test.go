package qemu

import (
	"strings"
	"testing"
)

func TestAddFreePageReporting(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"a guest gets the balloon", "-m 1024 -drive file=disk,if=virtio", "-m 1024 -drive file=disk,if=virtio -device virtio-balloon-pci,free-page-reporting=on"},
		{"a kernel boot too", "-m 1024 -kernel vmlinuz", "-m 1024 -kernel vmlinuz -device virtio-balloon-pci,free-page-reporting=on"},
		{"a balloon of its own is kept", "-drive file=disk -device virtio-balloon-pci", "-drive file=disk -device virtio-balloon-pci"},
		{"a query is no guest", "-M none -accel help", "-M none -accel help"},
	}
	for _, tt := range tests {
		in := strings.Fields(tt.in)
		got := strings.Join(AddFreePageReporting(in), " ")
		if got != tt.want {
			t.Errorf("%s: AddFreePageReporting(%s)\n got %s\nwant %s", tt.name, tt.in, got, tt.want)
		}
		if strings.Join(in, " ") != tt.in {
			t.Errorf("%s: the input was changed", tt.name)
		}
	}
}

// Under KVM the wrapper only adds the balloon: Lima's KVM arguments, its
// display devices included, reach QEMU as they were. Under TCG they are
// also rewritten for emulation, headless, with the cache size asked for.
func TestWrapperArgs(t *testing.T) {
	lima := "-m 1024 -cpu host -machine q35,accel=kvm -smp 2,sockets=1,cores=2,threads=1 -drive file=disk,if=virtio -kernel vmlinuz -display none -device virtio-vga -device virtio-keyboard-pci"
	tests := []struct {
		accel  Accel
		tbSize int
		want   string
	}{
		{AccelKVM, 0, lima + " -device virtio-balloon-pci,free-page-reporting=on"},
		{AccelTCG, 128, "-m 1024 -cpu max -machine q35,vmport=off -smp 2,sockets=1,cores=2,threads=1 -drive file=disk,if=virtio -kernel vmlinuz -display none -vga none -accel tcg,thread=multi,tb-size=128 -device virtio-balloon-pci,free-page-reporting=on"},
	}
	for _, tt := range tests {
		if got := strings.Join(WrapperArgs(tt.accel, strings.Fields(lima), tt.tbSize), " "); got != tt.want {
			t.Errorf("WrapperArgs(%s, Lima's arguments, %d)\n got %s\nwant %s", tt.accel, tt.tbSize, got, tt.want)
		}
	}
}

func TestParseWrapperAccel(t *testing.T) {
	for in, want := range map[string]Accel{"": AccelTCG, "tcg": AccelTCG, "kvm": AccelKVM} {
		if got, err := ParseWrapperAccel(in); err != nil || got != want {
			t.Errorf("ParseWrapperAccel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseWrapperAccel("auto"); err == nil || !strings.Contains(err.Error(), EnvWrapperAccel) {
		t.Errorf("ParseWrapperAccel(auto): %v; want an error naming %s", err, EnvWrapperAccel)
	}
}
