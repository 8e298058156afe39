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
