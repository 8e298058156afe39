//go:build linux

package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock.dev/paddock/cmd/paddock/paddocktest"
	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store/gormstore"
)

// BenchmarkStartMemory starts the daemon on a database of about 130 MB
// (100 ConfigMaps of 900 KB, each written three times, so that the event
// log holds its full share too) and reports its peak RSS from start to
// settled against its settled RSS: start-up must not hold the database in
// memory whole.
func BenchmarkStartMemory(b *testing.B) {
	e := benchEnv(b)
	db := e.path("db")
	fillLarge(b, db, 100, 3, 900_000)
	size := dbSize(b, db)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, c := startServe(b, e, e.path("socket"))
		c.CloseIdleConnections()
		time.Sleep(10 * time.Second) // start-up's work ends and its memory goes back
		b.StopTimer()
		pid := cmd.Process.Pid
		peak := paddocktest.StatusKiB(b, pid, "VmHWM")
		settled := paddocktest.StatusKiB(b, pid, "VmRSS")
		b.ReportMetric(float64(peak)/1024, "peak-RSS-MiB")
		b.ReportMetric(float64(settled)/1024, "settled-RSS-MiB")
		b.ReportMetric(float64(peak)/float64(settled), "peak/settled")
		b.ReportMetric(float64(size)/(1<<20), "database-MiB")
		stopServe(cmd)
		b.StartTimer()
	}
}

// fillLarge writes n ConfigMaps of size bytes of data into the database
// at path, each writes times.
func fillLarge(b testing.TB, path string, n, writes, size int) {
	os.MkdirAll(filepath.Dir(path), 0o755)
	st, err := gormstore.Open(context.Background(), gormstore.Config{Dialector: gormstore.SQLite(path)})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	for w := range writes {
		data := strings.Repeat(string(rune('a'+w)), size)
		for i := range n {
			cm := &resource.ConfigMap{
				TypeMeta: resource.TypeMeta{APIVersion: resource.APIVersion, Kind: "ConfigMap"},
				Metadata: resource.ObjectMeta{Name: fmt.Sprintf("big-%03d", i)},
				Data:     map[string]string{"k": data},
			}
			if w == 0 {
				_, err = st.Create(ctx, cm)
			} else {
				var old resource.Object
				if old, err = st.Get(ctx, resource.Key{Kind: "ConfigMap", Namespace: "default", Name: cm.Metadata.Name}); err == nil {
					cm.Metadata = *old.GetMeta()
					_, err = st.Update(ctx, cm)
				}
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
