package gormstore_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"paddock.dev/paddock/core/resource"
)

// Many writers patch one object, each with the resourceVersion it read as a
// precondition. Every write must be applied exactly once or refused with
// Conflict: the final counter equals the number of successful writes.
func TestConcurrentPatchesWithPreconditions(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	cm := mustCreate(t, s, configMap("default", "counter", map[string]string{"n": "0"}))
	key := resource.KeyOf(cm)

	const writers, attempts = 16, 25
	var mu sync.Mutex
	applied, conflicts := 0, 0
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Go(func() {
			for i := 0; i < attempts; i++ {
				cur, err := s.Get(ctx, key)
				if err != nil {
					t.Error(err)
					return
				}
				c := cur.(*resource.ConfigMap)
				n, _ := strconv.Atoi(c.Data["n"])
				patch := `{"metadata":{"resourceVersion":"` + c.Metadata.ResourceVersion + `"},"data":{"n":"` + strconv.Itoa(n+1) + `"}}`
				_, err = s.Patch(ctx, key, []byte(patch))
				mu.Lock()
				switch {
				case err == nil:
					applied++
				case resource.IsConflict(err):
					conflicts++
				default:
					t.Errorf("unexpected error: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()

	final, err := s.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(final.(*resource.ConfigMap).Data["n"])
	if n != applied {
		t.Fatalf("counter is %d but %d writes succeeded: a write was lost or applied twice", n, applied)
	}
	if applied+conflicts != writers*attempts {
		t.Fatalf("%d applied + %d conflicts != %d attempts", applied, conflicts, writers*attempts)
	}
	if applied == 0 {
		t.Fatal("no write succeeded")
	}
	t.Logf("%d applied, %d conflicts", applied, conflicts)
}
