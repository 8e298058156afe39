package gormstore

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// walSizeLimit is the size SQLite truncates its write-ahead log back to
// after a checkpoint, so that a burst of large writes leaves no large -wal
// file behind.
const walSizeLimit = 16 << 20

// checkpointAfter is how many bytes a trim must free for the daemon to
// checkpoint the write-ahead log at once, which hands the freed pages back
// to the file system now rather than at SQLite's next automatic checkpoint.
const checkpointAfter = 4 << 20

// compaction is what a trim of the event log removed.
type compaction struct {
	through int64 // the newest revision removed; 0 when none was
	bytes   int64 // the bytes of the objects removed
}

// compact trims the event log in tx, which has logged revision rev and
// holds size bytes of objects: the events past the count bound, those older
// than the age bound, and, once the log holds more than the byte bound, the
// oldest until it holds three quarters of it, so that the writes that follow
// do not each trim again. The newest event stays, so that a watch can
// always resume from the current revision.
func (s *DB) compact(tx *gorm.DB, rev, size int64) (compaction, error) {
	cut := rev - s.retention
	var byAge int64
	if err := tx.Model(&eventRow{}).Where("time < ?", time.Now().Add(-s.maxAge).Unix()).
		Select("COALESCE(MAX(revision), 0)").Scan(&byAge).Error; err != nil {
		return compaction{}, err
	}
	cut = max(cut, byAge)
	if size > s.maxBytes {
		bySize, err := s.sizeCut(tx, size)
		if err != nil {
			return compaction{}, err
		}
		cut = max(cut, bySize)
	}
	cut = min(cut, rev-1)
	if cut < s.oldest.Load() {
		return compaction{}, nil
	}
	var freed int64
	if err := tx.Model(&eventRow{}).Where("revision <= ?", cut).
		Select("COALESCE(SUM(LENGTH(body)), 0)").Scan(&freed).Error; err != nil {
		return compaction{}, err
	}
	if err := tx.Where("revision <= ?", cut).Delete(&eventRow{}).Error; err != nil {
		return compaction{}, err
	}
	return compaction{through: cut, bytes: freed}, nil
}

// sizeCut returns the newest revision to remove for a log of size bytes to
// hold at most three quarters of the byte bound, walking the log from its
// oldest event.
func (s *DB) sizeCut(tx *gorm.DB, size int64) (int64, error) {
	target := s.maxBytes / 4 * 3
	var through int64
	for size > target {
		var rows []struct{ Revision, Size int64 }
		if err := tx.Model(&eventRow{}).Select("revision, LENGTH(body) AS size").Where("revision > ?", through).
			Order("revision").Limit(512).Scan(&rows).Error; err != nil {
			return 0, err
		}
		if len(rows) == 0 {
			break
		}
		for _, r := range rows {
			if size <= target {
				break
			}
			size -= r.Size
			through = r.Revision
		}
	}
	return through, nil
}

// compacted moves the log's bounds after a committed trim and, on SQLite,
// returns the freed pages to the file system. A failed vacuum loses
// nothing: the pages are reused by later writes, and the next trim
// vacuums again.
func (s *DB) compacted(ctx context.Context, cut compaction) {
	if cut.through == 0 {
		return
	}
	s.oldest.Store(cut.through + 1)
	s.logBytes.Add(-cut.bytes)
	if !s.sqlite || cut.bytes == 0 {
		return
	}
	db := s.db.WithContext(context.WithoutCancel(ctx))
	if err := incrementalVacuum(db); err != nil {
		s.log.Warn("returning the event log's freed space to the disk failed; it is reused instead", "database", s.name, "err", err)
		return
	}
	if cut.bytes >= checkpointAfter {
		if err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
			s.log.Warn("checkpointing the write-ahead log failed", "database", s.name, "err", err)
		}
	}
}

// incrementalVacuum frees every free page of the file. SQLite frees one
// page per step of the statement: it is stepped to its end.
func incrementalVacuum(db *gorm.DB) error {
	rows, err := db.Raw("PRAGMA incremental_vacuum").Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

// compactAtOpen trims the log a daemon finds, by age and size as by
// count, before it serves.
func (s *DB) compactAtOpen(ctx context.Context) error {
	rev := s.rev.Load()
	if rev == 0 {
		return nil
	}
	var cut compaction
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var err error
		cut, err = s.compact(tx, rev, s.logBytes.Load())
		return err
	})
	if err != nil {
		return s.storageError(ctx, "trim the event log", err)
	}
	s.compacted(ctx, cut)
	return nil
}

// vacuumIncrementally makes a SQLite database give freed pages back to the
// file system (auto_vacuum=INCREMENTAL). A database made before that mode
// changes to it by one VACUUM, which rewrites the file once.
func (s *DB) vacuumIncrementally(ctx context.Context) error {
	db := s.db.WithContext(ctx)
	var mode int
	if err := db.Raw("PRAGMA auto_vacuum").Scan(&mode).Error; err != nil {
		return s.storageError(ctx, "read the database's vacuum mode", err)
	}
	const incremental = 2
	if mode == incremental {
		return nil
	}
	if err := db.Exec("PRAGMA auto_vacuum = INCREMENTAL").Error; err != nil {
		return s.storageError(ctx, "set the database's vacuum mode", err)
	}
	if err := db.Exec("VACUUM").Error; err != nil {
		return s.storageError(ctx, fmt.Sprintf("vacuum the database to reclaim its free space (auto_vacuum %d)", mode), err)
	}
	return nil
}
