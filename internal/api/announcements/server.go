// Package announcements is the client API's announcements
// (announcements.go): the instance's active announcements, which its
// operator posts, each with whether the viewer dismissed it and the
// users' emoji reactions, its dismissal and the viewer's reactions, on
// internal/store/announcements.
package announcements

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the announcements' routes of the client API, on the
// API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/announcements", s.Need(apiwire.Read, s.list))
	mux.HandleFunc("POST /api/v1/announcements/{id}/dismiss", s.Need(apiwire.WriteAccounts, s.dismiss))
	mux.HandleFunc("PUT /api/v1/announcements/{id}/reactions/{name}", s.Need(apiwire.WriteFavourites, s.react))
	mux.HandleFunc("DELETE /api/v1/announcements/{id}/reactions/{name}", s.Need(apiwire.WriteFavourites, s.unreact))
}
