// Package instance is what the client API says of the server itself
// (instance.go): Mastodon's Instance entity in its two versions, with
// the version of the API retwis answers as (Version), its limits and
// its streaming URL; its rules and custom emojis, of which retwis has
// none.
package instance

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the instance's routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/instance", s.instanceV1)
	mux.HandleFunc("GET /api/v2/instance", s.instanceV2)
	mux.HandleFunc("GET /api/v1/custom_emojis", apiwire.EmptyList)
	mux.HandleFunc("GET /api/v1/instance/rules", apiwire.EmptyList)
}
