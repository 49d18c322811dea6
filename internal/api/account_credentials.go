package api

import (
	"net/http"
	"net/url"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
	mediastore "github.com/retwis/retwis/internal/store/media"
	"github.com/retwis/retwis/internal/store/schema"
)

// verifyCredentials answers GET /api/v1/accounts/verify_credentials:
// the token's user, with the source of their profile.
func (s *Server) verifyCredentials(w http.ResponseWriter, r *http.Request) {
	sum, err := s.Store.Summary(r.Context(), apiwire.Viewer(r).ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.WriteJSON(w, http.StatusOK, entity.SiteOf(r).CredentialAccount(sum))
}

// updateCredentials answers PATCH /api/v1/accounts/update_credentials:
// display_name and note (the bio) change what they are given for, and
// the files avatar and header of a multipart body become the viewer's
// pictures (processed before the answer: a file that is not a picture
// retwis takes is refused with 422, and nothing changes); the others
// Mastodon knows (fields, locked…) are accepted and ignored.
func (s *Server) updateCredentials(w http.ResponseWriter, r *http.Request) {
	v, ok := apiwire.UploadParams(w, r, s.pictureBytes())
	if !ok {
		return
	}
	uid := apiwire.Viewer(r).ID
	pics, err := s.pictures(r, v, uid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	name, bio, err := s.Store.About(r.Context(), uid)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	if _, ok := v["display_name"]; ok {
		name = v.Get("display_name")
	}
	if _, ok := v["note"]; ok {
		bio = v.Get("note")
	}
	if err := s.Store.SetAbout(r.Context(), uid, name, bio); err != nil {
		s.Fail(w, r, err)
		return
	}
	for _, p := range pics {
		if err := s.Media.Records().SetPicture(r.Context(), uid, p.field, p.Attachment); err != nil {
			s.Fail(w, r, err)
			return
		}
	}
	s.verifyCredentials(w, r)
}

// picture is a picture of update_credentials, processed, and the field
// of the user hash it goes to.
type picture struct {
	retwis.Attachment
	field string
}

// pictures processes the files avatar and header of
// update_credentials' body (multipart files, or data URIs in v, as
// Mastodon takes them), uploads of uid, before anything changes: a
// file that is not a picture retwis takes is refused, and so is any
// without a media service. Those processed and not used in the end are
// upkeep's to remove, as any upload never attached.
func (s *Server) pictures(r *http.Request, v url.Values, uid int64) ([]picture, error) {
	var pics []picture
	for field, purpose := range map[string]string{schema.FieldAvatar: mediastore.ForAvatar, schema.FieldHeader: mediastore.ForHeader} {
		data, err := apiwire.File(r, field, s.pictureBytes())
		if data == nil && err == nil {
			data = apiwire.DataURI(v.Get(field))
		}
		switch {
		case err != nil:
			return nil, err
		case data == nil:
			continue
		case s.Media == nil:
			return nil, retwis.Errorf(retwis.Invalid, "This server takes no pictures.")
		}
		u, err := s.Media.Upload(r.Context(), uid, purpose, data, "", 0, 0)
		if err != nil {
			return nil, err
		}
		a, err := s.Media.Ready(r.Context(), u)
		if err != nil {
			return nil, err
		}
		pics = append(pics, picture{a, field})
	}
	return pics, nil
}

// pictureBytes is what one picture may weigh (0 without a media
// service, which takes none).
func (s *Server) pictureBytes() int64 {
	if s.Media == nil {
		return 0
	}
	return s.Media.Limits().MaxBytes
}

// clearPicture returns the handler of DELETE /api/v1/profile/avatar and
// /api/v1/profile/header (field, schema.FieldAvatar or FieldHeader): the
// viewer's picture goes (the generated avatar, the default header show
// again), and the answer is their account, as Mastodon's.
func (s *Server) clearPicture(field string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.Media != nil {
			if err := s.Media.ClearPicture(r.Context(), apiwire.Viewer(r).ID, field); err != nil {
				s.Fail(w, r, err)
				return
			}
		}
		s.verifyCredentials(w, r)
	}
}

// preferences answers GET /api/v1/preferences: what apps use as their
// defaults when composing and reading; on retwis every post is public
// and nothing is sensitive or hidden.
func preferences(w http.ResponseWriter, _ *http.Request) {
	apiwire.WriteJSON(w, http.StatusOK, map[string]any{
		"posting:default:visibility": "public", "posting:default:sensitive": false, "posting:default:language": nil,
		"reading:expand:media": "default", "reading:expand:spoilers": false,
	})
}
