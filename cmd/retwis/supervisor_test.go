package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// redisChildren returns the ids of the redis-server processes this test
// process started. (redis-server rewrites its command line, so they are
// found by parent and name.)
func redisChildren(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc to look for processes in")
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		status, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		if err == nil && bytes.Contains(status, []byte("Name:\tredis-server\n")) &&
			bytes.Contains(status, []byte("PPid:\t"+strconv.Itoa(os.Getpid())+"\n")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestServeRestartsEmbeddedRedis kills the embedded redis-server under a
// running server: retwis starts it again and carries on with the data,
// and stopping retwis leaves no redis-server behind.
func TestServeRestartsEmbeddedRedis(t *testing.T) {
	dir := t.TempDir()
	base, stop := startServe(t, serveConfig{addr: "127.0.0.1:0", dataDir: dir})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	res, err := c.PostForm(base+"/register", url.Values{"username": {"phoenix"}, "password": {"password1"}, "password2": {"password1"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	pids := redisChildren(t)
	if len(pids) != 1 {
		t.Fatalf("found redis-server processes %v started by retwis; want exactly one", pids)
	}
	syscall.Kill(pids[0], syscall.SIGKILL)

	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := c.Get(base + "/")
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == 200 && bytes.Contains(body, []byte("Hi, phoenix")) {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("retwis did not recover after its redis-server was killed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if left := redisChildren(t); len(left) != 0 {
		t.Fatalf("redis-server processes %v still running after retwis stopped", left)
	}
}
