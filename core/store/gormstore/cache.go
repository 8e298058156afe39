package gormstore

import (
	"container/list"
	"sync"

	"paddock.dev/paddock/core/resource"
)

// The JSON of the objects read or written last is kept in memory, up to a
// bound in bytes: the daemon's controllers and clients read the same few
// objects again and again, and a read from memory is tens of times cheaper
// than from the database. Every other object is read from the database.
const (
	cacheBytes     = 4 << 20
	cacheMaxObject = cacheBytes / 16 // larger objects are not kept
)

// bodyCache holds objects' current JSON, least recently used first out.
// Its owner keeps it current: a write puts its object or removes it.
type bodyCache struct {
	mu    sync.Mutex
	size  int
	order list.List // of *cached, most recently used in front
	byKey map[resource.Key]*list.Element
}

type cached struct {
	key      resource.Key
	revision int64
	raw      []byte
}

// get returns the JSON and revision of key if it is kept.
func (c *bodyCache) get(key resource.Key) ([]byte, int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil, 0, false
	}
	c.order.MoveToFront(el)
	v := el.Value.(*cached)
	return v.raw, v.revision, true
}

// put keeps raw as key's JSON at revision, or forgets key when raw is too
// large to keep.
func (c *bodyCache) put(key resource.Key, revision int64, raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
	if len(raw) > cacheMaxObject {
		return
	}
	if c.byKey == nil {
		c.byKey = map[resource.Key]*list.Element{}
	}
	c.byKey[key] = c.order.PushFront(&cached{key, revision, raw})
	c.size += len(raw)
	for c.size > cacheBytes {
		c.removeLocked(c.order.Back().Value.(*cached).key)
	}
}

// remove forgets key.
func (c *bodyCache) remove(key resource.Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(key)
}

func (c *bodyCache) removeLocked(key resource.Key) {
	el, ok := c.byKey[key]
	if !ok {
		return
	}
	c.order.Remove(el)
	delete(c.byKey, key)
	c.size -= len(el.Value.(*cached).raw)
}
