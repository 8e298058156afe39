package lima_test

import (
	"testing"
	"time"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/platform/lima"
)

// Lima's snapshot list prints what QEMU does, in two forms: qemu-img's
// table for a stopped machine and the monitor's `info snapshots` for a
// running one. These were recorded from QEMU 7.2.
func TestParseSnapshots(t *testing.T) {
	loc := time.FixedZone("here", 3600)
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation(time.DateTime, s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		name, out string
		want      []resource.VMSnapshot
	}{{
		name: "qemu-img, as Lima passes it on",
		out: "ID        TAG               VM SIZE                DATE     VM CLOCK     ICOUNT\n" +
			"1         s1                    0 B 2026-12-04 18:47:46 00:00:00.000          0\n" +
			"2         my.tag-2              0 B 2026-12-04 18:47:46 00:00:00.000          0\n",
		want: []resource.VMSnapshot{
			{Tag: "s1", Created: at("2026-12-04 18:47:46"), VMClock: "00:00:00.000"},
			{Tag: "my.tag-2", Created: at("2026-12-04 18:47:46"), VMClock: "00:00:00.000"},
		},
	}, {
		name: "qemu-img with its heading",
		out:  "Snapshot list:\nID        TAG               VM SIZE                DATE     VM CLOCK     ICOUNT\n1         s1                    0 B 2026-12-04 18:47:46 00:00:00.000          0\n",
		want: []resource.VMSnapshot{{Tag: "s1", Created: at("2026-12-04 18:47:46"), VMClock: "00:00:00.000"}},
	}, {
		name: "qemu-img, no snapshots",
		out:  "",
	}, {
		name: "monitor, as Lima passes it on",
		out: "ID        TAG               VM SIZE                DATE     VM CLOCK     ICOUNT\n" +
			"--        disk-only             0 B 2026-12-04 18:47:50 00:00:00.000          0\n" +
			"--        s1               0.996 MiB 2026-12-04 18:48:00 00:00:00.000           \n",
		want: []resource.VMSnapshot{
			{Tag: "disk-only", Created: at("2026-12-04 18:47:50"), VMClock: "00:00:00.000"},
			{Tag: "s1", Size: 1044382, Created: at("2026-12-04 18:48:00"), VMClock: "00:00:00.000"},
		},
	}, {
		name: "monitor, raw",
		out: "List of snapshots present on all disks:\r\nID        TAG               VM SIZE                DATE     VM CLOCK     ICOUNT\r\n" +
			"--        booted           312 MiB 2026-12-04 19:02:11 00:01:12.250           \r\n" +
			"\r\nList of partial (non-loadable) snapshots on 'virtio0':\r\n" +
			"ID        TAG               VM SIZE                DATE     VM CLOCK     ICOUNT\r\n" +
			"1         half                  0 B 2026-12-04 18:47:50 00:00:00.000          0\r\n",
		want: []resource.VMSnapshot{{Tag: "booted", Size: 312 << 20, Created: at("2026-12-04 19:02:11"), VMClock: "00:01:12.250"}},
	}, {
		name: "monitor, none",
		out:  "There is no snapshot available.\r\n",
	}, {
		name: "an older QEMU's sizes, a tag with a space",
		out: "ID        TAG                 VM SIZE                DATE       VM CLOCK\n" +
			"1         made by hand           1.5G 2019-01-02 03:04:05   00:00:10.000\n",
		want: []resource.VMSnapshot{{Tag: "made by hand", Size: 3 << 29, Created: at("2019-01-02 03:04:05"), VMClock: "00:00:10.000"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lima.ParseSnapshots(tc.out, loc)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i].Tag != tc.want[i].Tag || got[i].Size != tc.want[i].Size || !got[i].Created.Equal(tc.want[i].Created) || got[i].VMClock != tc.want[i].VMClock {
					t.Errorf("snapshot %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// A line that is no snapshot row is an error, not a snapshot lost.
func TestParseSnapshotsRejectsGarbage(t *testing.T) {
	for _, out := range []string{"Error: something went wrong\n", "1 s1 12 XB 2026-12-04 18:47:46 00:00:00.000\n"} {
		if got, err := lima.ParseSnapshots(out, time.UTC); err == nil {
			t.Errorf("ParseSnapshots(%q) = %+v, want an error", out, got)
		}
	}
}
