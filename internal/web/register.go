package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/web/page"
)

// register serves POST /register: create the account, log it in (the
// browser a known device of it), and go home. A failed sign-up shows the welcome page again with the reason.
// The form's own matter, the confirmation, is checked here; the rules of
// usernames and passwords are the store's, which every interface reaches.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if status, err := page.ParseForm(w, r); err != nil {
		s.welcomeError(w, r, status, "", err)
		return
	}
	name, pass := r.PostFormValue("username"), r.PostFormValue("password")
	if pass != r.PostFormValue("password2") {
		s.welcomeError(w, r, 0, name, retwis.Errorf(retwis.Invalid, "The two passwords do not match."))
		return
	}
	if _, err := s.Store.Take(r.Context(), accounts.SignupFrom(middleware.ClientAddr(r)), s.limits.Signups); err != nil {
		s.welcomeError(w, r, 0, name, err)
		return
	}
	u, secret, err := s.Store.Register(s.WithDevice(r), name, pass)
	if err != nil {
		s.welcomeError(w, r, 0, name, err)
		return
	}
	s.SetAuthCookie(w, r, secret)
	s.RememberDevice(w, r, u.ID)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
