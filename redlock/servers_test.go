package redlock_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/retwis/retwis/internal/redisserver"
)

// server is one real redis-server of a test, which the test may kill and
// start again.
type server struct {
	t    testing.TB
	opts redisserver.Options
	srv  *redisserver.Server
}

// startServers starts n independent redis-servers on unix sockets, with
// or without append-only persistence.
func startServers(t testing.TB, n int, persist bool) []*server {
	t.Helper()
	dir, err := os.MkdirTemp("", "rl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var out []*server
	for i := range n {
		d := filepath.Join(dir, string(rune('a'+i)))
		s := &server{t: t, opts: redisserver.Options{Dir: d, Socket: d + ".sock", Persist: persist}}
		s.start()
		t.Cleanup(func() {
			if s.srv != nil {
				s.srv.Stop()
			}
		})
		out = append(out, s)
	}
	return out
}

func (s *server) start() {
	s.t.Helper()
	srv, err := redisserver.Start(context.Background(), s.opts)
	if err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.srv = srv
}

// stop shuts the server down cleanly (it saves its data if persistent).
func (s *server) stop() { s.srv.Stop(); s.srv = nil }

// crash kills the server at once, as a power cut would.
func (s *server) crash() { s.srv.Kill(); s.srv = nil }

func (s *server) url() string { return "unix://" + s.opts.Socket }

// do runs one command on the server.
func (s *server) do(args ...string) (string, error) {
	return s.srv.Command(context.Background(), args...)
}

func urls(servers []*server) []string {
	var out []string
	for _, s := range servers {
		out = append(out, s.url())
	}
	return out
}
