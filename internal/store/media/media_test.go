package media_test

import (
	"os"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// cluster is the 3-master cluster that this package's tests take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) { os.Exit(cluster.Run(m)) }

// upload records a ready upload of owner weighing n bytes.
func upload(t *testing.T, f *storetest.Fixture, ms *media.Store, owner int64, purpose string, n int64) retwis.Attachment {
	t.Helper()
	rec := must.Value(ms.Begin(f.Ctx, owner, purpose, retwis.Attachment{Description: "a cat"}, retwis.Rate{}, 0))(t)
	if rec.State != media.Processing || rec.Attachment.ID == 0 || rec.Attachment.Owner != owner {
		t.Fatalf("begun %+v", rec)
	}
	a := rec.Attachment
	a.Ext, a.SmallExt, a.Width, a.Height, a.SmallWidth, a.SmallHeight, a.Bytes, a.Blurhash = "jpg", "jpg", 800, 600, 400, 300, n, "LKO2?U%2Tw=w]~RBVZRi};RPxuwH"
	if ok := must.Value(ms.Finish(f.Ctx, a, 0))(t); !ok {
		t.Fatal("finish: the record is gone")
	}
	return a
}

// due returns the verdicts of everything due an hour after a day.
func due(t *testing.T, f *storetest.Fixture, ms *media.Store) map[string]bool {
	t.Helper()
	vs := must.Value(ms.Due(f.Ctx, time.Now().Add(media.UnattachedFor+time.Hour), 1000))(t)
	out := map[string]bool{}
	for _, v := range vs {
		out[v.Member] = v.Remove
	}
	must.OK(t, ms.Settle(f.Ctx, vs))
	return out
}

// TestMediaLifecycle: an upload is processed, described, attached with
// its post, kept while the post stands and handed to upkeep when it is
// deleted; an upload never attached is removed after a day; the bytes
// count follows.
func TestMediaLifecycle(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ms := media.New(f.St)
		alice := f.Register(t, "alice")
		a := upload(t, f, ms, alice.ID, media.ForPost, 1000)
		loose := upload(t, f, ms, alice.ID, media.ForPost, 500)
		if used := must.Value(ms.Used(f.Ctx, alice.ID))(t); used != 1500 {
			t.Fatalf("used %d, want 1500", used)
		}
		rec := must.Value(ms.Describe(f.Ctx, alice.ID, a.ID, "a black cat", 0.5, -0.5))(t)
		if rec.State != media.Ready || rec.Attachment.Description != "a black cat" || rec.Attachment.FocusX != 0.5 || rec.Attachment.Blurhash == "" {
			t.Fatalf("described %+v", rec)
		}
		a = rec.Attachment
		p := f.Post(t, posts.Draft{Author: alice.ID, Text: "my cat", Media: []retwis.Attachment{a}, Sensitive: true,
			Attach: ms.AttachCmds(alice.ID, []int64{a.ID})})
		read := must.Value(f.St.Post(f.Ctx, 0, p.ID))(t)
		if len(read.Media) != 1 || read.Media[0] != a || !read.Sensitive {
			t.Fatalf("post read with %+v (sensitive %v), want %+v", read.Media, read.Sensitive, a)
		}
		if rec := must.Value(ms.Get(f.Ctx, alice.ID, a.ID))(t); rec.Status != p.ID {
			t.Fatalf("attached to %d, want %d", rec.Status, p.ID)
		}
		got := due(t, f, ms)
		if remove, ok := got[schema.PendingMember(alice.ID, a.ID)]; !ok || remove {
			t.Errorf("the attached upload: due %v, remove %v; want kept", ok, remove)
		}
		if !got[schema.PendingMember(alice.ID, loose.ID)] {
			t.Errorf("the upload never attached is not removed: %v", got)
		}
		if _, err := ms.Get(f.Ctx, alice.ID, loose.ID); retwis.ErrorKind(err) != retwis.NotFound {
			t.Errorf("the removed upload's record: %v", err)
		}
		must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
		if got := due(t, f, ms); !got[schema.PendingMember(alice.ID, a.ID)] {
			t.Errorf("the deleted post's picture is not removed: %v", got)
		}
		if used := must.Value(ms.Used(f.Ctx, alice.ID))(t); used != 0 {
			t.Errorf("used %d after removals, want 0", used)
		}
	})
}

// TestMediaQuotaAndRate: an upload past the quota is refused, when it
// begins if the quota is used up, else when its files are counted; the
// rate of uploads is applied.
func TestMediaQuotaAndRate(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ms := media.New(f.St)
		bob := f.Register(t, "bob")
		rec := must.Value(ms.Begin(f.Ctx, bob.ID, media.ForPost, retwis.Attachment{}, retwis.Rate{}, 1000))(t)
		a := rec.Attachment
		a.Ext, a.SmallExt, a.Bytes = "png", "png", 1200
		if _, err := ms.Finish(f.Ctx, a, 1000); err != media.ErrQuota {
			t.Fatalf("finish past the quota: %v", err)
		}
		a.Bytes = 1000
		must.Value(ms.Finish(f.Ctx, a, 1000))(t)
		_, err := ms.Begin(f.Ctx, bob.ID, media.ForPost, retwis.Attachment{}, retwis.Rate{}, 1000)
		storetest.WantKind(t, err, retwis.Invalid)
		carol := f.Register(t, "carol")
		rate := retwis.Rate{Count: 1, Per: time.Hour}
		must.Value(ms.Begin(f.Ctx, carol.ID, media.ForPost, retwis.Attachment{}, rate, 0))(t)
		_, err = ms.Begin(f.Ctx, carol.ID, media.ForPost, retwis.Attachment{}, rate, 0)
		storetest.WantKind(t, err, retwis.TooMany)
	})
}

// TestPictures: an avatar set shows in the summary; the one it replaces
// and the one taken away go to upkeep; a deleted account's files do.
func TestPictures(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ms := media.New(f.St)
		dan := f.Register(t, "dan")
		first := upload(t, f, ms, dan.ID, media.ForAvatar, 100)
		must.OK(t, ms.SetPicture(f.Ctx, dan.ID, schema.FieldAvatar, first))
		second := upload(t, f, ms, dan.ID, media.ForAvatar, 100)
		must.OK(t, ms.SetPicture(f.Ctx, dan.ID, schema.FieldAvatar, second))
		header := upload(t, f, ms, dan.ID, media.ForHeader, 100)
		must.OK(t, ms.SetPicture(f.Ctx, dan.ID, schema.FieldHeader, header))
		sum := must.Value(f.St.Summary(f.Ctx, dan.ID))(t)
		if sum.Avatar == nil || *sum.Avatar != second || sum.Header == nil || *sum.Header != header {
			t.Fatalf("summary's pictures %+v %+v", sum.Avatar, sum.Header)
		}
		if got := must.Value(ms.Picture(f.Ctx, dan.ID, schema.FieldAvatar))(t); got == nil || *got != second {
			t.Fatalf("picture %+v", got)
		}
		got := due(t, f, ms)
		if !got[schema.PendingMember(dan.ID, first.ID)] || got[schema.PendingMember(dan.ID, second.ID)] || got[schema.PendingMember(dan.ID, header.ID)] {
			t.Errorf("verdicts %v: want the replaced avatar removed, the others kept", got)
		}
		must.OK(t, ms.SetPicture(f.Ctx, dan.ID, schema.FieldHeader, retwis.Attachment{}))
		if sum := must.Value(f.St.Summary(f.Ctx, dan.ID))(t); sum.Header != nil {
			t.Errorf("header still %+v", sum.Header)
		}
		if got := due(t, f, ms); !got[schema.PendingMember(dan.ID, header.ID)] {
			t.Errorf("the header taken away is not removed: %v", got)
		}
		for _, c := range media.AccountGoneCmds(f.St.C, dan.ID) {
			must.OK(t, f.St.C.Do(f.Ctx, c).Error())
		}
		if got := due(t, f, ms); len(got) != 1 || got[schema.PendingMember(dan.ID, 0)] {
			t.Errorf("verdicts %v: want the account's files kept while it exists", got)
		}
		f.Do(t, "DEL", schema.User(dan.ID))
		for _, c := range media.AccountGoneCmds(f.St.C, dan.ID) {
			must.OK(t, f.St.C.Do(f.Ctx, c).Error())
		}
		if got := due(t, f, ms); len(got) != 1 || !got[schema.PendingMember(dan.ID, 0)] {
			t.Errorf("verdicts %v: want the deleted account's files removed", got)
		}
	})
}

// TestAttachAgain: a picture attached to a post is refused to another,
// even with a fresh idempotency key, but taken by the retry of its own
// post's publication (the same key: Publish answers that post) and once
// its post is gone (a publication that failed).
func TestAttachAgain(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ms := media.New(f.St)
		eve := f.Register(t, "eve")
		a := upload(t, f, ms, eve.ID, media.ForPost, 100)
		as, attach, err := ms.ForPost(f.Ctx, eve.ID, []int64{a.ID}, "first")
		must.OK(t, err)
		p := must.Value(f.St.Publish(f.Ctx, posts.Draft{Author: eve.ID, Text: "once", Key: "first", Media: as, Attach: attach}))(t)
		for _, key := range []string{"", "second"} {
			if _, _, err := ms.ForPost(f.Ctx, eve.ID, []int64{a.ID}, key); retwis.ErrorKind(err) != retwis.Invalid {
				t.Errorf("attached again with key %q: %v, want Invalid", key, err)
			}
		}
		as, attach, err = ms.ForPost(f.Ctx, eve.ID, []int64{a.ID}, "first")
		must.OK(t, err)
		again := must.Value(f.St.Publish(f.Ctx, posts.Draft{Author: eve.ID, Text: "once", Key: "first", Media: as, Attach: attach}))(t)
		if again.Post.ID != p.Post.ID {
			t.Errorf("the retry published %d, want %d again", again.Post.ID, p.Post.ID)
		}
		f.Do(t, "DEL", schema.Post(p.Post.ID))
		if _, _, err := ms.ForPost(f.Ctx, eve.ID, []int64{a.ID}, ""); err != nil {
			t.Errorf("a picture whose post is gone: %v", err)
		}
	})
}
