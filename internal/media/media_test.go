package media_test

import (
	"bytes"
	"image"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/media/s3blobs"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/s3test"
	"github.com/retwis/retwis/internal/testkit/servertest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// cluster is the 3-master cluster that this package's tests take turns on.
var cluster redistest.SharedCluster

func TestMain(m *testing.M) {
	code := s3test.Run(m)
	cluster.Stop()
	os.Exit(code)
}

// photo returns a w x h JPEG of a gradient.
var photo = servertest.Photo

// service returns a media service on f's store with files in a fresh
// directory.
func service(t *testing.T, f *storetest.Fixture, opts media.Options) (*media.Service, media.Blobs) {
	t.Helper()
	return serviceOn(t, f, opts, must.Value(dirblobs.New(t.TempDir()))(t))
}

// serviceOn returns a media service on f's store with files in blobs.
func serviceOn(t *testing.T, f *storetest.Fixture, opts media.Options, blobs media.Blobs) (*media.Service, media.Blobs) {
	t.Helper()
	m := media.New(f.St, blobs, opts)
	t.Cleanup(func() { m.Close() })
	return m, blobs
}

// storages are the two blob storages, each made fresh for a test: a
// directory, and a bucket of a real S3-compatible server (SeaweedFS).
var storages = []struct {
	name string
	open func(t *testing.T) media.Blobs
}{
	{"dir", func(t *testing.T) media.Blobs { return must.Value(dirblobs.New(t.TempDir()))(t) }},
	{"s3", func(t *testing.T) media.Blobs {
		b := s3test.Start(t)
		return must.Value(s3blobs.New(t.Context(), s3blobs.Options{Endpoint: b.Endpoint, Bucket: b.Name, AccessKey: b.AccessKey,
			SecretKey: b.SecretKey, Region: b.Region}))(t)
	}},
}

// get answers GET path from m's routes.
func get(m *media.Service, path string) *httptest.ResponseRecorder { return getIf(m, path, "") }

// getIf answers GET path from m's routes, with If-None-Match etag (""
// none).
func getIf(m *media.Service, path, etag string) *httptest.ResponseRecorder {
	mux := http.NewServeMux()
	m.Routes(mux)
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	if etag != "" {
		r.Header.Set("If-None-Match", etag)
	}
	mux.ServeHTTP(w, r)
	return w
}

// TestUploadAttachServeSweep: a photo uploaded is processed into two
// files served with their type, never sniffed, cached for good; attached
// to a post it stays, and once the post is deleted upkeep removes its
// files and record; an upload never attached goes after a day.
func TestUploadAttachServeSweep(t *testing.T) {
	for _, storage := range storages {
		t.Run(storage.name, func(t *testing.T) {
			t.Parallel()
			storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
				uploadAttachServeSweep(t, f, storage.open(t))
			})
		})
	}
}

// uploadAttachServeSweep is TestUploadAttachServeSweep on blobs.
func uploadAttachServeSweep(t *testing.T, f *storetest.Fixture, blobs media.Blobs) {
	m, _ := serviceOn(t, f, media.Options{}, blobs)
	alice := f.Register(t, "alice")
	u := must.Value(m.Upload(f.Ctx, alice.ID, mediastore.ForPost, photo(t, 2400, 1200), " a gradient ", 0.25, 0))(t)
	if u.Record.State != mediastore.Processing {
		t.Fatalf("upload begun %+v", u.Record)
	}
	a := must.Value(m.Ready(f.Ctx, u))(t)
	if a.Width != retwis.MaxMediaSide || a.Height != 960 || a.SmallWidth != retwis.SmallMediaSide || a.Ext != "jpg" ||
		a.Description != "a gradient" || a.FocusX != 0.25 || a.Blurhash == "" || a.Bytes == 0 {
		t.Fatalf("ready %+v", a)
	}
	w := get(m, a.Path())
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "image/jpeg" || w.Header().Get("X-Content-Type-Options") != "nosniff" ||
		w.Header().Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("GET %s: %d %v", a.Path(), w.Code, w.Header())
	}
	if cfg, format, err := image.DecodeConfig(w.Body); err != nil || format != "jpeg" || cfg.Width != a.Width {
		t.Fatalf("served %v %s %v", cfg, format, err)
	}
	guessed := retwis.Attachment{ID: a.ID, Owner: a.Owner, Ext: a.Ext}
	if len(a.Secret) != 16 || get(m, guessed.Path()).Code != http.StatusNotFound {
		t.Errorf("a picture's files found by its ids alone (secret %q)", a.Secret)
	}
	for _, bad := range []string{"/media/1/2/original.svg", "/media/x/2/small.jpg", "/media/-1/2/small.jpg", "/media/1/2/small.jpg.html", "/media/1/2/thumb.png"} {
		if w := get(m, bad); w.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", bad, w.Code)
		}
	}
	loose := must.Value(m.Ready(f.Ctx, must.Value(m.Upload(f.Ctx, alice.ID, mediastore.ForPost, photo(t, 64, 64), "", 0, 0))(t)))(t)
	as, attach, err := m.ForPost(f.Ctx, alice.ID, []int64{a.ID}, "")
	must.OK(t, err)
	p := f.Post(t, posts.Draft{Author: alice.ID, Text: "look", Media: as, Attach: attach})
	if _, _, err := m.ForPost(f.Ctx, alice.ID, []int64{a.ID}, ""); retwis.ErrorKind(err) != retwis.Invalid {
		t.Errorf("attaching it again: %v", err)
	}
	later := time.Now().Add(mediastore.UnattachedFor + time.Hour)
	if n := must.Value(m.Sweep(f.Ctx, later))(t); n != 1 {
		t.Errorf("swept %d, want the one never attached", n)
	}
	if w := get(m, loose.Path()); w.Code != http.StatusNotFound {
		t.Errorf("the swept upload is still served: %d", w.Code)
	}
	if w := get(m, a.SmallPath()); w.Code != http.StatusOK {
		t.Errorf("the attached picture is gone: %d", w.Code)
	}
	must.OK(t, f.St.DeletePost(f.Ctx, alice.ID, p.ID))
	if n := must.Value(m.Sweep(f.Ctx, time.Now()))(t); n != 1 {
		t.Errorf("swept %d, want the deleted post's picture", n)
	}
	if w := get(m, a.Path()); w.Code != http.StatusNotFound {
		t.Errorf("the deleted post's picture is still served: %d", w.Code)
	}
	if used := must.Value(m.Records().Used(f.Ctx, alice.ID))(t); used != 0 {
		t.Errorf("used %d, want 0", used)
	}
}

// TestUploadRefused: what is not a picture, too large, past the quota or
// with alt text too long is refused before anything is processed.
func TestUploadRefused(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		m, _ := service(t, f, media.Options{Quota: 1})
		bob := f.Register(t, "bob")
		for name, data := range map[string][]byte{
			"svg":   []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`),
			"html":  []byte("<!doctype html><p>hi"),
			"empty": nil,
		} {
			_, err := m.Upload(f.Ctx, bob.ID, mediastore.ForPost, data, "", 0, 0)
			if retwis.ErrorKind(err) != retwis.Invalid {
				t.Errorf("%s: %v, want Invalid", name, err)
			}
		}
		long := string(bytes.Repeat([]byte("x"), retwis.MaxDescriptionChars+1))
		if _, err := m.Upload(f.Ctx, bob.ID, mediastore.ForPost, photo(t, 8, 8), long, 0, 0); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("alt text too long: %v", err)
		}
		u := must.Value(m.Upload(f.Ctx, bob.ID, mediastore.ForPost, photo(t, 8, 8), "", 0, 0))(t)
		if _, err := m.Ready(f.Ctx, u); retwis.ErrorKind(err) != retwis.Invalid {
			t.Errorf("past the quota: %v", err)
		}
		if n := len(f.Keys(t, "media:*")); n != 1 {
			t.Errorf("%d media hashes, want bob's one", n)
		}
	})
}

// TestAvatars: an account without an avatar gets one made from its id,
// distinct from another's; one uploaded is redirected to, and the one it
// replaces is removed by upkeep.
func TestAvatars(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		m, _ := service(t, f, media.Options{})
		carol, dan := f.Register(t, "carol"), f.Register(t, "dan")
		wc, wd := get(m, retwis.AvatarPath(carol.ID)), get(m, retwis.AvatarPath(dan.ID))
		if wc.Code != http.StatusOK || wc.Header().Get("Content-Type") != "image/png" || bytes.Equal(wc.Body.Bytes(), wd.Body.Bytes()) {
			t.Fatalf("generated avatars: %d %v, distinct %v", wc.Code, wc.Header(), !bytes.Equal(wc.Body.Bytes(), wd.Body.Bytes()))
		}
		if w := getIf(m, retwis.AvatarPath(carol.ID), wc.Header().Get("ETag")); w.Code != http.StatusNotModified {
			t.Errorf("a generated avatar asked again with its ETag: %d, want 304", w.Code)
		}
		first := must.Value(m.SetPicture(f.Ctx, carol.ID, schema.FieldAvatar, mediastore.ForAvatar, photo(t, 500, 500)))(t)
		second := must.Value(m.SetPicture(f.Ctx, carol.ID, schema.FieldAvatar, mediastore.ForAvatar, photo(t, 300, 300)))(t)
		if w := get(m, retwis.AvatarPath(carol.ID)); w.Code != http.StatusFound || w.Header().Get("Location") != second.SmallPath() {
			t.Fatalf("avatar: %d → %q, want %s", w.Code, w.Header().Get("Location"), second.SmallPath())
		}
		if n := must.Value(m.Sweep(f.Ctx, time.Now()))(t); n != 1 {
			t.Errorf("swept %d, want the replaced avatar", n)
		}
		if get(m, first.Path()).Code != http.StatusNotFound || get(m, second.Path()).Code != http.StatusOK {
			t.Error("want the replaced avatar's files gone and the new one's served")
		}
		must.OK(t, m.ClearPicture(f.Ctx, carol.ID, schema.FieldAvatar))
		if w := get(m, retwis.AvatarPath(carol.ID)); w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), wc.Body.Bytes()) {
			t.Errorf("after clearing: %d, want the generated avatar again", w.Code)
		}
	})
}

// TestCopy: Copy moves every blob to another storage, and a second run
// copies nothing.
func TestCopy(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	src := must.Value(dirblobs.New(t.TempDir()))(t)
	dst := must.Value(dirblobs.New(t.TempDir()))(t)
	for _, n := range []string{"1/10/original.jpg", "1/10/small.jpg", "2/20/original.png"} {
		must.OK(t, src.Put(ctx, n, "image/jpeg", []byte(n)))
	}
	var seen int
	if n := must.Value(media.Copy(ctx, dst, src, func(s, _ int) { seen = s }))(t); n != 3 || seen != 3 {
		t.Fatalf("copied %d, seen %d", n, seen)
	}
	if n := must.Value(media.Copy(ctx, dst, src, func(int, int) {}))(t); n != 0 {
		t.Errorf("copied %d again, want 0", n)
	}
}

// TestCardImage: a link's picture is stored as the instance's, whatever
// the quota, and upkeep keeps it.
func TestCardImage(t *testing.T) {
	storetest.OnRedisAndCluster(t, &cluster, func(t *testing.T, f *storetest.Fixture) {
		m, _ := service(t, f, media.Options{Quota: 1, UploadRate: retwis.Rate{Count: 1, Per: time.Hour}})
		var last *retwis.Attachment
		for range 2 {
			last = must.Value(m.CardImage(f.Ctx, photo(t, 640, 320)))(t)
		}
		if last.Owner != 0 || last.SmallWidth != retwis.SmallMediaSide {
			t.Fatalf("card image %+v", last)
		}
		if n := must.Value(m.Sweep(f.Ctx, time.Now().Add(mediastore.UnattachedFor+time.Hour)))(t); n != 0 {
			t.Errorf("swept %d card images, want none", n)
		}
		if w := get(m, last.SmallPath()); w.Code != http.StatusOK {
			t.Errorf("card image served %d", w.Code)
		}
	})
}
