package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

const cookieMaxAge = 365 * 24 * 60 * 60 // a year, as in the original Retwis

// SessionCredential is the credential of the HTML interface: the value
// of the auth cookie, or "" without one. The streams of the client API
// (internal/streaming) accept it too, so that the pages can listen.
func SessionCredential(r *http.Request) string {
	c, err := r.Cookie(retwis.SessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// requireLogin sends a logged-out visitor to the welcome page.
func (s *Server) requireLogin(next http.HandlerFunc) http.HandlerFunc {
	return s.mw.Viewer(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := middleware.ViewerFrom(r.Context()); !ok {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		next(w, r)
	})
}

// setAuthCookie sends secret as the auth cookie; an empty secret clears it.
// The cookie is Secure over HTTPS (middleware.Secure: TLS here, or a
// trusted proxy that says so), and always with Options.SecureCookies.
func (s *Server) setAuthCookie(w http.ResponseWriter, r *http.Request, secret string) {
	maxAge := cookieMaxAge
	if secret == "" {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{
		Name: retwis.SessionCookie, Value: secret, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure || middleware.Secure(r),
	})
}

// clearAuthCookie tells the browser to forget its auth cookie.
func (s *Server) clearAuthCookie(w http.ResponseWriter, r *http.Request) { s.setAuthCookie(w, r, "") }
