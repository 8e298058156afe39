package gormstore

import (
	"context"
	"time"

	"gorm.io/gorm"
)

// Once a write fails, the store probes with a write of its own until one
// succeeds, so that Healthy (and a daemon's readiness) turns good again by
// itself once the fault heals (space freed on a full disk, a lock
// released), not only when a client dares to write.
const (
	probeFirst = 250 * time.Millisecond // the wait before the first probe
	probeMax   = 5 * time.Second        // the longest wait between probes
	// probeBytes is the size of the row a probe writes and removes: a
	// write that needs new pages, as most do.
	probeBytes = 16 << 10
)

// startProbe starts probing unless a probe runs already.
func (s *DB) startProbe() {
	if s.isClosed() || !s.probing.CompareAndSwap(false, true) {
		return
	}
	go s.probe()
}

// probe writes until a write succeeds, the store closes, or another write
// succeeds first, waiting longer after each failure.
func (s *DB) probe() {
	defer s.probing.Store(false)
	wait := probeFirst
	for {
		select {
		case <-s.done:
			return
		case <-time.After(wait):
		}
		if s.failing.Load() == nil {
			return
		}
		if err := s.probeWrite(); err == nil {
			s.wrote()
			return
		}
		wait = min(2*wait, probeMax)
	}
}

// probeWrite commits a transaction that adds a row of probeBytes and
// removes it again, leaving the database as it was. Its kind is empty,
// which no object has.
func (s *DB) probeWrite() error {
	ctx, cancel := context.WithTimeout(context.Background(), busyTimeout+time.Second)
	defer cancel()
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(upsertObject, "", "", "paddock-probe", 0, make([]byte, probeBytes)).Error; err != nil {
			return err
		}
		return tx.Exec(deleteObject, "", "", "paddock-probe").Error
	})
}
