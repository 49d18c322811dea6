package middleware_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/retwis/retwis/internal/middleware"
)

// The tests of Throttle run in a synctest bubble, serving requests in
// the process (no network): synctest.Wait tells when every request is
// running or waiting for a slot, and the bubble's clock moves only when
// every goroutine waits, so a deadline passes exactly when it is due.

// serve sends a request to h, in the process as a server would, and
// returns the answer.
func serve(t *testing.T, h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), method, path, nil))
	return rec
}

// serveLater serves a request on a goroutine of its own; the channel
// gets the answer.
func serveLater(t *testing.T, h http.Handler, method, path string) <-chan *httptest.ResponseRecorder {
	answer := make(chan *httptest.ResponseRecorder, 1)
	go func() { answer <- serve(t, h, method, path) }()
	return answer
}

// journal notes the paths of the writes that ran, in order.
type journal struct {
	mu  sync.Mutex
	ran []string
}

func (j *journal) note(path string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.ran = append(j.ran, path)
}

func (j *journal) paths() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.ran)
}

// TestThrottle runs throttled writes with one slot: while a write holds
// it, a page is served at once and another write waits its turn and then
// runs.
func TestThrottle(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var j journal
		stack, _ := newStack(middleware.Options{Writes: 1, Timeout: 10 * time.Second}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/page" {
				io.WriteString(w, "page")
				return
			}
			st.Throttle(func(w http.ResponseWriter, r *http.Request) {
				j.note(r.URL.Path)
				if r.URL.Path == "/slow" {
					<-release
				}
				io.WriteString(w, "written")
			})(w, r)
		})
		slow := serveLater(t, stack, "POST", "/slow")
		synctest.Wait()
		if ran := j.paths(); !slices.Equal(ran, []string{"/slow"}) {
			t.Fatalf("writes ran: %v; want /slow, holding the slot", ran)
		}
		start := time.Now()
		if rec := serve(t, stack, "GET", "/page"); rec.Code != http.StatusOK || rec.Body.String() != "page" || time.Since(start) != 0 {
			t.Fatalf("a page while a write holds the slot: %d %q after %v", rec.Code, rec.Body, time.Since(start))
		}
		waiting := serveLater(t, stack, "POST", "/waits")
		synctest.Wait() // in line
		if ran := j.paths(); len(ran) != 1 {
			t.Errorf("writes ran while the slot was taken: %v", ran)
		}
		close(release)
		if rec := <-slow; rec.Code != http.StatusOK {
			t.Errorf("the slow write answered %d", rec.Code)
		}
		if rec := <-waiting; rec.Code != http.StatusOK || time.Since(start) != 0 {
			t.Errorf("the waiting write answered %d after %v; want 200 once its turn came, at once", rec.Code, time.Since(start))
		}
		if ran := j.paths(); !slices.Equal(ran, []string{"/slow", "/waits"}) {
			t.Errorf("writes ran: %v; want /slow then /waits", ran)
		}
	})
}

// TestThrottleBusy: a write that waits for a slot longer than the
// server lets it (its request's deadline, or the throttle's own bound)
// is answered 503 with Retry-After then, without running.
func TestThrottleBusy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		timeout time.Duration // the request's
		want    time.Duration // when it is answered
	}{
		{"the request's deadline first", 300 * time.Millisecond, 300 * time.Millisecond},
		{"the throttle's bound first", time.Minute, middleware.ThrottleWait},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testThrottleBusy(t, tc.timeout, tc.want) })
		})
	}
}

// testThrottleBusy is TestThrottleBusy with the requests' timeout, in a
// bubble: the waiting write must be refused after want.
func testThrottleBusy(t *testing.T, timeout, want time.Duration) {
	release := make(chan struct{})
	stack, _ := newStack(middleware.Options{Writes: 1, Timeout: timeout}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		st.Throttle(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				<-release // past the deadline of the one waiting
				return
			}
			t.Errorf("%s ran while the slot was taken", r.URL.Path)
		})(w, r)
	})
	slow := serveLater(t, stack, "POST", "/slow")
	synctest.Wait() // /slow holds the slot
	start := time.Now()
	rec := serve(t, stack, "POST", "/second")
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || time.Since(start) != want {
		t.Errorf("a write past its wait in line: %d %q (Retry-After %q) after %v; want 503 with Retry-After after %v",
			rec.Code, rec.Body, rec.Header().Get("Retry-After"), time.Since(start), want)
	}
	close(release)
	<-slow
}
