// Package suggestions is the client API's suggestions of accounts to
// follow (suggestions.go): the friends of friends that the home page's
// "who to follow" shows too (store.Store.WhoToFollow, from the graph),
// as accounts (v1) or as Suggestion entities with their source (v2),
// and their dismissal for good, which the pages heed as well.
package suggestions

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the suggestions' routes of the client API, on the API's
// kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/suggestions", s.Need(apiwire.Read, s.suggestions(false)))
	mux.HandleFunc("GET /api/v2/suggestions", s.Need(apiwire.Read, s.suggestions(true)))
	mux.HandleFunc("DELETE /api/v1/suggestions/{account_id}", s.Need(apiwire.Read, s.dismiss))
}
