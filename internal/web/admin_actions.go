package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// adminAct serves one of the admin page's forms: act does it, on the
// word of the moderator, with the form's reason; done, 303 to /admin
// saying so; refused, the page again with the reason (4xx), nothing
// changed.
func (s *Server) adminAct(action retwis.Action, act func(ctx context.Context, by retwis.Actor, r *http.Request, reason string) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, _ := middleware.ViewerFrom(r.Context())
		status, err := page.ParseForm(w, r)
		if err == nil {
			err = act(r.Context(), retwis.ModeratorActor(u), r, r.PostFormValue("reason"))
		}
		if err == nil {
			http.Redirect(w, r, "/admin?done="+string(action), http.StatusSeeOther)
			return
		}
		if status, ok := s.FormRefused(w, r, status, err); ok {
			s.renderAdmin(w, r, status, retwis.ErrorMessage(err))
		}
	}
}

// adminSuspend serves POST /admin/suspend (user, reason).
func (s *Server) adminSuspend(ctx context.Context, by retwis.Actor, r *http.Request, reason string) error {
	u, err := s.Store.UserByName(ctx, strings.TrimPrefix(r.PostFormValue("user"), "@"))
	if err != nil {
		return err
	}
	return s.Store.Suspend(ctx, by, u.ID, reason)
}

// adminUnsuspend serves POST /admin/unsuspend (user, reason).
func (s *Server) adminUnsuspend(ctx context.Context, by retwis.Actor, r *http.Request, reason string) error {
	u, err := s.Store.UserByName(ctx, strings.TrimPrefix(r.PostFormValue("user"), "@"))
	if err != nil {
		return err
	}
	return s.Store.Unsuspend(ctx, by, u.ID, reason)
}

// adminDeletePost serves POST /admin/delete-post (post, reason).
func (s *Server) adminDeletePost(ctx context.Context, by retwis.Actor, r *http.Request, reason string) error {
	pid, err := page.PostNumber(r.PostFormValue("post"), "The post")
	if err == nil && pid == 0 {
		err = retwis.Errorf(retwis.Invalid, "Say which post to delete.")
	}
	if err != nil {
		return err
	}
	return s.Store.RemovePost(ctx, by, pid, reason)
}

// adminCloseReport serves POST /admin/reports/close (id, reason).
func (s *Server) adminCloseReport(ctx context.Context, by retwis.Actor, r *http.Request, reason string) error {
	return s.Store.CloseReport(ctx, by, r.PostFormValue("id"), reason)
}
