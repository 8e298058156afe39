package service

import (
	"errors"
	"strings"
	"testing"
)

func TestSystemdUnitUserScope(t *testing.T) {
	unit, err := SystemdUnit(Spec{Instance: "dev", Executable: "/usr/bin/paddock", Listen: "tcp://127.0.0.1:47610", LogLevel: "debug"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`ExecStart="/usr/bin/paddock" "--instance" "dev" "--log-level" "debug" "serve" "--listen" "tcp://127.0.0.1:47610"` + "\n",
		"Restart=on-failure\n",
		"RestartSec=2\n",
		"WantedBy=default.target\n",
		"Description=Paddock daemon (instance dev)\n",
	} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	for _, bad := range []string{"User=", "multi-user.target", "RestartSec=120"} {
		if strings.Contains(unit, bad) {
			t.Errorf("user unit contains %q:\n%s", bad, unit)
		}
	}
}

func TestSystemdUnitSystemScope(t *testing.T) {
	unit, err := SystemdUnit(Spec{Scope: System, UserName: "alice", Executable: "/usr/bin/paddock"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"User=alice\n", "WantedBy=multi-user.target\n", `"--instance" "default" "serve"` + "\n"} {
		if !strings.Contains(unit, want) {
			t.Errorf("unit lacks %q:\n%s", want, unit)
		}
	}
	if _, err := SystemdUnit(Spec{Scope: System, Executable: "/usr/bin/paddock"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("system unit without a user: err = %v, want ErrInvalid", err)
	}
}

func TestSystemdUnitEscapesPaths(t *testing.T) {
	unit, err := SystemdUnit(Spec{Executable: `/opt/my apps/100% $HOME/paddock`, Listen: `unix:///a b/"x"\%$y`, Image: "/srv/my images/debian.qcow2"})
	if err != nil {
		t.Fatal(err)
	}
	want := `ExecStart="/opt/my apps/100%% $HOME/paddock" "--instance" "default" "serve" "--listen" "unix:///a b/\"x\"\\%%$$y" "--image" "/srv/my images/debian.qcow2"` + "\n"
	if !strings.Contains(unit, want) {
		t.Errorf("unit lacks %s:\n%s", want, unit)
	}
}

func TestSystemdUnitRefuses(t *testing.T) {
	for name, spec := range map[string]Spec{
		"relative executable":  {Executable: "bin/paddock"},
		"newline in path":      {Executable: "/opt/a\nb/paddock"},
		"invalid UTF-8":        {Executable: "/opt/\xff/paddock"},
		"tab in listen":        {Executable: "/usr/bin/paddock", Listen: "tcp://\t"},
		"odd system user name": {Scope: System, UserName: "al ice", Executable: "/usr/bin/paddock"},
		"backslash in path":    {Executable: `/opt/a\b/paddock`},
		"quote in path":        {Executable: `/opt/a"b/paddock`},
	} {
		if _, err := SystemdUnit(spec); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
}

func TestName(t *testing.T) {
	if got := Name("default"); got != baseName {
		t.Errorf("Name(default) = %q, want %q", got, baseName)
	}
	if got := Name("dev"); got != baseName+"-dev" {
		t.Errorf("Name(dev) = %q", got)
	}
}
