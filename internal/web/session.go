package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
)

// CookieName is the name of the cookie that holds the auth secret, as in
// the original Retwis.
const CookieName = "auth"

const cookieMaxAge = 365 * 24 * 60 * 60 // a year, as in the original Retwis

type viewerKey struct{}

// viewerFrom returns the logged-in user of the request, if any.
func viewerFrom(r *http.Request) (retwis.User, bool) {
	u, ok := r.Context().Value(viewerKey{}).(retwis.User)
	return u, ok
}

// withViewer resolves the auth cookie to the logged-in user, as the
// tutorial's isLoggedIn does, and puts the user in the request context. A
// cookie that no longer works (the user logged out elsewhere) is cleared.
func (s *Server) withViewer(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(CookieName)
		if err != nil {
			next(w, r)
			return
		}
		u, err := s.store.Authenticate(r.Context(), c.Value)
		switch {
		case err == nil:
			r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, u))
		case retwis.ErrorKind(err) == retwis.Unauthorized:
			clearAuthCookie(w, r)
		default:
			s.fail(w, r, err)
			return
		}
		next(w, r)
	}
}

// requireLogin sends a logged-out visitor to the welcome page.
func (s *Server) requireLogin(next http.HandlerFunc) http.HandlerFunc {
	return s.withViewer(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := viewerFrom(r); !ok {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		next(w, r)
	})
}

// setAuthCookie sends secret as the auth cookie; an empty secret clears it.
func setAuthCookie(w http.ResponseWriter, r *http.Request, secret string) {
	maxAge := cookieMaxAge
	if secret == "" {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: secret, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil,
	})
}

// clearAuthCookie tells the browser to forget its auth cookie.
func clearAuthCookie(w http.ResponseWriter, r *http.Request) { setAuthCookie(w, r, "") }
