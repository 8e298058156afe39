package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// gormPackages is the one subtree of core that may import gorm: the
// store's implementation, apart from the Store interface.
const gormPackages = "paddock.dev/paddock/core/store/gormstore"

// forbidden says why core must not import path, or "" when it may. The
// core reaches the host only through interfaces implemented under
// platform/, and speaks neither HTTP nor Lima.
func forbidden(pkg, path string) string {
	switch {
	case path == "net/http" || strings.HasPrefix(path, "net/http/"):
		return "HTTP is the api package's"
	case strings.HasPrefix(path, "github.com/lima-vm/"):
		return "Lima is driven from platform/lima"
	case strings.HasPrefix(path, "gorm.io/") && pkg != gormPackages && !strings.HasPrefix(pkg, gormPackages+"/"):
		return "only the store's implementation, " + gormPackages + ", imports gorm"
	}
	for _, outer := range []string{"platform", "api", "app", "cmd"} {
		if p := "paddock.dev/paddock/" + outer; path == p || strings.HasPrefix(path, p+"/") {
			return "core imports nothing of " + outer + "/: it declares what it needs as interfaces"
		}
	}
	return ""
}

// The rules of core's doc comment, checked on every package under core,
// with its tests, as each OS builds it.
func TestCoreImportsNoHTTPLimaGormOrPlatform(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("this test lists packages with the go command: %v", err)
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(gobin, "list", "-json=ImportPath,Imports,TestImports,XTestImports", "paddock.dev/paddock/core/...")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v", goos, err)
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		n := 0
		for {
			var p struct {
				ImportPath                         string
				Imports, TestImports, XTestImports []string
			}
			if err := dec.Decode(&p); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("GOOS=%s go list's output: %v", goos, err)
			}
			n++
			for _, imports := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
				for _, path := range imports {
					if why := forbidden(p.ImportPath, path); why != "" {
						t.Errorf("GOOS=%s: %s imports %s: %s", goos, p.ImportPath, path, why)
					}
				}
			}
		}
		if n < 10 {
			t.Fatalf("GOOS=%s: go list found %d packages under core; expected the whole tree", goos, n)
		}
	}
}

// The rule itself, so that a mistake in it cannot pass every package.
func TestForbidden(t *testing.T) {
	cases := []struct {
		pkg, path string
		bad       bool
	}{
		{"paddock.dev/paddock/core/vm", "net/http", true},
		{"paddock.dev/paddock/core/vm", "net/http/httptest", true},
		{"paddock.dev/paddock/core/vm", "github.com/lima-vm/lima/pkg/store", true},
		{"paddock.dev/paddock/core/app", "paddock.dev/paddock/platform/host", true},
		{"paddock.dev/paddock/core/app", "paddock.dev/paddock/api/client", true},
		{"paddock.dev/paddock/core/store", "gorm.io/gorm", true},
		{"paddock.dev/paddock/core/store/gormstore", "gorm.io/gorm", false},
		{"paddock.dev/paddock/core/store/gormstore/storetest", "gorm.io/driver/postgres", false},
		{"paddock.dev/paddock/core/store/gormstorex", "gorm.io/gorm", true},
		{"paddock.dev/paddock/core/vm", "paddock.dev/paddock/core/store", false},
		{"paddock.dev/paddock/core/vm", "net", false},
		{"paddock.dev/paddock/core/app", "paddock.dev/paddock/platformx", false},
	}
	for _, c := range cases {
		if got := forbidden(c.pkg, c.path) != ""; got != c.bad {
			t.Errorf("forbidden(%s, %s) = %v, want %v", c.pkg, c.path, got, c.bad)
		}
	}
}
