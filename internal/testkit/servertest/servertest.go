// Package servertest starts a whole retwis server for a test: the
// handler internal/mux composes (the pages, the probes, the client
// API and its streams) on a real Redis, with a delivery worker, as
// `retwis serve` runs it; and calls its client API as an app does.
package servertest

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-mastodon"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/mux"
	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/storetest"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// Options configure Start.
type Options struct {
	// Mux configures the interfaces; its Store and Log are the test
	// server's.
	Mux mux.Options
	// Store configures the store; its Log is the test server's.
	Store store.Options
	// Start starts the HTTP server; nil means httptest.NewServer.
	Start func(http.Handler) *httptest.Server
}

// Server is a retwis server started for a test, stopped when it ends.
type Server struct {
	T        testing.TB          // the test it serves
	URL      string              // where the server listens: HTTP.URL
	HTTP     *httptest.Server    // the HTTP server
	RedisURL string              // the Redis it runs on, for a second server
	Store    *store.Store        // the server's store
	Calls    *storetest.Counting // the store's round trips to Redis
	Logs     *syncbuf.Buffer     // what the server logged
	Handler  *mux.Handler        // its handler, to end its streams
	Media    *media.Service      // its media, with files in a directory of the test's
}

// Start starts a server on the Redis (or cluster) at redisURL, migrated,
// with a delivery worker of its own.
func Start(t testing.TB, redisURL string, opts Options) *Server {
	t.Helper()
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	opts.Store.Log = log
	st, calls := storetest.OpenCounting(t, redisURL, opts.Store)
	if err := st.Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	storetest.StartWorker(t, redisURL, store.Options{})
	opts.Mux.Store, opts.Mux.Log = st, log
	if opts.Mux.Media == nil {
		opts.Mux.Media = Media(t, st)
	}
	h, err := mux.New(opts.Mux)
	if err != nil {
		t.Fatal(err)
	}
	start := opts.Start
	if start == nil {
		start = httptest.NewServer
	}
	srv := start(h)
	t.Cleanup(srv.Close)
	t.Cleanup(h.Close) // first: the HTTP server's Close waits for the streams
	return &Server{T: t, URL: srv.URL, HTTP: srv, RedisURL: redisURL, Store: st, Calls: calls, Logs: logs, Handler: h, Media: opts.Mux.Media}
}

// Drain waits until every delivery job is done.
func (s *Server) Drain() { s.T.Helper(); storetest.Drain(s.T, s.Store) }

// User signs up a user and returns them with an access token of the
// given scopes (default "read write follow").
func (s *Server) User(name string, scopes ...string) (retwis.User, string) {
	s.T.Helper()
	u, _, err := s.Store.Register(s.T.Context(), name, "password-"+name)
	if err != nil {
		s.T.Fatal(err)
	}
	sc, err := retwis.ParseScopes(strings.Join(append([]string{}, scopes...), " "))
	if len(scopes) == 0 {
		sc = retwis.Scopes{"read", "write", "follow"}
	}
	if err != nil {
		s.T.Fatal(err)
	}
	tok, err := s.Store.CreateToken(s.T.Context(), u.ID, "", "test", sc)
	if err != nil {
		s.T.Fatal(err)
	}
	return u, tok
}

// Post posts text as the token's user through the API and returns the
// post's id.
func (s *Server) Post(token, text string) string {
	s.T.Helper()
	r := s.Call("POST", "/api/v1/statuses", token, url.Values{"status": {text}})
	var st struct{ ID string }
	r.Decode(s.T, &st)
	if r.Status != http.StatusOK || st.ID == "" {
		s.T.Fatalf("post %q: %d %s", text, r.Status, r.Body)
	}
	return st.ID
}

// eventWait is how long a test waits for Redis or a stream before it
// fails.
const eventWait = 10 * time.Second

// WaitSubscribed waits until the server's Redis (every node of a
// cluster) has n subscribed channels: the streams of the clients
// connected.
func (s *Server) WaitSubscribed(n int) {
	s.T.Helper()
	raw, err := redisconn.Dial(s.RedisURL)
	if err != nil {
		s.T.Fatal(err)
	}
	defer raw.Close()
	for deadline := time.Now().Add(eventWait); ; time.Sleep(5 * time.Millisecond) {
		got := 0
		for _, node := range raw.Nodes() {
			chans, err := node.Do(s.T.Context(), node.B().PubsubShardchannels().Build()).AsStrSlice()
			if err != nil {
				s.T.Fatal(err)
			}
			got += len(chans)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			s.T.Fatalf("Redis has %d subscribed channels; want %d", got, n)
		}
	}
}

// NextEvent returns the next event of a go-mastodon stream, failing the
// test on an error event or none.
func NextEvent(t testing.TB, events chan mastodon.Event) mastodon.Event {
	t.Helper()
	select {
	case ev := <-events:
		if e, ok := ev.(*mastodon.ErrorEvent); ok {
			t.Fatalf("stream error: %v", e)
		}
		return ev
	case <-time.After(eventWait):
		t.Fatal("no event came")
	}
	return nil
}

// Reply is an answer of the API.
type Reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// Decode decodes the answer's JSON into v, failing the test if it is
// not JSON.
func (r Reply) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("answer %d is not JSON: %v: %s", r.Status, err, r.Body)
	}
}

// ErrorMessage returns the "error" of a JSON error answer.
func (r Reply) ErrorMessage(t testing.TB) string {
	t.Helper()
	var e struct{ Error string }
	r.Decode(t, &e)
	if e.Error == "" {
		t.Fatalf("answer %d has no error message: %s", r.Status, r.Body)
	}
	return e.Error
}

// RawBody is a body Call sends as it is, with its content type.
type RawBody struct{ ContentType, Body string }

// Call sends a request with token (if any) and a body: url.Values are
// sent form-encoded, strings as they are with the JSON type, a RawBody
// as it is, nil as nothing, anything else as JSON; header are pairs of
// a name and a value ("Host" sets the host the request names).
func (s *Server) Call(method, path, token string, body any, header ...string) Reply {
	s.T.Helper()
	var rd io.Reader
	ct := ""
	switch b := body.(type) {
	case url.Values:
		rd, ct = strings.NewReader(b.Encode()), "application/x-www-form-urlencoded"
	case string:
		rd, ct = strings.NewReader(b), "application/json"
	case RawBody:
		rd, ct = strings.NewReader(b.Body), b.ContentType
	case nil:
	default:
		js, err := json.Marshal(b)
		if err != nil {
			s.T.Fatal(err)
		}
		rd, ct = bytes.NewReader(js), "application/json"
	}
	req, err := http.NewRequestWithContext(s.T.Context(), method, s.URL+path, rd)
	if err != nil {
		s.T.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") { // the host the request names, not the one it is sent to
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.HTTP.Client().Do(req)
	if err != nil {
		s.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatal(err)
	}
	return Reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Mastodon returns a go-mastodon client of s configured by cfg (its
// Server set to s), which talks over s's own connections: not over
// http.DefaultTransport, whose idle connections every other test's
// server closes when it stops (httptest.Server.Close), breaking a
// request that was about to reuse one.
func (s *Server) Mastodon(cfg *mastodon.Config) *mastodon.Client {
	cfg.Server = s.URL
	c := mastodon.NewClient(cfg)
	c.Client = *s.HTTP.Client()
	return c
}

// Media returns a media service on st with its files in a directory of
// t's, closed when t ends.
func Media(t testing.TB, st *store.Store) *media.Service {
	t.Helper()
	blobs, err := dirblobs.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	m := media.New(st, blobs, media.Options{})
	t.Cleanup(func() { m.Close() })
	return m
}

// Photo returns a w x h JPEG of a gradient: a picture to upload.
func Photo(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x + y), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
