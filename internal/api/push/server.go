// Package push is the client API's Web Push subscription
// (subscription.go): one per access token, which mobile apps make to be
// told of their user's notifications by their push service. The
// subscriptions are internal/store/push's; internal/push sends the
// pushes.
package push

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the push subscription's routes of the client API, on
// the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /api/v1/push/subscription", s.Need(apiwire.Push, s.subscribe))
	mux.HandleFunc("GET /api/v1/push/subscription", s.Need(apiwire.Push, s.subscription))
	mux.HandleFunc("PUT /api/v1/push/subscription", s.Need(apiwire.Push, s.update))
	mux.HandleFunc("DELETE /api/v1/push/subscription", s.Need(apiwire.Push, s.unsubscribe))
}
