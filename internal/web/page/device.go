package page

import (
	"context"
	"net/http"

	"github.com/retwis/retwis/internal/web/words"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
)

// WithDevice returns the request's context carrying its device, for the
// session a login, a sign-up or a password change begins.
func (k *Kit) WithDevice(r *http.Request) context.Context {
	return accounts.WithDevice(r.Context(), device(r))
}

// device returns where r comes from, for the list of sessions.
func device(r *http.Request) accounts.Device {
	return accounts.Device{Name: words.DeviceName(r.UserAgent()), Addr: middleware.ClientAddr(r)}
}

// KnownDevice returns where r comes from, known for the account called
// name if r's device cookie says it logged in to it before.
func (k *Kit) KnownDevice(r *http.Request, name string) accounts.Device {
	d := device(r)
	d.Known, _ = k.Store.RecognizeDevice(r.Context(), deviceCookie(r), name)
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

// RememberDevice sends the device cookie of a browser that has just
// logged in to uid's account, or signed up for it, for a year (HttpOnly,
// SameSite=Lax, Secure as the auth cookie is). Failing that (Redis full,
// say), the browser stays as it was, and the failure is logged: the
// login went through.
func (k *Kit) RememberDevice(w http.ResponseWriter, r *http.Request, uid int64) {
	value, err := k.Store.RememberDevice(r.Context(), deviceCookie(r), uid)
	if err != nil {
		k.Log.Warn("the device cookie was not sent", "user", uid, "err", err)
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: deviceCookieName, Value: value, Path: "/", MaxAge: cookieMaxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: k.secure || middleware.Secure(r),
	})
}
