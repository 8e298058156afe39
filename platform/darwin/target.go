package darwin

import (
	"paddock.dev/paddock/platform/apptemplate"
	"paddock.dev/paddock/platform/hostcheck"
)

// AppTarget is the VM type the App runs on on the Mac f describes: VZ
// where it runs guests (hostcheck.VZRuns), with Rosetta on Apple silicon
// when it is installed; QEMU, accelerated by HVF, elsewhere.
func AppTarget(f hostcheck.DarwinFacts) apptemplate.Target {
	if !hostcheck.VZRuns(f) {
		return apptemplate.Target{VMType: apptemplate.QEMU}
	}
	return apptemplate.Target{VMType: apptemplate.VZ, Rosetta: f.AppleSilicon && f.Rosetta}
}
