package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"
	"github.com/spf13/cobra"
)

// repoRoot is the repository's top, seen from this package's directory,
// where go test runs its tests.
const repoRoot = "../../.."

// TestReadmeCommands checks every command line in the README and in docs/
// against what it names: a paddock command must exist in this binary's
// command tree with the flags and arguments it is given, and its --help
// must run; the safe ones (service paths, doctor, completion) run for
// real; a script must exist and be executable; a Go package path must
// exist; a curl URL of the API must be a path of its OpenAPI document. A
// program this test does not know fails it, so that nothing new goes
// unchecked: teach it in checkCommand.
func TestReadmeCommands(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(repoRoot, "README.md")}, docs...)
	apiPaths := openAPIPaths(t)
	paths := map[string]bool{} // paddock command paths seen, for --help
	count := 0
	for _, doc := range docs {
		for _, c := range extractCommands(t, doc) {
			count++
			if err := checkCommand(c.words, apiPaths, paths); err != nil {
				t.Errorf("%s:%d: %s\n\t%v", filepath.Base(doc), c.line, strings.Join(c.words, " "), err)
			}
		}
	}
	if count < 20 {
		t.Fatalf("found only %d commands in %v: is the extraction broken?", count, docs)
	}
	if len(paths) < 10 {
		t.Fatalf("found only %d paddock commands: is the extraction broken?", len(paths))
	}

	t.Logf("checked %d commands, %d paddock commands among them", count, len(paths))
	e := newEnv(t, "readme")
	for path := range paths {
		args := append(strings.Fields(path), "--help")
		out, errOut, code := e.run("", args...)
		if code != 0 || !strings.Contains(out, "paddock "+path) {
			t.Errorf("paddock %s --help exited %d:\n%s%s", path, code, out, errOut)
		}
	}
	// Commands that change nothing and need no daemon run for real.
	for _, args := range [][]string{{"service", "paths"}, {"completion", "bash"}} {
		if out := e.mustRun(args...); strings.TrimSpace(out) == "" {
			t.Errorf("paddock %v printed nothing", args)
		}
	}
	// doctor exits 1 on a host that lacks something, as a test host may.
	if out, errOut, code := e.run("", "doctor"); code > 1 || !strings.Contains(out, "qemu") {
		t.Errorf("paddock doctor exited %d:\n%s%s", code, out, errOut)
	}
}

// The check fails on a command a rename or a removal left behind, which
// is what it is for.
func TestReadmeCommandsCatchWhatIsGone(t *testing.T) {
	for _, line := range []string{
		"paddock stauts",
		"paddock vm frobnicate dev",
		"paddock status --no-such-flag",
		"paddock vm shell",
		"packaging/no-such-script.sh",
		"go build ./cmd/no-such-package",
		"curl --unix-socket $SOCK http://paddock/api/v1alpha1/no-such-kind",
		"no-such-program --help",
	} {
		words, err := shellquote.Split(line)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkCommand(words, openAPIPaths(t), map[string]bool{}); err == nil {
			t.Errorf("%q passed the check", line)
		}
	}
}

// docCommand is one simple command of a document's code block.
type docCommand struct {
	line  int
	words []string
}

// shellFences are the code blocks' info strings that hold commands;
// blocks of other languages (yaml, text) are not checked.
var shellFences = []string{"", "sh", "shell", "bash", "console"}

// substitution is a command or process substitution: its command is
// checked on its own and its place holds a word.
var substitution = regexp.MustCompile(`[$<]\(([^()]*)\)`)

// extractCommands returns the simple commands of the shell code blocks in
// the Markdown file path.
func extractCommands(t *testing.T, path string) []docCommand {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []docCommand
	inBlock, shell := false, false
	var pending string
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := scanner.Text()
		if fence, ok := strings.CutPrefix(strings.TrimSpace(line), "```"); ok {
			inBlock = !inBlock
			shell = inBlock && slices.Contains(shellFences, strings.TrimSpace(fence))
			continue
		}
		if !inBlock || !shell {
			continue
		}
		line = pending + stripComment(line)
		if strings.HasSuffix(line, `\`) {
			pending = strings.TrimSuffix(line, `\`) + " "
			continue
		}
		pending = ""
		line = strings.TrimPrefix(strings.TrimSpace(line), "$ ")
		lines := []string{line}
		for _, m := range substitution.FindAllStringSubmatch(line, -1) {
			lines = append(lines, m[1])
		}
		lines[0] = substitution.ReplaceAllString(line, "SUBSTITUTED")
		for _, l := range lines {
			words, err := shellquote.Split(l)
			if err != nil {
				t.Errorf("%s:%d: %q: %v", filepath.Base(path), n, l, err)
				continue
			}
			for _, w := range splitCommands(words) {
				out = append(out, docCommand{line: n, words: w})
			}
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// stripComment cuts a shell comment (a # that begins a word, outside
// quotes) off line.
func stripComment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return strings.TrimRight(line[:i], " \t")
		}
	}
	return line
}

// splitCommands splits words at the shell's command separators and drops
// redirections, leading variable assignments and the wrappers (sudo, env,
// eval) that run the command after them.
func splitCommands(words []string) [][]string {
	var out [][]string
	var cur []string
	flush := func() {
		for len(cur) > 0 && (strings.Contains(cur[0], "=") && !strings.HasPrefix(cur[0], "-") ||
			slices.Contains([]string{"sudo", "env", "eval", "exec", "time"}, cur[0])) {
			cur = cur[1:]
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		switch {
		case slices.Contains([]string{"|", "||", "&&", ";", "&"}, w):
			flush()
		case slices.Contains([]string{">", ">>", "<", "2>"}, w):
			i++ // the file redirected to or from
		case strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>"):
		case strings.HasSuffix(w, ";") || strings.HasSuffix(w, "&") && !strings.HasSuffix(w, "\\&"):
			cur = append(cur, strings.TrimRight(w, ";&"))
			flush()
		default:
			cur = append(cur, w)
		}
	}
	flush()
	return out
}

// otherPrograms are programs the documents run that are no part of
// Paddock: only their existence as words is accepted.
var otherPrograms = []string{
	"docker", "ssh", "jq", "apt", "apt-get", "dnf", "install", "systemctl",
	"loginctl", "journalctl", "cat", "echo", "export", "xdg-open", "npm",
}

// checkCommand checks one simple command; paths collects the paddock
// command paths it names.
func checkCommand(words []string, apiPaths []*regexp.Regexp, paths map[string]bool) error {
	prog, args := words[0], words[1:]
	switch {
	case prog == "paddock":
		path, err := checkPaddock(args)
		if err == nil {
			paths[path] = true
		}
		return err
	case prog == "go":
		for _, a := range args {
			if strings.HasPrefix(a, "./") {
				dir := strings.TrimSuffix(a, "/...")
				if st, err := os.Stat(filepath.Join(repoRoot, dir)); err != nil || !st.IsDir() {
					return fmt.Errorf("no package directory %s", dir)
				}
			}
		}
		return nil
	case prog == "curl":
		for _, a := range args {
			rest, ok := strings.CutPrefix(a, "http://paddock")
			if !ok {
				continue
			}
			p, _, _ := strings.Cut(rest, "?")
			if !slices.ContainsFunc(apiPaths, func(re *regexp.Regexp) bool { return re.MatchString(p) }) {
				return fmt.Errorf("%s is no path of the API's OpenAPI document", p)
			}
		}
		return nil
	case strings.Contains(prog, "/") && !strings.HasPrefix(prog, "/") && !strings.HasPrefix(prog, "~"):
		st, err := os.Stat(filepath.Join(repoRoot, prog))
		if err != nil {
			return fmt.Errorf("no such script in the repository: %v", err)
		}
		if st.Mode()&0o111 == 0 {
			return fmt.Errorf("%s is not executable", prog)
		}
		return nil
	case slices.Contains(otherPrograms, prog):
		return nil
	}
	return fmt.Errorf("this test does not know the program %q: teach checkCommand to check it", prog)
}

// checkPaddock parses args against the real command tree, as the binary
// would before running the command, and returns the command's path
// without "paddock".
func checkPaddock(args []string) (string, error) {
	root := newRootCmd(&cli{stdout: io.Discard, stderr: io.Discard})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return "", err
	}
	cmd.InitDefaultHelpFlag()
	if err := cmd.ParseFlags(rest); err != nil {
		return "", fmt.Errorf("paddock %s: %v", commandPath(cmd), err)
	}
	if help, _ := cmd.Flags().GetBool("help"); !help {
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			return "", fmt.Errorf("paddock %s: %v", commandPath(cmd), err)
		}
	}
	return commandPath(cmd), nil
}

func commandPath(cmd *cobra.Command) string {
	return strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), "paddock"), " ")
}

// openAPIPaths returns the API's paths, from its committed OpenAPI
// document, as patterns in which a {parameter} matches one segment, and
// the paths outside the document: the metrics and the document itself.
func openAPIPaths(t *testing.T) []*regexp.Regexp {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "api", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\\\{[^}]*\}`)
	var out []*regexp.Regexp
	for p := range doc.Paths {
		out = append(out, regexp.MustCompile("^"+param.ReplaceAllString(regexp.QuoteMeta(p), "[^/]+")+"$"))
	}
	for _, p := range []string{"/metrics", "/openapi.json", "/openapi.yaml"} {
		out = append(out, regexp.MustCompile("^"+regexp.QuoteMeta(p)+"$"))
	}
	return out
}
