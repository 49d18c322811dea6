package page

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

// RequireLogin sends a logged-out visitor to the welcome page.
func (k *Kit) RequireLogin(next http.HandlerFunc) http.HandlerFunc {
	return k.MW.Viewer(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := middleware.ViewerFrom(r.Context()); !ok {
			http.Redirect(w, r, "/", http.StatusSeeOther)
			return
		}
		next(w, r)
	})
}

// SetAuthCookie sends secret as the auth cookie; an empty secret clears it.
// The cookie is Secure over HTTPS (middleware.Secure: TLS here, or a
// trusted proxy that says so), and always if New was told so
// (web.Options.SecureCookies).
func (k *Kit) SetAuthCookie(w http.ResponseWriter, r *http.Request, secret string) {
	maxAge := cookieMaxAge
	if secret == "" {
		maxAge = -1
	}
	http.SetCookie(w, &http.Cookie{
		Name: retwis.SessionCookie, Value: secret, Path: "/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: k.secure || middleware.Secure(r),
	})
}

// ClearAuthCookie tells the browser to forget its auth cookie.
func (k *Kit) ClearAuthCookie(w http.ResponseWriter, r *http.Request) { k.SetAuthCookie(w, r, "") }
