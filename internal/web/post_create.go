package web

import (
	"net/http"

	"github.com/retwis/retwis"
	"github.com/retwis/retwis/internal/middleware"
)

// createPost serves POST /post: publish a status update and go home. A
// refused post shows the home page again with the reason and the text kept.
// The form's idempotency key makes a resent form (a reload after a lost
// answer) publish once.
func (s *Server) createPost(w http.ResponseWriter, r *http.Request) {
	u, _ := middleware.ViewerFrom(r.Context())
	status, err := parseForm(w, r)
	if err == nil {
		_, err = s.store.CreatePostOnce(r.Context(), u.ID, r.PostFormValue("status"), r.PostFormValue("idempotency_key"))
	}
	if err != nil {
		if status == 0 {
			status = middleware.StatusOf(err)
		}
		if status >= 500 {
			s.mw.Fail(w, r, err)
			return
		}
		draft := r.PostFormValue("status")
		if len(draft) > 4*retwis.MaxStatusLen {
			draft = ""
		}
		s.renderHome(w, r, u, retwis.Cursor{}, status, view{Error: retwis.ErrorMessage(err), Draft: draft})
		return
	}
	http.Redirect(w, r, "/", http.StatusSeeOther)
}
