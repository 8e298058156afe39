package gormstore

import (
	"fmt"
	"strings"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// Dialector returns the gorm database an address names: postgres://… or
// postgresql://… for PostgreSQL, sqlite:PATH or a plain file path for
// SQLite. Only the daemon of one instance may use a database: it keeps an
// index of the objects in memory.
func Dialector(address string) (gorm.Dialector, error) {
	switch {
	case strings.HasPrefix(address, "postgres://"), strings.HasPrefix(address, "postgresql://"):
		return postgres.Open(address), nil
	case strings.HasPrefix(address, "sqlite:"):
		address = strings.TrimPrefix(address, "sqlite:")
	case strings.Contains(address, "://"):
		return nil, fmt.Errorf("unsupported database %q: use a file path (SQLite) or postgres://USER:PASSWORD@HOST/DB", redact(address))
	}
	if address == "" || strings.Contains(address, "?") {
		return nil, fmt.Errorf("invalid SQLite database path %q", address)
	}
	return SQLite(address), nil
}

// redact hides the password of a database address in messages.
func redact(address string) string {
	scheme, rest, ok := strings.Cut(address, "://")
	at := strings.LastIndex(rest, "@")
	if !ok || at < 0 {
		return address
	}
	user, _, _ := strings.Cut(rest[:at], ":")
	return scheme + "://" + user + ":***" + rest[at:]
}
