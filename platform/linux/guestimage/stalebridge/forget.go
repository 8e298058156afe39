package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// libnetwork's store (docker/libkv's boltdb backend): one bucket, keys
// "docker/network/v1.0/<kind>/<id>/", values an 8-byte index then JSON.
const (
	bucket        = "libnetwork"
	keyPrefix     = "docker/network/v1.0/"
	indexLen      = 8
	defaultBridge = "bridge"
)

// run removes the stored default bridge from the store at path unless the
// network interface at iface exists, and says what it did.
func run(path, iface string) (string, error) {
	if _, err := os.Stat(iface); err == nil {
		return iface + " exists: dockerd ran in this boot; the store is left alone", nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "no network store yet", nil
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second})
	if err != nil {
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	var did string
	err = db.Update(func(tx *bolt.Tx) error {
		did, err = forget(tx)
		return err
	})
	if cerr := db.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return did, err
}

// network is what the store's network record says of a network.
type network struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"networkType"`
}

// forget deletes the default bridge's records in tx, where it has no
// endpoints.
func forget(tx *bolt.Tx) (string, error) {
	b := tx.Bucket([]byte(bucket))
	if b == nil {
		return "the store holds no networks", nil
	}
	id, err := defaultBridgeID(b)
	if err != nil || id == "" {
		return "the store holds no default bridge", err
	}
	endpoints := []byte(keyPrefix + "endpoint/" + id + "/")
	if k, _ := b.Cursor().Seek(endpoints); k != nil && bytes.HasPrefix(k, endpoints) {
		return "the default bridge " + short(id) + " has endpoints: dockerd cleans it up", nil
	}
	for _, kind := range []string{"network", "bridge", "endpoint_count"} {
		if err := b.Delete([]byte(keyPrefix + kind + "/" + id + "/")); err != nil {
			return "", fmt.Errorf("delete the default bridge's %s record: %w", kind, err)
		}
	}
	return "removed the stored default bridge " + short(id) + "; dockerd makes it anew", nil
}

// defaultBridgeID finds the network named bridge of the bridge driver.
func defaultBridgeID(b *bolt.Bucket) (string, error) {
	prefix := []byte(keyPrefix + "network/")
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) < indexLen {
			return "", fmt.Errorf("network record %s is %d bytes long", k, len(v))
		}
		var n network
		if err := json.Unmarshal(v[indexLen:], &n); err != nil {
			return "", fmt.Errorf("network record %s: %w", k, err)
		}
		if n.Name == defaultBridge && n.Type == "bridge" && n.ID != "" {
			return n.ID, nil
		}
	}
	return "", nil
}

func short(id string) string { return id[:min(12, len(id))] }
