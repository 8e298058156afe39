// Package store is the contract between Paddock's objects and everything
// that reads and writes them: the Store interface, its options and events,
// selectors, admission hooks, and the watch fan-out (Hub and Watcher) that
// any implementation uses. It imports no database; gormstore implements it.
//
// The semantics every implementation keeps: one global, strictly increasing
// revision advanced by every write in the same transaction as the write;
// optimistic concurrency on resourceVersion; generation that moves only with
// spec; spec and status written apart; deletion held by finalizers; the
// owned-by deletion guard; label and field selectors; and watches that list
// or replay from a revision and then stream, with event ids that only
// increase, and memory per watcher bounded in bytes.
package store
