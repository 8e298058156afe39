package gormstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	gormlogger "gorm.io/gorm/logger"

	"paddock.dev/paddock/core/resource"
	"paddock.dev/paddock/core/store"
)

// DefaultEventRetention is how many events the log keeps for watches to
// resume from.
const DefaultEventRetention = 10000

// Defaults of the event log's other bounds: a watch resumes from events
// at most a day old, and the log holds at most 64 MiB of objects.
const (
	DefaultEventMaxAge   = 24 * time.Hour
	DefaultEventMaxBytes = 64 << 20
)

// concurrentWrites is how many updates and patches are prepared (read,
// merged, validated, admitted) at once; the others wait their turn without
// using the CPU. A write hands its turn on once it is staged, and waits
// for its commit beside the next one's preparation (batch.go). More at
// once only take CPU from reads, which then wait (BenchmarkWrites8Clients,
// 8 writers: GET p99 2.8-5.6 ms with every write at once, 2.0-4.0 ms with
// two, as many writes a second).
const concurrentWrites = 2

// pruneEvery is how many writes pass between trims of the event log by
// count and age; a write that takes it past its byte bound trims it at once.
const pruneEvery = 256

// objectRow is an object as the database holds it.
type objectRow struct {
	Kind      string `gorm:"primaryKey;size:64;index:idx_objects_kind_revision,priority:1"`
	Namespace string `gorm:"primaryKey;size:253"`
	Name      string `gorm:"primaryKey;size:253"`
	// Revision is the object's resourceVersion. Lists and watches read
	// a kind's objects by it: they read the states a snapshot of the
	// index saw.
	Revision int64  `gorm:"not null;index:idx_objects_kind_revision,priority:2"`
	Body     []byte `gorm:"not null"`
}

func (objectRow) TableName() string { return "objects" }

// eventRow is one entry of the event log; its revision is the store's
// global revision at that write.
type eventRow struct {
	Revision  int64  `gorm:"primaryKey;autoIncrement:false"`
	Type      string `gorm:"size:16;not null"`
	Kind      string `gorm:"size:64;not null"`
	Namespace string `gorm:"size:253;not null"`
	Name      string `gorm:"size:253;not null"`
	Body      []byte `gorm:"not null"`
	// Time is when the event was written, in Unix seconds; 0 for events
	// logged before the column existed, which count as old.
	Time int64 `gorm:"not null;default:0;index"`
}

func (eventRow) TableName() string { return "events" }

// Config opens a store.
type Config struct {
	// Dialector is the gorm database to use, such as SQLite(path).
	Dialector gorm.Dialector
	// EventRetention is how many events watches can resume from;
	// DefaultEventRetention when zero.
	EventRetention int64
	// EventMaxAge and EventMaxBytes bound the event log by the age of its
	// events and the bytes of their objects too; DefaultEventMaxAge and
	// DefaultEventMaxBytes when zero. The newest event is always kept.
	EventMaxAge   time.Duration
	EventMaxBytes int64
	// Admit, when set, checks every spec write after the kind's own
	// validation, with read access to the store: checks that need other
	// objects or the host, such as a VM's template.
	Admit  store.AdmitFunc
	Logger *slog.Logger
}

// SQLite returns the dialector for the SQLite database file at path, in WAL
// mode, through a driver that needs no cgo. Commits are durable across a
// crash of the daemon; a power loss may lose the last commits but never
// leaves the file damaged.
func SQLite(path string) gorm.Dialector {
	return sqlite.Open(path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout.Milliseconds())) + ")" +
		"&_pragma=journal_size_limit(" + strconv.Itoa(walSizeLimit) + ")" + cacheSize(writerCacheKiB))
}

// sqliteReaders is how many connections read a SQLite database besides
// the one that writes. In WAL mode they read while a write commits.
const sqliteReaders = 2

// sqliteReaderDSN names the SQLite file at path for the read-only
// connections.
func sqliteReaderDSN(path string) string {
	return path + "?_pragma=busy_timeout(" + strconv.Itoa(int(busyTimeout.Milliseconds())) + ")&_pragma=query_only(1)" + cacheSize(readerCacheKiB)
}

// The page cache of each SQLite connection, in KiB (SQLite's default is
// 2,000), costs about twice as much resident memory through the driver's
// allocator. A write touches a few dozen pages; reads of many objects read
// each page once, and the kernel caches the file anyway. With the default,
// the daemon holding 100,000 objects was 5 MiB larger.
const (
	writerCacheKiB = 512
	readerCacheKiB = 256
)

func cacheSize(kib int) string { return "&_pragma=cache_size(-" + strconv.Itoa(kib) + ")" }

// DB is the gorm implementation of Store.
type DB struct {
	db *gorm.DB
	// readers are the connections reads use: for SQLite connections of
	// their own, which read while a write commits; else db's.
	readers *sql.DB
	reads   *reads
	name    string // the database, for messages
	lock    dbLock // keeps other daemons off the database; nil once released
	failing atomic.Pointer[string]
	// probing is set while a probe waits for writes to work again; done
	// is closed when the store closes, which ends it.
	probing atomic.Bool
	done    chan struct{}
	// writeErrors counts the database operations that failed.
	writeErrors atomic.Int64
	retention   int64
	maxAge      time.Duration
	maxBytes    int64
	sqlite      bool // the database is a SQLite file: freed pages are vacuumed
	admit       store.AdmitFunc
	log         *slog.Logger

	// preparing holds a token for each spec write being prepared (see
	// concurrentWrites).
	preparing chan struct{}
	// mu serialises the checks and staging of writes (batch.go): it
	// guards next, open and staged.
	mu     sync.Mutex
	next   int64                        // the revision of the newest staged write
	open   *batch                       // the writes staged since the last commit began; nil when none
	staged map[resource.Key]stagedState // the newest staged write of each object not yet committed
	// committing is held by the writer that commits a batch: batches
	// commit one at a time, in order.
	committing sync.Mutex
	rev        atomic.Int64 // of the last committed write; moves with the index, under imu
	oldest     atomic.Int64 // lowest revision still in the event log
	// logBytes is the bytes of the objects in the event log.
	logBytes atomic.Int64
	// imu guards index against readers; only the writer holding
	// committing changes it.
	imu   sync.RWMutex
	index *index
	// cache keeps the JSON of recently used objects; it moves with the
	// index, under imu.
	cache  bodyCache
	hub    *store.Hub
	closed atomic.Bool
	// release hands back the memory of large reads.
	release releaser
	// listingRead is held by the watch listing that reads a batch.
	listingRead chan struct{}
}

var _ store.Store = (*DB)(nil)

// Open opens the database, migrates its schema and loads every object.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.EventRetention <= 0 {
		cfg.EventRetention = DefaultEventRetention
	}
	if cfg.EventMaxAge <= 0 {
		cfg.EventMaxAge = DefaultEventMaxAge
	}
	if cfg.EventMaxBytes <= 0 {
		cfg.EventMaxBytes = DefaultEventMaxBytes
	}
	where := describe(cfg.Dialector)
	var lock dbLock
	if where.file != "" {
		if err := prepareFile(where.file); err != nil {
			return nil, err
		}
		l, err := lockFile(where.file)
		if err != nil {
			return nil, err
		}
		lock = l
	}
	gcfg := &gorm.Config{
		// Statements are logged by their shape: their values are object
		// bodies, which may be large or secret.
		Logger: gormlogger.NewSlogLogger(cfg.Logger, gormlogger.Config{LogLevel: gormlogger.Warn, SlowThreshold: 500 * time.Millisecond,
			IgnoreRecordNotFoundError: true, ParameterizedQueries: true}),
		SkipDefaultTransaction: true,
		PrepareStmt:            true,
	}
	gdb, err := gorm.Open(cfg.Dialector, gcfg)
	if err != nil {
		if lock != nil {
			lock.release()
		}
		return nil, fmt.Errorf("open the %s: %w", where.name, err)
	}
	s := &DB{db: gdb, name: where.name, preparing: make(chan struct{}, concurrentWrites), lock: lock, retention: cfg.EventRetention,
		maxAge: cfg.EventMaxAge, maxBytes: cfg.EventMaxBytes, sqlite: where.file != "", admit: cfg.Admit, log: cfg.Logger, index: newIndex(), staged: map[resource.Key]stagedState{}, hub: store.NewHub(), done: make(chan struct{}),
		listingRead: make(chan struct{}, 1)}
	if err := s.prepare(ctx, where); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// prepare locks a PostgreSQL database, checks a SQLite one, and loads the
// objects.
func (s *DB) prepare(ctx context.Context, where database) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	if where.file == "" {
		if s.lock, err = lockPostgres(ctx, sqlDB, s.name); err != nil {
			return err
		}
	} else {
		// One connection: SQLite has one writer anyway, and reads are
		// served from memory.
		sqlDB.SetMaxOpenConns(1)
		if err := s.checkSQLite(ctx); err != nil {
			return err
		}
	}
	if err := s.db.WithContext(ctx).AutoMigrate(&objectRow{}, &eventRow{}); err != nil {
		return fmt.Errorf("migrate database schema: %w (the %s)", err, s.name)
	}
	s.readers = sqlDB
	if where.file != "" {
		if s.readers, err = sql.Open(sqlite.DriverName, sqliteReaderDSN(where.file)); err != nil {
			return s.storageError(ctx, "open for reading", err)
		}
		s.readers.SetMaxOpenConns(sqliteReaders)
		s.readers.SetMaxIdleConns(sqliteReaders)
	}
	if s.reads, err = prepareReads(ctx, s.readers, where.file == ""); err != nil {
		return s.storageError(ctx, "prepare reads", err)
	}
	if err := s.load(ctx); err != nil {
		return fmt.Errorf("%w (the %s)", err, s.name)
	}
	// Trim first: a database switched to incremental vacuum is rewritten
	// without the events it no longer keeps.
	if err := s.compactAtOpen(ctx); err != nil {
		return err
	}
	if where.file != "" {
		return s.vacuumIncrementally(ctx)
	}
	return nil
}

func (s *DB) load(ctx context.Context) error {
	db := s.db.WithContext(ctx)
	var bounds struct{ Min, Max, Bytes int64 }
	if err := db.Model(&eventRow{}).Select("COALESCE(MIN(revision), 0) AS min, COALESCE(MAX(revision), 0) AS max, " +
		"COALESCE(SUM(LENGTH(body)), 0) AS bytes").Scan(&bounds).Error; err != nil {
		return fmt.Errorf("read revision: %w", err)
	}
	s.rev.Store(bounds.Max)
	s.next = bounds.Max
	s.logBytes.Store(bounds.Bytes)
	s.oldest.Store(bounds.Min)
	if bounds.Min == 0 {
		s.oldest.Store(bounds.Max + 1)
	}
	// Row by row: a database of many objects is never in memory twice.
	rows, err := s.reads.allObjects.QueryContext(ctx)
	if err != nil {
		return fmt.Errorf("load objects: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var r objectRow
		if err := rows.Scan(&r.Kind, &r.Namespace, &r.Name, &r.Revision, &r.Body); err != nil {
			return fmt.Errorf("load objects: %w", err)
		}
		if _, ok := resource.KindOf(r.Kind); !ok {
			return fmt.Errorf("database holds objects of unknown kind %q", r.Kind)
		}
		var obj struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(r.Body, &obj); err != nil {
			return fmt.Errorf("load %s/%s/%s: %w", r.Kind, r.Namespace, r.Name, err)
		}
		key := resource.Key{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
		s.index.put(key, entry{r.Revision, labelSetOf(obj.Metadata.Labels), len(r.Body)})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load objects: %w", err)
	}
	return nil
}

// Revision returns the revision of the last committed write.
func (s *DB) Revision() int64 { return s.rev.Load() }

// Close ends every watch and closes the database.
func (s *DB) Close() error {
	s.committing.Lock()
	defer s.committing.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil
	}
	s.closed.Store(true)
	close(s.done)
	s.failOpen()
	s.hub.CloseAll(store.ErrWatchClosed)
	s.release.stop()
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	if s.lock != nil {
		// First: a PostgreSQL lock's connection would hold Close open.
		s.lock.release()
		s.lock = nil
	}
	if s.reads != nil {
		s.reads.close()
	}
	if s.readers != nil && s.readers != sqlDB {
		s.readers.Close()
	}
	return sqlDB.Close()
}

// The statements of a write, in SQL both SQLite and PostgreSQL take.
const (
	upsertObject = "INSERT INTO objects (kind, namespace, name, revision, body) VALUES (?, ?, ?, ?, ?) " +
		"ON CONFLICT (kind, namespace, name) DO UPDATE SET revision = excluded.revision, body = excluded.body"
	deleteObject = "DELETE FROM objects WHERE kind = ? AND namespace = ? AND name = ?"
	insertEvent  = "INSERT INTO events (revision, type, kind, namespace, name, body, time) VALUES (?, ?, ?, ?, ?, ?, ?)"
)

// kindOf returns the registered kind of obj.
func kindOf(obj resource.Object) (*resource.Kind, error) {
	name := obj.GetTypeMeta().Kind
	k, ok := resource.KindOf(name)
	if !ok {
		return nil, resource.Errorf(resource.ReasonBadRequest, "unknown kind %q", name)
	}
	if reflect.TypeOf(k.New()) != reflect.TypeOf(obj) {
		return nil, &resource.Error{Reason: resource.ReasonInvalid,
			Message: fmt.Sprintf("the object says kind %q but is not a %s", name, name),
			Fields:  []resource.FieldError{{Field: "kind", Message: "does not match the object"}}}
	}
	return k, nil
}

// checkVersion fails with Conflict when want is set and differs from the
// stored resourceVersion.
func checkVersion(key resource.Key, want, have string) error {
	if want == "" || want == have {
		return nil
	}
	return resource.Errorf(resource.ReasonConflict,
		"%s was modified (its resourceVersion is %s, the request expected %s): read it again and retry",
		resource.Describe(key), have, want)
}

func (s *DB) isClosed() bool { return s.closed.Load() }
