package cards_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/cards"
	"github.com/retwis/retwis/internal/safehttp"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/delivery"
	"github.com/retwis/retwis/internal/store/interact"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// startWorkers runs, until the test ends, a delivery worker that queues
// link previews and a card worker that may reach this machine.
func startWorkers(t *testing.T, f *storetest.Fixture) {
	ctx, cancel := context.WithCancel(context.Background())
	dw := storetest.Open(t, f.URL, store.Options{})
	d := delivery.New(dw, delivery.Options{Consumer: "test", Block: 20 * time.Millisecond, LinkPreviews: true})
	w := cards.New(f.St.DB, cards.Options{Consumer: "test", FetchOptions: cards.FetchOptions{
		Client: safehttp.Client(safehttp.Options{AllowPrivate: true}), AllowPrivate: true, StoreImage: storeImage}})
	done := make(chan error, 2)
	go func() { done <- d.Run(ctx) }()
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Error(err)
			}
		}
	})
}

// cardOf waits until post pid has a card, as its author reads it, and
// returns it.
func cardOf(t *testing.T, f *storetest.Fixture, author, pid int64) *retwis.Card {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, err := f.St.Post(f.Ctx, author, pid)
		if err != nil {
			t.Fatal(err)
		}
		if p.Card != nil || time.Now().After(deadline) {
			return p.Card
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// drained waits until every job of the queue of link previews is done
// (acknowledged jobs are deleted).
func drained(t *testing.T, f *storetest.Fixture) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := 0
		for _, s := range cards.Streams() {
			l, _ := strconv.Atoi(f.Do(t, "XLEN", s))
			n += l
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d card jobs left", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestWorker(t *testing.T) {
	for _, db := range storetest.Databases(&cluster) {
		t.Run(db.Name, func(t *testing.T) {
			t.Parallel()
			testWorker(t, storetest.NewFixture(t, db.URL(t), store.Options{}, false))
		})
	}
}

func testWorker(t *testing.T, f *storetest.Fixture) {
	srv := site(t)
	var hits atomic.Int32
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, srv.URL+"/article", http.StatusFound)
	}))
	t.Cleanup(counted.Close)
	startWorkers(t, f)
	ann := f.Register(t, "ann")

	// A post with a link gets its card; another with the same link gets
	// it from the cache; a direct one too (as Mastodon).
	p1 := f.Post(t, posts.Draft{Author: ann.ID, Text: "#tag @ann read " + counted.URL + "/a. And https://example.com/b"})
	c := cardOf(t, f, ann.ID, p1.ID)
	if c == nil || c.Title != "An article" || c.URL != counted.URL+"/a" || c.Image == nil || c.Image.Width != 4 {
		t.Fatalf("card %+v", c)
	}
	p2 := f.Post(t, posts.Draft{Author: ann.ID, Text: "again " + counted.URL + "/a", Visibility: retwis.Direct})
	if c2 := cardOf(t, f, ann.ID, p2.ID); c2 == nil || retwis.EncodeCard(*c2) != retwis.EncodeCard(*c) {
		t.Errorf("second card %+v, want %+v", c2, c)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the link was fetched %d times, want 1", n)
	}

	// A page without a title, a page that fails, a post without a link
	// and a boost get none; a failure is kept an hour.
	none := f.Post(t, posts.Draft{Author: ann.ID, Text: "see " + srv.URL + "/untitled"})
	failed := f.Post(t, posts.Draft{Author: ann.ID, Text: "see " + srv.URL + "/missing"})
	plain := f.Post(t, posts.Draft{Author: ann.ID, Text: "no link, just example.com"})
	boost, err := f.St.Boost(f.Ctx, ann.ID, p1.ID)
	if err != nil {
		t.Fatal(err)
	}
	f.Drain(t)
	drained(t, f)
	for _, pid := range []int64{none.ID, failed.ID, plain.ID, boost.ID} {
		if got := f.Do(t, "HGET", schema.Post(pid), schema.FieldCard); got != "" {
			t.Errorf("post %d has card %s", pid, got)
		}
	}
	if v, ttl := f.Do(t, "GET", schema.Card(srv.URL+"/missing")), f.Do(t, "TTL", schema.Card(srv.URL+"/missing")); v != schema.CardNone || ttl > "3600" || len(ttl) != 4 {
		t.Errorf("the failure is cached as %q for %ss", v, ttl)
	}

	// An edit that adds a link gets its card (from the cache); one that
	// takes the link away takes the card off.
	must.Value(f.St.EditPost(f.Ctx, interact.Edit{Author: ann.ID, Post: plain.ID, Text: "now with " + counted.URL + "/a"}))(t)
	if c3 := cardOf(t, f, ann.ID, plain.ID); c3 == nil || c3.Title != "An article" {
		t.Errorf("the edited post's card %+v", c3)
	}
	must.Value(f.St.EditPost(f.Ctx, interact.Edit{Author: ann.ID, Post: p1.ID, Text: "no link any more"}))(t)
	f.Drain(t)
	if got := f.Do(t, "HGET", schema.Post(p1.ID), schema.FieldCard); got != "" {
		t.Errorf("a post edited without its link keeps card %s", got)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the link was fetched %d times, want 1", n)
	}

	// The card of a post deleted meanwhile does not bring it back.
	gone := f.Post(t, posts.Draft{Author: ann.ID, Text: "soon gone"})
	f.Drain(t)
	if err := f.St.DeletePost(f.Ctx, ann.ID, gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.Raw.Do(f.Ctx, cards.JobCmd(f.Raw.B(), gone.ID, ann.ID, counted.URL+"/a")).Error(); err != nil {
		t.Fatal(err)
	}
	drained(t, f)
	if n := f.Do(t, "EXISTS", schema.Post(gone.ID)); n != "0" {
		t.Errorf("the deleted post is back: %s", fmt.Sprint(f.Strs(t, "HGETALL", schema.Post(gone.ID))))
	}
}
