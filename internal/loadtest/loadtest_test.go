package loadtest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/loadtest"
)

// get is a Next that always asks for path.
func get(path string) func(int, *rand.Rand) loadtest.Request {
	return func(int, *rand.Rand) loadtest.Request { return loadtest.Request{Method: "GET", Path: path} }
}

// run runs a short load test against h, filling in BaseURL, Duration and,
// if unset, Connections and Next.
func run(t *testing.T, h http.Handler, opts loadtest.Options) loadtest.Result {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	opts.BaseURL = srv.URL
	opts.Duration = 100 * time.Millisecond
	if opts.Connections == 0 {
		opts.Connections = 2
	}
	if opts.Next == nil {
		opts.Next = get("/")
	}
	res, err := loadtest.Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests == 0 {
		t.Fatal("no requests completed")
	}
	return res
}

func TestRunCountsErrors(t *testing.T) {
	var followed atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	mux.HandleFunc("POST /redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/followed", http.StatusSeeOther)
	})
	mux.HandleFunc("/followed", func(w http.ResponseWriter, r *http.Request) { followed.Store(true) })
	mux.HandleFunc("POST /post", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	tests := []struct {
		req        loadtest.Request
		allErrors  bool
		wantSample string
	}{
		{loadtest.Request{Path: "/ok"}, false, ""},
		{loadtest.Request{Method: "POST", Path: "/redirect"}, false, ""},
		{loadtest.Request{Method: "POST", Path: "/post"}, true, "POST /post: status 500"},
		{loadtest.Request{Path: "/missing?x=1"}, true, "GET /missing: status 404"},
	}
	for _, tt := range tests {
		t.Run(tt.req.Method+" "+tt.req.Path, func(t *testing.T) {
			res := run(t, mux, loadtest.Options{
				Next: func(int, *rand.Rand) loadtest.Request { return tt.req },
			})
			want := int64(0)
			if tt.allErrors {
				want = res.Requests
			}
			if res.Errors != want {
				t.Errorf("Errors = %d of %d requests, want %d", res.Errors, res.Requests, want)
			}
			if tt.wantSample != "" && !slices.Equal(res.ErrorSamples, []string{tt.wantSample}) {
				t.Errorf("ErrorSamples = %q, want [%q]", res.ErrorSamples, tt.wantSample)
			}
			if res.P50 <= 0 || res.P50 > res.P99 || res.P99 > res.Max {
				t.Errorf("percentiles out of order: %v", res)
			}
		})
	}
	if followed.Load() {
		t.Error("a redirect was followed")
	}
}

// TestRunConnections checks that each connection is one kept-alive TCP
// connection, and that every request the server saw was counted.
func TestRunConnections(t *testing.T) {
	for _, conns := range []int{1, 4, 16} {
		t.Run(fmt.Sprint(conns), func(t *testing.T) {
			var mu sync.Mutex
			remotes := make(map[string]bool)
			var served atomic.Int64
			res := run(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				remotes[r.RemoteAddr] = true
				mu.Unlock()
				served.Add(1)
			}), loadtest.Options{Connections: conns})
			if len(remotes) != conns {
				t.Errorf("server saw %d TCP connections, want %d", len(remotes), conns)
			}
			if res.Requests != served.Load() {
				t.Errorf("Requests = %d, server served %d", res.Requests, served.Load())
			}
		})
	}
}

func TestRunCookies(t *testing.T) {
	var mu sync.Mutex
	remotes := make(map[string]map[string]bool) // auth cookie -> remote addresses
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil {
			http.Error(w, "no cookie", http.StatusForbidden)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if remotes[c.Value] == nil {
			remotes[c.Value] = make(map[string]bool)
		}
		remotes[c.Value][r.RemoteAddr] = true
	})
	res := run(t, h, loadtest.Options{Connections: 3, Cookies: []string{"alice", "bob"}, CookieName: "session"})
	if res.Errors != 0 {
		t.Fatalf("%d errors: %q", res.Errors, res.ErrorSamples)
	}
	// Connections 0 and 2 are alice, connection 1 is bob.
	if len(remotes) != 2 || len(remotes["alice"]) != 2 || len(remotes["bob"]) != 1 {
		t.Errorf("cookies by connection = %v, want alice on two connections and bob on one", remotes)
	}
}

func TestRunSendsBearerTokens(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t-"+r.URL.Query().Get("conn") {
			http.Error(w, "wrong token", http.StatusUnauthorized)
		}
	})
	res := run(t, h, loadtest.Options{Connections: 2, Next: func(conn int, _ *rand.Rand) loadtest.Request {
		c := strconv.Itoa(conn)
		return loadtest.Request{Path: "/?conn=" + c, Bearer: "t-" + c}
	}})
	if res.Errors != 0 || res.Requests == 0 {
		t.Fatalf("%d requests, %d errors: %q", res.Requests, res.Errors, res.ErrorSamples)
	}
}

func TestRunPostsForms(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != "POST" || r.URL.Query().Get("q") != "1" || r.PostFormValue("status") != "hi & bye" {
			http.Error(w, "bad request", http.StatusBadRequest)
		}
	})
	res := run(t, h, loadtest.Options{
		Next: func(int, *rand.Rand) loadtest.Request {
			return loadtest.Request{Method: "POST", Path: "/post?q=1", Form: url.Values{"status": {"hi & bye"}}}
		},
	})
	if res.Errors != 0 {
		t.Fatalf("%d errors: %q", res.Errors, res.ErrorSamples)
	}
}

// TestRunSeedsPerConnection checks that each connection's random
// sequence depends on the connection number only.
func TestRunSeedsPerConnection(t *testing.T) {
	const conns = 3
	firsts := func() [conns][]uint64 {
		var seqs [conns][]uint64 // each written by its connection's goroutine only
		run(t, http.NotFoundHandler(), loadtest.Options{
			Connections: conns,
			Next: func(conn int, rng *rand.Rand) loadtest.Request {
				if len(seqs[conn]) < 3 {
					seqs[conn] = append(seqs[conn], rng.Uint64())
				}
				return loadtest.Request{Path: "/"}
			},
		})
		return seqs
	}
	a, b := firsts(), firsts()
	for conn := range conns {
		if len(a[conn]) < 3 || !slices.Equal(a[conn], b[conn]) {
			t.Errorf("connection %d: sequences %v and %v differ between runs", conn, a[conn], b[conn])
		}
	}
	if slices.Equal(a[0], a[1]) {
		t.Error("connections 0 and 1 have the same random sequence")
	}
}

func TestRunTransportErrors(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		res := run(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done() // until the client gives up
		}), loadtest.Options{Timeout: 20 * time.Millisecond, Next: get("/slow?x=1")})
		if res.Errors != res.Requests {
			t.Errorf("Errors = %d of %d requests, want all", res.Errors, res.Requests)
		}
		if want := []string{"GET /slow: timeout after 20ms"}; !slices.Equal(res.ErrorSamples, want) {
			t.Errorf("ErrorSamples = %q, want %q", res.ErrorSamples, want)
		}
	})
	t.Run("connection refused", func(t *testing.T) {
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close() // nothing listens on its address any more
		res, err := loadtest.Run(t.Context(), loadtest.Options{
			BaseURL: srv.URL, Connections: 2, Duration: 50 * time.Millisecond, Next: get("/"),
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Requests == 0 || res.Errors != res.Requests {
			t.Errorf("Errors = %d of %d requests, want all and some", res.Errors, res.Requests)
		}
		if len(res.ErrorSamples) != 1 || !strings.HasPrefix(res.ErrorSamples[0], "GET /: dial tcp") {
			t.Errorf("ErrorSamples = %q, want one dial error", res.ErrorSamples)
		}
	})
}

// TestRunCancel checks that cancelling the context ends the run at once,
// without counting the requests it aborted.
func TestRunCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done() // never answers
	}))
	defer srv.Close()
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	res, err := loadtest.Run(ctx, loadtest.Options{
		BaseURL: srv.URL, Connections: 2, Duration: time.Hour, Timeout: time.Hour, Next: get("/"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Requests != 0 || res.Errors != 0 {
		t.Errorf("Requests, Errors = %d, %d; want 0, 0", res.Requests, res.Errors)
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	good := loadtest.Options{BaseURL: "http://127.0.0.1:1", Connections: 1, Duration: time.Second, Next: get("/")}
	tests := []struct {
		name   string
		modify func(*loadtest.Options)
	}{
		{"no base URL", func(o *loadtest.Options) { o.BaseURL = "" }},
		{"relative base URL", func(o *loadtest.Options) { o.BaseURL = "/foo" }},
		{"ftp base URL", func(o *loadtest.Options) { o.BaseURL = "ftp://example.com" }},
		{"unparsable base URL", func(o *loadtest.Options) { o.BaseURL = "http://[::1" }},
		{"no connections", func(o *loadtest.Options) { o.Connections = 0 }},
		{"no duration", func(o *loadtest.Options) { o.Duration = 0 }},
		{"no Next", func(o *loadtest.Options) { o.Next = nil }},
		{"negative timeout", func(o *loadtest.Options) { o.Timeout = -time.Second }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := good
			tt.modify(&opts)
			if _, err := loadtest.Run(t.Context(), opts); err == nil {
				t.Error("Run succeeded")
			}
		})
	}
}

func TestResultString(t *testing.T) {
	tests := []struct {
		res  loadtest.Result
		want string
	}{
		{
			loadtest.Result{Requests: 12345, Errors: 0, RPS: 4115, P50: 1234567, P90: 3412345, P99: 9876543, Max: 20123456},
			"12345 req  4115.0 req/s  p50 1.2ms  p90 3.4ms  p99 9.9ms  max 20ms  errors 0",
		},
		{
			loadtest.Result{Requests: 7, Errors: 2, RPS: 0.5, P50: 850 * time.Nanosecond, P90: 345678 * time.Nanosecond, P99: 4567 * time.Millisecond, Max: 75 * time.Second},
			"7 req  0.5 req/s  p50 850ns  p90 346µs  p99 4.6s  max 1m15s  errors 2",
		},
		{loadtest.Result{}, "0 req  0.0 req/s  p50 0s  p90 0s  p99 0s  max 0s  errors 0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.res.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
