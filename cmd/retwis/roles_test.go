package main

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/retwis/retwis/internal/redisconn"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestRoles runs a web-only and a worker-only server on one database:
// the web server takes the post, and only once the worker runs does it
// reach the follower. The worker serves the probes and no pages.
func TestRoles(t *testing.T) {
	t.Parallel()
	redis := redistest.Start(t)
	web, stopWeb := startServe(t, serveConfig{addr: "127.0.0.1:0", redisURL: redis.URL, role: roleWeb})
	defer stopWeb()
	alice, bob := newUser(t, web), newUser(t, web)
	alice.signUp("alice")
	bob.signUp("bob")
	bob.post("/u/alice/follow", nil)
	alice.post("/post", url.Values{"status": {"delivered by the worker"}})
	db, err := redisconn.Dial(redis.URL)
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
		return must.Value(db.Do(t.Context(), db.B().Llen().Key("posts:{"+bobID+"}").Build()).AsInt64())(t) > 0
	}
	// A delivery worker joins the delivery group with its first read, as
	// it starts, before its server serves a page: the web-only server,
	// which has served the sign-ups, the follow and the post, would have
	// joined by now.
	if n := deliveryConsumers(t, db); n != 0 || delivered() {
		t.Fatalf("a web-only server delivers posts itself: %d consumers of the delivery queue, post delivered: %v", n, delivered())
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

// deliveryConsumers returns how many consumers the delivery group has,
// over every shard of the queue.
func deliveryConsumers(t *testing.T, db rueidis.Client) int64 {
	t.Helper()
	var n int64
	for shard := range schema.QueueShards {
		groups := must.Value(db.Do(t.Context(), db.B().XinfoGroups().Key(schema.QueueN(shard).Stream).Build()).ToArray())(t)
		for _, g := range groups {
			info := must.Value(g.AsMap())(t)
			name, consumers := info["name"], info["consumers"]
			if must.Value(name.ToString())(t) == schema.DeliveryGroup {
				n += must.Value(consumers.AsInt64())(t)
			}
		}
	}
	return n
}
