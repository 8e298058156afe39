//go:build linux

package lima_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// mountBenchScript runs each workload on the guest's own disk and on the
// shared folder, as root, with the guest's caches dropped first, and
// prints "WORKLOAD WHERE MILLISECONDS" lines. git is the host's binary
// (the guest image carries none; both are Debian 12's), and git status
// runs once untimed in each place first: a copy's index holds other
// inode numbers, which the first run refreshes.
const mountBenchScript = `set -eu
shared=$1
own=/var/tmp/paddock-bench
rm -rf "$own" && mkdir -p "$own"
cp -R "$shared/tree" "$shared/repo" "$own/"
install -m 755 "$shared/bin/git" /usr/local/bin/git
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
timed() {
	name=$1 where=$2
	shift 2
	drop
	start=$(date +%s%N)
	"$@"
	end=$(date +%s%N)
	echo "$name $where $(((end - start) / 1000000))"
}
for where in own shared; do
	if [ "$where" = own ]; then d=$own; else d=$shared; fi
	timed write "$where" dd if=/dev/zero of="$d/big" bs=1M count=256 conv=fsync status=none
	timed read "$where" dd if="$d/big" of=/dev/null bs=1M status=none
	rm -f "$d/big"
	timed tar "$where" sh -c "tar -C '$d' -cf - tree | cat >/dev/null"
	git -c safe.directory='*' -C "$d/repo" status >/dev/null
	timed git-status "$where" sh -c "git -c safe.directory='*' -C '$d/repo' status >/dev/null"
done
rm -rf "$own"
`

// mountWorkloads are the benchmark's workloads, in the order it reports
// them.
var mountWorkloads = []string{"write", "read", "tar", "git-status"}

// BenchmarkMounts measures a host folder shared by 9p and by reverse-sshfs,
// on the same files in one run: a sequential write and read of a 256 MiB
// file, tar -c of a tree of 10,000 small files, and git status in a clone
// of this repository. Each is timed on the shared folder and on the
// guest's own disk; the ratio shared/own says what sharing costs. One VM
// per mount type, one after the other, so that they do not share the
// host's cores. Under TCG on a busy 2-core host the 9p VM took 10
// minutes, most of it copying the files to the guest's disk, and the
// reverse-sshfs VM more than 30 (its tar of the tree alone more than 10):
//
//	PADDOCK_E2E=1 go test -run '^$' -bench Mounts -benchtime 1x -timeout 150m ./platform/lima
func BenchmarkMounts(b *testing.B) {
	e := setupE2E(b)
	shared := mountBenchFiles(b)
	for _, mountType := range []string{"9p", "reverse-sshfs"} {
		b.Run(mountType, func(b *testing.B) {
			name := "mnt-" + strings.TrimPrefix(mountType, "reverse-")
			tmpl := strings.Replace(string(e.template(b, "")), "\nmounts: []\n",
				fmt.Sprintf("\nmountType: %s\nmounts:\n- location: %q\n  writable: true\n", mountType, shared), 1)
			createCommitted(b, e.driver, name, []byte(tmpl))
			startAll(b, e.driver, []string{name})
			defer func() {
				if err := e.driver.Stop(context.Background(), name, stopGrace); err != nil {
					b.Error(err)
				}
			}()
			ms := map[string]float64{}
			for range b.N {
				out := e.sshLong(b, name, 120*time.Minute, "sudo", "sh", "-c", mountBenchScript, "bench", shared)
				sc := bufio.NewScanner(strings.NewReader(out))
				for sc.Scan() {
					f := strings.Fields(sc.Text())
					if len(f) != 3 {
						continue
					}
					v, err := strconv.ParseFloat(f[2], 64)
					if err != nil {
						b.Fatalf("bench output %q: %v", sc.Text(), err)
					}
					ms[f[0]+"/"+f[1]] += v
				}
			}
			n := float64(b.N)
			for _, w := range mountWorkloads {
				own, sh := ms[w+"/own"]/n/1000, ms[w+"/shared"]/n/1000
				if own == 0 || sh == 0 {
					b.Fatalf("no figures for %s: %v", w, ms)
				}
				b.ReportMetric(own, w+"-own-s")
				b.ReportMetric(sh, w+"-shared-s")
				b.ReportMetric(sh/own, w+"-ratio")
				b.Logf("%-10s %-13s own disk %7.2f s  shared %7.2f s  ratio %6.2f", w, mountType, own, sh, sh/own)
			}
		})
	}
}

// mountBenchFiles makes the shared folder's files on the host: a tree of
// 10,000 small files (100 folders of 100 files, 1-4 KiB), a clone of this
// repository, and the host's git.
func mountBenchFiles(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	for i := range 100 {
		sub := filepath.Join(dir, "tree", fmt.Sprintf("d%02d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for j := range 100 {
			data := []byte(strings.Repeat(fmt.Sprintf("line %d of file %d\n", j, i), 64+(i*j)%192))
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%02d.txt", j)), data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	ctx := context.Background()
	root, err := output(ctx, "", "go", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := output(ctx, "", "git", "clone", "-q", "--no-hardlinks", root, filepath.Join(dir, "repo")); err != nil {
		b.Fatal(err)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(git)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", "git"), data, 0o755); err != nil {
		b.Fatal(err)
	}
	return dir
}

// sshLong is ssh with its own timeout, for commands that take minutes.
func (e *e2e) sshLong(tb testing.TB, name string, timeout time.Duration, command ...string) string {
	tb.Helper()
	inst, err := e.driver.Describe(name)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	quoted := make([]string, len(command))
	for i, c := range command {
		quoted[i] = "'" + strings.ReplaceAll(c, "'", `'\''`) + "'"
	}
	out, err := output(ctx, "", "ssh", "-F", inst.SSHConfigFile, inst.Hostname, "--", strings.Join(quoted, " "))
	if err != nil {
		tb.Fatal(err)
	}
	return out
}
