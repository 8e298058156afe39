package api

import (
	"testing"
	"time"
)

// SetStreamBounds sets how long a watch's client may take for one event
// and when it is given up, for one test.
func SetStreamBounds(t *testing.T, stall, giveUp time.Duration) {
	oldStall, oldGiveUp := streamStall, streamGiveUp
	streamStall, streamGiveUp = stall, giveUp
	t.Cleanup(func() { streamStall, streamGiveUp = oldStall, oldGiveUp })
}
