// Package wslfake puts a fake wsl.exe on PATH for tests on hosts without
// WSL: it answers each command line with recorded output, encoded as
// wsl.exe encodes it (UTF-16LE), and an exit code, and records the
// command lines it was run with.
package wslfake

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// script answers from files named after its arguments (spaces as _,
// slashes as +).
const script = `#!/bin/sh
echo "$*" >>"$WSLFAKE_DIR/calls"
key=$(printf '%s' "$*" | tr ' /' '_+')
[ -f "$WSLFAKE_DIR/out.$key" ] && cat "$WSLFAKE_DIR/out.$key"
exit "$(cat "$WSLFAKE_DIR/rc.$key" 2>/dev/null || echo 0)"
`

// Fake is a wsl.exe on PATH for one test.
type Fake struct {
	dir string
}

// New puts a fake wsl.exe first on PATH for the test t.
func New(t testing.TB) *Fake {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wsl.exe"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WSLFAKE_DIR", dir)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return &Fake{dir: dir}
}

// On makes wsl.exe answer args with out, in UTF-16LE as wsl.exe writes
// it, and exit with code rc.
func (f *Fake) On(t testing.TB, args string, out string, rc int) {
	key := strings.NewReplacer(" ", "_", "/", "+").Replace(args)
	u := utf16.Encode([]rune(strings.ReplaceAll(out, "\n", "\r\n")))
	b := make([]byte, 0, 2*len(u))
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	if err := os.WriteFile(filepath.Join(f.dir, "out."+key), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.dir, "rc."+key), []byte(strconv.Itoa(rc)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Calls are the command lines wsl.exe was run with, in order.
func (f *Fake) Calls() []string {
	b, _ := os.ReadFile(filepath.Join(f.dir, "calls"))
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
