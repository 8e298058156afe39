package gormstore_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
	"paddock.dev/paddock/core/store/gormstore/storetest"
)

// Writers at once commit in groups. Every acknowledged write has a
// revision of its own, a watch sees every write once, in revision order
// with no gap, each with the object its writer was answered with, and the
// database holds each object's last write after a reopen.
func TestConcurrentWritesCommitInOrderWithoutGaps(t *testing.T) {
	address := storetest.Database(t)
	s := openStore(t, address)
	ctx := context.Background()
	const writers, writes = 8, 40
	for i := range writers {
		mustCreate(t, s, configMap("default", fmt.Sprintf("w%d", i), nil))
	}
	from := s.Revision()
	w, err := s.Watch(ctx, store.WatchOptions{ListOptions: store.ListOptions{Kind: resource.KindConfigMap}, ResourceVersion: from})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	answered := make([][]string, writers) // each writer's answers' resourceVersions
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			key := resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("w%d", i)}
			for j := range writes {
				var out resource.Object
				var err error
				if i%2 == 0 {
					out, err = s.Patch(ctx, key, []byte(`{"data":{"j":"`+strconv.Itoa(j)+`"}}`))
				} else {
					out, err = s.Update(ctx, configMap("default", key.Name, map[string]string{"j": strconv.Itoa(j)}))
				}
				if err != nil {
					t.Error(err)
					return
				}
				answered[i] = append(answered[i], out.GetMeta().ResourceVersion)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}

	seen := map[int64]store.Event{}
	want := from + writers*writes
	for last := from; last < want; {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		ev, err := w.Next(ctx)
		cancel()
		if err != nil {
			t.Fatalf("after revision %d of %d: %v", last, want, err)
		}
		if ev.Type == store.Bookmark {
			continue
		}
		if ev.Revision != last+1 {
			t.Fatalf("event at revision %d follows %d: want each revision once, in order", ev.Revision, last)
		}
		last = ev.Revision
		seen[ev.Revision] = ev
	}
	for i, revs := range answered {
		for j, rv := range revs {
			rev, _ := strconv.ParseInt(rv, 10, 64)
			ev, ok := seen[rev]
			if !ok || ev.Key.Name != fmt.Sprintf("w%d", i) {
				t.Fatalf("w%d's write %d was answered with revision %s, which the watch saw as %s", i, j, rv, ev.Key.Name)
			}
			if want := fmt.Sprintf(`"j":"%d"`, j); !strings.Contains(string(ev.Object), want) {
				t.Fatalf("the event of w%d's write %d holds %s, want %s", i, j, ev.Object, want)
			}
		}
	}

	s.Close()
	again := openStore(t, address)
	for i := range writers {
		obj, err := again.Get(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("w%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := obj.(*resource.ConfigMap).Data["j"], strconv.Itoa(writes-1); got != want {
			t.Errorf("w%d holds j=%s after a reopen, want %s", i, got, want)
		}
	}
}

// BenchmarkPatch8Writers measures the store's writes with 8 writers at
// once, each patching an object of its own, as the daemon's API serves
// them (BenchmarkWrites8Clients measures them through the API).
func BenchmarkPatch8Writers(b *testing.B) {
	s := openStore(b, storetest.Database(b))
	ctx := context.Background()
	const writers = 8
	for i := range writers {
		mustCreate(b, s, configMap("default", fmt.Sprintf("w%d", i), nil))
	}
	b.ResetTimer()
	start := time.Now()
	per := max(b.N/writers, 1)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			key := resource.Key{Kind: "ConfigMap", Namespace: "default", Name: fmt.Sprintf("w%d", i)}
			for j := range per {
				if _, err := s.Patch(ctx, key, []byte(`{"data":{"j":"`+strconv.Itoa(j)+`"}}`)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(per*writers)/time.Since(start).Seconds(), "writes/s")
}
