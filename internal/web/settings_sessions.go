package web

import (
	"context"
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/store/accounts"
	"github.com/retwis/retwis/internal/web/page"
)

// listSessions serves GET /settings/sessions: the viewer's sessions,
// this browser's marked, and their apps and API tokens, each with when
// it was last used and a button to end it; and a button to log out
// everywhere.
func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	s.showSessions(w, r, http.StatusOK, nil)
}

// showSessions renders the sessions page with status, and err as the
// reason a form was refused.
func (s *Server) showSessions(w http.ResponseWriter, r *http.Request, status int, err error) {
	u, _ := middleware.ViewerFrom(r.Context())
	sessions, lerr := s.Store.Sessions(r.Context(), u.ID)
	var tokens []retwis.Token
	if lerr == nil {
		tokens, lerr = s.Store.Tokens(r.Context(), u.ID)
	}
	if lerr != nil {
		s.MW.Fail(w, r, lerr)
		return
	}
	pv := page.View{Title: "Sessions", Viewer: &u, Sessions: page.SessionsView{Sessions: sessions,
		Current: accounts.SessionID(page.SessionCredential(r)),
		Tokens:  page.TokensView{Tokens: tokens, End: "/settings/sessions/end", Button: "End"}}}
	if err != nil {
		pv.Error = retwis.ErrorMessage(err)
	}
	s.Render(w, r, status, "sessions", pv)
}

// endSession serves POST /settings/sessions/end: with all, every
// session of the viewer ends, this one too ("log out everywhere": the
// cookie is cleared, 303 to /; API tokens stay); with id, the session or
// API token it names ends (303 back to the page, or to / when it was
// this browser's session). An id that names neither: 4xx with the
// reason, and nothing ends.
func (s *Server) endSession(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := page.ParseForm(w, r)
	all, id := r.PostFormValue("all") != "", r.PostFormValue("id")
	if err == nil && all {
		err = s.Store.EndSessions(r.Context(), u.ID, "")
	} else if err == nil {
		err = s.endOne(r.Context(), u.ID, id)
	}
	if err != nil {
		if status, ok := s.FormRefused(w, r, status, err); ok {
			s.showSessions(w, r, status, err)
		}
		return
	}
	if all || id == accounts.SessionID(page.SessionCredential(r)) {
		s.ClearAuthCookie(w, r)
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/settings/sessions", http.StatusSeeOther)
}

// endOne ends uid's session, or else API token, with the given ID.
func (s *Server) endOne(ctx context.Context, uid int64, id string) error {
	err := s.Store.EndSession(ctx, uid, id)
	if retwis.ErrorKind(err) == retwis.NotFound {
		err = s.Store.RevokeToken(ctx, uid, id)
	}
	switch retwis.ErrorKind(err) {
	case retwis.Invalid, retwis.NotFound:
		return retwis.Errorf(retwis.ErrorKind(err), "There is no such session or token: it may have ended already.")
	}
	return err
}
