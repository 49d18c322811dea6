package oauth

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
	"github.com/retwis/retwis/internal/api/entity"
)

// userinfo is the OpenID Connect profile of a token's user, with the
// claims Mastodon 4.4 sends: the issuer, the subject (the URI of the
// account, as Mastodon's is its actor's), the display name, the
// username, the profile page and the avatar.
type userinfo struct {
	Issuer            string `json:"iss"`
	Subject           string `json:"sub"`
	Name              string `json:"name"`
	PreferredUsername string `json:"preferred_username"`
	Profile           string `json:"profile"`
	Picture           string `json:"picture"`
}

// serveUserinfo answers GET and POST /oauth/userinfo (scope profile):
// who the token's user is.
func (s *Server) serveUserinfo(w http.ResponseWriter, r *http.Request) {
	u := apiwire.Viewer(r)
	name, _, err := s.Store.About(r.Context(), u.ID)
	if err != nil {
		s.Fail(w, r, err)
		return
	}
	a := entity.SiteOf(r).Account(retwis.Summary{User: u, DisplayName: name})
	apiwire.WriteJSON(w, http.StatusOK, userinfo{Issuer: issuer(r), Subject: a.URI, Name: a.DisplayName,
		PreferredUsername: a.Username, Profile: a.URL, Picture: a.Avatar})
}
