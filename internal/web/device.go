package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
)

// namedBy pairs what a User-Agent holds with what it names.
type namedBy struct{ token, name string }

// browsers and systems are what a User-Agent is searched for, in order:
// the first found names it (Edge and Opera say Chrome too, Chrome on
// iOS says Safari).
var (
	browsers = []namedBy{{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"CriOS/", "Chrome"}, {"FxiOS/", "Firefox"},
		{"Firefox/", "Firefox"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}}
	systems = []namedBy{{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"Android", "Android"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Linux", "Linux"}}
)

// firstNamed returns the name of the first of list that ua holds, or "".
func firstNamed(list []namedBy, ua string) string {
	for _, n := range list {
		if strings.Contains(ua, n.token) {
			return n.name
		}
	}
	return ""
}

// deviceName says shortly what a User-Agent is, for the list of
// sessions: "Firefox on Linux"; for a client that is no known browser,
// its first product token ("curl/8.5.0"), which the store cuts short.
func deviceName(ua string) string {
	browser, system := firstNamed(browsers, ua), firstNamed(systems, ua)
	switch {
	case browser != "" && system != "":
		return browser + " on " + system
	case browser != "":
		return browser
	case system != "":
		return "A browser on " + system
	}
	product, _, _ := strings.Cut(ua, " ")
	return product
}

// withDevice returns the request's context carrying its device, for the
// session a login, a sign-up or a password change begins.
func (s *Server) withDevice(r *http.Request) context.Context {
	return accounts.WithDevice(r.Context(), device(r))
}

// device returns where r comes from, for the list of sessions.
func device(r *http.Request) accounts.Device {
	return accounts.Device{Name: deviceName(r.UserAgent()), Addr: middleware.ClientAddr(r)}
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
