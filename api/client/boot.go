package client

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"time"

	"paddock.dev/paddock/core/resource"
)

// bootSteps are the host agent's log lines that mark a boot's steps, in
// order, with what they mean to a person.
var bootSteps = []struct{ marker, step string }{
	{"Creating iso file", "preparing the VM's disk"},
	{"Starting QEMU", "booting the kernel"},
	{"Waiting for the essential requirement 1 of", "waiting for SSH"},
	{"The essential requirement 1 of", "SSH is up; setting up the guest"},
	{"Waiting for the final requirement", "running the boot scripts"},
	{"Forwarding unix sockets", "forwarding the engine's socket"},
}

// BootStep returns the step of a boot that a line of a VM's host agent log
// (its stderr stream) marks, for a person, or "" when it marks none.
func BootStep(line string) string {
	for _, s := range bootSteps {
		if strings.Contains(line, s.marker) {
			return s.step
		}
	}
	return ""
}

// FollowBoot reads the host agent log of the VM ns/name as it grows and
// calls step with each boot step it marks (BootStep), until ctx ends. The
// log is opened again when it ends, a second after: a new boot writes a
// new one. A log that cannot be read yet is tried again the same way.
// Lines written before since (to the second Lima's log gives) are an
// earlier boot's, whose log a new boot has not replaced yet: they are
// skipped; a zero since skips none. What a step means for the VM as a
// whole its Running condition says; a client shows both.
func (c *Client) FollowBoot(ctx context.Context, ns, name string, since time.Time, step func(string)) {
	since = since.Truncate(time.Second)
	for ctx.Err() == nil {
		if r, err := c.Logs(ctx, ns, name, LogOptions{Stream: resource.VMLogHostAgent, Follow: true}); err == nil {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
			for sc.Scan() {
				if s := BootStep(sc.Text()); s != "" && !writtenBefore(sc.Text(), since) {
					step(s)
				}
			}
			r.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// writtenBefore reports whether the host agent wrote line before t, by the
// time Lima's JSON log lines carry; a line without one is not.
func writtenBefore(line string, t time.Time) bool {
	var l struct {
		Time time.Time `json:"time"`
	}
	if t.IsZero() || json.Unmarshal([]byte(line), &l) != nil || l.Time.IsZero() {
		return false
	}
	return l.Time.Before(t)
}
