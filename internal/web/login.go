package web

import (
	"cmp"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/web/page"
)

// login serves POST /login: check the credentials, and set the token of
// the new session they begin (one per login) as the cookie, and the
// device cookie that makes the browser a known device of the account.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if status, err := page.ParseForm(w, r); err != nil {
		s.welcomeError(w, r, status, "", err)
		return
	}
	name, pass := r.PostFormValue("username"), r.PostFormValue("password")
	if name == "" || pass == "" {
		s.welcomeError(w, r, 0, name, retwis.Errorf(retwis.Invalid, "You need to enter both username and password to log in."))
		return
	}
	d := s.KnownDevice(r, name)
	if err := s.limitLogin(r, name, d.Known); err != nil {
		s.welcomeError(w, r, 0, name, err)
		return
	}
	u, secret, err := s.Store.Login(accounts.WithDevice(r.Context(), d), name, pass)
	if err != nil {
		s.welcomeError(w, r, 0, name, err)
		return
	}
	s.SetAuthCookie(w, r, secret)
	s.RememberDevice(w, r, u.ID)
	http.Redirect(w, r, cmp.Or(localPath(r.PostFormValue("next")), "/"), http.StatusSeeOther)
}

// limitLogin counts a login attempt against the allowance of the known
// device it comes from (known: zero for none), or else against the
// limits of its client address and of the account (by its name: there
// is no need to look the account up, and a name nobody has is limited
// alike). So guesses from elsewhere never use up the owner's own
// device's allowance.
func (s *Server) limitLogin(r *http.Request, name string, known accounts.KnownDevice) error {
	if known.ID == "" {
		if _, err := s.Store.Take(r.Context(), accounts.LoginFrom(middleware.ClientAddr(r)), s.limits.Login); err != nil {
			return err
		}
		if !retwis.IsUsernameShaped(name) {
			return nil // no account has it; the address's limit counts the attempt
		}
	}
	return s.limitAttempt(r, name, known)
}

// limitAttempt counts an attempt at the password of the account called
// name (a login, a password change, a deletion) against the allowance of
// the known device it comes from (known: zero for none), or else
// against the account's limit.
func (s *Server) limitAttempt(r *http.Request, name string, known accounts.KnownDevice) error {
	if known.ID != "" {
		_, err := s.Store.Take(r.Context(), accounts.LoginOnDevice(known), s.limits.LoginDevice)
		return err
	}
	_, err := s.Store.Take(r.Context(), accounts.LoginTo(name), s.limits.LoginAccount)
	return err
}

// localPath returns next if it is a path on this site (a login that
// began on the OAuth authorization page goes back there), else "".
func localPath(next string) string {
	if len(next) > 4096 || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return ""
	}
	return next
}
