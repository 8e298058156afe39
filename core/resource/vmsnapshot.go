package resource

import (
	"regexp"
	"time"
)

// VMSnapshot is one snapshot of a VM's machine: its disk, and its memory
// and devices when it was taken while the machine ran.
type VMSnapshot struct {
	Tag string `json:"tag" example:"before-upgrade" doc:"The snapshot's name, unique on its VM."`
	// Size is what QEMU reports as the snapshot's VM size: the saved
	// memory and device state, 0 for one taken while the machine was
	// stopped (its disk blocks are shared with the disk and not counted).
	Size    int64     `json:"size" doc:"Bytes of saved memory and device state; 0 for a snapshot taken while the VM was stopped."`
	Created time.Time `json:"created" doc:"When the snapshot was taken."`
	// VMClock is how long the machine had run when the snapshot was
	// taken, as QEMU prints it (HHH:MM:SS.mmm).
	VMClock string `json:"vmClock,omitempty" example:"00:01:12.250" doc:"How long the machine had run when it was taken."`
}

// SnapshotTagPattern is the rule a snapshot's tag follows: 1 to 63 of
// letters, digits, '.', '_' and '-'.
const SnapshotTagPattern = `^[A-Za-z0-9._-]{1,63}$`

var snapshotTagRE = regexp.MustCompile(SnapshotTagPattern)

// ValidSnapshotTag reports whether tag follows SnapshotTagPattern.
func ValidSnapshotTag(tag string) bool { return snapshotTagRE.MatchString(tag) }

// VMSnapshotList is a VM's snapshots, oldest first.
type VMSnapshotList struct {
	APIVersion string       `json:"apiVersion" example:"paddock.dev/v1alpha1"`
	Kind       string       `json:"kind" example:"VMSnapshotList"`
	Items      []VMSnapshot `json:"items"`
}
