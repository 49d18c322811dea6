package redisserver_test

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/redisserver"
)

// TestSupervise kills a supervised redis-server twice: each time it is
// started again on the same socket with its data, and after Stop no
// server is left.
func TestSupervise(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "rtsv")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	srv, err := redisserver.Start(t.Context(), redisserver.Options{Dir: dir, Socket: filepath.Join(dir, "r.sock"), Persist: true})
	if err != nil {
		t.Fatal(err)
	}
	sv := redisserver.Supervise(srv, slog.New(slog.NewTextHandler(io.Discard, nil)))
	stopped := false
	defer func() {
		if !stopped {
			sv.Stop()
		}
	}()
	// Every write reaches the disk before its reply, so that a kill loses
	// nothing whatever the machine's load (everysec may postpone a write).
	if _, err := srv.Command(t.Context(), "CONFIG", "SET", "appendfsync", "always"); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Command(t.Context(), "SET", "k", "kept"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		killed := sv.Server()
		killed.Kill() // as a crash would; the supervisor sees it exit
		deadline := time.Now().Add(30 * time.Second)
		for {
			// A Server's address outlives its process: srv reaches the new one.
			if sv.Server() != killed {
				if v, err := srv.Command(t.Context(), "GET", "k"); err == nil && v == "kept" {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("the killed redis-server was not started again with its data")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	sv.Stop()
	stopped = true
	if _, err := srv.Command(t.Context(), "PING"); err == nil {
		t.Fatal("a redis-server still answers after Stop")
	}
}
