package scheduled_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// TestScheduleAndPublish schedules posts, lists, moves and cancels
// them, and publishes those due once each, even when two rounds run at
// once and when a round died between publishing and removing one.
func TestScheduleAndPublish(t *testing.T) {
	t.Parallel()
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		sc := scheduled.New(f.St)
		alice := f.Register(t, "alice")
		soon := time.Now().Add(10 * time.Minute)
		_, err := sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: time.Now().Add(time.Minute), Text: "too soon"})
		storetest.WantKind(t, err, retwis.Invalid)
		a := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: soon, Text: "first", Visibility: "unlisted", Key: "k1"}))(t)
		again := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: soon, Text: "first", Key: "k1"}))(t)
		if again.ID != a.ID {
			t.Errorf("the same key scheduled %d, then %d", a.ID, again.ID)
		}
		b := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: soon.Add(time.Hour), Text: "second"}))(t)
		c := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: soon, Text: "cancelled"}))(t)
		must.OK(t, sc.Cancel(f.Ctx, alice.ID, c.ID))
		storetest.WantKind(t, sc.Cancel(f.Ctx, alice.ID, c.ID), retwis.NotFound)
		list := must.Value(sc.List(f.Ctx, alice.ID))(t)
		if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID || list[1].Visibility != "unlisted" {
			t.Fatalf("list = %+v, want b then a", list)
		}
		moved := must.Value(sc.Reschedule(f.Ctx, alice.ID, b.ID, soon.Add(2*time.Hour)))(t)
		if !moved.At.Equal(soon.Add(2 * time.Hour).Truncate(time.Second)) {
			t.Errorf("rescheduled at %v", moved.At)
		}
		// A round died after publishing a but before removing it.
		d := must.Value(a.Draft())(t)
		d.Author = alice.ID
		f.Post(t, d)
		var wg sync.WaitGroup
		counts := make([]int, 2)
		for i := range counts {
			wg.Go(func() { counts[i] = must.Value(sc.PublishDue(f.Ctx, soon.Add(time.Minute)))(t) })
		}
		wg.Wait()
		if ids := f.Strs(t, "ZRANGE", schema.UserPosts(alice.ID), "0", "-1"); len(ids) != 1 {
			t.Errorf("alice has %d posts after the rounds, want 1: %v", len(ids), ids)
		}
		list = must.Value(sc.List(f.Ctx, alice.ID))(t)
		if len(list) != 1 || list[0].ID != b.ID {
			t.Errorf("left scheduled: %+v, want b", list)
		}
		if n := must.Value(sc.PublishDue(f.Ctx, soon.Add(3*time.Hour)))(t); n != 1 {
			t.Errorf("the last round published %d, want 1", n)
		}
		f.Drain(t)
		page := f.Home(t, alice.ID, 10)(retwis.Cursor{})
		if len(page.Posts) != 2 || page.Posts[0].Body != "second" || page.Posts[1].Body != "first" {
			t.Errorf("alice's home: %+v", page.Posts)
		}
		if rest := f.Keys(t, "scheduled*"); len(rest) != 0 {
			t.Errorf("keys left: %v", rest)
		}
	})
}

// TestBounds refuses a post past MaxPerDay due on one day, and one past
// MaxPending in all, and a refused post's text; a post refused when due
// is dropped.
func TestBounds(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, false)
	sc := scheduled.New(f.St)
	u := f.Register(t, "bob")
	day := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, 2)
	for i := range scheduled.MaxPending {
		at := day.AddDate(0, 0, i/scheduled.MaxPerDay).Add(time.Duration(i%scheduled.MaxPerDay) * time.Minute)
		if i%scheduled.MaxPerDay == 0 && i > 0 {
			_, err := sc.Schedule(f.Ctx, scheduled.Post{Author: u.ID, At: at.Add(-time.Minute), Text: "one too many that day"})
			storetest.WantKind(t, err, retwis.Invalid)
		}
		must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: u.ID, At: at, Text: "post"}))(t)
	}
	_, err := sc.Schedule(f.Ctx, scheduled.Post{Author: u.ID, At: day.AddDate(1, 0, 0), Text: "one too many"})
	storetest.WantKind(t, err, retwis.Invalid)
	if n := len(must.Value(sc.List(f.Ctx, u.ID))(t)); n != scheduled.MaxPending {
		t.Errorf("%d scheduled, want %d", n, scheduled.MaxPending)
	}
	_, err = sc.Schedule(f.Ctx, scheduled.Post{Author: f.Register(t, "carol").ID, At: day, Text: ""})
	storetest.WantKind(t, err, retwis.Invalid)
}

// TestRefusedWhenDue drops a post whose reply is gone when it is due.
func TestRefusedWhenDue(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)
	sc := scheduled.New(f.St)
	u := f.Register(t, "dave")
	p := f.Post(t, posts.Draft{Author: u.ID, Text: "to answer"})
	at := time.Now().Add(time.Hour)
	must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: u.ID, At: at, Text: "an answer", InReplyTo: p.ID}))(t)
	must.OK(t, f.St.DeletePost(f.Ctx, u.ID, p.ID))
	if n := must.Value(sc.PublishDue(f.Ctx, at))(t); n != 0 {
		t.Errorf("published %d answers to a deleted post", n)
	}
	if rest := f.Keys(t, "scheduled*"); len(rest) != 0 {
		t.Errorf("keys left: %v", rest)
	}
}
