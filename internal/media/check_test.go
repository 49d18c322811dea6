package media_test

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/s3blobs"
	"github.com/retwis/retwis/internal/store"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/s3test"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestCheck finds the records whose files are missing and the files
// without a record, on a directory and on a real S3-compatible server,
// and repairs both.
func TestCheck(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		m, blobs := service(t, f, media.Options{})
		checkAndRepair(t, f, m, blobs)
	})
	t.Run("s3", func(t *testing.T) {
		t.Parallel()
		f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)
		b := s3test.NewServer(t).Bucket(t)
		blobs := must.Value(s3blobs.New(t.Context(), s3blobs.Options{Endpoint: b.Endpoint, Bucket: b.Name,
			AccessKey: b.AccessKey, SecretKey: b.SecretKey, Region: b.Region}))(t)
		m := media.New(f.St, blobs, media.Options{})
		t.Cleanup(func() { m.Close() })
		checkAndRepair(t, f, m, blobs)
	})
}

// checkAndRepair damages the media of a small world on f and checks
// that m's check finds and repairs the damage, and nothing else.
func checkAndRepair(t *testing.T, f *storetest.Fixture, m *media.Service, blobs media.Blobs) {
	ann, bob := f.Register(t, "ann"), f.Register(t, "bob")
	ready := func(owner int64) retwis.Attachment {
		return must.Value(m.Ready(f.Ctx, must.Value(m.Upload(f.Ctx, owner, mediastore.ForPost, photo(t, 40, 30), "", 0, 0))(t)))(t)
	}
	lost, kept := ready(ann.ID), ready(ann.ID)
	as, attach, err := m.ForPost(f.Ctx, ann.ID, []int64{lost.ID, kept.ID}, "")
	must.OK(t, err)
	p := f.Post(t, posts.Draft{Author: ann.ID, Text: "two pictures", Media: as, Attach: attach})
	ready(bob.ID) // fine, never attached
	avatar := must.Value(m.SetPicture(f.Ctx, bob.ID, schema.FieldAvatar, mediastore.ForAvatar, photo(t, 50, 50)))(t)
	if rep := must.Value(m.Check(f.Ctx, false))(t); len(rep.Problems) != 0 || rep.Records != 4 || rep.Files != 8 {
		t.Fatalf("a check of sound media: %+v", rep)
	}

	must.OK(t, blobs.Delete(f.Ctx, lost.BlobPrefix()))
	must.OK(t, blobs.Delete(f.Ctx, avatar.SmallBlob()))
	stray := "7/123/original.jpg" // nobody's
	gone := "99/5/original.jpg"   // an account gone, which upkeep will sweep
	for _, name := range []string{stray, gone, "readme.txt"} {
		must.OK(t, blobs.Put(f.Ctx, name, "image/jpeg", []byte("x")))
	}
	f.Do(t, "ZADD", schema.MediaPending, "0", schema.PendingMember(99, 0))

	rep := must.Value(m.Check(f.Ctx, false))(t)
	if got := summary(rep); !slices.Equal(got, []string{media.ProblemNoFiles + " 2/0", media.ProblemNoRecord + " 1/0"}) {
		t.Fatalf("the check found %q (%+v)", got, rep.Problems)
	}
	if ex := rep.Problems[1].Examples; !slices.Equal(ex, []string{"7/123/"}) {
		t.Errorf("the files without a record: %q", ex)
	}
	rep = must.Value(m.Check(f.Ctx, true))(t)
	if got := summary(rep); !slices.Equal(got, []string{media.ProblemNoFiles + " 2/2", media.ProblemNoRecord + " 1/1"}) {
		t.Fatalf("the repair: %q", got)
	}
	if rep := must.Value(m.Check(f.Ctx, false))(t); len(rep.Problems) != 0 {
		t.Fatalf("after the repair: %q", summary(rep))
	}
	post := must.Value(f.St.Post(f.Ctx, ann.ID, p.ID))(t)
	if len(post.Media) != 1 || post.Media[0].ID != kept.ID {
		t.Errorf("the post's pictures after the repair: %+v; want the one whose files are there", post.Media)
	}
	if pic := must.Value(m.Records().Picture(f.Ctx, bob.ID, schema.FieldAvatar))(t); pic != nil {
		t.Errorf("bob's avatar after the repair: %+v; want none (the generated one)", pic)
	}
	if _, err := m.Records().Get(f.Ctx, ann.ID, lost.ID); retwis.ErrorKind(err) != retwis.NotFound {
		t.Errorf("the record of the lost picture: %v", err)
	}

	// A post gone while its picture could not be handed to upkeep: the
	// repair hands it over, and the sweep removes its files.
	third := ready(ann.ID)
	as, attach, err = m.ForPost(f.Ctx, ann.ID, []int64{third.ID}, "")
	must.OK(t, err)
	q := f.Post(t, posts.Draft{Author: ann.ID, Text: "soon gone", Media: as, Attach: attach})
	f.Drain(t) // its delivery done, as for a post deleted later on
	f.Do(t, "DEL", schema.Post(q.ID))
	f.Do(t, "ZREM", schema.MediaPending, schema.PendingMember(ann.ID, third.ID))
	if got := summary(must.Value(m.Check(f.Ctx, true))(t)); !slices.Equal(got, []string{media.ProblemStranded + " 1/1"}) {
		t.Fatalf("the check of a stranded picture: %q", got)
	}
	must.Value(m.Sweep(f.Ctx, time.Now()))(t)
	if _, _, err := blobs.Open(f.Ctx, third.Blob()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stranded picture's file after the sweep: %v", err)
	}
}

// summary writes each problem of rep as "what count/repaired".
func summary(rep media.CheckReport) []string {
	var s []string
	for _, p := range rep.Problems {
		s = append(s, fmt.Sprintf("%s %d/%d", p.What, p.Count, p.Repaired))
	}
	return s
}
