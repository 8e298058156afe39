package gormstore

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// A commit that the database fails (a full file, as a full disk fails it)
// fails the write staged behind it too, which was checked against it:
// neither object changes, the revision does not move, no watcher hears of
// either, and the next write takes the next revision. The test holds the
// first commit's first statement until the second write is staged.
func TestAFailedCommitFailsTheWriteStagedBehindIt(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "paddock.db")
	s, err := Open(ctx, Config{Dialector: SQLite(file)})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := s.Create(ctx, testConfigMap(name, "v0")); err != nil {
			t.Fatal(err)
		}
	}
	before := s.Revision()
	w, err := s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: before})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	var armed atomic.Bool
	entered, release := make(chan struct{}), make(chan struct{})
	if err := s.db.Callback().Raw().Before("gorm:raw").Register("test:hold", func(*gorm.DB) {
		if armed.CompareAndSwap(true, false) {
			close(entered)
			<-release
		}
	}); err != nil {
		t.Fatal(err)
	}
	var pages int
	s.db.Raw("PRAGMA page_count").Scan(&pages)
	s.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages))
	armed.Store(true)

	big := strings.Repeat("x", 256<<10) // needs pages the file cannot grow by
	errA := make(chan error, 1)
	go func() {
		_, err := s.Patch(ctx, resource.KeyOf(testConfigMap("a", "")), []byte(`{"data":{"v":"`+big+`"}}`))
		errA <- err
	}()
	<-entered
	errB := make(chan error, 1)
	go func() {
		_, err := s.Patch(ctx, resource.KeyOf(testConfigMap("b", "")), []byte(`{"data":{"v":"v1"}}`))
		errB <- err
	}()
	waitFor(t, "b's write to be staged", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.open != nil
	})
	close(release)

	for name, ch := range map[string]chan error{"a": errA, "b": errB} {
		err := <-ch
		if resource.ReasonOf(err) != resource.ReasonInsufficientStorage || !strings.Contains(err.Error(), file) {
			t.Errorf("write of %s: %v; want InsufficientStorage naming %s", name, err, file)
		}
		if name == "b" && !strings.Contains(err.Error(), "a write committed just before this one failed") {
			t.Errorf("write of b: %v; want it to say the write before it failed", err)
		}
	}
	if got := s.Revision(); got != before {
		t.Fatalf("revision %d after two failed writes, want %d", got, before)
	}
	for _, name := range []string{"a", "b"} {
		obj, err := s.Get(ctx, resource.KeyOf(testConfigMap(name, "")))
		if err != nil {
			t.Fatal(err)
		}
		if v := obj.(*resource.ConfigMap).Data["v"]; v != "v0" {
			t.Errorf("%s holds %.20q after its write failed, want v0", name, v)
		}
	}

	s.db.Exec("PRAGMA max_page_count = 1000000")
	out, err := s.Patch(ctx, resource.KeyOf(testConfigMap("b", "")), []byte(`{"data":{"v":"v2"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := formatRevision(before + 1); out.GetMeta().ResourceVersion != want {
		t.Fatalf("the next write took revision %s, want %s", out.GetMeta().ResourceVersion, want)
	}
	next, err := w.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if next.Type == store.Bookmark {
		if next, err = w.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if next.Revision != before+1 || next.Key.Name != "b" || !strings.Contains(string(next.Object), `"v2"`) {
		t.Fatalf("the watch's first event is %s %s at %d: %.80s; want b's write of v2 at %d",
			next.Type, next.Key.Name, next.Revision, next.Object, before+1)
	}
}

func testConfigMap(name, v string) *resource.ConfigMap {
	return &resource.ConfigMap{TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
		Metadata: resource.ObjectMeta{Name: name, Namespace: resource.DefaultNamespace}, Data: map[string]string{"v": v}}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
