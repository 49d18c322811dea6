package media_test

import (
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/scheduled"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestHeldByScheduled: an upload a scheduled post holds is refused to
// other posts and kept by upkeep, due again a day later; published, it
// is the post's; one whose scheduled post is cancelled is removed.
func TestHeldByScheduled(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		ms, sc := media.New(f.St), scheduled.New(f.St)
		alice := f.Register(t, "alice")
		kept, cancelled := upload(t, f, ms, alice.ID, media.ForPost, 100), upload(t, f, ms, alice.ID, media.ForPost, 100)
		at := time.Now().Add(time.Hour)
		p := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: at, Text: "later", Media: []int64{kept.ID}}))(t)
		q := must.Value(sc.Schedule(f.Ctx, scheduled.Post{Author: alice.ID, At: at, Text: "never", Media: []int64{cancelled.ID}}))(t)
		_, _, err := ms.ForPost(f.Ctx, alice.ID, []int64{kept.ID}, "")
		storetest.WantKind(t, err, retwis.Invalid)
		must.OK(t, sc.Cancel(f.Ctx, alice.ID, q.ID))
		now := time.Now().Add(media.UnattachedFor + time.Hour)
		vs := must.Value(ms.Due(f.Ctx, now, 1000))(t)
		got := map[string]media.Verdict{}
		for _, v := range vs {
			got[v.Member] = v
		}
		held, gone := schema.PendingMember(alice.ID, kept.ID), schema.PendingMember(alice.ID, cancelled.ID)
		if v := got[held]; v.Remove || !v.Again.Equal(now.Add(media.UnattachedFor)) {
			t.Errorf("the held upload's verdict %+v; want kept, due again a day later", v)
		}
		if !got[gone].Remove {
			t.Errorf("the cancelled post's upload: %+v; want removed", got[gone])
		}
		must.OK(t, ms.Settle(f.Ctx, vs))
		if pending := f.Strs(t, "ZRANGE", schema.MediaPending, "0", "-1"); !slices.Contains(pending, held) {
			t.Errorf("the held upload left media_pending: %v", pending)
		}
		if n := must.Value(sc.PublishDue(f.Ctx, at.Add(time.Minute)))(t); n != 1 {
			t.Fatalf("published %d, want 1", n)
		}
		if rec := must.Value(ms.Get(f.Ctx, alice.ID, kept.ID))(t); rec.Status == 0 || rec.Scheduled != p.ID {
			t.Errorf("the published upload's record %+v; want attached", rec)
		}
		if got := due(t, f, ms); got[held] {
			t.Errorf("the published upload is removed")
		}
	})
}
