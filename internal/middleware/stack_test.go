package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/syncbuf"
)

// handler is a handler under test, given the Stack in front of it.
type handler func(st *middleware.Stack, w http.ResponseWriter, r *http.Request)

// server is a Stack in front of one handler, on real HTTP.
type server struct {
	t    *testing.T
	srv  *httptest.Server
	logs *syncbuf.Buffer
}

// newStack returns h behind a Stack configured by opts, whose errors are
// rendered as "<status> <message>" in plain text, and the Stack's log.
func newStack(opts middleware.Options, h handler) (http.Handler, *syncbuf.Buffer) {
	logs := &syncbuf.Buffer{}
	opts.Log = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	opts.RenderError = func(w http.ResponseWriter, r *http.Request, status int, msg string) {
		w.WriteHeader(status)
		fmt.Fprintf(w, "%d %s", status, msg)
	}
	st := middleware.New(opts)
	return st.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h(st, w, r)
	})), logs
}

// newServer serves h behind a Stack configured by opts (see newStack),
// keeping its log.
func newServer(t *testing.T, opts middleware.Options, h handler) *server {
	stack, logs := newStack(opts, h)
	srv := httptest.NewServer(stack)
	t.Cleanup(srv.Close)
	return &server{t: t, srv: srv, logs: logs}
}

// do sends a request with body (if not "") and the given headers.
func (s *server) do(ctx context.Context, method, path, body string, header http.Header) (*http.Response, error) {
	s.t.Helper()
	req := must.Value(http.NewRequestWithContext(ctx, method, s.srv.URL+path, strings.NewReader(body)))(s.t)
	for k, v := range header {
		req.Header[k] = v
	}
	return s.srv.Client().Do(req)
}

// get requests path and returns the status and body.
func (s *server) get(path string, header http.Header) (int, string) {
	s.t.Helper()
	res, err := s.do(s.t.Context(), "GET", path, "", header)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	body := must.Value(io.ReadAll(res.Body))(s.t)
	return res.StatusCode, string(body)
}

// waitLog waits for a log line matching re: request lines are written
// just after the response.
func (s *server) waitLog(re string) {
	s.t.Helper()
	want := regexp.MustCompile(re)
	deadline := time.Now().Add(5 * time.Second)
	for !want.MatchString(s.logs.String()) {
		if time.Now().After(deadline) {
			s.t.Fatalf("no log line matching %s in:\n%s", re, s.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// failWith is a handler that fails with err.
func failWith(err error) handler {
	return func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) { st.Fail(w, r, err) }
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	s := newServer(t, middleware.Options{}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			st.Fail(w, r, retwis.Errorf(retwis.NotFound, "No such thing."))
		case "/canceled":
			st.Fail(w, r, retwis.Errorf(retwis.Canceled, "Cancelled."))
		}
	})
	if status, body := s.get("/missing?x=1", nil); status != 404 || body != "404 No such thing." {
		t.Fatalf("got %d %q", status, body)
	}
	s.waitLog(`level=INFO msg=request method=GET path=/missing status=404 duration=[0-9.]+[µmn]?s\n`)
	s.get("/empty", nil)
	s.waitLog(`level=INFO msg=request method=GET path=/empty status=200 `)
	if status, _ := s.get("/canceled", nil); status != 400 {
		t.Fatalf("a Canceled error answered %d", status)
	}
	s.waitLog(`level=DEBUG msg="client went away" method=GET path=/canceled`)
	if strings.Contains(s.logs.String(), "level=ERROR") {
		t.Fatalf("a client's mistake was logged as an error:\n%s", s.logs.String())
	}
}

// TestStaticLog: behind WrapStatic, a file is sent with the security
// headers; an
// answer that fails is logged and one that succeeds is not, unless
// LogStatic says to log them all.
func TestStaticLog(t *testing.T) {
	t.Parallel()
	for _, all := range []bool{false, true} {
		logs := &syncbuf.Buffer{}
		st := middleware.New(middleware.Options{LogStatic: all, Log: slog.New(slog.NewTextHandler(logs, nil)),
			RenderError: func(w http.ResponseWriter, r *http.Request, status int, msg string) { w.WriteHeader(status) }})
		srv := httptest.NewServer(st.WrapStatic("GET /static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/static/style.css" {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, "body { }")
		})))
		s := &server{t: t, srv: srv, logs: logs}
		res := must.Value(s.do(t.Context(), "GET", "/static/style.css", "", nil))(t)
		body := must.Value(io.ReadAll(res.Body))(t)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != "body { }" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
			res.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("got %d %q, %v", res.StatusCode, body, res.Header)
		}
		if status, _ := s.get("/static/missing.css", nil); status != 404 {
			t.Fatalf("a missing file answered %d", status)
		}
		// The lines are written before the answers are sent: the first
		// is there by now if it is ever written.
		s.waitLog(`msg=request method=GET path=/static/missing.css status=404 `)
		if logged := strings.Contains(logs.String(), "path=/static/style.css"); logged != all {
			t.Errorf("LogStatic %v: the answer of a file logged %v:\n%s", all, logged, logs.String())
		}
		srv.Close()
	}
}

// TestClientWentAway checks that a request whose client gave up is no
// error in the log, even when the store reports its lost wait as an
// unavailable database.
func TestClientWentAway(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	s := newServer(t, middleware.Options{}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
		st.Fail(w, r, &retwis.Error{Kind: retwis.Unavailable, Message: "The database is unavailable right now.",
			Err: fmt.Errorf("store: home timeline: %w", r.Context().Err())})
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-started
		cancel()
	}()
	if _, err := s.do(ctx, "GET", "/slow", "", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("the request was not cancelled: %v", err)
	}
	s.waitLog(`level=INFO msg=request method=GET path=/slow status=499 `)
	s.waitLog(`level=DEBUG msg="client went away" method=GET path=/slow`)
	if strings.Contains(s.logs.String(), "level=ERROR") || strings.Contains(s.logs.String(), "level=WARN") {
		t.Fatalf("a client that went away was logged as a failure:\n%s", s.logs.String())
	}
}

func TestOutageLoggedAsError(t *testing.T) {
	t.Parallel()
	s := newServer(t, middleware.Options{}, failWith(&retwis.Error{Kind: retwis.Unavailable,
		Message: "The database is unavailable right now.", Err: errors.New("dial unix: connection refused")}))
	if status, body := s.get("/", nil); status != 503 || body != "503 The database is unavailable right now." {
		t.Fatalf("got %d %q", status, body)
	}
	s.waitLog(`level=ERROR msg="request failed" method=GET path=/ status=503 err=.*connection refused`)
}

func TestRecoverPanics(t *testing.T) {
	t.Parallel()
	s := newServer(t, middleware.Options{}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/boom" {
			panic("boom")
		}
	})
	if status, body := s.get("/boom", nil); status != 500 || body != "500 Something went wrong on our side." {
		t.Fatalf("got %d %q", status, body)
	}
	s.waitLog(`level=ERROR msg=panic method=GET path=/boom panic=boom`)
	s.waitLog(`msg=request method=GET path=/boom status=500 `)
	if status, _ := s.get("/", nil); status != 200 {
		t.Fatalf("the server does not answer after a panic: %d", status)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	s := newServer(t, middleware.Options{MaxBodyBytes: 10, Timeout: time.Minute},
		func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
			deadline, ok := r.Context().Deadline()
			if !ok || time.Until(deadline) > time.Minute {
				t.Errorf("the request's deadline is %v (set %v); want within a minute", deadline, ok)
			}
			read := func(w http.ResponseWriter, r *http.Request) {
				_, err := io.ReadAll(r.Body)
				if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
					w.WriteHeader(http.StatusRequestEntityTooLarge)
				}
			}
			if r.URL.Path == "/upload" {
				middleware.LargeBody(20, read)(w, r)
				return
			}
			read(w, r)
		})
	for _, c := range []struct {
		path, body string
		want       int
	}{
		{"/", "0123456789", 200}, {"/", "0123456789x", 413},
		{"/upload", "0123456789x", 200}, {"/upload", "01234567890123456789", 200}, {"/upload", "01234567890123456789x", 413},
	} {
		res, err := s.do(t.Context(), "POST", c.path, c.body, nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("a body of %d bytes to %s: %d; want %d", len(c.body), c.path, res.StatusCode, c.want)
		}
	}
}

func TestNoLimits(t *testing.T) {
	t.Parallel()
	s := newServer(t, middleware.Options{}, func(st *middleware.Stack, w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); ok {
			t.Error("a deadline without a Timeout")
		}
		if b, err := io.ReadAll(r.Body); err != nil || len(b) != 100000 {
			t.Errorf("read %d bytes, %v", len(b), err)
		}
	})
	res, err := s.do(t.Context(), "POST", "/", strings.Repeat("x", 100000), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
}
