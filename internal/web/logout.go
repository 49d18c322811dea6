package web

import "net/http"

// logout serves POST /logout: rotate the auth secret, so that every copy
// of the old cookie stops working, and clear the cookie.
func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	u, _ := viewerFrom(r)
	if err := s.store.Logout(r.Context(), u.ID); err != nil {
		s.fail(w, r, err)
		return
	}
	clearAuthCookie(w, r)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
