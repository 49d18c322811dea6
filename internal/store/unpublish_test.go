package store_test

import (
	"strings"
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

// TestTakenBackPostLeavesFollowersTimelines: a post whose publication
// failed, left for maintenance to take back, is copied meanwhile into
// the home timeline of a new follower of its author (the follow's
// backfill reads the author's posts); taking it back takes it off there
// too, as a deleted post is taken off its followers' timelines.
func TestTakenBackPostLeavesFollowersTimelines(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		author := f.Register(t, "author")
		reader := f.Register(t, "reader")
		failed := must.Value(f.St.CreatePost(f.Ctx, author.ID, "failed, then taken back"))(t)
		f.Drain(t)
		f.Do(t, "ZADD", schema.QueueN(3).Unpublish, "1", schema.Unpublished(failed.ID, author.ID))
		must.OK(t, f.St.Follow(f.Ctx, reader.ID, author.ID))
		if got := postIDs(f.homePosts(t, reader.ID)); len(got) != 1 || got[0] != failed.ID {
			t.Fatalf("the follower's home timeline = %v; want the post the follow copied, %d", got, failed.ID)
		}
		must.Value(f.St.TakeBackPosts(f.Ctx))(t)
		f.Drain(t)
		if ids := f.Strs(t, "LRANGE", schema.Home(reader.ID), "0", "-1"); len(ids) > 0 {
			t.Errorf("the follower's home timeline holds %v after the take-back", ids)
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

// TestLostAnswerLeavesNoPost: a post whose hash was written but whose
// answer was lost (its connection dropped while the write awaited its
// replica, as when its master dies) is published under another id, and
// the first hash, which nothing refers to, is taken back: the check
// finds no post missing from its author's posts, which a repair would
// have published twice.
func TestLostAnswerLeavesNoPost(t *testing.T) {
	t.Parallel()
	master, replica := redistest.Replicated(t)
	f := newFixtureWith(t, master.URL, store.Options{}, true)
	author := f.Register(t, "author")
	waiting := storetest.Open(t, master.URL, store.Options{WaitReplicas: 1, WaitTimeout: 10 * time.Second})
	replica.Pause(t)
	type result struct {
		p   retwis.Post
		err error
	}
	posted := make(chan result, 1)
	go func() {
		p, err := waiting.CreatePost(f.Ctx, author.ID, "published once")
		posted <- result{p, err}
	}()
	id := waitingClient(t, f)
	written := f.Keys(t, schema.PostKeys)
	f.Do(t, "CLIENT", "KILL", "ID", id)
	replica.Resume(t)
	r := <-posted
	must.OK(t, r.err)
	must.Value(waiting.TakeBackPosts(f.Ctx))(t)
	f.Drain(t)
	if len(written) != 1 || written[0] == schema.Post(r.p.ID) {
		t.Fatalf("post hashes %v when the answer was lost; want one, not the post published (%d)", written, r.p.ID)
	}
	if keys := f.Keys(t, schema.PostKeys); len(keys) != 1 || keys[0] != schema.Post(r.p.ID) {
		t.Errorf("post hashes %v; want only the post published, %s", keys, schema.Post(r.p.ID))
	}
	if rep := f.Check(t, false); len(rep.Problems) > 0 {
		t.Errorf("the check found %v", storetest.Problems(rep))
	}
}

// waitingClient returns the id of the first connection of f's Redis
// found blocked in a WAIT.
func waitingClient(t *testing.T, f *fixture) string {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for line := range strings.SplitSeq(f.Do(t, "CLIENT", "LIST"), "\n") {
			client := map[string]string{}
			for _, field := range strings.Fields(line) {
				k, v, _ := strings.Cut(field, "=")
				client[k] = v
			}
			if client["cmd"] == "wait" && strings.Contains(client["flags"], "b") {
				return client["id"]
			}
		}
	}
	t.Fatal("no write awaits its replica")
	return ""
}
