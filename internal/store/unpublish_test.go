package store_test

import (
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestTakeBackPosts: a post recorded to be taken back, as one whose
// publication failed while its own master was failing is, goes with its
// entries once maintenance runs, and the record with it.
func TestTakeBackPosts(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		author := f.Register(t, "author")
		kept := must.Value(f.St.CreatePost(f.Ctx, author.ID, "kept"))(t)
		failed := must.Value(f.St.CreatePost(f.Ctx, author.ID, "failed, then taken back"))(t)
		f.Drain(t)
		f.Do(t, "ZADD", schema.QueueN(3).Unpublish, "1", schema.Unpublished(failed.ID, author.ID))
		if n, err := f.St.TakeBackPosts(f.Ctx); err != nil || n != 1 {
			t.Fatalf("TakeBackPosts = %d, %v; want 1", n, err)
		}
		if f.Do(t, "EXISTS", schema.Post(failed.ID)) != "0" || f.Do(t, "ZSCORE", schema.UserPosts(author.ID), itoa(failed.ID)) != "" {
			t.Error("the post taken back is still there")
		}
		if got := postIDs(f.homePosts(t, author.ID)); len(got) != 1 || got[0] != kept.ID {
			t.Errorf("home timeline = %v; want only %d", got, kept.ID)
		}
		if n := f.unpublishing(t); n != 0 {
			t.Errorf("%d posts left to take back", n)
		}
		if rep := f.Check(t, false); len(rep.Problems) > 0 {
			t.Errorf("the check after the take-back found %v", storetest.Problems(rep))
		}
	})
}

// unpublishing counts the posts recorded to be taken back, on every
// shard of the queue.
func (f *fixture) unpublishing(t *testing.T) int {
	t.Helper()
	n := 0
	for i := range schema.QueueShards {
		n += int(must.Value(f.Raw.Do(f.Ctx, f.Raw.B().Zcard().Key(schema.QueueN(i).Unpublish).Build()).AsInt64())(t))
	}
	return n
}

// TestUnreplicatedRecordsTakenBack: on a master whose writes no replica
// confirms, a post fails (503) and leaves no hash behind, although
// each id it tried wrote one.
func TestUnreplicatedRecordsTakenBack(t *testing.T) {
	t.Parallel()
	r := redistest.Start(t)
	f := newFixtureWith(t, r.URL, store.Options{}, false)
	author := f.Register(t, "author")
	waiting := storetest.Open(t, r.URL, store.Options{WaitReplicas: 1, WaitTimeout: 10 * time.Millisecond})
	if _, err := waiting.CreatePost(f.Ctx, author.ID, "never confirmed"); retwis.ErrorKind(err) != retwis.Unavailable {
		t.Fatalf("a post no replica confirms: %v; want unavailable", err)
	}
	if keys := f.Keys(t, schema.PostKeys); len(keys) > 0 {
		t.Errorf("the failed post left %v", keys)
	}
}
