package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock.dev/paddock/api"
	"paddock.dev/paddock/api/wire"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

const cmPath = "http://paddock/api/v1alpha1/namespaces/default/configmaps"

// A watch that starts with its listing completes while clients write to
// the objects it lists, however far the event log was trimmed past the
// states it listed (it was cut after about 512 objects with "the reader
// fell too far behind", though its reader read as fast as it could). Each
// object arrives as ADDED once, and ids only increase.
func TestWatchWithListingWhileOthersWrite(t *testing.T) {
	s := serveSocket(t, gormstore.Config{EventRetention: 100})
	const n = 3000
	ctx := context.Background()
	for i := range n {
		cm := &resource.ConfigMap{
			TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
			Metadata: resource.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i), Namespace: "default"},
		}
		if _, err := s.store.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
	}

	resp, err := s.client.Get("http://paddock/api/v1alpha1/configmaps?watch=true")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	stop := make(chan struct{})
	var writers sync.WaitGroup
	for range 2 {
		writers.Go(func() {
			c := unixClient(s.socket)
			for {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("cm-%04d", rand.IntN(n))
				req, _ := http.NewRequest(http.MethodPatch, cmPath+"/"+name, strings.NewReader(`{"data":{"n":"`+fmt.Sprint(rand.Int())+`"}}`))
				req.Header.Set("Content-Type", "application/merge-patch+json")
				resp, err := c.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	defer func() {
		close(stop)
		writers.Wait()
	}()

	added := map[string]bool{}
	last := int64(-1)
	bookmark := false
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			var rev int64
			fmt.Sscan(id, &rev)
			if rev < last {
				t.Fatalf("id %d after %d: ids must not go backwards", rev, last)
			}
			last = rev
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev wire.WatchEvent
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		var obj struct {
			Metadata resource.ObjectMeta `json:"metadata"`
		}
		json.Unmarshal(ev.Object, &obj)
		switch ev.Type {
		case wire.WatchError:
			t.Fatalf("the watch ended after %d objects: %s", len(added), ev.Object)
		case "BOOKMARK":
			if bookmark {
				continue
			}
			bookmark = true
			// The objects the listing left out come with their first
			// change: make sure each has one.
			for i := range n {
				if name := fmt.Sprintf("cm-%04d", i); !added[name] {
					if _, err := s.store.Patch(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: name}, []byte(`{"data":{"after":"bookmark"}}`)); err != nil {
						t.Fatal(err)
					}
				}
			}
		case "ADDED":
			if added[obj.Metadata.Name] {
				t.Fatalf("%s ADDED twice", obj.Metadata.Name)
			}
			added[obj.Metadata.Name] = true
			if len(added) == n {
				if !bookmark {
					t.Fatalf("the stream has no BOOKMARK after its listing")
				}
				return
			}
		}
	}
	t.Fatalf("the stream ended after %d of %d objects: %v", len(added), n, sc.Err())
}

// A watcher that stops reading is ended between events: it gets every
// event it was sent whole, then an ERROR event that says why (it was cut
// off in the middle of an event, with no ERROR event).
func TestStalledWatcherEndsBetweenEvents(t *testing.T) {
	api.SetStreamBounds(t, time.Second, time.Minute)
	s := serveSocket(t, gormstore.Config{})
	conn, err := net.Dial("unix", s.socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprint(conn, "GET /api/v1alpha1/namespaces/default/configmaps?watch=true HTTP/1.1\r\nHost: paddock\r\n\r\n")
	r := bufio.NewReaderSize(conn, 64<<10)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	// Far more than the socket's buffers hold, while nothing is read.
	big := strings.Repeat("x", 900<<10)
	for i := range 8 {
		cm := &resource.ConfigMap{
			TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
			Metadata: resource.ObjectMeta{Name: fmt.Sprintf("big-%d", i), Namespace: "default"},
			Data:     map[string]string{"k": big},
		}
		if _, err := s.store.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(3 * time.Second)

	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var last wire.WatchEvent
	events := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if err := json.Unmarshal([]byte(data), &last); err != nil {
			t.Fatalf("event %d is cut off: %v", events+1, err)
		}
		events++
	}
	if last.Type != wire.WatchError || !strings.Contains(string(last.Object), "took more than 1s to take one event") {
		t.Fatalf("the stream ended after %d events with %s %s, want an ERROR event saying the reader stalled", events, last.Type, last.Object)
	}
}
