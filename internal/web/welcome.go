package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
	"github.com/retwis/retwis/internal/web/page"
)

// welcomeError shows the welcome page with what was wrong with a login or
// sign-up form; status 0 means "from the error's kind".
func (s *Server) welcomeError(w http.ResponseWriter, r *http.Request, status int, name string, err error) {
	if status == 0 {
		status = middleware.StatusOf(err)
	}
	s.MW.LogFailure(r, status, err)
	middleware.SetRetryAfter(w, err)
	if len(name) > 64 {
		name = "" // don't echo back junk
	}
	s.renderWelcome(w, r, status, page.View{Title: "Welcome", Error: retwis.ErrorMessage(err), Username: name,
		Next: localPath(r.PostFormValue("next"))})
}

// renderWelcome renders the welcome page, with the instance's rules
// above the sign-up form (without them if they cannot be read).
func (s *Server) renderWelcome(w http.ResponseWriter, r *http.Request, status int, v page.View) {
	var err error
	if v.Rules, err = s.Store.Rules(r.Context()); err != nil {
		s.Log.Warn("rules", "err", err)
	}
	s.Render(w, r, status, "welcome", v)
}
