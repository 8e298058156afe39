package service

import (
	"slices"
	"testing"
)

func TestLaunchctlArgs(t *testing.T) {
	for _, c := range []struct {
		action string
		scope  Scope
		legacy bool
		loaded bool
		want   []string
	}{
		{"start", User, false, false, []string{"bootstrap", "gui/501", "/p.plist"}},
		{"stop", User, false, false, []string{"bootout", "gui/501/dev.paddock.paddock"}},
		{"start", System, false, false, []string{"bootstrap", "system", "/p.plist"}},
		{"stop", System, false, false, []string{"bootout", "system/dev.paddock.paddock"}},
		{"start", User, true, false, []string{"load", "-w", "/p.plist"}},
		{"stop", System, true, false, []string{"unload", "/p.plist"}},
		// A loaded job that stopped: bootstrap would fail for it.
		{"start", User, false, true, []string{"kickstart", "gui/501/dev.paddock.paddock"}},
		{"start", System, false, true, []string{"kickstart", "system/dev.paddock.paddock"}},
		{"start", User, true, true, []string{"start", "dev.paddock.paddock"}},
		{"stop", User, false, true, []string{"bootout", "gui/501/dev.paddock.paddock"}},
	} {
		got, err := launchctlArgs(c.action, c.scope, 501, "dev.paddock.paddock", "/p.plist", c.legacy, c.loaded)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s %s legacy=%v loaded=%v: %v, %v; want %v", c.action, c.scope, c.legacy, c.loaded, got, err, c.want)
		}
	}
	if _, err := launchctlArgs("restart", User, 501, "x", "/p", false, false); err == nil {
		t.Error("restart has no single launchctl command, yet one was returned")
	}
}

func TestLegacyLaunchctl(t *testing.T) {
	for v, want := range map[string]bool{"10.9.5": true, "10.10": false, "10.15.7": false, "11.7": false, "15.1\n": false, "": false} {
		if got := legacyLaunchctl(v); got != want {
			t.Errorf("legacyLaunchctl(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestLaunchdJob(t *testing.T) {
	for v, want := range map[string]bool{"dev.paddock.paddock": true, "dev.paddock.paddock-dev": true, "": false, "0": false,
		"application.com.apple.Terminal.123": false, "dev.paddock.paddockx": false} {
		if got := launchdJob(v); got != want {
			t.Errorf("launchdJob(%q) = %v, want %v", v, got, want)
		}
	}
}
