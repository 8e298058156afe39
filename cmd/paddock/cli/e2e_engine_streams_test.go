//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
)

// dockerCmd is the host's docker CLI (or another build of it, bin) with
// the test HOME and the instance's context, not yet started.
func (e *env) dockerCmd(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"--context", "paddock"}, args...)...)
	cmd.Env = append(e.environ(), "DOCKER_HOST=")
	return cmd
}

// lineStream runs a docker command that streams lines (logs -f, attach,
// events) and returns its lines as they come, and what kills it.
func lineStream(t *testing.T, cmd *exec.Cmd) (<-chan string, func()) {
	t.Helper()
	var errb bytes.Buffer
	lines := startLines(t, cmd, &errb)
	return lines, func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() && errb.Len() > 0 {
			t.Logf("%v: %s", cmd.Args, errb.String())
		}
	}
}

// startLines starts cmd, its standard error written to stderr, and
// returns the lines of its standard output as they come; the channel
// closes when the output ends.
func startLines(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer) <-chan string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}

// nextLine waits for a line with want in it.
func nextLine(t *testing.T, what string, lines <-chan string, want string, timeout time.Duration) string {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("%s ended before a line with %q", what, want)
			}
			if strings.Contains(l, want) {
				return l
			}
		case <-deadline:
			t.Fatalf("%s: no line with %q within %s", what, want, timeout)
		}
	}
}

// checkEngineStreams drives every kind of Docker stream through the
// daemon's Docker socket (the instance's context) as a user's docker CLI
// does, with image (a busybox image) in the engine: logs -f, attach,
// events, run -i and exec -i (an attach whose input ends before its
// output), exec -it (a terminal), a build with a context (the classic
// builder, and BuildKit's session and gRPC upgrades where the docker CLI
// has it built in), docker cp both ways, save and load; and a bind mount
// of a folder the VM does not share, refused with the setting that
// shares it.
func checkEngineStreams(t *testing.T, e *env, image string) {
	t.Helper()
	short := e.path("short_dir")
	if fi, err := os.Stat(resource.EngineSocket(short, resource.EngineMoby)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the daemon's Docker socket: %v %v", fi, err)
	}
	if _, err := os.Stat(resource.EngineForward(short, resource.EngineMoby)); err != nil {
		t.Fatalf("the VM's forward of the engine's socket: %v", err)
	}

	// A container that prints a line a second.
	const ticker = "pd-streams"
	e.docker("", "--context", "paddock", "run", "-d", "--name", ticker, image, "sh", "-c", "i=0; while :; do echo tick $i; i=$((i+1)); sleep 1; done")
	defer e.dockerCmd("docker", "rm", "-f", ticker).Run()

	// logs -f: the lines come as they are printed, not at the end.
	logs, stop := lineStream(t, e.dockerCmd("docker", "logs", "-f", ticker))
	defer stop()
	nextLine(t, "logs -f", logs, "tick ", time.Minute)
	first := time.Now()
	nextLine(t, "logs -f", logs, "tick ", 30*time.Second)
	t.Logf("logs -f: a new line %s after the first", time.Since(first).Round(time.Millisecond))

	// attach: the running container's output, live.
	attach, stop := lineStream(t, e.dockerCmd("docker", "attach", "--no-stdin", "--sig-proxy=false", ticker))
	defer stop()
	nextLine(t, "attach", attach, "tick ", 30*time.Second)

	// events: a container's start and death, streamed. The container is
	// run -i's (each container costs seconds under emulation): the
	// input's end reaches it, and what it prints after that still
	// arrives. It binds the VM's own Docker socket, which the daemon lets
	// through as any Docker host does (an unshared host folder is refused,
	// below). The stream starts at the engine's present second, by its
	// clock, so it holds the container's start however late it opens.
	now, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(e.docker("", "--context", "paddock", "info", "--format", "{{.SystemTime}}")))
	if err != nil {
		t.Fatalf("the engine's time: %v", err)
	}
	events, stop := lineStream(t, e.dockerCmd("docker", "events", "--since", strconv.FormatInt(now.Unix(), 10),
		"--filter", "container=pd-ev", "--format", "{{.Status}}"))
	defer stop()
	if out := e.docker("a\nb\n", "--context", "paddock", "run", "--rm", "-i", "--name", "pd-ev", "-v", "/var/run/docker.sock:/docker.sock",
		image, "sh", "-c", "test -S /docker.sock && echo socket; cat; echo done"); out != "socket\na\nb\ndone\n" {
		t.Fatalf("run -i: %q", out)
	}
	nextLine(t, "events", events, "start", time.Minute)
	nextLine(t, "events", events, "die", time.Minute)

	// exec -i: as run -i.
	if out := e.docker("from stdin\n", "--context", "paddock", "exec", "-i", ticker, "sh", "-c", "cat; echo end"); out != "from stdin\nend\n" {
		t.Fatalf("exec -i: %q", out)
	}
	// exec -it in a terminal (script's), as a person types it.
	if script, err := exec.LookPath("script"); err == nil {
		cmd := exec.Command(script, "-qec", "docker --context paddock exec -it "+ticker+" sh -c 'tty; echo it-ok'", "/dev/null")
		cmd.Env = append(e.environ(), "DOCKER_HOST=", "TERM=dumb")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "/dev/pts/") || !strings.Contains(string(out), "it-ok") {
			t.Fatalf("exec -it: %v: %q", err, out)
		}
	}

	// A build with a context: the classic builder, then BuildKit's
	// session (an h2c upgrade) and gRPC (another), where the docker CLI
	// has BuildKit built in (docker.io's 20.10 does).
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM "+image+"\nCOPY hello.txt /hello.txt\nRUN cat /hello.txt\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("from the build context\n"), 0o644)
	// The build's RUN prints the file the context brought.
	build := e.dockerCmd("docker", "build", "--no-cache", "-t", "pd-built:classic", dir)
	build.Env = append(build.Env, "DOCKER_BUILDKIT=0")
	if out, err := build.CombinedOutput(); err != nil || !strings.Contains(string(out), "from the build context") {
		t.Fatalf("docker build (classic): %v: %s", err, out)
	}
	if bk := builtinBuildKit(); bk != "" {
		build := e.dockerCmd(bk, "build", "--no-cache", "--progress=plain", "--network=none", "-t", "pd-built:buildkit", dir)
		build.Env = append(build.Env, "DOCKER_BUILDKIT=1")
		if out, err := build.CombinedOutput(); err != nil || !strings.Contains(string(out), "from the build context") {
			t.Fatalf("docker build (BuildKit): %v: %s", err, out)
		}
	} else {
		t.Log("no docker CLI with BuildKit built in: BuildKit's session is not checked")
	}

	// docker cp, both ways, a file of 4 MiB.
	data := bytes.Repeat([]byte("0123456789abcdef"), 256<<10)
	in := filepath.Join(t.TempDir(), "in.bin")
	os.WriteFile(in, data, 0o644)
	e.docker("", "--context", "paddock", "cp", in, ticker+":/in.bin")
	back := filepath.Join(t.TempDir(), "back.bin")
	e.docker("", "--context", "paddock", "cp", ticker+":/in.bin", back)
	if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("docker cp there and back: %d bytes of %d (%v)", len(got), len(data), err)
	}

	// save, then load (a streamed request body) under another name.
	e.docker("", "--context", "paddock", "tag", image, "pd-load:1")
	saved := filepath.Join(t.TempDir(), "pd-load.tar")
	e.docker("", "--context", "paddock", "save", "-o", saved, "pd-load:1")
	e.docker("", "--context", "paddock", "rmi", "pd-load:1")
	if out := e.docker("", "--context", "paddock", "load", "-i", saved); !strings.Contains(out, "pd-load:1") {
		t.Fatalf("docker load: %q", out)
	}

	// A bind of a folder the VM does not share is refused, naming it and
	// the setting that shares it.
	unshared, err := os.MkdirTemp("", "pdun")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(unshared) })
	refused := e.dockerCmd("docker", "run", "--rm", "-v", unshared+":/x", image, "echo", "bound")
	out, err := refused.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(string(out), unshared+" is not shared with the App's VM") ||
		!strings.Contains(string(out), "paddock set mounts=") {
		t.Fatalf("a bind of an unshared folder: %v: %s", err, out)
	}
	t.Logf("a bind of an unshared folder: %s", strings.TrimSpace(string(out)))
}

// builtinBuildKit is a docker CLI that has BuildKit built in (20.10's:
// later ones need the buildx plugin), or "".
func builtinBuildKit() string {
	for _, bin := range []string{"docker", "/usr/bin/docker"} {
		// Docker version 20.10.24+dfsg1, build 297e128
		out, err := exec.Command(bin, "--version").Output()
		if err == nil && strings.HasPrefix(string(out), "Docker version 20.10.") {
			return bin
		}
	}
	return ""
}

// TestDockerSocketWithoutApp: the daemon serves the instance's Docker
// socket (0600) before there is an App, and a docker command through it
// is told what to do; the socket is gone when the daemon stops.
func TestDockerSocketWithoutApp(t *testing.T) {
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI")
	}
	e := newEnv(t, "dsock")
	d := e.serve()
	socket := resource.EngineSocket(e.path("short_dir"), resource.EngineMoby)
	var fi os.FileInfo
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if fi, err = os.Stat(socket); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("the Docker socket: %v %v", fi, err)
	}
	cmd := exec.Command("docker", "-H", "unix://"+socket, "ps")
	cmd.Env = e.environ()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "there is no App: 'paddock --instance dsock start' makes one and starts it") {
		t.Fatalf("docker ps with no App: %v: %s", err, out)
	}
	if code := d.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("the daemon exited %d: %s", code, d.log)
	}
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Fatalf("the Docker socket outlived the daemon: %v", err)
	}
}
