package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// The stores in testdata are dockerd 20.10.24's (Debian 12's docker.io),
// taken in a guest of the image with a user network "expnet" and a
// container on each network: stopped.db after `systemctl stop docker`,
// killed.db after a kill -9 of dockerd with both containers running.
const (
	bridgeID = "e05bf19a2d5b31e1c8a42866d5c4143c2d5d1f7b735541b142967e04ee30b443"
	expnetID = "6f21baaa6a0ac2e0f48591a4fca8fd66c3a5bddab994c0ce521b5ec9d44191e9"
)

func TestRemovesTheStoppedDefaultBridgeAlone(t *testing.T) {
	path := storeCopy(t, "stopped.db")
	before := keys(t, path)
	did, err := run(path, filepath.Join(t.TempDir(), "docker0"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(did, "removed the stored default bridge "+bridgeID[:12]) {
		t.Errorf("run said %q", did)
	}
	var want []string
	for _, k := range before {
		if !strings.Contains(k, bridgeID) {
			want = append(want, k)
		}
	}
	if got := keys(t, path); !slices.Equal(got, want) {
		t.Errorf("keys after: %q\nwant %q", got, want)
	}
	if len(want) != len(before)-3 || !slices.ContainsFunc(want, func(k string) bool { return strings.Contains(k, "network/"+expnetID) }) {
		t.Errorf("keys before %q, after %q: want the bridge's three records gone and expnet's kept", before, want)
	}
	did, err = run(path, filepath.Join(t.TempDir(), "docker0"))
	if err != nil || did != "the store holds no default bridge" {
		t.Errorf("the second run said %q, %v", did, err)
	}
}

func TestLeavesABridgeWithEndpoints(t *testing.T) {
	path := storeCopy(t, "killed.db")
	before := keys(t, path)
	did, err := run(path, filepath.Join(t.TempDir(), "docker0"))
	if err != nil || !strings.Contains(did, "has endpoints") {
		t.Errorf("run said %q, %v", did, err)
	}
	if got := keys(t, path); !slices.Equal(got, before) {
		t.Errorf("keys after: %q\nwant them as they were: %q", got, before)
	}
}

func TestLeavesTheStoreOnceDockerdRan(t *testing.T) {
	path := storeCopy(t, "stopped.db")
	before, _ := os.ReadFile(path)
	iface := filepath.Join(t.TempDir(), "docker0")
	if err := os.Mkdir(iface, 0o755); err != nil {
		t.Fatal(err)
	}
	did, err := run(path, iface)
	if err != nil || !strings.Contains(did, "left alone") {
		t.Errorf("run said %q, %v", did, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Error("the store changed")
	}
}

func TestNoStoreYet(t *testing.T) {
	did, err := run(filepath.Join(t.TempDir(), "local-kv.db"), filepath.Join(t.TempDir(), "docker0"))
	if err != nil || did != "no network store yet" {
		t.Errorf("run said %q, %v", did, err)
	}
}

func TestAStoreThatIsNoStoreFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "local-kv.db")
	if err := os.WriteFile(path, []byte("not a bolt file"), 0o600); err != nil {
		t.Fatal(err)
	}
	if did, err := run(path, filepath.Join(t.TempDir(), "docker0")); err == nil {
		t.Errorf("run said %q and no error", did)
	}
}

func storeCopy(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "local-kv.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func keys(t *testing.T, path string) []string {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ks []string
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucket)).ForEach(func(k, _ []byte) error {
			ks = append(ks, string(k))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ks
}
