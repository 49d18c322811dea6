package kernel

import (
	"sync"
	"time"
)

// writtenWindow is how long after this server changes a cached key its
// own reads of that key skip the client-side cache. Invalidations
// normally arrive within a millisecond; the window is generous so that a
// loaded machine keeps the guarantee.
const writtenWindow = 5 * time.Second

// Written remembers the cached keys this server changed recently, so
// that it reads its own writes. Redis invalidates cached copies
// asynchronously: the client spreads commands over several connections,
// and the invalidation reaches the connection that cached a key a moment
// after the reply to the write that changed it, on another connection.
// Without this, the page shown right after a logout or a deletion could
// come from the old copy. Other servers see the change once the
// invalidation reaches them.
type Written struct {
	mu    sync.Mutex
	keys  map[string]time.Time // key → when its write was sent
	swept time.Time            // when expired entries were last removed
	inv   *Invalidations       // the Memos that must forget a key before it changes
}

// add records that keys are about to change. Call it before sending the
// write, so that no read after the write's reply can miss it.
func (w *Written) Add(keys ...string) {
	if w.inv != nil && len(keys) > 0 { // nil keys would drop every value
		w.inv.Invalidated(keys)
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.keys == nil {
		w.keys = make(map[string]time.Time)
	}
	if now.Sub(w.swept) > writtenWindow {
		for k, t := range w.keys {
			if now.Sub(t) > writtenWindow {
				delete(w.keys, k)
			}
		}
		w.swept = now
	}
	for _, k := range keys {
		w.keys[k] = now
	}
}

// Has reports whether key changed within writtenWindow.
func (w *Written) Has(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.keys[key]
	return ok && time.Since(t) <= writtenWindow
}

// recent reports, for each key, whether it changed within writtenWindow.
// It returns nil when none did, the usual case.
func (w *Written) Recent(keys func(i int) string, n int) []bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.keys) == 0 {
		return nil
	}
	now := time.Now()
	var out []bool
	for i := range n {
		if t, ok := w.keys[keys(i)]; ok && now.Sub(t) <= writtenWindow {
			if out == nil {
				out = make([]bool, n)
			}
			out[i] = true
		}
	}
	return out
}
