package api

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
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
// display_name and note (the bio) change what they are given for; the
// others Mastodon knows (avatar, header, fields…) are accepted and
// ignored, except files, which retwis cannot store.
func (s *Server) updateCredentials(w http.ResponseWriter, r *http.Request) {
	v, err := apiwire.Params(r)
	if err != nil {
		apiwire.BadRequest(w, r, err)
		return
	}
	if r.MultipartForm != nil && (len(r.MultipartForm.File["avatar"]) > 0 || len(r.MultipartForm.File["header"]) > 0) {
		apiwire.Unsupported(w, r)
		return
	}
	uid := apiwire.Viewer(r).ID
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
	s.verifyCredentials(w, r)
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
