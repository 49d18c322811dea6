package deletion_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"testing"
	"time"

	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
)

// TestDeleteAccountMedia: the files of a deleted account's media (a
// picture of a post, an upload never attached, its avatar) go at
// upkeep's next sweep, with their records, and nobody else's; a day on,
// upkeep has nothing of the account's left to look at.
func TestDeleteAccountMedia(t *testing.T) {
	t.Parallel()
	onRedisAndCluster(t, func(t *testing.T, f *fixture) {
		blobs := must.Value(dirblobs.New(t.TempDir()))(t)
		m := media.New(f.St, blobs, media.Options{})
		t.Cleanup(func() { m.Close() })
		w := newWorld(t, f, 0)
		var pic bytes.Buffer
		must.OK(t, jpeg.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 64, 48)), nil))
		upload := func(owner int64) int64 {
			u := must.Value(m.Upload(f.Ctx, owner, mediastore.ForPost, pic.Bytes(), "a picture", 0, 0))(t)
			return must.Value(m.Ready(f.Ctx, u))(t).ID
		}
		for _, owner := range []int64{w.ann.ID, w.bob.ID} {
			as, attach, err := m.ForPost(f.Ctx, owner, []int64{upload(owner)}, "")
			must.OK(t, err)
			f.Post(t, posts.Draft{Author: owner, Text: "look", Media: as, Attach: attach})
		}
		upload(w.ann.ID) // never attached
		must.Value(m.SetPicture(f.Ctx, w.ann.ID, schema.FieldAvatar, mediastore.ForAvatar, pic.Bytes()))(t)
		if n := files(t, blobs, ""); n != 8 {
			t.Fatalf("%d files before the deletion; want 8 (two a picture)", n)
		}
		must.OK(t, f.del.DeleteAccount(f.Ctx, w.ann.ID, "password1"))
		f.Drain(t)
		must.Value(m.Sweep(f.Ctx, time.Now()))(t)
		if n := files(t, blobs, itoa(w.ann.ID)+"/"); n != 0 {
			t.Errorf("%d files of ann's are left", n)
		}
		if n := files(t, blobs, itoa(w.bob.ID)+"/"); n != 2 {
			t.Errorf("%d files of bob's are left; want his 2", n)
		}
		if f.Do(t, "EXISTS", schema.Media(w.ann.ID)) != "0" {
			t.Errorf("ann's media records are left")
		}
		// A day on, when her uploads would have been due, nothing of hers
		// is left for upkeep, and bob's picture stays.
		must.Value(m.Sweep(f.Ctx, time.Now().Add(mediastore.UnattachedFor+time.Hour)))(t)
		if n := f.Do(t, "ZCARD", schema.MediaPending); n != "0" || files(t, blobs, "") != 2 {
			t.Errorf("a day on, upkeep's media: %s, files: %d; want none, and bob's 2", n, files(t, blobs, ""))
		}
	})
}

// files counts the blobs under prefix.
func files(t *testing.T, blobs *dirblobs.Store, prefix string) int {
	t.Helper()
	n := 0
	must.OK(t, blobs.Walk(t.Context(), prefix, func(string, int64) error { n++; return nil }))
	return n
}
