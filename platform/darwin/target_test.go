package darwin

import (
	"testing"

	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

func TestAppTarget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		facts hostcheck.DarwinFacts
		want  apptemplate.Target
	}{
		{"macOS 14 on Apple silicon with Rosetta", hostcheck.DarwinFacts{ProductVersion: "14.5", AppleSilicon: true, Rosetta: true}, apptemplate.Target{VMType: apptemplate.VZ, Rosetta: true}},
		{"macOS 13.0 on Apple silicon without Rosetta", hostcheck.DarwinFacts{ProductVersion: "13.0", AppleSilicon: true}, apptemplate.Target{VMType: apptemplate.VZ}},
		{"macOS 13.5 on Intel", hostcheck.DarwinFacts{ProductVersion: "13.5"}, apptemplate.Target{VMType: apptemplate.VZ}},
		{"macOS 13.4 on Intel: VZ cannot boot recent kernels", hostcheck.DarwinFacts{ProductVersion: "13.4.1"}, apptemplate.Target{VMType: apptemplate.QEMU}},
		{"macOS 12 on Apple silicon", hostcheck.DarwinFacts{ProductVersion: "12.7", AppleSilicon: true, Rosetta: true}, apptemplate.Target{VMType: apptemplate.QEMU}},
		{"an unknown version", hostcheck.DarwinFacts{AppleSilicon: true}, apptemplate.Target{VMType: apptemplate.QEMU}},
	} {
		if got := AppTarget(tc.facts); got != tc.want {
			t.Errorf("%s: AppTarget = %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
