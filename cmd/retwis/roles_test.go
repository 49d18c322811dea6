package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// user is a browser with its own cookies.
type user struct {
	t      *testing.T
	base   string
	client *http.Client
}

func newUser(t *testing.T, base string) *user {
	jar, _ := cookiejar.New(nil)
	return &user{t: t, base: base, client: &http.Client{Jar: jar}}
}

// post sends a form and checks that it was accepted (a redirect, followed).
func (u *user) post(path string, form url.Values) {
	u.t.Helper()
	res, err := u.client.PostForm(u.base+path, form)
	if err != nil {
		u.t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		u.t.Fatalf("POST %s: %s", path, res.Status)
	}
}

// get returns the status and body of a page.
func (u *user) get(path string) (int, string) {
	u.t.Helper()
	res, err := u.client.Get(u.base + path)
	if err != nil {
		u.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestRoles runs a web-only and a worker-only server on one database:
// the web server takes the post, and only once the worker runs does it
// reach the follower. The worker serves the probes and no pages.
func TestRoles(t *testing.T) {
	redis := redistest.Start(t)
	web, stopWeb := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, role: roleWeb})
	defer stopWeb()
	alice, bob := newUser(t, web), newUser(t, web)
	alice.post("/register", url.Values{"username": {"alice"}, "password": {"password1"}, "password2": {"password1"}})
	bob.post("/register", url.Values{"username": {"bob"}, "password": {"password1"}, "password2": {"password1"}})
	bob.post("/u/alice/follow", nil)
	alice.post("/post", url.Values{"status": {"delivered by the worker"}})
	db, err := store.NewClient(redis.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bobUser, err := storetest.Open(t, redis.URL, store.Options{}).UserByName(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	bobID := strconv.FormatInt(bobUser.ID, 10)
	delivered := func() bool {
		n, _ := db.Do(t.Context(), db.B().Llen().Key("posts:"+bobID).Build()).AsInt64()
		return n > 0
	}
	time.Sleep(200 * time.Millisecond)
	if delivered() {
		t.Fatal("a web-only server delivered the post itself")
	}

	worker, stopWorker := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, role: roleWorker})
	defer stopWorker()
	probe := newUser(t, worker)
	if status, _ := probe.get("/readyz"); status != http.StatusOK {
		t.Fatalf("the worker's /readyz: %d", status)
	}
	if status, _ := probe.get("/"); status != http.StatusNotFound {
		t.Fatalf("the worker serves pages: / answered %d", status)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if delivered() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker did not deliver the post")
		}
	}
	if _, home := bob.get("/"); !strings.Contains(home, "delivered by the worker") {
		t.Fatal("bob's home page lacks the post")
	}
}
