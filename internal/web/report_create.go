package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// createReport serves POST /report: the viewer reports a post (post, its
// id) or an account (user, its username) with reason, for the
// moderators, and goes back to what they reported, which says the
// report was sent. store.Report holds the rules: a refused report (no
// reason, oneself, too many) answers 4xx with the reason and writes
// nothing.
func (s *Server) createReport(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	if status, err := page.ParseForm(w, r); err != nil { // the form itself could not be read
		s.RenderError(w, r, status, retwis.ErrorMessage(err))
		return
	}
	uid, pids, back, err := s.reported(r)
	if err == nil {
		_, err = s.Store.Report(r.Context(), u.ID, uid, pids, r.PostFormValue("reason"))
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	http.Redirect(w, r, back+"?reported=1", http.StatusSeeOther)
}

// reported reads what the report form names, a post (post: the account
// is its author) or an account (user), as store.Report takes it, and
// the page to go back to.
func (s *Server) reported(r *http.Request) (uid int64, pids []int64, back string, err error) {
	pid, err := page.PostNumber(r.PostFormValue("post"), "post")
	switch name := r.PostFormValue("user"); {
	case err != nil:
		return 0, nil, "", err
	case pid > 0:
		return 0, []int64{pid}, retwis.PostPath(pid), nil
	case name != "":
		target, err := s.Store.UserByName(r.Context(), name)
		return target.ID, nil, retwis.ProfilePath(target.Username), err
	}
	return 0, nil, "", retwis.Errorf(retwis.Invalid, "Say which post or account you report.")
}
