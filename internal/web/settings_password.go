package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/web/page"
)

// changePassword serves POST /settings/password (current, password,
// password2): the new password replaces the old if current is right,
// every other session of the account ends, and this browser goes on in a
// new session, with a new cookie; 303 to the settings page. API tokens
// are revoked. Refused (a wrong current
// password, a new one that breaks the rules or is typed differently
// twice, too many attempts), the settings page shows why, and nothing
// changes.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r)
	if err == nil && r.PostFormValue("password") != r.PostFormValue("password2") {
		err = retwis.Errorf(retwis.Invalid, "The two new passwords do not match.")
	}
	d := s.KnownDevice(r, u.Username)
	if err == nil { // each attempt hashes a password: limited as logins to the account are
		err = s.limitAttempt(r, u.Username, d.Known)
	}
	var token string
	if err == nil {
		token, err = s.Store.ChangePassword(accounts.WithDevice(r.Context(), d), u.ID, r.PostFormValue("current"), r.PostFormValue("password"))
	}
	if err == nil {
		s.SetAuthCookie(w, r, token)
		http.Redirect(w, r, "/settings?password=changed", http.StatusSeeOther)
		return
	}
	s.refuseSettings(w, r, u, status, err)
}
