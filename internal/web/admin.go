package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// What the admin page shows at most.
const (
	adminReports   = 100
	adminSuspended = 100
	adminAudit     = 50
)

// requireModerator lets moderators through to next; to anyone else the
// page does not exist (404), and a logged-out visitor goes to /.
func (s *Server) requireModerator(next http.HandlerFunc) http.HandlerFunc {
	return s.RequireLogin(func(w http.ResponseWriter, r *http.Request) {
		is, err := s.Store.IsModerator(r.Context(), middleware.ViewerID(r.Context()))
		switch {
		case err != nil:
			s.MW.Fail(w, r, err)
		case !is:
			s.notFound(w, r)
		default:
			next(w, r)
		}
	})
}

// admin serves GET /admin, for moderators: the open reports, newest
// first, each with the actions it may call for; the suspended accounts;
// the newest entries of the audit log; forms to suspend an account or
// delete a post by name or number.
func (s *Server) admin(w http.ResponseWriter, r *http.Request) {
	s.renderAdmin(w, r, http.StatusOK, "")
}

// renderAdmin renders the admin page with status, and errMsg as the
// error of the last form (if not "").
func (s *Server) renderAdmin(w http.ResponseWriter, r *http.Request, status int, errMsg string) {
	u, _ := middleware.ViewerFrom(r.Context())
	var a page.AdminView
	var err error
	if a.Reports, err = s.Store.OpenReports(r.Context(), adminReports); err == nil {
		if a.Suspended, a.SuspendedCount, err = s.Store.SuspendedUsers(r.Context(), adminSuspended); err == nil {
			a.Audit, err = s.Store.AuditLog(r.Context(), adminAudit)
		}
	}
	if err != nil {
		s.MW.Fail(w, r, err)
		return
	}
	v := page.View{Title: "Moderation", Viewer: &u, Admin: a, Error: errMsg}
	if done := r.URL.Query().Get("done"); done != "" && errMsg == "" {
		v.Notice = adminNotices[done]
	}
	s.Render(w, r, status, "admin", v)
}

// adminNotices are what the admin page says after each action.
var adminNotices = map[string]string{
	string(retwis.Suspend):     "The account is suspended: its posts are hidden and its sessions ended.",
	string(retwis.Unsuspend):   "The account is no longer suspended.",
	string(retwis.DeletePost):  "The post is deleted.",
	string(retwis.CloseReport): "The report is closed.",
}
