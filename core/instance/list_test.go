package instance_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock.dev/paddock/core/instance"
)

// Forget takes an instance out of the registry, which 'paddock list'
// reads, and frees its index; the last one forgotten takes the registry
// and its lock file with it.
func TestForgetFreesTheIndex(t *testing.T) {
	r := roots(t)
	dev, err := instance.Resolve(r, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := instance.Resolve(r, "qa"); err != nil {
		t.Fatal(err)
	}
	if err := instance.Forget(r, "dev"); err != nil {
		t.Fatal(err)
	}
	if names, err := instance.List(r); err != nil || !slices.Equal(names, []string{"qa"}) {
		t.Fatalf("List after Forget(dev) = %v, %v; want [qa]", names, err)
	}
	again, err := instance.Resolve(r, "new")
	if err != nil || again.Index != dev.Index {
		t.Fatalf("a new instance got index %d (%v), want dev's freed %d", again.Index, err, dev.Index)
	}
	for _, name := range []string{"new", "qa", "qa", instance.Default} {
		if err := instance.Forget(r, name); err != nil {
			t.Fatalf("Forget(%s): %v", name, err)
		}
	}
	for _, f := range []string{"instances.json", "instances.lock"} {
		if _, err := os.Stat(filepath.Join(r.Data, f)); !os.IsNotExist(err) {
			t.Errorf("%s stays with no instance registered: %v", f, err)
		}
	}
	if err := instance.Forget(r, "../x"); err == nil {
		t.Error("Forget took an invalid name")
	}
}
