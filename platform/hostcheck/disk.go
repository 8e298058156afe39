package hostcheck

import "fmt"

// Disk is the free space under one of the instance's directories.
type Disk struct {
	Dir  string
	Free uint64 // bytes available to the user
	Err  string // why the free space is unknown
}

// Free space the App's VM needs: its image and the disk that grows as the
// guest writes. Below minFree it cannot start; below lowFree it soon fills.
const (
	minFree = 2 << 30
	lowFree = 10 << 30
)

func diskChecks(disks []Disk) []Check {
	var out []Check
	for _, d := range disks {
		c := Check{Name: "disk " + d.Dir}
		switch {
		case d.Err != "":
			c.Status, c.Message = Warning, "cannot tell the free space: "+d.Err
		case d.Free < minFree:
			c.Status = Failed
			c.Message = fmt.Sprintf("%s free; the VM image and its disk need at least %s", gib(d.Free), gib(minFree))
			c.Fix = "free disk space on the file system that holds " + d.Dir
		case d.Free < lowFree:
			c.Status = Warning
			c.Message = fmt.Sprintf("%s free; the VM's disk grows as the guest writes, and under %s it soon fills", gib(d.Free), gib(lowFree))
			c.Fix = "free disk space on the file system that holds " + d.Dir
		default:
			c.Status, c.Message = OK, gib(d.Free)+" free"
		}
		out = append(out, c)
	}
	return out
}

func gib(b uint64) string {
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}
