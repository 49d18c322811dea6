package web

import (
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// logout serves POST /logout: end this browser's session, and no other
// (the user's other devices stay logged in), and clear the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if err := s.Store.Logout(r.Context(), u.ID, page.SessionCredential(r)); err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	s.ClearAuthCookie(w, r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
