package store_test

import (
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestWritesWaitForReplicas pauses the replica of the store's master: a
// new account and a new post are not acknowledged until the replica has
// them, and once it resumes, it has them the moment they are.
func TestWritesWaitForReplicas(t *testing.T) {
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{WaitReplicas: 1, WaitTimeout: 10 * time.Second}, false)
	onReplica := storetest.Open(t, replica.URL, store.Options{}) // reads only: a replica refuses writes
	author := f.register(t, "author")

	replica.Pause(t)
	type result struct {
		id  int64
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := f.st.CreatePost(f.ctx, author.ID, "replicated before acknowledged")
		done <- result{p.ID, err}
	}()
	select {
	case r := <-done:
		t.Fatalf("the post was acknowledged while the replica was paused: %+v", r)
	case <-time.After(500 * time.Millisecond):
	}
	replica.Resume(t)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got, err := onReplica.Post(f.ctx, r.id); err != nil || got.AuthorID != author.ID {
		t.Fatalf("the replica lacks the acknowledged post: %+v, %v", got, err)
	}
	prof, err := onReplica.Profile(f.ctx, 0, author, retwis.Cursor{}, 10)
	if err != nil || len(prof.Page.Posts) != 1 {
		t.Fatalf("the replica lacks the acknowledged post's index entry: %v, %v", postIDs(prof.Page.Posts), err)
	}
	if _, err := onReplica.UserByName(f.ctx, "author"); err != nil {
		t.Fatalf("the replica lacks the acknowledged account: %v", err)
	}
}

// TestWaitTimesOut bounds the wait: with the replica gone, a post fails
// after the wait's timeout, as an outage, and is not published: on a
// master that a failover replaced, it would be lost.
func TestWaitTimesOut(t *testing.T) {
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{WaitReplicas: 1, WaitTimeout: time.Second}, false)
	author := f.register(t, "author")
	replica.Pause(t)
	defer replica.Resume(t)
	start := time.Now()
	_, err := f.st.CreatePost(f.ctx, author.ID, "the replica is down")
	if retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("posting without a replica: %v; want unavailable", err)
	}
	if d := time.Since(start); d < time.Second || d > 6*time.Second {
		t.Fatalf("posting took %s; want the wait's 1s timeout and then an answer", d)
	}
	if prof, err := f.st.Profile(f.ctx, 0, author, retwis.Cursor{}, 10); err != nil || len(prof.Page.Posts) != 0 {
		t.Fatalf("the failed post shows: %v, %v", postIDs(prof.Page.Posts), err)
	}
}
