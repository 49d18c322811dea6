// Package bounded provides a map that keeps at most a given number of
// entries, evicting the oldest, for caches that must not grow without
// bound whatever they are asked (the kept parts of pages, say).
package bounded

import "sync"

// Map is a map of at most capacity entries, safe for concurrent use,
// that evicts the oldest entry to make room for a new one. Lookups share
// a read lock (a sync.Map would box every key it is asked for).
type Map[K comparable, V any] struct {
	capacity int
	mu       sync.RWMutex
	m        map[K]V
	ring     []K // keys in the order they were added, for eviction
	next     int // the slot of ring to fill next
}

// New returns an empty Map of at most capacity entries (none kept when
// capacity is 0 or less).
func New[K comparable, V any](capacity int) *Map[K, V] {
	return &Map[K, V]{capacity: capacity, m: map[K]V{}}
}

// Load returns the value kept under k, if any.
func (b *Map[K, V]) Load(k K) (V, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	v, ok := b.m[k]
	return v, ok
}

// Store keeps v under k, evicting the oldest entry when full; a key kept
// already keeps its place.
func (b *Map[K, V]) Store(k K, v V) {
	if b.capacity <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[k]; ok {
		b.m[k] = v
		return
	}
	b.m[k] = v
	if len(b.ring) < b.capacity {
		b.ring = append(b.ring, k)
		return
	}
	delete(b.m, b.ring[b.next])
	b.ring[b.next] = k
	b.next = (b.next + 1) % b.capacity
}

// LoadOrMake returns the value kept under k, or makes it with mk and
// keeps it.
func (b *Map[K, V]) LoadOrMake(k K, mk func(K) V) V {
	if v, ok := b.Load(k); ok {
		return v
	}
	v := mk(k)
	b.Store(k, v)
	return v
}

// Len returns how many entries are kept.
func (b *Map[K, V]) Len() int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return len(b.m)
}
