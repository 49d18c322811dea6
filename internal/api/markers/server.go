// Package markers is the client API's markers (markers.go): a user's
// positions in their home timeline and notifications, which apps save
// as they read and read back at start, on another device too. The
// notifications marker is the pages' read marker: saving it marks the
// notifications read up to it on the pages, and opening the
// notifications page moves it (store.Store.Markers).
package markers

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the markers' routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/markers", s.Need(apiwire.ReadStatuses, s.markers))
	mux.HandleFunc("POST /api/v1/markers", s.Need(apiwire.WriteStatuses, s.saveMarkers))
}
