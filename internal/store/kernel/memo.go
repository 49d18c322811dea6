package kernel

import (
	"sync"
	"time"
)

// A page of 50 posts reads, beside the posts, each post's counts and
// each author's display name through the client-side cache: 100 lookups
// of the cache, each a command's cache key built, a lock of the cache
// and a copy of the reply, which cost a third of the page. A Memo keeps
// such small values, decoded, by the id of their key, in a map that
// Redis's invalidations clear: the same freshness as the client-side
// cache's copies, at the cost of a map read.
//
// Its rules, each a reason a memo stays true:
//   - a value is kept only from a read through the client-side cache, so
//     that Redis tracks its key and invalidates it when it changes; the
//     invalidation drops it (Invalidations.Invalidated), and dropping the
//     connection drops every value (nil);
//   - a read and its keeping race the invalidation: a Memo counts the
//     invalidations of each of memoBuckets buckets of ids, and a value
//     read before an invalidation of its bucket is not kept (Put);
//   - a key this server is about to change is dropped before the write
//     is sent (Written.Add), and a value of a key it changed a moment ago
//     is not kept: its reads skip the cache, so Redis would not tell;
//   - a read that the cache sent as a plain command (Redis at its memory
//     limit refuses to track, see CachedMulti) drops every value, and
//     the values read meanwhile are not kept;
//   - a value is kept at most CacheTTL, as the cache's copies are.
//
// A DB whose client does not report its invalidations (Options.
// Invalidations nil, a server without client-side caching, a DB made by
// Through) keeps nothing: its Memos are off.

// memoBuckets is how many buckets of ids a Memo counts invalidations in:
// an invalidation refuses the values read meanwhile of its bucket only.
const memoBuckets = 64

// Invalidations passes what Redis invalidates in the client-side cache
// on to the Memos of a DB. Give it to redisconn.Options.Invalidations
// and to Options.Invalidations.
type Invalidations struct {
	mu    sync.RWMutex
	off   bool
	memos []memo
}

// memo is what Invalidations tells: a Memo of any type.
type memo interface{ drop(keys []string) }

// Invalidated drops the values of keys from every Memo; nil keys drop
// every value (a connection was lost or Redis flushed its tracking).
func (in *Invalidations) Invalidated(keys []string) {
	if in == nil {
		return
	}
	in.mu.RLock()
	defer in.mu.RUnlock()
	for _, m := range in.memos {
		m.drop(keys)
	}
}

// Untracked records that the server keeps no client-side cache for the
// client, so that no invalidation will come: every Memo is off.
func (in *Invalidations) Untracked() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.off = true
	for _, m := range in.memos {
		m.drop(nil)
	}
}

// add makes m hear of invalidations; it reports false when none will
// come.
func (in *Invalidations) add(m memo) bool {
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	in.memos = append(in.memos, m)
	return !in.off
}

// Memo keeps values read through the client-side cache, by the id of
// their key, until Redis invalidates the key (see above). It is safe for
// concurrent use.
type Memo[V any] struct {
	on      bool
	key     func(id int64) string          // the key of an id (schema.User)
	owner   func(key string) (int64, bool) // the id of a key (schema.UserOf)
	written *Written
	ttl     time.Duration
	max     int

	mu   sync.RWMutex
	vals map[int64]memoValue[V]
	gens [memoBuckets]uint64 // invalidations of each bucket
}

// memoValue is a value kept, and when.
type memoValue[V any] struct {
	v  V
	at time.Time
}

// NewMemo returns a Memo of db of at most max values, key and owner
// turning an id into its key and back (owner refuses the keys of other
// kinds). It is off, keeping nothing, unless db's client reports its
// invalidations.
func NewMemo[V any](db *DB, key func(int64) string, owner func(string) (int64, bool), max int) *Memo[V] {
	m := &Memo[V]{key: key, owner: owner, written: db.Written, ttl: db.Opts.CacheTTL, max: max,
		vals: map[int64]memoValue[V]{}}
	m.on = db.invalidations.add(m)
	return m
}

// Get returns the value kept of id, if any; otherwise a token for Put
// of the value about to be read.
func (m *Memo[V]) Get(id int64) (v V, token uint64, ok bool) {
	if !m.on {
		return v, 0, false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	kept, ok := m.vals[id]
	if ok && time.Since(kept.at) < m.ttl {
		return kept.v, 0, true
	}
	return v, m.gens[bucket(id)], false
}

// Put keeps v, read through the client-side cache after Get gave token,
// unless its key was invalidated since or this server changed it a
// moment ago.
func (m *Memo[V]) Put(id int64, v V, token uint64) {
	if !m.on || m.written.Has(m.key(id)) {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gens[bucket(id)] != token {
		return
	}
	if len(m.vals) >= m.max {
		for old := range m.vals { // any one: the map's order is random
			delete(m.vals, old)
			break
		}
	}
	m.vals[id] = memoValue[V]{v, time.Now()}
}

// drop forgets the values of keys (nil: all), and counts the
// invalidation in their buckets.
func (m *Memo[V]) drop(keys []string) {
	if keys == nil {
		m.mu.Lock()
		defer m.mu.Unlock()
		clear(m.vals)
		for b := range m.gens {
			m.gens[b]++
		}
		return
	}
	var ids []int64
	for _, k := range keys {
		if id, ok := m.owner(k); ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		delete(m.vals, id)
		m.gens[bucket(id)]++
	}
}

// bucket is the bucket of invalidations of id.
func bucket(id int64) int { return int(uint64(id) % memoBuckets) }
