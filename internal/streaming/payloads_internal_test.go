package streaming

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestPayloads: an event is rendered once however many clients ask at
// once, again for another origin or after a failure, and the cache
// keeps at most two generations.
func TestPayloads(t *testing.T) {
	t.Parallel()
	var p payloads
	var renders atomic.Int64
	render := func(data string, err error) func() (string, error) {
		return func() (string, error) { renders.Add(1); return data, err }
	}
	key := payloadKey{"update", 1, 0, "http://a"}

	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if got, err := p.get(key, render("status 1", nil)); got != "status 1" || err != nil {
				t.Errorf("get = %q, %v", got, err)
			}
		})
	}
	wg.Wait()
	for _, tc := range []struct {
		name    string
		key     payloadKey
		render  func() (string, error)
		want    string
		renders int64 // renders added
	}{
		{"kept", key, render("other", nil), "status 1", 0},
		{"another origin", payloadKey{"update", 1, 0, "https://b"}, render("status 1 of b", nil), "status 1 of b", 1},
		{"a failure", payloadKey{"update", 2, 0, "http://a"}, render("", errors.New("redis away")), "", 1},
		{"not kept after a failure", payloadKey{"update", 2, 0, "http://a"}, render("status 2", nil), "status 2", 1},
		{"a post gone", payloadKey{"update", 3, 0, "http://a"}, render("", nil), "", 1},
	} {
		before := renders.Load()
		got, _ := p.get(tc.key, tc.render)
		if got != tc.want || renders.Load()-before != tc.renders {
			t.Errorf("%s: %q after %d renders; want %q after %d", tc.name, got, renders.Load()-before, tc.want, tc.renders)
		}
	}
	if n := renders.Load(); n != 5 {
		t.Errorf("%d renders in all; want 5", n)
	}

	for i := range 3 * payloadsKept {
		p.get(payloadKey{"update", int64(100 + i), 0, "http://a"}, render("x", nil))
	}
	if n := len(p.cur) + len(p.old); n > 2*payloadsKept {
		t.Errorf("the cache holds %d payloads; want at most %d", n, 2*payloadsKept)
	}
	before := renders.Load()
	p.get(key, render("status 1 again", nil))
	if renders.Load() != before+1 {
		t.Error("the oldest payload was still kept")
	}
}
