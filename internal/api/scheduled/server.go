// Package scheduled is the client API's scheduled statuses (Mastodon's
// ScheduledStatus): a status posted with scheduled_at (Create, which
// POST /api/v1/statuses hands over to), the list of the viewer's, one,
// its new time and its cancellation (scheduled.go), on the store's
// scheduled posts (internal/store/scheduled), which maintenance
// publishes when due.
package scheduled

import (
	"net/http"

	"github.com/retwis/retwis/internal/api/apiwire"
)

// Server serves the scheduled statuses' routes of the client API, on
// the API's kit.
type Server struct{ *apiwire.Kit }

// Routes registers the routes on mux, the client API's.
func (s *Server) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/scheduled_statuses", s.Need(apiwire.ReadStatuses, s.list))
	mux.HandleFunc("GET /api/v1/scheduled_statuses/{id}", s.Need(apiwire.ReadStatuses, s.show))
	mux.HandleFunc("PUT /api/v1/scheduled_statuses/{id}", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.reschedule)))
	mux.HandleFunc("DELETE /api/v1/scheduled_statuses/{id}", s.Need(apiwire.WriteStatuses, s.MW.Throttle(s.cancel)))
}
