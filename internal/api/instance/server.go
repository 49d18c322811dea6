// Package instance is what the client API says of the server itself:
// Mastodon's Instance entity in its two versions, every field of each,
// with the version of the API retwis answers as (Version), its limits
// and its streaming URL (instance.go, v2.go); the operator's rules, the
// weekly activity, the extended description and the languages, and the
// lists of what a server without federation has none of (more.go);
// nodeinfo, by which clients such as megalodon tell what a server is
// (nodeinfo.go).
package instance

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the instance's routes of the client API, on the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/instance", s.v1)
	mux.HandleFunc("GET /api/v2/instance", s.v2)
	mux.HandleFunc("GET /api/v1/custom_emojis", apiwire.EmptyList)
	mux.HandleFunc("GET /api/v1/instance/rules", s.rules)
	mux.HandleFunc("GET /api/v1/instance/activity", s.activity)
	mux.HandleFunc("GET /api/v1/instance/peers", apiwire.EmptyList)
	mux.HandleFunc("GET /api/v1/instance/domain_blocks", apiwire.EmptyList)
	mux.HandleFunc("GET /api/v1/instance/extended_description", s.extendedDescription)
	mux.HandleFunc("GET /api/v1/instance/privacy_policy", s.privacyPolicy)
	mux.HandleFunc("GET /api/v1/instance/languages", languagesList)
	mux.HandleFunc("GET /api/v1/instance/translation_languages", apiwire.EmptyObject)
	mux.HandleFunc("GET /.well-known/nodeinfo", nodeinfoLinks)
	mux.HandleFunc("GET /nodeinfo/{version}", s.nodeinfo)
	mux.HandleFunc("GET /health", s.health)
}

// Paths are the paths outside /api/ that Routes serves, which the
// client API's Register mounts on the top-level mux.
var Paths = []string{"/.well-known/nodeinfo", "/nodeinfo/", "/health"}
