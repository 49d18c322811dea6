package api

import "net/http"

// revokeToken answers POST /oauth/revoke (RFC 7009): the token, if it
// was issued to the authenticated app, stops working at once. An unknown
// token, or another app's, is no error and is left alone.
func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request) {
	app, v, ok := s.client(w, r)
	if !ok {
		return
	}
	if err := s.store.RevokeBearer(r.Context(), app.ClientID, v.Get("token")); err != nil {
		s.fail(w, r, err)
		return
	}
	emptyObject(w, r)
}
