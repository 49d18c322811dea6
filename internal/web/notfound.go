package web

import "net/http"

// notFound answers every path no route claims.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.RenderError(w, r, http.StatusNotFound, "There is nothing here.")
}
