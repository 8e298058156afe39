package windows

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Distro is the WSL distribution that Lima's wsl2 driver registers for the
// instance named name: lima-NAME.
func Distro(name string) string { return "lima-" + name }

// Distribution is one row of `wsl.exe --list --verbose`.
type Distribution struct {
	Name    string
	Default bool   // marked with * as the default distribution
	State   string // as WSL prints it, in the user's language
	Version int    // the WSL version it runs on: 1 or 2
}

// ParseVerboseList reads what `wsl.exe --list --verbose` printed (decoded):
// a header, then a row a distribution, a * before the default one. WSL
// translates the header and the states, so the columns are found by
// position: each begins where a word of the header begins (the first is
// the name, the last the version, the state is between them, and may hold
// spaces). Lines whose version is no number are no rows: a message
// instead of a list (no distribution installed) lists none.
func ParseVerboseList(out string) []Distribution {
	var lines [][]rune
	for _, l := range strings.Split(strings.ReplaceAll(out, "\r", ""), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, []rune(l))
		}
	}
	if len(lines) < 2 {
		return nil
	}
	var starts []int
	for i, r := range lines[0] {
		if r != ' ' && (i == 0 || lines[0][i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	if len(starts) < 3 {
		return nil
	}
	name, state, version := starts[0], starts[1], starts[len(starts)-1]
	var ds []Distribution
	for _, row := range lines[1:] {
		v, err := strconv.Atoi(column(row, version, len(row)))
		d := Distribution{
			Name:    column(row, name, state),
			Default: strings.Contains(column(row, 0, name), "*"),
			State:   column(row, state, version),
			Version: v,
		}
		if err != nil || d.Name == "" || strings.ContainsRune(d.Name, ' ') {
			continue
		}
		ds = append(ds, d)
	}
	return ds
}

// column is row's runes from start to end, without the spaces around them.
func column(row []rune, start, end int) string {
	start, end = min(start, len(row)), min(end, len(row))
	return strings.TrimSpace(string(row[start:end]))
}

// Listed reports whether distro is among the distributions that
// `wsl.exe --list --quiet` (or --running --quiet) printed (out, decoded).
// WSL compares distribution names without regard to case; a message
// instead of a list (none installed, none running) lists none, whatever
// its language.
func Listed(out, distro string) bool {
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n") {
		if strings.EqualFold(strings.TrimSpace(line), distro) {
			return true
		}
	}
	return false
}

// DecodeOutput turns what wsl.exe printed into text: wsl.exe writes
// UTF-16LE (with or without a byte order mark) unless WSL_UTF8=1 reached
// it, which WSL before 0.64 ignores; UTF-8 passes through.
func DecodeOutput(b []byte) string {
	b = []byte(strings.TrimPrefix(string(b), "\ufeff"))
	if len(b) >= 2 && b[0] == 0xff && b[1] == 0xfe {
		b = b[2:]
	} else if len(b) < 2 || b[1] != 0 {
		return string(b)
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 0; i+1 < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	return string(utf16.Decode(u))
}

// WSL runs wsl.exe with args, without a console window, and returns its
// output decoded. exited is false when wsl.exe could not be run at all
// (err says why); when it ran, err is its failure (a non-zero exit code).
func WSL(ctx context.Context, args ...string) (out string, exited bool, err error) {
	cmd := exec.CommandContext(ctx, "wsl.exe", args...)
	cmd.SysProcAttr = NoWindow()
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", false, fmt.Errorf("run wsl.exe: %w", err)
	}
	return DecodeOutput(b), true, err
}

// Running reports whether the distribution distro runs, from
// `wsl.exe --list --running --quiet`: names only, in no language. WSL
// exits with an error when none runs, so only a failure to run wsl.exe
// is an error here.
func Running(ctx context.Context, distro string) (bool, error) {
	out, exited, err := WSL(ctx, "--list", "--running", "--quiet")
	if !exited {
		return false, err
	}
	return Listed(out, distro), nil
}

// Registered returns the row of `wsl.exe --list --verbose` of distro, and
// whether there is one. WSL exits with an error when no distribution is
// installed, which lists none; only a failure to run wsl.exe is an error.
func Registered(ctx context.Context, distro string) (Distribution, bool, error) {
	out, exited, err := WSL(ctx, "--list", "--verbose")
	if !exited {
		return Distribution{}, false, err
	}
	for _, d := range ParseVerboseList(out) {
		if strings.EqualFold(d.Name, distro) {
			return d, true, nil
		}
	}
	return Distribution{}, false, nil
}

// Unregister unregisters the WSL distribution distro, with its disk, when
// WSL lists it; one that is not registered is left alone. Whether it is
// listed is read from the list, not from WSL's message when there is none
// (which WSL translates).
func Unregister(ctx context.Context, distro string) error {
	if _, ok, err := Registered(ctx, distro); err != nil || !ok {
		return err
	}
	if out, _, err := WSL(ctx, "--unregister", distro); err != nil {
		return fmt.Errorf("wsl.exe --unregister %s: %w (%s)", distro, err, strings.TrimSpace(out))
	}
	return nil
}

// Import registers the root file system tarball as the distribution
// distro, its disk in dir, on WSL 2 whatever WSL's default version is
// (Lima v1.2.2 imports without --version, so on a host whose default is 1
// its distribution would run on WSL 1, where no container engine runs).
// A distribution registered on WSL 1 already is an error that says how to
// convert it.
func Import(ctx context.Context, distro, dir, tarball string) error {
	d, ok, err := Registered(ctx, distro)
	switch {
	case err != nil:
		return err
	case ok && d.Version != 2:
		return fmt.Errorf("the WSL distribution %s runs on WSL %d, where no container engine runs: convert it with `wsl.exe --set-version %s 2`", distro, d.Version, distro)
	case ok:
		return nil
	}
	if out, _, err := WSL(ctx, "--import", distro, dir, tarball, "--version", "2"); err != nil {
		return fmt.Errorf("wsl.exe --import %s: %w (%s)", distro, err, strings.TrimSpace(out))
	}
	return nil
}
