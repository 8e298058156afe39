package windows

import "strings"

// Distro is the WSL distribution that Lima's wsl2 driver registers for the
// instance named name: lima-NAME.
func Distro(name string) string { return "lima-" + name }

// Listed reports whether distro is among the distributions that
// `wsl.exe --list --quiet` printed (out, decoded from UTF-16LE). WSL
// compares distribution names without regard to case; a message instead
// of a list (no distributions installed) lists none.
func Listed(out, distro string) bool {
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if strings.EqualFold(strings.TrimSpace(line), distro) {
			return true
		}
	}
	return false
}
