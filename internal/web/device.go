package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis/internal/web/words"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
)

// withDevice returns the request's context carrying its device, for the
// session a login, a sign-up or a password change begins.
func (s *Server) withDevice(r *http.Request) context.Context {
	return accounts.WithDevice(r.Context(), device(r))
}

// device returns where r comes from, for the list of sessions.
func device(r *http.Request) accounts.Device {
	return accounts.Device{Name: words.DeviceName(r.UserAgent()), Addr: middleware.ClientAddr(r)}
}

// knownDevice returns where r comes from, known for the account called
// name if r's device cookie says it logged in to it before.
func (s *Server) knownDevice(r *http.Request, name string) accounts.Device {
	d := device(r)
	d.Known, _ = s.store.RecognizeDevice(r.Context(), deviceCookie(r), name)
	return d
}

// deviceCookieName is the name of the cookie that names the browser and
// the accounts it logged in to, signed by the servers (see
// accounts.RecognizeDevice).
const deviceCookieName = "device"

// deviceCookie returns the value of r's device cookie, or "".
func deviceCookie(r *http.Request) string {
	c, err := r.Cookie(deviceCookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// rememberDevice sends the device cookie of a browser that has just
// logged in to uid's account, or signed up for it, for a year (HttpOnly,
// SameSite=Lax, Secure as the auth cookie is). Failing that (Redis full,
// say), the browser stays as it was, and the failure is logged: the
// login went through.
func (s *Server) rememberDevice(w http.ResponseWriter, r *http.Request, uid int64) {
	value, err := s.store.RememberDevice(r.Context(), deviceCookie(r), uid)
	if err != nil {
		s.log.Warn("the device cookie was not sent", "user", uid, "err", err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookieName, Value: value, Path: "/", MaxAge: cookieMaxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure || middleware.Secure(r),
	})
}
