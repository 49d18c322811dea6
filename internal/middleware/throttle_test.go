package middleware_test

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/middleware"
)

// TestThrottle runs throttled writes with one slot: while a write holds
// it, a page is served at once and another write waits its turn and then
// runs.
func TestThrottle(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var ran []string
	srv := newServer(t, middleware.Options{Writes: 1, Timeout: 10 * time.Second}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/page" {
			io.WriteString(w, "page")
			return
		}
		st.Throttle(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			ran = append(ran, r.URL.Path)
			mu.Unlock()
			if r.URL.Path == "/slow" {
				<-release
			}
			io.WriteString(w, "written")
		})(w, r)
	})
	post := func(ctx context.Context, path string) (int, http.Header) {
		res, err := srv.do(ctx, "POST", path, "", nil)
		if err != nil {
			return 0, nil
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header
	}
	slow := make(chan int)
	go func() { code, _ := post(t.Context(), "/slow"); slow <- code }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) { // the slot is taken
		mu.Lock()
		n := len(ran)
		mu.Unlock()
		if n == 1 || time.Now().After(deadline) {
			break
		}
	}
	if status, body := srv.get("/page", nil); status != http.StatusOK || body != "page" {
		t.Fatalf("a page while a write holds the slot: %d %q", status, body)
	}
	waiting := make(chan int)
	go func() { code, _ := post(t.Context(), "/waits"); waiting <- code }()
	time.Sleep(100 * time.Millisecond) // in line
	mu.Lock()
	if len(ran) != 1 {
		t.Errorf("writes ran while the slot was taken: %v", ran)
	}
	mu.Unlock()
	close(release)
	if code := <-slow; code != http.StatusOK {
		t.Errorf("the slow write answered %d", code)
	}
	if code := <-waiting; code != http.StatusOK {
		t.Errorf("the waiting write answered %d; want 200 once its turn came", code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(ran) != 2 || ran[1] != "/waits" {
		t.Errorf("writes ran: %v; want /slow then /waits", ran)
	}
}

// TestThrottleBusy: a write that waits longer than the server lets it is
// answered 503 with Retry-After, without running.
func TestThrottleBusy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := newServer(t, middleware.Options{Writes: 1, Timeout: 300 * time.Millisecond}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		st.Throttle(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				<-release // past the deadline of the one waiting
				return
			}
			t.Errorf("%s ran while the slot was taken", r.URL.Path)
		})(w, r)
	})
	go srv.do(t.Context(), "POST", "/slow", "", nil)
	time.Sleep(100 * time.Millisecond)
	res, err := srv.do(t.Context(), "POST", "/second", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("a write past its deadline in line: %d %q (Retry-After %q); want 503 with Retry-After", res.StatusCode, body, res.Header.Get("Retry-After"))
	}
}
