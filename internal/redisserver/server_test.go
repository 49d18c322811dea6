package redisserver_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/retwis/retwis/internal/redisserver"
	"github.com/retwis/retwis/internal/resp"
)

func TestStartStopRestart(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "rts")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	opts := redisserver.Options{Dir: dir, Socket: filepath.Join(dir, "r.sock"), Persist: true}
	s, err := redisserver.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Command(t.Context(), "SET", "k", "kept\r\nacross restarts"); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := s.Command(t.Context(), "PING"); err == nil {
		t.Fatal("server still answers after Stop")
	}
	s, err = redisserver.Start(t.Context(), s.Options())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if v, err := s.Command(t.Context(), "GET", "k"); err != nil || v != "kept\r\nacross restarts" {
		t.Fatalf("GET after restart = %q, %v; want the value back (append-only persistence)", v, err)
	}
	if _, err := s.Command(t.Context(), "NOSUCHCOMMAND"); !errors.As(err, new(resp.Error)) {
		t.Fatalf("an error reply was returned as %v; want a resp.Error", err)
	}
	if _, err := s.Command(t.Context(), "GET", "missing"); err != redisserver.ErrNil {
		t.Fatalf("GET of a missing key: %v; want ErrNil", err)
	}
	if n, err := s.Command(t.Context(), "INCR", "n"); err != nil || n != "1" {
		t.Fatalf("INCR = %q, %v; want the integer as a string", n, err)
	}
}

// TestStartFailsClearly: without redis-server on the PATH, or with a
// directive it refuses, Start says so. Not in parallel: it empties the
// PATH of the process.
func TestStartFailsClearly(t *testing.T) {
	t.Run("not installed", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		if _, err := redisserver.Start(t.Context(), redisserver.Options{Dir: t.TempDir()}); err != redisserver.ErrNotInstalled {
			t.Fatalf("err = %v; want ErrNotInstalled", err)
		}
	})
	t.Run("bad config", func(t *testing.T) {
		_, err := redisserver.Start(t.Context(), redisserver.Options{Dir: t.TempDir(), Port: 1, Args: []string{"--no-such-directive", "x"}})
		if err == nil {
			t.Fatal("a server with a bad directive started")
		}
	})
}
