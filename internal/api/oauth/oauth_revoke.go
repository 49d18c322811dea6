package oauth

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// revokeToken answers POST /oauth/revoke (RFC 7009): the token, if it
// was issued to the authenticated app, stops working at once. An unknown
// token, or another app's, is no error and is left alone.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	app, v, ok := s.client(w, r)
	if !ok {
		return
	}
	if err := s.Store.RevokeBearer(r.Context(), app.ClientID, v.Get("token")); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
