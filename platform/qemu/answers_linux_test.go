package qemu

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Lima v1.2.2's questions, as its QEMU driver asks them before a start.
var limaQuestions = [][]string{
	{"-M", "none", "-accel", "help"},
	{"-M", "none", "-netdev", "help"},
	{"-machine", "help"},
	{"-cpu", "help", "-machine", "q35"},
	{"--version"},
}

func TestIsQuestion(t *testing.T) {
	for _, q := range limaQuestions {
		if !isQuestion(q) {
			t.Errorf("%q is no question", q)
		}
	}
	for _, run := range [][]string{
		{"-name", "lima-help", "-pidfile", "/x/qemu.pid", "-m", "1024"},
		{"-cpu", "help", "-pidfile", "/x/qemu.pid"},
		{"help"},
		{"--version", "-m", "1024"},
		{},
	} {
		if isQuestion(run) {
			t.Errorf("%q is taken for a question", run)
		}
	}
}

// Each of Lima's questions gets the real QEMU's own answer, from QEMU the
// first time and from the cache after that.
func TestAskAnswersAsQEMUDoes(t *testing.T) {
	real, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		t.Skip("qemu-system-x86_64 is not installed")
	}
	dir := filepath.Join(t.TempDir(), "answers")
	for _, q := range limaQuestions {
		cmd := exec.Command(real, q...)
		var want, wantErr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &want, &wantErr
		if err := cmd.Run(); err != nil {
			t.Fatalf("QEMU %q: %v", q, err)
		}
		for _, pass := range []string{"asked", "cached"} {
			var got, gotErr bytes.Buffer
			code, err := ask(real, q, dir, &got, &gotErr)
			if err != nil || code != 0 {
				t.Fatalf("%s %q: exit %d, %v", pass, q, code, err)
			}
			if got.String() != want.String() || gotErr.String() != wantErr.String() {
				t.Errorf("%s %q: stdout %q stderr %q, want %q %q", pass, q, got.String(), gotErr.String(), want.String(), wantErr.String())
			}
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != len(limaQuestions) {
		t.Errorf("%d answers kept for %d questions", len(files), len(limaQuestions))
	}
}

// A stand-in for QEMU (a script that counts its runs; a real QEMU cannot
// be upgraded in a test) is asked once per question while it stays the
// same, again once it changes, and every time when it fails.
func TestAskRunsQEMUAgainOnlyWhenItChanged(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	real := filepath.Join(dir, "qemu-system-x86_64")
	script := "#!/bin/sh\necho run >>" + runs + "\ncase \"$1\" in --version) echo 'QEMU emulator version 7.2.0'; echo warning >&2 ;; *) exit 3 ;; esac\n"
	if err := os.WriteFile(real, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	answers := filepath.Join(dir, "answers")
	askVersion := func() string {
		t.Helper()
		var out, errOut bytes.Buffer
		if code, err := ask(real, []string{"--version"}, answers, &out, &errOut); err != nil || code != 0 {
			t.Fatalf("--version: exit %d, %v", code, err)
		}
		return out.String() + errOut.String()
	}
	first, second := askVersion(), askVersion()
	if first != "QEMU emulator version 7.2.0\nwarning\n" || second != first {
		t.Fatalf("answers %q then %q", first, second)
	}
	if n := countLines(t, runs); n != 1 {
		t.Fatalf("QEMU ran %d times for one question asked twice, want 1", n)
	}
	if err := os.WriteFile(real, []byte(script+"# upgraded\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	askVersion()
	if n := countLines(t, runs); n != 2 {
		t.Fatalf("QEMU ran %d times after its upgrade, want 2", n)
	}
	for range 2 {
		if code, err := ask(real, []string{"-cpu", "help"}, answers, &bytes.Buffer{}, &bytes.Buffer{}); err != nil || code != 3 {
			t.Fatalf("a failing question: exit %d, %v; want 3", code, err)
		}
	}
	if n := countLines(t, runs); n != 4 {
		t.Fatalf("QEMU ran %d times, want a failing question asked both times (4)", n)
	}
}
