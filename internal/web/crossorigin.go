package web

import "net/http"

// crossOrigin answers a state-changing request that a browser sent from
// another site.
func (s *Server) crossOrigin(w http.ResponseWriter, r *http.Request) {
	s.renderError(w, r, http.StatusForbidden, "This form was sent from another site, so it was refused.")
}
