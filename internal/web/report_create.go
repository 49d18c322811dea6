package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// createReport serves POST /report: the viewer reports a post (post, its
// id) or an account (user, its username) with reason, for the
// moderators, and goes back to what they reported, which says the
// report was sent. A refused report (no reason, oneself, too many)
// answers 4xx with the reason and writes nothing.
func (s *Server) createReport(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := parseForm(w, r)
	var pid, uid int64
	back := "/"
	if err == nil {
		pid, err = postNumber(r.PostFormValue("post"), "post")
	}
	switch name := r.PostFormValue("user"); {
	case err != nil:
	case pid > 0:
		back = retwis.PostPath(pid)
	case name != "":
		var target retwis.User
		if target, err = s.store.UserByName(r.Context(), name); err == nil {
			uid, back = target.ID, retwis.ProfilePath(target.Username)
		}
	default:
		err = retwis.Errorf(retwis.Invalid, "Say which post or account you report.")
	}
	if err == nil {
		_, err = s.store.Report(r.Context(), u.ID, uid, pid, r.PostFormValue("reason"))
	}
	switch {
	case status != 0: // the form itself could not be read
		s.renderError(w, r, status, retwis.ErrorMessage(err))
		return
	case err != nil:
		s.mw.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, back+"?reported=1", http.StatusSeeOther)
}
