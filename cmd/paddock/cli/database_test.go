package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// The daemon keeps its objects where --database says, and finds them there
// after a restart: another SQLite file, or PostgreSQL (PADDOCK_TEST_POSTGRES,
// which CI sets; required with PADDOCK_E2E=1).
func TestDaemonDatabaseIsAConfiguration(t *testing.T) {
	databases := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "elsewhere.db")}
	if dsn := os.Getenv("PADDOCK_TEST_POSTGRES"); dsn != "" {
		databases["postgres"] = storetest.PostgresSchema(t, dsn)
	} else if os.Getenv("PADDOCK_E2E") == "1" {
		t.Fatal("PADDOCK_E2E=1 needs PADDOCK_TEST_POSTGRES, a PostgreSQL database to test the daemon on: .ci/test starts one and sets it")
	} else {
		t.Log("PostgreSQL not tested: set PADDOCK_TEST_POSTGRES=postgres://USER:PASSWORD@HOST/DB to include it")
	}
	for name, address := range databases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "default")
			d := e.serve("--database", address)
			call(t, d.http, "POST", cmPath, "application/json", `{"apiVersion":"paddock.dev/v1alpha1","kind":"ConfigMap","metadata":{"name":"kept"}}`)
			if code := d.stop(t, syscall.SIGTERM); code != 0 {
				t.Fatalf("exit %d: %s", code, d.log)
			}
			if _, err := os.Stat(e.path("db")); !os.IsNotExist(err) {
				t.Fatal("the daemon wrote the instance's own database file too")
			}
			d = e.serve("--database", address)
			if status, _, _ := call(t, d.http, "GET", cmPath+"/kept", "", ""); status != 200 {
				t.Fatalf("object not found after a restart on %s: %d", name, status)
			}
		})
	}
	e := newEnv(t, "default")
	_, errOut, code := e.run("", "serve", "--database", "mysql://x")
	if code != 2 || !strings.Contains(errOut, "unsupported database") {
		t.Fatalf("unknown database: exit %d %q", code, errOut)
	}
}
