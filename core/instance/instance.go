package instance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gofrs/flock"

	"paddock.dev/paddock/core/atomicfile"
)

// Default is the instance used when none is named.
const Default = "default"

// EnvName is the environment variable that selects an instance.
const EnvName = "PADDOCK_INSTANCE"

// basePort is the first TCP port of the range instances draw from; instance
// index i owns the portsPerInstance ports starting at basePort+i*portsPerInstance.
const (
	basePort         = 47600
	portsPerInstance = 10
	maxIndex         = 1000
)

var nameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,30}[a-z0-9])?$`)

// ValidateName reports whether name can name an instance: lowercase letters,
// digits and inner dashes, at most 32 characters, since it becomes part of
// directory, socket and service names.
func ValidateName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("invalid instance name %q: use 1-32 lowercase letters, digits and inner dashes", name)
	}
	return nil
}

// Roots are the per-user base directories of the host OS; every instance
// gets its own directories beneath them. The platform packages supply them.
type Roots struct {
	Data  string // service directories: database, token, lock and pid files
	Log   string // log directories
	Short string // base of the short directory: socket paths are length-limited
	// MaxSocketPath is the longest socket path, in bytes without the
	// terminating NUL, that the OS accepts (103 on macOS); 0 checks none.
	MaxSocketPath int
}

// MachineNameRoom is how long (in bytes) a VM machine's name may be within
// every instance's socket path limit: Lima keeps each machine's sockets in
// LimaHome/NAME and refuses, when it creates one, a name that is too long.
const MachineNameRoom = 16

// longestSocketName is the longest socket name in a Lima machine's
// directory: Lima's filenames.LongestSock, ssh's control socket "ssh.sock"
// with the 16 random bytes ssh appends while it creates it. The sockets in
// the short directory itself (paddock.sock, docker.sock, vm-containerd.sock)
// are shorter than "lima/" and a machine's directory and this name.
const longestSocketName = "ssh.sock.1234567890123456"

// LongestSocket is the longest socket path the instance can produce: Lima's
// ssh control socket of a machine whose name has MachineNameRoom bytes.
func (p Paths) LongestSocket() string {
	return filepath.Join(p.LimaHome, strings.Repeat("m", MachineNameRoom), longestSocketName)
}

// Paths are everything host-wide that belongs to one instance.
type Paths struct {
	Instance string `json:"instance"`
	Index    int    `json:"index"`
	Dir      string `json:"dir"`
	ShortDir string `json:"short_dir"`
	LogDir   string `json:"log_dir"`
	// LogFile is the daemon's log where nothing else keeps it: a daemon
	// the CLI started writes it, and so does one under a service manager
	// that keeps no journal (launchd, the Windows service manager).
	LogFile  string `json:"log_file"`
	Socket   string `json:"socket"`
	LimaHome string `json:"lima_home"`
	DB       string `json:"db"`
	PIDFile  string `json:"pid_file"`
	LockFile string `json:"lock_file"`
	Token    string `json:"token"`
	APIPort  int    `json:"api_port"`
}

// Resolve returns the paths of the named instance under roots. It assigns
// the instance an index on first use, recorded in a registry file under
// roots.Data, so that each instance keeps its ports for good and no two
// instances share one.
func Resolve(roots Roots, name string) (Paths, error) {
	if err := ValidateName(name); err != nil {
		return Paths{}, err
	}
	short := filepath.Join(roots.Short, ".paddock")
	if name != Default {
		short += "-" + name
	}
	dir := filepath.Join(roots.Data, name)
	p := Paths{
		Instance: name,
		Dir:      dir,
		ShortDir: short,
		LogDir:   filepath.Join(roots.Log, name),
		LogFile:  filepath.Join(roots.Log, name, "paddock.log"),
		Socket:   filepath.Join(short, "paddock.sock"),
		LimaHome: filepath.Join(short, "lima"),
		DB:       filepath.Join(dir, "paddock.db"),
		PIDFile:  filepath.Join(dir, "paddock.pid"),
		LockFile: filepath.Join(dir, "paddock.lock"),
		Token:    filepath.Join(dir, "token"),
	}
	// Checked before the name takes an index for good.
	if err := checkSocketLength(roots, p); err != nil {
		return Paths{}, err
	}
	index, err := assignIndex(roots.Data, name)
	if err != nil {
		return Paths{}, err
	}
	p.Index, p.APIPort = index, basePort+index*portsPerInstance
	return p, nil
}

// checkSocketLength refuses an instance whose longest socket path is
// longer than the OS accepts, saying how long a name would fit.
func checkSocketLength(roots Roots, p Paths) error {
	longest := p.LongestSocket()
	if roots.MaxSocketPath <= 0 || len(longest) <= roots.MaxSocketPath {
		return nil
	}
	// A name other than default adds "-NAME" to the short directory.
	room := roots.MaxSocketPath - (len(longest) - len(p.Instance))
	if p.Instance == Default {
		room = roots.MaxSocketPath - len(longest) - len("-")
	}
	msg := fmt.Sprintf("instance %q: its socket paths would be too long: %s is %d bytes, and this OS takes at most %d",
		p.Instance, longest, len(longest), roots.MaxSocketPath)
	if room < 1 {
		return fmt.Errorf("%s even with a one-letter instance name: the directory %s is too long for sockets", msg, roots.Short)
	}
	return fmt.Errorf("%s: use an instance name of at most %d characters here", msg, room)
}

// MkdirAll creates the instance's directories, private to the user: the
// data directory holds every object, the log directory what the daemon
// says of them, and the short directory the API socket.
func (p Paths) MkdirAll() error {
	for _, d := range []string{p.Dir, p.LogDir, p.ShortDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// Keys lists the names under which Paths are printed, in a stable order.
func (p Paths) Keys() []string { return keys(p.Map()) }

// Map returns the paths by key, as `paddock service paths` prints them.
func (p Paths) Map() map[string]string {
	return map[string]string{
		"instance":  p.Instance,
		"index":     fmt.Sprint(p.Index),
		"dir":       p.Dir,
		"short_dir": p.ShortDir,
		"log_dir":   p.LogDir,
		"log_file":  p.LogFile,
		"socket":    p.Socket,
		"lima_home": p.LimaHome,
		"db":        p.DB,
		"pid_file":  p.PIDFile,
		"lock_file": p.LockFile,
		"token":     p.Token,
		"api_port":  fmt.Sprint(p.APIPort),
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// assignIndex returns name's index from the registry under dataRoot, adding
// the lowest free one if name has none. The default instance is always 0.
func assignIndex(dataRoot, name string) (int, error) {
	if name == Default {
		return 0, nil
	}
	if err := os.MkdirAll(dataRoot, 0o755); err != nil {
		return 0, err
	}
	lock := flock.New(filepath.Join(dataRoot, "instances.lock"))
	if err := lock.Lock(); err != nil {
		return 0, fmt.Errorf("lock instance registry: %w", err)
	}
	defer lock.Unlock()

	file := filepath.Join(dataRoot, "instances.json")
	registry := map[string]int{}
	data, err := os.ReadFile(file)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return 0, err
	default:
		if err := json.Unmarshal(data, &registry); err != nil {
			return 0, fmt.Errorf("instance registry %s is damaged: %w", file, err)
		}
	}
	if i, ok := registry[name]; ok {
		return i, nil
	}
	used := map[int]bool{0: true}
	for _, i := range registry {
		used[i] = true
	}
	index := 1
	for used[index] {
		index++
	}
	if index >= maxIndex {
		return 0, fmt.Errorf("too many instances: %d are registered in %s", len(registry), file)
	}
	registry[name] = index
	data, err = json.MarshalIndent(registry, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := atomicfile.WriteFile(file, append(data, '\n'), 0o644); err != nil {
		return 0, fmt.Errorf("record instance index: %w", err)
	}
	return index, nil
}
