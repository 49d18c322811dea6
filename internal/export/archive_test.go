package export_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"io/fs"
	"slices"
	"strconv"
	"testing"

	"github.com/retwis/retwis/internal/export"
	"github.com/retwis/retwis/internal/media"
	"github.com/retwis/retwis/internal/media/dirblobs"
	"github.com/retwis/retwis/internal/store"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/posts"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/testkit/must"
	"github.com/retwis/retwis/internal/testkit/redistest"
	"github.com/retwis/retwis/internal/testkit/storetest"
)

// TestArchiveHoldsMedia: the archive of an account holds its document,
// whose posts name their pictures, the records of its pictures (alt
// text, focus, the post) and the original file of each, byte for byte;
// a picture whose file is lost keeps its record, without a file.
func TestArchiveHoldsMedia(t *testing.T) {
	t.Parallel()
	f := storetest.NewFixture(t, redistest.Start(t).URL, store.Options{}, true)
	blobs := must.Value(dirblobs.New(t.TempDir()))(t)
	m := media.New(f.St, blobs, media.Options{})
	t.Cleanup(func() { m.Close() })
	ann := f.Register(t, "ann")
	var pic bytes.Buffer
	must.OK(t, jpeg.Encode(&pic, image.NewRGBA(image.Rect(0, 0, 80, 60)), nil))
	a := must.Value(m.Ready(f.Ctx, must.Value(m.Upload(f.Ctx, ann.ID, mediastore.ForPost, pic.Bytes(), "a black square", 0.5, -0.5))(t)))(t)
	as, attach, err := m.ForPost(f.Ctx, ann.ID, []int64{a.ID}, "")
	must.OK(t, err)
	p := f.Post(t, posts.Draft{Author: ann.ID, Text: "look", Media: as, Attach: attach})
	avatar := must.Value(m.SetPicture(f.Ctx, ann.ID, schema.FieldAvatar, mediastore.ForAvatar, pic.Bytes()))(t)
	must.OK(t, blobs.Delete(f.Ctx, avatar.BlobPrefix())) // lost

	var buf bytes.Buffer
	must.OK(t, export.WriteArchive(f.Ctx, &buf, f.St, m, ann))
	archive := must.Value(zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len())))(t)
	id := strconv.FormatInt(a.ID, 10)
	var names []string
	for _, file := range archive.File {
		names = append(names, file.Name)
	}
	if want := []string{"retwis-ann.json", "media/" + id + ".jpg", "media.json"}; !slices.Equal(names, want) {
		t.Fatalf("the archive holds %q; want %q", names, want)
	}
	var doc struct {
		Posts []struct {
			ID, Text string
			Media    []string
		}
	}
	must.OK(t, json.Unmarshal(must.Value(fs.ReadFile(archive, "retwis-ann.json"))(t), &doc))
	if len(doc.Posts) != 1 || !slices.Equal(doc.Posts[0].Media, []string{id}) {
		t.Errorf("the document's posts: %+v; want one naming picture %s", doc.Posts, id)
	}
	var recs struct {
		Pictures []struct {
			ID, File, Type, Purpose, Description string
			PostID                               string  `json:"post_id"`
			FocusX                               float64 `json:"focus_x"`
			Width                                int
		}
	}
	must.OK(t, json.Unmarshal(must.Value(fs.ReadFile(archive, "media.json"))(t), &recs))
	if len(recs.Pictures) != 2 {
		t.Fatalf("media.json: %+v; want the post's picture and the avatar", recs.Pictures)
	}
	got, lost := recs.Pictures[0], recs.Pictures[1]
	if got.ID != id || got.File != "media/"+id+".jpg" || got.Type != "image/jpeg" || got.Purpose != "post" ||
		got.Description != "a black square" || got.PostID != strconv.FormatInt(p.ID, 10) || got.FocusX != 0.5 || got.Width != 80 {
		t.Errorf("the post's picture: %+v", got)
	}
	if lost.Purpose != "avatar" || lost.File != "" {
		t.Errorf("the avatar whose file is lost: %+v; want its record without a file", lost)
	}
	rc, _, err := blobs.Open(f.Ctx, a.Blob())
	must.OK(t, err)
	defer rc.Close()
	var want bytes.Buffer
	must.Value(want.ReadFrom(rc))(t)
	if data := must.Value(fs.ReadFile(archive, "media/"+id+".jpg"))(t); !bytes.Equal(data, want.Bytes()) {
		t.Errorf("the picture in the archive has %d bytes; the stored file %d", len(data), want.Len())
	}
}
