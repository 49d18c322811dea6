package streaming_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/streaming"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/servertest"
)

// opened is a stream asked for: the answer's status and, when refused,
// its body; close ends an open stream.
type opened struct {
	status int
	body   string
	close  func()
}

// open asks for the SSE stream at path with token (if any), and returns
// once the server answered: an open stream has written its first line.
func (s *server) open(path, token string) opened {
	s.T.Helper()
	ctx, cancel := context.WithCancel(s.T.Context())
	req := must.Value(http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil))(s.T)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp := must.Value(http.DefaultClient.Do(req))(s.T)
	s.T.Cleanup(func() { cancel(); resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		return opened{status: resp.StatusCode, body: string(must.Value(io.ReadAll(resp.Body))(s.T)), close: cancel}
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		s.T.Fatalf("GET %s: %v", path, err)
	}
	return opened{status: http.StatusOK, close: func() { cancel(); resp.Body.Close() }}
}

// expectRefused checks that o was refused with 429 and a JSON error
// saying why (reason).
func (o opened) expectRefused(t *testing.T, reason string) {
	t.Helper()
	if o.status != http.StatusTooManyRequests || !strings.Contains(o.body, `"error":"`) || !strings.Contains(o.body, reason) {
		t.Fatalf("%d %s; want 429 with a JSON error %q", o.status, o.body, reason)
	}
}

// openOnce retries opening the stream at path until it is open: the
// server counts a stream its client closed once it notices.
func (s *server) openOnce(path, token string) opened {
	s.T.Helper()
	for deadline := time.Now().Add(wait); ; {
		o := s.open(path, token)
		if o.status == http.StatusOK {
			return o
		}
		if time.Now().After(deadline) {
			s.T.Fatalf("GET %s: %d %s", path, o.status, o.body)
		}
	}
}

// gauge returns the value of the gauge name in reg.
func gauge(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	for _, mf := range must.Value(reg.Gather())(t) {
		if mf.GetName() == name {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestStreamLimits: the connections open at once on a server are bounded
// per token (SSE and WebSocket alike), per account and per address,
// each refused with 429 and a JSON error naming its bound; a connection
// closed makes room again; the metrics count the connections and the
// Redis channels they subscribe.
func TestStreamLimits(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	s := &server{servertest.Start(t, redistest.Start(t).URL, servertest.Options{Mux: mux.Options{Metrics: reg,
		Streaming: streaming.Options{Limits: streaming.Limits{PerToken: 2, PerAccount: 3, PerAddr: 5}}}})}
	alice, one := s.User("alice")
	two := must.Value(s.Store.CreateToken(t.Context(), alice.ID, "", "another", retwis.Scopes{"read"}))(t)

	first := s.open("/api/v1/streaming/user", one)
	s.open("/api/v1/streaming/public", one)
	s.open("/api/v1/streaming/user", one).expectRefused(t, "with one access token (at most 2)")
	r := s.Call("GET", "/api/v1/streaming?stream=public", one, nil, "Connection", "Upgrade", "Upgrade", "websocket")
	if r.Status != http.StatusTooManyRequests || !strings.Contains(r.ErrorMessage(t), "with one access token") {
		t.Fatalf("a WebSocket past the token's bound: %d %s", r.Status, r.Body)
	}
	s.open("/api/v1/streaming/user", two)
	s.open("/api/v1/streaming/user", two).expectRefused(t, "for one account (at most 3)")
	if got := gauge(t, reg, "retwis_streams_open"); got != 3 {
		t.Errorf("retwis_streams_open = %v; want 3", got)
	}
	if got := gauge(t, reg, "retwis_stream_subscriptions"); got != 3 {
		t.Errorf("retwis_stream_subscriptions = %v; want 3 (alice's stream, the public one, the revocations)", got)
	}

	first.close()
	s.openOnce("/api/v1/streaming/user", one)
	s.open("/api/v1/streaming/public", "")
	ws, resp, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(s.URL, "http")+"/api/v1/streaming?stream=public", nil)
	if err != nil {
		t.Fatalf("a WebSocket within the address's bound: %v (%v)", err, resp)
	}
	defer ws.CloseNow()
	s.open("/api/v1/streaming/public", "").expectRefused(t, "from one address (at most 5)")
}

// TestStreamRateLimited: a token at the client API's rate limit opens no
// stream (429, Retry-After), nor does an address without a token.
func TestStreamRateLimited(t *testing.T) {
	t.Parallel()
	s := &server{servertest.Start(t, redistest.Start(t).URL, servertest.Options{Mux: mux.Options{
		API: api.Options{Rate: retwis.Rate{Count: 2, Per: time.Hour}}}})}
	_, token := s.User("alice")
	for range 2 {
		if r := s.Call("GET", "/api/v1/accounts/verify_credentials", token, nil); r.Status != http.StatusOK {
			t.Fatalf("a call within the rate: %d %s", r.Status, r.Body)
		}
	}
	for _, tc := range []struct{ name, token string }{{"the token", token}, {"an address", ""}} {
		if tc.token == "" {
			s.open("/api/v1/streaming/public", "")
			s.open("/api/v1/streaming/public", "")
		}
		req := must.Value(http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+"/api/v1/streaming/public", nil))(t)
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp := must.Value(http.DefaultClient.Do(req))(t)
		body := must.Value(io.ReadAll(resp.Body))(t)
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"error"`) {
			t.Errorf("a stream of %s past the API's rate: %d %q %s; want 429 with Retry-After", tc.name, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
}
