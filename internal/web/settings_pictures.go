package web

import (
	"cmp"
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/media"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/schema"
	"github.com/retwis/retwis/internal/web/page"
)

// profilePicture is a picture of the settings form: its field of the
// user's record, the purpose of its upload, its file input (whose name,
// with "_remove", is its checkbox that takes it away), and its name in
// the form's errors.
type profilePicture struct {
	field, purpose, input, name string
}

// profilePictures are the avatar and the header.
var profilePictures = []profilePicture{
	{schema.FieldAvatar, mediastore.ForAvatar, "avatar", "Avatar"},
	{schema.FieldHeader, mediastore.ForHeader, "header", "Header"},
}

// takePictures uploads the pictures of the settings form fs for uid and
// waits for them, writing none as the user's: it returns them by field,
// or why one was refused.
func (s *Server) takePictures(ctx context.Context, uid int64, fs page.Files) (map[string]retwis.Attachment, error) {
	ups := map[string]*media.Upload{}
	for _, p := range profilePictures {
		if pictures(fs, p.input) == 0 {
			continue
		}
		if s.media == nil {
			return nil, retwis.Errorf(retwis.Invalid, "This server takes no pictures.")
		}
		u, err := s.media.Upload(ctx, uid, p.purpose, firstFile(fs[p.input]), "", 0, 0)
		if err != nil {
			return nil, pictureErr(p.name, err)
		}
		ups[p.field] = u
	}
	got := make(map[string]retwis.Attachment, len(ups))
	for _, p := range profilePictures {
		if u, ok := ups[p.field]; ok {
			a, err := s.media.Ready(ctx, u)
			if err != nil {
				return nil, pictureErr(p.name, err)
			}
			got[p.field] = a
		}
	}
	return got, nil
}

// firstFile is the first file of a field, of those chosen.
func firstFile(files [][]byte) []byte {
	for _, f := range files {
		if f != nil {
			return f
		}
	}
	return nil
}

// savePictures makes got (takePictures) uid's pictures, and takes away
// those whose remove box r checked and got has none of.
func (s *Server) savePictures(ctx context.Context, uid int64, got map[string]retwis.Attachment, r *http.Request) error {
	for _, p := range profilePictures {
		var err error
		if a, ok := got[p.field]; ok {
			err = s.media.Records().SetPicture(ctx, uid, p.field, a)
		} else if r.PostFormValue(p.input+"_remove") != "" && s.media != nil {
			err = s.media.ClearPicture(ctx, uid, p.field)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// aboutForm is the settings form of uid with name and bio: their
// pictures and what those weigh against the quota too, if they can be
// read now (logged otherwise: the form goes on without them).
func (s *Server) aboutForm(ctx context.Context, uid int64, name, bio string) page.AboutForm {
	f := page.AboutForm{Name: name, Bio: bio}
	if s.media == nil {
		return f
	}
	recs := s.media.Records()
	avatar, err1 := recs.Picture(ctx, uid, schema.FieldAvatar)
	header, err2 := recs.Picture(ctx, uid, schema.FieldHeader)
	used, err3 := recs.Used(ctx, uid)
	if err := cmp.Or(err1, err2, err3); err != nil {
		s.Log.Warn("settings: pictures", "user", uid, "err", err)
		return f
	}
	if avatar != nil {
		f.Avatar = avatar.SmallPath()
	}
	if header != nil {
		f.Header = header.Path()
	}
	f.Space = "Your pictures use " + mediastore.Size(used)
	if q := s.media.Quota(); q > 0 {
		f.Space += " of " + mediastore.Size(q)
	}
	f.Space += "."
	return f
}
