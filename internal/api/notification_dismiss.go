package api

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/api/apiwire"
)

// dismissNotification answers POST /api/v1/notifications/{id}/dismiss:
// the viewer's notification is removed; one that the viewer does not
// have is 404.
func (s *Server) dismissNotification(w http.ResponseWriter, r *http.Request) {
	id, ok := retwis.ParseID(r.PathValue("id"))
	if !ok {
		apiwire.NotFound(w, r)
		return
	}
	if err := s.Store.DismissNotification(r.Context(), apiwire.Viewer(r).ID, id); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}

// clearNotifications answers POST /api/v1/notifications/clear: all the
// viewer's notifications are removed.
func (s *Server) clearNotifications(w http.ResponseWriter, r *http.Request) {
	if err := s.Store.ClearNotifications(r.Context(), apiwire.Viewer(r).ID); err != nil {
		s.Fail(w, r, err)
		return
	}
	apiwire.EmptyObject(w, r)
}
