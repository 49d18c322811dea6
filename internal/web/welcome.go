package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// welcomeError shows the welcome page with what was wrong with a login or
// sign-up form; status 0 means "from the error's kind".
func (s *Server) welcomeError(w http.ResponseWriter, r *http.Request, status int, name string, err error) {
	if status == 0 {
		status = middleware.StatusOf(err)
	}
	s.mw.LogFailure(r, status, err)
	middleware.SetRetryAfter(w, err)
	if len(name) > 64 {
		name = "" // don't echo back junk
	}
	s.render(w, r, status, "welcome", view{Title: "Welcome", Error: retwis.ErrorMessage(err), Username: name,
		Next: localPath(r.PostFormValue("next"))})
}
