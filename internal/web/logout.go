package web

import (
	"net/http"

	"github.com/retwis/retwis/internal/middleware"
)

// logout serves POST /logout: rotate the auth secret, so that every copy
// of the old cookie stops working, and clear the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if err := s.store.Logout(r.Context(), u.ID); err != nil {
		s.mw.Fail(w, r, err)
		return
	}
	s.clearAuthCookie(w, r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
