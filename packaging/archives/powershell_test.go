package archives

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No PowerShell runs here, so install.ps1 and uninstall.ps1 are checked
// for what would break them on Windows without running them: bytes that
// Windows PowerShell 5.1, which reads a script without a byte order mark
// in the ANSI code page, would misread; brackets, braces and parentheses
// that do not pair up outside strings and comments; and paddock command
// lines the CLI does not know.
var psScripts = []string{"packaging/windows/install.ps1", "packaging/windows/uninstall.ps1"}

func TestPowerShellScriptsAreASCII(t *testing.T) {
	for _, name := range psScripts {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), name))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, r := range line {
				if r > 0x7e || (r < 0x20 && r != '\t' && r != '\r') {
					t.Errorf("%s:%d: %q is not printable ASCII", name, i+1, r)
				}
			}
		}
	}
}

func TestPowerShellScriptsPairTheirBrackets(t *testing.T) {
	for _, name := range psScripts {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := pairBrackets(string(data)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// pairBrackets checks that (), {} and [] pair up in PowerShell source,
// skipping '...' strings (” inside), "..." strings (backtick escapes;
// their $(...) subexpressions are skipped with them, so they must hold no
// ") and # comments.
func pairBrackets(src string) error {
	var stack []rune
	line := 1
	closing := map[rune]rune{')': '(', '}': '{', ']': '['}
	rs := []rune(src)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\n':
			line++
		case r == '#':
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
			line++
		case r == '\'':
			for i++; i < len(rs); i++ {
				if rs[i] == '\n' {
					line++
				}
				if rs[i] == '\'' {
					if i+1 < len(rs) && rs[i+1] == '\'' {
						i++
						continue
					}
					break
				}
			}
			if i >= len(rs) {
				return errorf(line, "a '...' string does not end")
			}
		case r == '"':
			for i++; i < len(rs) && rs[i] != '"'; i++ {
				if rs[i] == '`' {
					i++
				} else if rs[i] == '\n' {
					line++
				}
			}
			if i >= len(rs) {
				return errorf(line, `a "..." string does not end`)
			}
		case r == '(' || r == '{' || r == '[':
			stack = append(stack, r)
		case closing[r] != 0:
			if len(stack) == 0 || stack[len(stack)-1] != closing[r] {
				return errorf(line, "%q closes nothing open", r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return errorf(line, "%d brackets left open (%q)", len(stack), string(stack))
	}
	return nil
}

func errorf(line int, format string, args ...any) error {
	return fmt.Errorf("line %d: "+format, append([]any{line}, args...)...)
}

// TestPairBracketsFindsWhatDoesNotPair: the check above catches an
// unclosed block and a stray bracket, and not brackets in strings or
// comments.
func TestPairBracketsFindsWhatDoesNotPair(t *testing.T) {
	for src, ok := range map[string]bool{
		"if ($a) { b }\n":                 true,
		"Write-Output '}' \"(`\"\" # {\n": true,
		"if ($a) { b\n":                   false,
		"$x = @(1, 2))\n":                 false,
		"'it''s { open\n":                 false,
	} {
		if err := pairBrackets(src); (err == nil) != ok {
			t.Errorf("pairBrackets(%q) = %v", src, err)
		}
	}
}

// TestPowerShellScriptsRunCommandsTheCLIKnows: each paddock command line
// of the scripts (Invoke-Paddock and Invoke-PaddockMayFail calls, and the
// service install that install.ps1 assembles, with --image) is one the
// CLI parses.
func TestPowerShellScriptsRunCommandsTheCLIKnows(t *testing.T) {
	call := regexp.MustCompile(`(?m)^\s*Invoke-Paddock(?:MayFail)? +(.+)$`)
	var lines [][]string
	for _, name := range psScripts {
		data, err := os.ReadFile(filepath.Join(repoRoot(t), name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(data), -1) {
			args := strings.Fields(strings.ReplaceAll(m[1], "'", ""))
			if args[0] == "@installArgs" {
				args = []string{"service", "install", "--image", `C:\image\paddock-wsl.tar.gz`}
			}
			lines = append(lines, args)
		}
	}
	if len(lines) < 5 {
		t.Fatalf("found %d paddock command lines in the scripts, want at least 5: %v", len(lines), lines)
	}
	for _, args := range lines {
		cliAccepts(t, args)
	}
}
