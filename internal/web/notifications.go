package web

import (
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// notifications serves GET /notifications: who followed, mentioned or
// replied to the viewer, newest first; reading them clears the unread
// count, which the page's navigation shows cleared without reading it.
func (s *Server) notifications(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	notes, err := s.Store.Notifications(r.Context(), u.ID)
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	s.Render(w, r, http.StatusOK, "notifications", page.View{Title: "Notifications", Viewer: &u, Notifications: notes, Counted: true})
}

// clearNotifications serves POST /notifications/clear: the viewer's
// notifications are all removed (as the client API's clear does), and
// the notifications page shown again, empty.
func (s *Server) clearNotifications(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if err := s.Store.ClearNotifications(r.Context(), u.ID); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, "/notifications", http.StatusSeeOther)
}
