package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/web/page"
)

// deleteAccount serves POST /settings/delete (password, confirm): with
// the viewer's password and the box "I understand" ticked, the account
// is deleted (see deletion.Deleter.DeleteAccount: at once for a small
// one, in the background for a larger one), the cookie cleared, and the
// browser sent to the account's old profile, which tells how far the
// deletion has got. Refused (the box not ticked, a wrong password, too
// many attempts), the settings page shows why, and nothing is deleted.
func (s *Server) deleteAccount(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r)
	if err == nil && r.PostFormValue("confirm") == "" { // checked before the password, which costs a hash and an attempt
		err = errDeleteUnconfirmed
	}
	d := s.KnownDevice(r, u.Username)
	if err == nil { // each attempt hashes a password: limited as logins to the account are
		err = s.limitAttempt(r, u.Username, d.Known)
	}
	if err == nil {
		err = s.deleter.DeleteAccount(accounts.WithDevice(r.Context(), d), u.ID, r.PostFormValue("password"))
	}
	if err == nil {
		s.ClearAuthCookie(w, r)
		http.Redirect(w, r, retwis.ProfilePath(u.Username), http.StatusSeeOther)
		return
	}
	s.refuseSettings(w, r, u, status, err)
}

// errDeleteUnconfirmed refuses a deletion of an account whose form did
// not tick the box that says its owner understands it cannot be undone.
var errDeleteUnconfirmed = retwis.Errorf(retwis.Invalid,
	"Nothing was deleted: tick the box that says you understand your account cannot be recovered, then delete it again.")

// showDeletion answers, with 410 Gone, the profile of a deleted account
// whose name is still reserved: how far its deletion has got. It reports
// false, having written nothing, when no account of that name was
// deleted lately.
func (s *Server) showDeletion(w http.ResponseWriter, r *http.Request, username string) bool {
	d, err := s.deleter.Deletion(r.Context(), username)
	if err != nil {
		if retwis.ErrorKind(err) != retwis.NotFound {
			s.Log.Warn("reading an account's deletion", "name", username, "err", err) // the page says not found
		}
		return false
	}
	v := page.View{Title: username, Deletion: d}
	if viewer, ok := middleware.ViewerFrom(r.Context()); ok {
		v.Viewer = &viewer
	}
	s.Render(w, r, http.StatusGone, "deleted", v)
	return true
}
