package lima

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"paddock.dev/paddock/core/resource"
)

// ParseSnapshots reads the snapshot table Lima's snapshot list prints:
// `qemu-img snapshot -l` for a stopped machine, QEMU's monitor command
// `info snapshots` for a running one (carriage returns, headings and
// "There is no snapshot available." may remain). Both are one row per
// snapshot under a heading "ID TAG VM SIZE DATE VM CLOCK [ICOUNT]":
//
//	1         s1                    0 B 2026-12-04 18:47:46 00:00:00.000          0
//	--        s1               0.996 MiB 2026-12-04 18:47:57 00:00:00.000
//
// Dates are in loc, the time zone of the QEMU that wrote them. A
// monitor's "List of partial (non-loadable) snapshots" section is
// skipped: those cannot be applied.
func ParseSnapshots(out string, loc *time.Location) ([]resource.VMSnapshot, error) {
	var snaps []resource.VMSnapshot
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r", ""), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "ID ") && strings.Contains(line, "TAG"),
			strings.HasPrefix(line, "Snapshot list:"), strings.HasPrefix(line, "List of snapshots present"),
			strings.HasPrefix(line, "There is no snapshot"), strings.HasPrefix(line, "(qemu)"):
			continue
		case strings.HasPrefix(line, "List of partial"):
			return snaps, nil
		}
		s, err := parseSnapshotRow(line, loc)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, s)
	}
	return snaps, nil
}

var snapshotDateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// parseSnapshotRow reads one row: ID, TAG (which may hold spaces when
// someone made it outside Paddock), SIZE UNIT (or one token such as
// "1.2G" from older QEMUs), DATE TIME, VM CLOCK and an optional ICOUNT.
func parseSnapshotRow(line string, loc *time.Location) (resource.VMSnapshot, error) {
	f := strings.Fields(line)
	k := -1
	for i := 2; i < len(f); i++ {
		if snapshotDateRE.MatchString(f[i]) {
			k = i
			break
		}
	}
	if k < 0 || k+2 >= len(f) {
		return resource.VMSnapshot{}, fmt.Errorf("unexpected line in QEMU's snapshot list: %q", line)
	}
	sizeStart, size := k-1, f[k-1]
	if _, ok := sizeUnits[f[k-1]]; ok && k-2 >= 2 {
		sizeStart, size = k-2, f[k-2]+" "+f[k-1]
	}
	if sizeStart < 2 {
		return resource.VMSnapshot{}, fmt.Errorf("unexpected line in QEMU's snapshot list (no tag): %q", line)
	}
	bytes, err := parseQEMUSize(size)
	if err != nil {
		return resource.VMSnapshot{}, fmt.Errorf("unexpected size in QEMU's snapshot list: %q: %w", line, err)
	}
	created, err := time.ParseInLocation(time.DateTime, f[k]+" "+f[k+1], loc)
	if err != nil {
		return resource.VMSnapshot{}, fmt.Errorf("unexpected date in QEMU's snapshot list: %q: %w", line, err)
	}
	return resource.VMSnapshot{
		Tag:     strings.Join(f[1:sizeStart], " "),
		Size:    bytes,
		Created: created,
		VMClock: f[k+2],
	}, nil
}

// sizeUnits are the units QEMU prints sizes in (size_to_str), and the
// single letters older ones used.
var sizeUnits = map[string]float64{
	"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60,
}

var shortUnits = map[byte]float64{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}

// parseQEMUSize reads "0 B", "0.996 MiB", or an older QEMU's "1.2G" or "0".
func parseQEMUSize(s string) (int64, error) {
	num, unit, found := strings.Cut(s, " ")
	mult := 1.0
	if found {
		m, ok := sizeUnits[unit]
		if !ok {
			return 0, fmt.Errorf("unknown unit %q", unit)
		}
		mult = m
	} else if n := len(num); n > 0 {
		if m, ok := shortUnits[num[n-1]]; ok {
			num, mult = num[:n-1], m
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("not a size: %q", s)
	}
	return int64(math.Round(v * mult)), nil
}
